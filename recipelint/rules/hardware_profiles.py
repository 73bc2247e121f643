"""RL390–RL392: a hardware profile agrees with itself and with the other profiles.

A profile states its machine twice: in numbers (`gpu_count`, `vram_gb`, the node's total
accelerator memory) and in words (`display_name`, `description`: "141 GB HBM3e · 8-GPU
node"). The numbers drive what the builder offers and which variants fit; the words are
what a reader checks them against. RL390 holds the numbers to what the words state,
read conservatively: a figure the text does not state plainly is not compared. RL391
asks a single-GPU desktop, consumer or workstation profile to be `restricted` (offered
only to recipes that name it), which is the taxonomy's pattern for such machines.
RL392 reports two profiles describing the same machine.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from dataclasses import dataclass

from recipelint.diagnostics import Related
from recipelint.jsvalue import JsonValue
from recipelint.read.load import Document
from recipelint.rules.context import CheckContext
from recipelint.rules.registry import Finding, check

MEMORY_MISMATCH, UNRESTRICTED_DESKTOP, DUPLICATE_PROFILE = "RL390", "RL391", "RL392"

# Decimal and binary gigabytes differ by 7.4%; vendors round per-GPU figures.
MEMORY_TOLERANCE = 0.08
# How far around a figure its qualifiers are read ("4× " before, "HBM3e/GPU" after): a
# phrase, never the whole text, so a long description costs linear time.
_LOOK_BACK = 40

# --- what a description states ------------------------------------------------------------

_NUMBER = r"(\d{1,7}(?:\.\d{1,3})?)"
_UNIT_SCALE = {"gb": 1.0, "gib": 1.0, "tb": 1000.0, "tib": 1024.0}
# "141 GB", "80GB", "~180 GB", "1.5 TB"; "GB300" is a product name, not a size.
_MEMORY = re.compile(rf"(?<![\w.])~?{_NUMBER}\s*(GB|GiB|TB|TiB)\b(?P<after>[^·,;()+]*)", re.I)
# "4× 72 GB": the figure is per GPU, times the count before it.
_MULTIPLIED = re.compile(r"(?<![\w.])(\d{1,4})\s*[×x]\s*~?$", re.I)
_EACH = re.compile(
    r"(?:/\s*(?:GPU|chip|card|NPU|device)\b|\bper\s+(?:GPU|chip|card|NPU)\b|\beach\b)", re.I
)
_TOTAL = re.compile(r"\b(?:total|in all|aggregate|combined)\b", re.I)
# Memory that is not the accelerators' (a host's RAM, disks) says nothing about vram_gb:
# what follows the figure names it ("1 TB DDR5"), or the phrase before it ("2 Grace CPUs
# with 960 GB").
_NOT_ACCELERATOR = re.compile(
    r"\b(?:host|system|CPU|RAM|DRAM|DDR\d\w*|disk|SSD|NVMe|storage|cache)\b", re.I
)
_CPU_PHRASE = re.compile(r"\b(?:CPUs?|host|system)\b[^·,;()+]*$", re.I)

# "2× RTX 4090", "8x H100", "4× 72 GB": a multiplier before a model or a figure ("2x faster"
# is no count); a display name's trailing "8x" ("RTX Pro 6000 8x") counts too.
_MULTIPLIER = re.compile(r"(?<![\w.])(\d{1,4})\s*[×x]\s*(?=[A-Z0-9])")
_TRAILING_MULTIPLIER = re.compile(r"(?<![\w.])(\d{1,4})\s*[×x]\s*$", re.I)
_HYPHENATED = re.compile(r"(?<![\w.])(\d{1,4})-(?:GPU|card|chip|NPU|accelerator)s?\b", re.I)
# "4 GPUs", "4 Blackwell Ultra GPUs", "8 Trillium chips": a number starting a phrase. A
# number after a word is a model's ("Gaudi 2 accelerators"), and one before a singular
# noun too ("RTX 4090 GPU"), so only plurals count, and "1 GPU".
_COUNTED_NOUNS = (
    re.compile(
        r"(?<![\w.])(\d{1,4})\s+(?:[A-Z][\w-]*\s+){0,2}(?:GPUs|cards|chips|NPUs|accelerators)\b"
    ),
    re.compile(r"(?<![\w.])(1)\s+(?:GPU|card|chip|NPU|accelerator)\b", re.I),
)
_PHRASE_START = re.compile(r"(?:^|[^\w\s.]|\b(?:with|and|of|has|across|over))\s*$", re.I)
# "GB200 NVL4" names the profile's own unit in a display name; in a description an NVL
# figure is the rack the unit belongs to ("NVL72 tray unit").
_NVL = re.compile(r"\bNVL(\d{1,4})\b")


@dataclass(frozen=True)
class MemoryClaim:
    """A memory figure the text states, in GB, and how it relates to the GPUs."""

    text: str
    gb: float
    per_gpu: bool | None  # None: the text does not say whether it is per GPU or in total
    count: int | None = None  # "4× 72 GB": the count the figure is multiplied by

    def fits(self, vram: float, gpus: int) -> bool:
        per_gpu_total = self.gb * (self.count or gpus)
        if self.per_gpu is True:
            return _close(per_gpu_total, vram)
        if self.per_gpu is False:
            return _close(self.gb, vram)
        return _close(self.gb, vram) or _close(per_gpu_total, vram)


def _close(stated: float, actual: float) -> bool:
    return abs(stated - actual) <= max(1.0, MEMORY_TOLERANCE * stated)


def memory_claims(text: str) -> list[MemoryClaim]:
    """The accelerator-memory figures ``text`` states."""
    claims = []
    for match in _MEMORY.finditer(text):
        after = match.group("after")
        before = text[max(0, match.start() - _LOOK_BACK) : match.start()]
        if _NOT_ACCELERATOR.search(after[:_LOOK_BACK]) or _CPU_PHRASE.search(before):
            continue
        gb = float(match.group(1)) * _UNIT_SCALE[match.group(2).lower()]
        multiplied = _MULTIPLIED.search(before)
        if multiplied:
            claims.append(MemoryClaim(match.group(0).strip(), gb, True, int(multiplied.group(1))))
        elif _EACH.search(after[:_LOOK_BACK]):
            claims.append(MemoryClaim(match.group(0).strip(), gb, True))
        elif _TOTAL.search(after[:_LOOK_BACK]):
            claims.append(MemoryClaim(match.group(0).strip(), gb, False))
        else:
            claims.append(MemoryClaim(match.group(0).strip(), gb, None))
    return claims


def count_claims(display_name: str, description: str) -> dict[int, str]:
    """The GPU counts the words state, each with the phrase that states it."""
    found: dict[int, str] = {}

    def add(matches: Iterator[re.Match[str]], text: str, phrase_start: bool = False) -> None:
        for match in matches:
            before = text[max(0, match.start() - _LOOK_BACK) : match.start()]
            if not phrase_start or _PHRASE_START.search(before):
                found.setdefault(int(match.group(1)), match.group(0).strip())

    for text in (display_name, description):
        add(_MULTIPLIER.finditer(text), text)
        add(_HYPHENATED.finditer(text), text)
        for pattern in _COUNTED_NOUNS:
            add(pattern.finditer(text), text, phrase_start=True)
    add(_TRAILING_MULTIPLIER.finditer(display_name), display_name)
    add(_NVL.finditer(display_name), display_name)
    return found


# --- reading a profile ----------------------------------------------------------------------


@dataclass(frozen=True)
class Profile:
    """One hardware profile's fields, as far as they have the types the schema asks for."""

    hw_id: str
    data: dict[str, JsonValue]

    @property
    def gpus(self) -> int | None:
        value = self.data.get("gpu_count")
        return (
            value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None
        )

    @property
    def vram(self) -> float | None:
        value = self.data.get("vram_gb")
        if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0:
            return float(value)
        return None

    def text(self, key: str) -> str:
        value = self.data.get(key)
        return value if isinstance(value, str) else ""

    @property
    def generations(self) -> frozenset[str]:
        value = self.data.get("generation")
        items = value if isinstance(value, list) else [value]
        return frozenset(str(item).lower() for item in items if isinstance(item, str))


