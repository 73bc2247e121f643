"""RL607: a guide command judged for the hardware its section is written for.

It is long because telling which hardware a guide section is about (taxonomy words,
generations, brands, platforms) and judging its commands for that hardware are one rule,
RL607.

A guide groups its commands under headings and paragraphs such as "## AMD MI355X" or
"### On Blackwell". A command there is meant for that hardware, so what it selects is
judged for it as RL370-RL373 judge a recipe's commands (recipelint.rules.backends:
attention and MoE backends, quantization methods, per platform and vLLM release), and
the image it runs is judged against the image the compiler gives that hardware
(recipelint.resolve.docker). A section names hardware through the taxonomy: a profile's
id or display name, a generation, a brand, or a platform (CUDA, ROCm). A section naming
hardware of several brands, or none, judges nothing here.
"""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from recipelint.flags.catalog import Catalog as FlagCatalog
from recipelint.flags.catalog import newest_catalog
from recipelint.jsvalue import get
from recipelint.read.load import Document
from recipelint.resolve import layers
from recipelint.resolve.docker import docker_meta, split_image
from recipelint.resolve.hardware import generation_of
from recipelint.resolve.plan import SYNTHESIS_ERRORS
from recipelint.rules import backends, resolved
from recipelint.rules.backends import (
    ATTENTION,
    ATTENTION_ENV,
    BACKEND_ENV,
    BRAND_PLATFORMS,
    MOE_KIND,
    QUANTIZATION_KIND,
    BackendChoice,
    Target,
    Verdict,
    judge,
    target_of,
)
from recipelint.rules.common import ArgList, Pointer, arg_units, as_dict, guide_text
from recipelint.rules.context import CheckContext
from recipelint.rules.guide import GUIDE_FACTS, HARDWARE_SECTION, GuideFacts, guide_facts
from recipelint.rules.guide_flags import guide_release
from recipelint.rules.guide_markdown import SHELL, Block
from recipelint.rules.guide_shell import INLINE_CODE, GuideCommand, Token, guide_commands_in
from recipelint.rules.registry import Finding, check

# Words of a guide that can make RL607 find anything: without one, the guide is not read.
SELECTING_TEXT = re.compile(
    rf"--(?:attention[-_]backend|attention[-_]config|moe[-_]backend|quantization)|\s-q[\s=]|{BACKEND_ENV}"
)
# SELECTING_TEXT's long options: each starts with one of these, looked for as plain text.
SELECTING_OPTION = re.compile(r"--(?:attention[-_]backend|attention[-_]config|moe[-_]backend)")
OPTION_STARTS = ("--attention", "--moe")
IMAGE_TEXT = "vllm/vllm-"
HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)[ \t]*#*[ \t]*$", re.MULTILINE)
ENV_SELECTION = re.compile(rf"\b{BACKEND_ENV}=[\"']?([\w-]+)")
# A hardware word stands alone or follows a count: "8xH200", "2× MI300X".
BEFORE, AFTER = r"(?:(?<![A-Za-z0-9_])|(?<=\d[x×]))", r"(?![A-Za-z0-9_])"


@dataclass(frozen=True)
class Named:
    """Hardware a word of the guide names, and how specifically."""

    rank: int  # 0: a profile (id or display name), 1: a generation, 2: a brand or platform
    members: frozenset[str]


