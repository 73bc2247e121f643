"""RL607: a guide command judged for the hardware its section is written for.

A guide groups its commands under headings and paragraphs such as "## AMD MI355X" or
"### On Blackwell" (recipelint.rules.guide_sections reads which hardware a section is
for). A command there is meant for that hardware, so what it selects is judged for it as
RL370-RL373 judge a recipe's commands (recipelint.rules.backends: attention and MoE
backends, quantization methods, per platform and vLLM release), and the image it runs is
judged against the image the compiler gives that hardware (recipelint.resolve.docker). A
section naming hardware of several brands, or none, judges nothing here.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from recipelint.flags.catalog import Catalog as FlagCatalog
from recipelint.flags.catalog import newest_catalog
from recipelint.jsvalue import JsonValue, JsValue, get
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
from recipelint.rules.guide_sections import GuideOutline, HardwareWords, Section
from recipelint.rules.guide_shell import GuideCommand, Token, guide_commands_in
from recipelint.rules.registry import Finding, check

# Words of a guide that can make RL607 find anything: without one, the guide is not read.
SELECTING_TEXT = re.compile(
    rf"--(?:attention[-_]backend|attention[-_]config|moe[-_]backend|quantization)|\s-q[\s=]|{BACKEND_ENV}"
)
# SELECTING_TEXT's long options: each starts with one of these, looked for as plain text.
SELECTING_OPTION = re.compile(r"--(?:attention[-_]backend|attention[-_]config|moe[-_]backend)")
OPTION_STARTS = ("--attention", "--moe")
IMAGE_TEXT = "vllm/vllm-"
ENV_SELECTION = re.compile(rf"\b{BACKEND_ENV}=[\"']?([\w-]+)")


@dataclass(frozen=True)
class Images:
    """Each image repository the compiler gives some hardware, with the brands it gives it to."""

    brands: dict[str, frozenset[str]]
    platforms: dict[str, frozenset[str]]  # the vLLM platforms of the hardware given it
    pattern: re.Pattern[str] | None

    @classmethod
    def of(cls, profiles: dict[str, JsonValue]) -> Images:
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


def _default_repository(profile: JsonValue) -> str:
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
    items: list[JsonValue] = list(command.words)
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
        found: set[JsValue] = set()
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

    def _generations_at(self, pointer: Pointer) -> set[JsValue] | None:
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