def _profiles(ctx: CheckContext) -> tuple[Document, list[Profile]] | None:
    taxonomy = ctx.tree.taxonomy
    if taxonomy is None or not taxonomy.usable or not ctx.in_focus(taxonomy):
        return None
    return taxonomy, [
        Profile(hw_id, profile)
        for hw_id, profile in ctx.profiles.items()
        if isinstance(profile, dict)
    ]


def _figure(value: float) -> str:
    return str(int(value)) if value == int(value) else f"{value:g}"


# --- RL390 ------------------------------------------------------------------------------------


@check(MEMORY_MISMATCH)
def memory_agrees_with_description(ctx: CheckContext) -> Iterator[Finding]:
    found = _profiles(ctx)
    if found is None:
        return
    taxonomy, profiles = found
    for profile in profiles:
        yield from _memory_mismatch(taxonomy, profile)


def _memory_mismatch(taxonomy: Document, profile: Profile) -> Iterator[Finding]:
    gpus, vram = profile.gpus, profile.vram
    if gpus is None or vram is None:
        return  # the schema stage reports a missing or mistyped figure
    where = ("hardware_profiles", profile.hw_id)
    counts = count_claims(profile.text("display_name"), profile.text("description"))
    stated = next(iter(counts)) if len(counts) == 1 else None  # several counts: unclear
    if stated is not None and stated != gpus:
        yield Finding(
            taxonomy,
            (*where, "gpu_count"),
            f"profile `{profile.hw_id}` has gpu_count {gpus}, but its words say "
            f"{stated} (`{counts[stated]}`)",
            f"set gpu_count to {stated} (and vram_gb to {stated} × the memory per GPU), "
            "or correct the display name and description",
            code=MEMORY_MISMATCH,
        )
    claims = memory_claims(profile.text("description"))
    if not claims or any(
        claim.fits(vram, count) for claim in claims for count in {gpus, stated or gpus}
    ):
        return
    yield Finding(
        taxonomy,
        (*where, "vram_gb"),
        f"profile `{profile.hw_id}` has vram_gb {_figure(vram)}, but its description states "
        f"{_stated_memory(claims[0], gpus)}",
        f"vram_gb is the node's total: {_expected_memory(claims[0], gpus)}; correct vram_gb, "
        "gpu_count or the description",
        code=MEMORY_MISMATCH,
    )