class HardwareWords:
    """The words of a taxonomy that name hardware, found in a text by one scan."""

    def __init__(self, profiles: dict[str, Any], taxonomy: Any):
        self.profiles = profiles
        words: dict[str, Named] = {}
        for hw_id, profile in profiles.items():
            for word in (hw_id, get(profile, "display_name")):
                _add(words, word, 0, hw_id)
            for word in (*_generations(profile), *_architecture_words(profile)):
                _add(words, word, 1, hw_id)
            brand = get(profile, "brand")
            if isinstance(brand, str):
                _add(words, brand, 2, hw_id)
                platform = BRAND_PLATFORMS.get(brand)
                if platform is not None:
                    _add(words, platform, 2, hw_id)
        # A word the taxonomy also uses for something else ("CPU offload") may or may not
        # mean hardware: it names none, but a text holding it decides nothing either.
        other_words = _non_hardware_words(taxonomy)
        self.unclear = {word for word, named in words.items() if named.rank and word in other_words}
        self.words = words
        self._named: dict[str, frozenset[str] | None] = {}
        ordered = sorted(words, key=lambda word: (-len(word), word))
        self.pattern = (
            re.compile(
                BEFORE + "(" + "|".join(map(re.escape, ordered)) + ")" + AFTER, re.IGNORECASE
            )
            if ordered
            else None
        )

    def named(self, text: str) -> frozenset[str] | None:
        """The profiles a text names, by its most specific words; empty when it names none,
        None when it holds only words that may or may not mean hardware.

        A guide's headings are asked again for every command below them: each text is read once.
        """
        if text not in self._named:
            self._named[text] = self._read(text)
        return self._named[text]

    def _read(self, text: str) -> frozenset[str] | None:
        if self.pattern is None:
            return frozenset()
        plain = INLINE_CODE.sub(" ", text)
        if plain.isascii() and not self._may_hold_a_word(plain.lower()):
            return frozenset()
        found: dict[int, set[str]] = {}
        unclear = False
        for match in self.pattern.finditer(plain):
            word = match.group(1).lower()
            named = self.words.get(word)
            if named is None:
                continue  # matched by a case folding lower() does not reproduce
            if named.rank == 2 and match.string.startswith("/", match.end()):
                continue  # an organisation's repository (`nvidia/…`), not its hardware
            if word in self.unclear:
                unclear = True
                continue
            found.setdefault(named.rank, set()).update(named.members)
        if found:
            return frozenset(found[min(found)])
        return None if unclear else frozenset()

    def _may_hold_a_word(self, lowered: str) -> bool:
        """Whether an ASCII text, lowercased, holds some word as a substring: the pattern's
        scan tries every word at every character, and most texts name no hardware. A match
        counts only when its lowercase is a word, and in ASCII that is the text's lowercase
        at the same place (beyond ASCII, case folding and lower() differ: the text is scanned)."""
        return any(word in lowered for word in self.words)

    def brands(self, members: Iterable[str]) -> set[Any]:
        return {get(self.profiles.get(hw_id), "brand") for hw_id in members}


def _add(words: dict[str, Named], word: Any, rank: int, hw_id: str) -> None:
    if not isinstance(word, str) or len(word.strip()) < 2:
        return
    key = word.strip().lower()
    found = words.get(key)
    if found is None or found.rank > rank:
        words[key] = Named(rank, frozenset({hw_id}))
    elif found.rank == rank:
        words[key] = Named(rank, found.members | {hw_id})


def _architecture_words(profile: Any) -> Iterator[str]:
    """How guides write the architecture vLLM sees (`SM100`, `sm_120`, `gfx942`), from the
    profile's compute_arch or the CUDA capabilities its generation reports (backends.target_of)."""
    arch = get(profile, "compute_arch")
    if isinstance(arch, str) and arch.lower().startswith("gfx"):
        yield arch
    target = target_of(profile)
    for major, minor in target.capabilities if target is not None else ():
        yield from (f"sm{major}{minor}", f"sm_{major}{minor}")


def _generations(profile: Any) -> list[str]:
    gen = get(profile, "generation")
    if not isinstance(gen, (str, list)):
        gen = get(profile, "gpu_generation")
    return [g for g in (gen if isinstance(gen, list) else [gen]) if isinstance(g, str)]


def _non_hardware_words(taxonomy: Any) -> set[str]:
    """Words the taxonomy uses for things other than hardware ("CPU offload"): such a
    word in a heading does not say the section is for hardware."""
    words: set[str] = set()
    for key, section in as_dict(taxonomy).items():
        if key == "hardware_profiles":
            continue
        for name, entry in as_dict(section).items():
            for text in (name, get(entry, "display_name")):
                if isinstance(text, str):
                    words.update(re.findall(r"[a-z0-9]+", text.lower()))
    return words


