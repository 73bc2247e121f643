"""Which hardware a guide section is written for, and what its text says.

A guide groups its commands under headings and paragraphs such as "## AMD MI355X" or
"### On Blackwell". A section names hardware through the taxonomy: a profile's id or
display name, a generation, a brand, or a platform (CUDA, ROCm). RL607
(recipelint.rules.guide_hardware) judges a section's commands for its hardware; RL604-RL606
(recipelint.rules.guide) judge them on the build the recipe deploys on that hardware or the
build the section's own words ask for; RL405 (recipelint.rules.versions) leaves a version
requirement in a section about one hardware, feature or variant to that section.
"""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from recipelint.jsvalue import JsonValue, JsValue, get
from recipelint.rules.backends import BRAND_PLATFORMS, target_of
from recipelint.rules.common import as_dict
from recipelint.rules.context import CheckContext
from recipelint.rules.guide_markdown import Block
from recipelint.rules.guide_shell import INLINE_CODE

HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)[ \t]*#*[ \t]*$", re.MULTILINE)
# A hardware word stands alone or follows a count: "8xH200", "2× MI300X".
BEFORE, AFTER = r"(?:(?<![A-Za-z0-9_])|(?<=\d[x×]))", r"(?![A-Za-z0-9_])"


@dataclass(frozen=True)
class Named:
    """Hardware a word of the guide names, and how specifically."""

    rank: int  # 0: a profile (id or display name), 1: a generation, 2: a brand or platform
    members: frozenset[str]


class HardwareWords:
    """The words of a taxonomy that name hardware, found in a text by one scan."""

    def __init__(self, profiles: dict[str, JsonValue], taxonomy: object):
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

    def brands(self, members: Iterable[str]) -> set[JsValue]:
        return {get(self.profiles.get(hw_id), "brand") for hw_id in members}


def _add(words: dict[str, Named], word: object, rank: int, hw_id: str) -> None:
    if not isinstance(word, str) or len(word.strip()) < 2:
        return
    key = word.strip().lower()
    found = words.get(key)
    if found is None or found.rank > rank:
        words[key] = Named(rank, frozenset({hw_id}))
    elif found.rank == rank:
        words[key] = Named(rank, found.members | {hw_id})


def _architecture_words(profile: object) -> Iterator[str]:
    """How guides write the architecture vLLM sees (`SM100`, `sm_120`, `gfx942`), from the
    profile's compute_arch or the CUDA capabilities its generation reports (backends.target_of)."""
    arch = get(profile, "compute_arch")
    if isinstance(arch, str) and arch.lower().startswith("gfx"):
        yield arch
    target = target_of(profile)
    for major, minor in target.capabilities if target is not None else ():
        yield from (f"sm{major}{minor}", f"sm_{major}{minor}")


def _generations(profile: object) -> list[str]:
    gen = get(profile, "generation")
    if not isinstance(gen, (str, list)):
        gen = get(profile, "gpu_generation")
    return [g for g in (gen if isinstance(gen, list) else [gen]) if isinstance(g, str)]


def _non_hardware_words(taxonomy: object) -> set[str]:
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


def hardware_words(ctx: CheckContext) -> HardwareWords:
    """The taxonomy's words for hardware, which say what hardware a guide section is for."""
    taxonomy = ctx.tree.taxonomy.data if ctx.tree.taxonomy is not None else None
    return HardwareWords(ctx.profiles, taxonomy)


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

    def titles_above(self, line: int) -> list[str]:
        """The titles of the headings ``line`` is under, innermost first (a heading on the
        line itself is the innermost)."""
        found, level = [], 7
        for number, depth, title in reversed(self.headings):
            if number <= line and depth < level:
                level = depth
                found.append(title)
        return found

    def section_text(self, line: int) -> str | None:
        """The innermost headed section holding ``line``: its heading and every line up to
        the next heading (code blocks too: an image a block runs is the section's word).
        None above the first heading: the guide's opening speaks for the whole model."""
        numbers = [number for number, _depth, _title in self.headings]
        index = bisect.bisect_right(numbers, line)
        if index == 0:
            return None
        end = numbers[index] - 1 if index < len(numbers) else len(self.lines)
        return "\n".join(self.lines[numbers[index - 1] - 1 : end])

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