def _stated_memory(claim: MemoryClaim, gpus: int) -> str:
    if claim.per_gpu is False:
        return f"`{claim.text}` in total"
    return f"`{claim.text}` per GPU"


def _expected_memory(claim: MemoryClaim, gpus: int) -> str:
    count = claim.count or gpus
    if claim.per_gpu is False:
        return f"{_figure(claim.gb)}"
    return f"{_figure(claim.gb)} × {count} GPUs = {_figure(claim.gb * count)}"


# --- RL391 ------------------------------------------------------------------------------------

# Words that make a profile a desktop, consumer or workstation machine: its product line
# ("GeForce RTX 5090", "RTX PRO 6000") or what it says it is ("desktop workstation").
_DESKTOP = re.compile(
    r"\b(desktop|workstation|consumer|gaming|laptop|personal|GeForce|RTX|Radeon|Quadro|TITAN)\b",
    re.I,
)
# A card sold for servers ("RTX PRO 6000 Blackwell Server Edition") is not a desktop.
_SERVER = re.compile(r"\b(server|data\s?cent(?:er|re)|cloud|rack)\b", re.I)


def desktop_word(profile: Profile) -> str | None:
    """The word that makes the profile a desktop, consumer or workstation machine, if any."""
    words = " ".join(
        [profile.text("display_name"), profile.text("description"), *sorted(profile.generations)]
    )
    if _SERVER.search(words):
        return None
    match = _DESKTOP.search(words)
    return match.group(0) if match else None