@dataclass(frozen=True)
class Section:
    """The hardware a guide command is written for, and the text that says so."""

    title: str
    members: frozenset[str]


class GuideOutline:
    """Headings and paragraphs of one guide: which section each line is in."""

    def __init__(self, text: str, blocks: tuple[Block, ...], words: HardwareWords):
        self.text, self.lines = text, text.split("\n")
        self.blocks = blocks
        self.words = words

    @functools.cached_property
    def _block_lines(self) -> tuple[list[int], list[int]]:
        """(first code line, line after the last) of each block, in order."""
        starts = [block.line for block in self.blocks]
        ends = [block.line + block.code.count("\n") + 1 for block in self.blocks]
        return starts, ends

    def fence_of(self, line: int) -> int | None:
        """The opening fence line of the block ``line`` is in (1-based), if any."""
        starts, ends = self._block_lines
        index = bisect.bisect_right(starts, line) - 1
        return starts[index] - 1 if index >= 0 and line < ends[index] else None

    @functools.cached_property
    def headings(self) -> list[tuple[int, int, str]]:
        """(line, level, title) of each heading outside the blocks, in order.

        HEADING matches within one line (no part of it crosses a "\n"), and only on a line
        holding "#": those lines are matched one by one, not the whole guide scanned.
        """
        found = []
        for index, line in enumerate(self.lines):
            match = HEADING.match(line) if "#" in line else None
            if match is not None and self.fence_of(index + 1) is None:
                found.append((index + 1, len(match.group(1)), match.group(2)))
        return found

    def section(self, line: int) -> Section | None:
        """The hardware of the paragraph before line's block (or line's own paragraph), else
        of the innermost heading above it that names any; None when none names hardware or
        the deciding text names hardware of several brands."""
        for title in self._context(line):
            members = self.words.named(title)
            if members is None:
                return None
            if members:
                if len(self.words.brands(members)) != 1:
                    return None
                return Section(_shortened(title.strip()), members)
        return None

    def _context(self, line: int) -> Iterator[str]:
        fence = self.fence_of(line)
        yield self._paragraph_before(fence) if fence is not None else self.lines[line - 1]
        level = 7
        # A heading on the line itself (a command written in it) is the innermost: the
        # headings above count only as its parents, not its earlier siblings.
        for number, depth, title in reversed(self.headings):
            if number <= line and depth < level:
                level = depth
                yield title

    def _paragraph_before(self, fence: int) -> str:
        index = fence - 2  # 0-based index of the line above the fence
        while index >= 0 and not self.lines[index].strip():
            index -= 1
        found: list[str] = []
        while index >= 0:
            text = self.lines[index]
            if not text.strip() or HEADING.match(text) or text.lstrip().startswith(("```", "~~~")):
                break
            found.append(text)
            index -= 1
        return " ".join(reversed(found))


def _shortened(title: str, limit: int = 60) -> str:
    """A heading as it is, a paragraph's first words: enough for a reader to find it."""
    return title if len(title) <= limit else title[:limit].rsplit(" ", 1)[0] + " …"


@dataclass(frozen=True)
class Images:
    """Each image repository the compiler gives some hardware, with the brands it gives it to."""

    brands: dict[str, frozenset[str]]
    platforms: dict[str, frozenset[str]]  # the vLLM platforms of the hardware given it
    pattern: re.Pattern[str] | None

    @classmethod
    def of(cls, profiles: dict[str, Any]) -> Images:
        brands: dict[str, set[str]] = {}
        platforms: dict[str, set[str]] = {}
        for profile in profiles.values():
            brand = get(profile, "brand")
            repository = _default_repository(profile)
            if isinstance(brand, str) and repository:
                brands.setdefault(repository, set()).add(brand)
                target = target_of(profile)
                if target is not None:
                    platforms.setdefault(repository, set()).add(target.platform)
        ordered = sorted(brands, key=lambda repo: (-len(repo), repo))
        pattern = (
            re.compile(
                r"(?<![\w./-])(" + "|".join(map(re.escape, ordered)) + r")(?::[\w.-]+)?(?![\w/-])"
            )
            if ordered
            else None
        )
        return cls(
            {repo: frozenset(found) for repo, found in brands.items()},
            {repo: frozenset(found) for repo, found in platforms.items()},
            pattern,
        )

    def brands_of(self, lines: tuple[tuple[int, str], ...]) -> frozenset[str] | None:
        """The brands the image a command's lines run is given to; None: no known image."""
        for _number, text in lines:
            found = self.pattern.search(text) if self.pattern is not None else None
            if found is not None:
                return self.brands[found.group(1)]
        return None