# What a section's words say its commands run on, past the recipe's own claim: a nightly
# image of the project (`vllm/vllm-tpu:nightly-20260330-2f76400`), nightly wheels, a build
# said to be nightly or not yet released.
NIGHTLY_IMAGE = re.compile(r"(?<![\w./-])vllm/[\w.-]+:nightly(?:-[\w.-]+)?(?![\w/-])")
NOT_NEGATED = r"(?<!\bnot\s)(?<!n't\s)(?<!\bno\s)"
NIGHTLY_WORDS = re.compile(
    r"\bnightly(?:\s+[\w-]+){0,2}?\s+(?:builds?|wheels?|images?|versions?|vllm)\b"
    rf"|{NOT_NEGATED}\b(?:needs?|requires?|required|ships?\s+in|(?:only\s+)?available\s+in|only\s+in)"
    r"\s+(?:(?:a|an|the|vllm)\s+)*nightly\b"
    r"|wheels\.vllm\.ai/nightly"
    r"|\b(?:not|isn't|is\s+not)\s+(?:yet\s+)?(?:been\s+)?released\b"
    r"|\bnot\s+yet\s+in\s+a\s+(?:vllm\s+)?release\b|\bunreleased\b",
    re.IGNORECASE,
)
# A link to a pull request of vLLM itself: the section runs what that change brings, in
# whichever build holds it, which the catalogs of releases may not know yet.
VLLM_PULL_REQUEST = re.compile(r"github\.com/vllm-project/vllm/pull/\d+")


def asks_for_unreleased(text: str) -> bool:
    """Whether a section's own words say its commands need a build past the releases: a
    nightly image, wheel or build, one not yet released, or a pull request of vLLM's."""
    return bool(
        NIGHTLY_IMAGE.search(text) or NIGHTLY_WORDS.search(text) or VLLM_PULL_REQUEST.search(text)
    )


HARDWARE_PART, FEATURE_PART, VARIANT_PART = "hardware", "feature", "variant"


def parts_named(title: str, words: HardwareWords, data: dict[str, JsonValue]) -> set[str]:
    """Which parts of the recipe a heading is about: hardware (a taxonomy word), one of the
    recipe's features, one of its variants; none for a heading about the model as a whole."""
    found = {HARDWARE_PART} if words.named(title) else set()
    if _names_feature(title, data):
        found.add(FEATURE_PART)
    if _names_variant(title, data):
        found.add(VARIANT_PART)
    return found


def _title_words(title: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", INLINE_CODE.sub(r" \1 ", title).lower())


# Words a feature's description shares with any heading: they say nothing of which feature.
COMMON_WORDS = frozenset(
    {"the", "and", "for", "with", "from", "via", "mode", "model", "support", "enable", "vllm"}
)


def _names_feature(title: str, data: dict[str, JsonValue]) -> bool:
    """A feature is named by its key's words, each starting a word of the title (`spec_decoding`
    in "Speculative Decoding"), by its first option (`--speculative-config`), or by two
    words of its description's opening phrase ("EAGLE3 speculative decoding")."""
    words = _title_words(title)
    for key, feature in as_dict(data.get("features")).items():
        parts = [p for p in re.split(r"[_\W]+", str(key).lower()) if len(p) >= 2]
        if parts and all(any(w.startswith(p) for w in words) for p in parts):
            return True
        args = [a for a in _list(get(feature, "args")) if isinstance(a, str)]
        if args and args[0].startswith("--") and args[0] in title:
            return True
        described = get(feature, "description")
        if isinstance(described, str):
            opening = re.split(r"[(:;,.—–]", described, maxsplit=1)[0]
            named = {w for w in _title_words(opening) if len(w) >= 3} - COMMON_WORDS
            if len(named & set(words)) >= min(2, len(named)) and named:
                return True
    return False


def _names_variant(title: str, data: dict[str, JsonValue]) -> bool:
    """A variant is named by its key (but `default`) or by the checkpoint it serves."""
    lowered = title.lower()
    for key, variant in as_dict(data.get("variants")).items():
        name = str(key).lower()
        if name != "default" and re.search(rf"(?<![a-z0-9]){re.escape(name)}(?![a-z0-9])", lowered):
            return True
        checkpoint = get(variant, "model_id")
        if isinstance(checkpoint, str) and checkpoint and checkpoint.lower() in lowered:
            return True
    return False


def _list(value: object) -> list[JsonValue]:
    return value if isinstance(value, list) else []