@check(UNRESTRICTED_DESKTOP)
def desktop_profiles_are_restricted(ctx: CheckContext) -> Iterator[Finding]:
    found = _profiles(ctx)
    if found is None:
        return
    taxonomy, profiles = found
    for profile in profiles:
        word = desktop_word(profile)
        if profile.gpus != 1 or word is None or profile.data.get("restricted") is True:
            continue
        where = ("hardware_profiles", profile.hw_id)
        explicit = "restricted" in profile.data
        add = "set `restricted: true`" if explicit else "add `restricted: true`"
        if profile.data.get("scalable") is not False:
            add += " and `scalable: false` (unless linked units can serve one model together)"
        yield Finding(
            taxonomy,
            (*where, "restricted") if explicit else where,
            f"profile `{profile.hw_id}` is a single-GPU desktop or workstation machine "
            f"(`{word}`) but is not restricted: every recipe offers it, whether or not it was "
            "run there",
            f"{add}, as the taxonomy's other workstation profiles do; recipes validated on it "
            "list it in meta.hardware",
            at_key=not explicit,
            code=UNRESTRICTED_DESKTOP,
        )


# --- RL392 ------------------------------------------------------------------------------------

# A token naming a GPU model carries a digit ("H200", "MI300X", "5090", "B60"); counts
# ("8x", "NVL4") and memory figures ("141GB") are not models.
_MODEL_TOKEN = re.compile(r"[A-Za-z]*\d[\w.]*")
_NOT_MODEL = re.compile(r"^(?:\d+[x×]|NVL\d+|\d+(?:\.\d+)?(?:GB|GiB|TB)|\d+-\w+)$", re.I)


@functools.lru_cache(maxsize=4096)
def model_tokens(display_name: str) -> frozenset[str]:
    tokens = (token for token in re.split(r"[\s()/,·]+", display_name) if token)
    return frozenset(
        token.lower()
        for token in tokens
        if _MODEL_TOKEN.fullmatch(token) and not _NOT_MODEL.match(token)
    )


def _machine(profile: Profile) -> tuple[object, ...] | None:
    brand = profile.data.get("brand")
    if not isinstance(brand, str) or profile.gpus is None or profile.vram is None:
        return None
    return (brand.lower(), profile.generations, profile.gpus, profile.vram)


def _same_model(one: Profile, other: Profile) -> bool:
    mine, theirs = model_tokens(one.text("display_name")), model_tokens(other.text("display_name"))
    if mine and theirs:
        return bool(mine & theirs)
    names = (one.text("display_name").strip().lower(), other.text("display_name").strip().lower())
    return bool(names[0]) and names[0] == names[1]


@check(DUPLICATE_PROFILE)
def one_profile_per_machine(ctx: CheckContext) -> Iterator[Finding]:
    found = _profiles(ctx)
    if found is None:
        return
    taxonomy, profiles = found
    seen: dict[tuple[object, ...], list[Profile]] = {}
    for profile in profiles:
        machine = _machine(profile)
        if machine is None:
            continue
        alike = seen.setdefault(machine, [])
        earlier = next((other for other in alike if _same_model(other, profile)), None)
        if earlier is not None:
            yield _duplicate(taxonomy, profile, earlier)
        alike.append(profile)


def _duplicate(taxonomy: Document, profile: Profile, earlier: Profile) -> Finding:
    first = ("hardware_profiles", earlier.hw_id)
    return Finding(
        taxonomy,
        ("hardware_profiles", profile.hw_id),
        f"profile `{profile.hw_id}` describes the same machine as `{earlier.hw_id}` "
        f"({profile.text('display_name') or earlier.text('display_name')}, "
        f"{profile.gpus} GPUs, {_figure(profile.vram or 0)} GB): recipes split their "
        "hardware keys and badges between two ids",
        f"keep one of the two ids and use it in every recipe (merge what `{profile.hw_id}` "
        f"adds into `{earlier.hw_id}`)",
        at_key=True,
        code=DUPLICATE_PROFILE,
        related=(
            Related(
                taxonomy.path,
                taxonomy.key_span(first),
                f"`{earlier.hw_id}` describes the same machine",
                first,
            ),
        ),
    )