def _default_repository(profile: Any) -> str:
    image = docker_meta({}, {}, profile, None).image
    return split_image(image)[0] if isinstance(image, str) else ""


class Run:
    """What RL607 reads once per run: the taxonomy's hardware words, images and targets."""

    def __init__(self, ctx: CheckContext):
        self.ctx = ctx
        self.inputs = ctx.render_inputs
        taxonomy = ctx.tree.taxonomy.data if ctx.tree.taxonomy is not None else None
        self.profiles = ctx.profiles
        self.words = HardwareWords(self.profiles, taxonomy)
        self.images = Images.of(self.profiles)
        self.flags: FlagCatalog = newest_catalog()

    @functools.cached_property
    def targets(self) -> dict[str, Target | None]:
        return {hw_id: target_of(profile) for hw_id, profile in self.profiles.items()}


@check(HARDWARE_SECTION)
def guide_commands_for_hardware(ctx: CheckContext) -> Iterator[Finding]:
    """RL607: a guide command under a section for some hardware, judged for that hardware."""
    run: Run | None = None
    for doc in ctx.recipes:
        text = guide_text(doc)
        if not text or layers.is_omni(doc.data):
            continue  # an omni recipe is served through vLLM-Omni, which the catalogs do not describe
        selecting = _selects(text)
        if not selecting and IMAGE_TEXT not in text:
            continue  # most guides select nothing and run no vLLM image: they are not read
        run = run or Run(ctx)
        facts = guide_facts(ctx, text)
        outline = GuideOutline(text, facts.blocks, run.words)
        if selecting:
            yield from _placed_once(doc, _command_findings(doc, facts, outline, run))
        for found in _image_findings(facts, outline, run):
            yield found.placed(doc)
    ctx.handed_over.pop(GUIDE_FACTS, None)  # the guides RL607 did not read


def _selects(text: str) -> bool:
    """Whether SELECTING_TEXT matches in the text, by plain substring tests first: the
    pattern's scan tries its short option at every space of a guide."""
    if BACKEND_ENV in text or "--quantization" in text:
        return True
    if any(start in text for start in OPTION_STARTS) and SELECTING_OPTION.search(text):
        return True
    return _short_q(text)


def _short_q(text: str) -> bool:
    """Whether `-q` stands after whitespace and before whitespace or `=` (SELECTING_TEXT's
    short option)."""
    at = text.find("-q", 1)
    while at >= 0:
        after = text[at + 2 : at + 3]
        if after and (after.isspace() or after == "=") and text[at - 1].isspace():
            return True
        at = text.find("-q", at + 1)
    return False


def _placed_once(doc: Document, found: Iterable[Reported]) -> Iterator[Finding]:
    seen: set[tuple[int, int, str]] = set()
    for reported in found:
        key = (reported.line, reported.column, reported.message)
        if key not in seen:
            seen.add(key)
            yield reported.placed(doc)


@dataclass(frozen=True)
class Reported:
    """A finding in the guide text, before it is placed in the recipe."""

    line: int
    column: int
    length: int
    message: str
    hint: str

    def placed(self, doc: Document) -> Finding:
        end = self.column + self.length if self.length else None
        span = doc.scalar_line_span(("guide",), self.line - 1, self.column, end)
        return Finding(doc, ("guide",), self.message, self.hint, code=HARDWARE_SECTION, span=span)


def _command_findings(
    doc: Document, facts: GuideFacts, outline: GuideOutline, run: Run
) -> Iterator[Reported]:
    release = guide_release(as_dict(doc.data))
    confined = Confinement(run, doc)
    for command in _selecting_commands(facts):
        if not command.lines or not _may_select(command):
            continue
        selections = list(_guide_selections(doc, command, run.flags))
        section = outline.section(command.lines[0][0]) if selections else None
        for selection, written in selections:
            verdict = _refused_everywhere(selection, section, run, release) if section else None
            if verdict is not None:
                yield _selection_finding(selection, section, verdict, run, written)
                continue
            found = confined.beyond(
                selection,
                section,
                _command_model(command.words),
                run.images.brands_of(command.lines) if command.via_image else None,
            )
            if found is not None:
                yield _confined_finding(selection, section, found, written)


# Characters other than "\n" that str.splitlines() breaks lines at: where a guide holds one,
# a block's line numbers (splitlines) and the guide's lines (split("\n")) may disagree.
OTHER_LINE_BREAKS = re.compile("[\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")


def _selecting_commands(facts: GuideFacts) -> Iterable[GuideCommand]:
    """The guide's commands, but those of the blocks in which nothing selects (facts.commands
    in order, but the commands _may_select refuses anyway): most blocks select nothing, and
    reading their commands is most of RL607's work.

    A command's lines are lines of its block, each a block line with the margin put back,
    so a block whose code (after a line break, as the line's margin would give it) holds no
    selecting text holds no command that selects. Prose commands are read on the lines no
    block fences, whichever blocks are read.
    """
    if OTHER_LINE_BREAKS.search(facts.text):
        return facts.commands  # a block's lines may not be the guide's lines of that number
    read: list[Block] = []
    skipped: set[int] = set()
    for block in facts.blocks:
        if _selects("\n" + block.code):
            read.append(block)
        else:
            count = block.code.count("\n") + 1
            skipped.update(range(block.line - 1, block.line + count + 1))
    commands = guide_commands_in(facts.text, tuple(read), facts.spans)
    return [command for command in commands if not _in(command, skipped)]


def _in(command: GuideCommand, lines: set[int]) -> bool:
    return bool(command.lines) and command.lines[0][0] in lines


def _may_select(command: GuideCommand) -> bool:
    return any(_selects(text) for _number, text in command.lines)


def _guide_selections(
    doc: Document, command: GuideCommand, flags: FlagCatalog
) -> Iterator[tuple[BackendChoice, Token]]:
    """What a guide command selects, each with the word of the guide that selects it."""
    items: list[Any] = list(command.words)
    listed = ArgList(doc, layers.BASE_ARGS.layer_at(items), arg_units(items))
    for selection in backends._arg_selections(flags, listed):
        yield selection, command.args[int(selection.pointer[-1])]
    for number, text in command.lines:
        for match in ENV_SELECTION.finditer(text):
            spelled = f"{BACKEND_ENV}={match.group(1)}"
            chosen = BackendChoice(ATTENTION_ENV, match.group(1), doc, ("guide",), spelled)
            yield chosen, Token(spelled, number, match.start())


def _refused_everywhere(
    selection: BackendChoice, section: Section | None, run: Run, release: str
) -> Verdict | None:
    """The verdict when every hardware of the section refuses the selection (a section for
    a generation spans parts that may differ: only a refusal by all of them is sure)."""
    first: Verdict | None = None
    for hw_id in sorted(section.members if section else ()):
        target = run.targets.get(hw_id)
        if target is None:
            return None
        verdict = judge(selection, target, release)
        if verdict is None:
            return None
        first = first or verdict
    return first


def _hardware_names(section: Section, run: Run) -> str:
    names = [
        str(get(run.profiles.get(hw_id), "display_name") or hw_id)
        for hw_id in sorted(section.members)
    ]
    return ", ".join(dict.fromkeys(names[:4])) + (", …" if len(names) > 4 else "")


def _selection_finding(
    selection: BackendChoice,
    section: Section | None,
    verdict: Verdict,
    run: Run,
    written: Token,
) -> Reported:
    assert section is not None  # only a section's hardware refuses
    what = _what(selection)
    return Reported(
        *_at(written),
        f"the guide's command under “{section.title}” selects the {what} `{selection.name}` "
        f"(`{selection.spelled}`) for {_hardware_names(section, run)}, but in vLLM "
        f"{verdict.version} {verdict.reason}: it does not run there",
        f"choose another {what} that hardware supports, or put the command under a heading "
        "for the hardware it is meant for",
    )


def _image_findings(facts: GuideFacts, outline: GuideOutline, run: Run) -> Iterator[Reported]:
    """Images of the guide's shell blocks that the compiler gives no hardware of their section's brand."""
    pattern = run.images.pattern
    if pattern is None:
        return
    for block in facts.blocks:
        if block.language and block.language not in SHELL or IMAGE_TEXT not in block.code:
            continue
        section = outline.section(block.line)
        if section is None:
            continue
        brands = run.words.brands(section.members)
        end = min(block.line + block.code.count("\n"), len(outline.lines))
        for number in range(block.line, end + 1):
            for match in pattern.finditer(outline.lines[number - 1]):
                built_for = run.images.brands[match.group(1)]
                if built_for & brands:
                    continue
                yield _image_finding(match, number, section, run)


def _image_finding(match: re.Match[str], number: int, section: Section, run: Run) -> Reported:
    expected = sorted(
        {_default_repository(run.profiles.get(hw_id)) for hw_id in section.members} - {""}
    )
    return Reported(
        number,
        match.start(),
        len(match.group(0)),
        f"the guide runs `{match.group(0)}` under “{section.title}”, but that is the "
        f"{'/'.join(sorted(run.images.platforms.get(match.group(1), ())))} image, which "
        f"{_hardware_names(section, run)} does not run",
        f"use {' or '.join(f'`{repo}`' for repo in expected)} (the image the recipe's own "
        "commands use there), or put the command under a heading for the hardware it is meant for",
    )


def _at(written: Token) -> tuple[int, int, int]:
    """(line, column, length) of a word of the guide; a word not found as written is the whole line."""
    if written.column < 0:
        return written.line, 0, 0
    return written.line, written.column, len(written.text)


def _what(selection: BackendChoice) -> str:
    return {QUANTIZATION_KIND: "quantization method", MOE_KIND: "MoE backend"}.get(
        selection.kind, "attention backend"
    )


@dataclass(frozen=True)
class Beyond:
    """A selection the recipe confines to one generation, and the other hardware a guide
    command selecting it serves."""

    generation: str
    where: str  # a place of the recipe that selects it
    others: tuple[str, ...]


class Confinement:
    """Which generation the recipe's own lists confine a selection to (RL607's second question)."""

    def __init__(self, run: Run, doc: Document):
        self.run, self.doc = run, doc

    @functools.cached_property
    def written(self) -> list[BackendChoice]:
        return backends._written_selections(self.run.ctx, self.doc, self.run.flags)

    @functools.cached_property
    def hardware(self) -> list[str]:
        """Every hardware the recipe is rendered for."""
        try:
            return resolved.recipe_hardware(self.run.ctx, as_dict(self.doc.data))
        except SYNTHESIS_ERRORS:
            return []

    def beyond(
        self,
        selection: BackendChoice,
        section: Section | None,
        model: str | None,
        image_brands: frozenset[str] | None,
    ) -> Beyond | None:
        """Whether the command serves hardware beyond the generation the recipe confines the
        selection to: the section's hardware (the recipe's, without one), narrowed to the
        variants serving the command's checkpoint and to the brands its image is built for."""
        if selection.kind == QUANTIZATION_KIND:
            return None  # a method follows the checkpoint, which the command names
        scoped = self._generation(selection)
        if scoped is None:
            return None
        generation, where = scoped
        served = sorted(section.members) if section is not None else self.hardware
        serving = self._serving(model)
        if serving is not None:
            served = [hw_id for hw_id in served if hw_id in serving]
        if image_brands is not None:
            profiles = self.run.profiles
            served = [h for h in served if get(profiles.get(h), "brand") in image_brands]
        others = tuple(
            hw_id for hw_id in served if generation_of(self.run.profiles.get(hw_id)) != generation
        )
        return Beyond(generation, where, others) if others else None

    def _serving(self, model: str | None) -> set[str] | None:
        """The hardware of the variants serving checkpoint ``model``; None when none names it."""
        data = as_dict(self.doc.data)
        base = get(get(data, "model"), "model_id")
        found: set[str] | None = None
        for variant in as_dict(data.get("variants")).values():
            checkpoint = get(variant, "model_id") or base
            if not isinstance(checkpoint, str) or model is None:
                continue
            if checkpoint.lower() == model.lower():
                try:
                    hardware = self.run.ctx.variant_hardware(data, variant)[1]
                except SYNTHESIS_ERRORS:
                    return None
                found = (found or set()) | set(hardware)
        return found

    def _generation(self, selection: BackendChoice) -> tuple[str, str] | None:
        """(generation, a place) when every list of the recipe selecting it is for hardware
        of that one generation; None when one is not, or none selects it."""
        family = _family(selection)
        found: set[Any] = set()
        where = ""
        for written in self.written:
            if _family(written) != family:
                continue
            generations = self._generations_at(written.pointer[:-1])
            if generations is None:
                return None
            found |= generations
            where = where or ".".join(str(p) for p in written.pointer[:-1])
        if len(found) != 1:
            return None
        [generation] = found
        return (generation, where) if isinstance(generation, str) else None

    def _generations_at(self, pointer: Pointer) -> set[Any] | None:
        """The generations a list at ``pointer`` is rendered for; None: any hardware."""
        bound = resolved.bound_wildcards(pointer)
        if bound is None:
            return None
        profiles = self.run.profiles
        if layers.HARDWARE in bound:
            members = self.run.ctx.hardware_members(str(bound[layers.HARDWARE][1]))
            if members is None:
                return None
            return {generation_of(profiles.get(hw_id)) for hw_id in members}
        if layers.VARIANT in bound and not bound.keys() - {layers.VARIANT}:
            variant = get(get(self.doc.data, "variants"), bound[layers.VARIANT][1])
            try:
                hardware = self.run.ctx.variant_hardware(as_dict(self.doc.data), variant)[1]
            except SYNTHESIS_ERRORS:
                return None
            return {generation_of(profiles.get(hw_id)) for hw_id in hardware}
        return None


def _command_model(words: tuple[str, ...]) -> str | None:
    """The checkpoint a serve command names: its first word, or the value of --model."""
    if words and not words[0].startswith("-"):
        return words[0]
    for index, word in enumerate(words):
        if word.startswith("--model="):
            return word.split("=", 1)[1]
        if word == "--model" and index + 1 < len(words):
            return words[index + 1]
    return None


def _family(selection: BackendChoice) -> tuple[str, str]:
    """What a selection selects, however spelled (an attention backend by option or variable)."""
    kind = ATTENTION if selection.kind == ATTENTION_ENV else selection.kind
    return kind, selection.name.lower()


def _confined_finding(
    selection: BackendChoice, section: Section | None, beyond: Beyond, written: Token
) -> Reported:
    shown = ", ".join(beyond.others[:4]) + (", …" if len(beyond.others) > 4 else "")
    where = f"under “{section.title}”" if section is not None else "under no hardware heading"
    return Reported(
        *_at(written),
        f"the recipe selects the {_what(selection)} `{selection.name}` only for "
        f"{beyond.generation} hardware ({beyond.where}), but the guide's command {where} "
        f"that selects it also serves {shown}",
        f"put the command under a {beyond.generation} heading, or say which hardware it is for",
    )
