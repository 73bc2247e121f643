"""Findings that were already there: fingerprints, baseline files, and new-versus-old.

A fingerprint names a finding by its cause, so that an edit above it, an item inserted
before it in a list, or a reworded message does not make an old finding look new: the
file's path inside the tree, the rule code, the document pointer without list indices,
the source text the finding stands on, and the words and releases its message names. A file
the change renamed is matched under its new name. Two findings with one fingerprint are matched by number: a pull request
that adds a third copy of a finding already present twice has one new finding.

Against a base revision, a new finding whose cause (the fingerprint without the document
pointer and the releases the message names: same file, code, text and named words; for a
finding that names the variants and hardware its cause reaches, file, code and text alone) already stands at the base repeats a
known problem: it is reported once per cause, as a notice naming where the
base has it, and does not fail the change. A duplicate key is reported at the occurrence
the change added, when that is the first one and the later one was already there.
"""

from __future__ import annotations

import contextlib
import difflib
import functools
import hashlib
import json
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from recipelint.atomicfile import write_atomic
from recipelint.diagnostics import Diagnostic, Related, Severity

BASELINE_VERSION = 1
# `models/x.yaml:124`, `line 12`, `lines 3-5`: where something else is, which moves with edits.
_LINE_REFERENCE = re.compile(r"(\.ya?ml|\.toml|\.json):\d+(:\d+)?|\blines? \d+(\s*[-–]\s*\d+)?")
# How many more places or combinations share a collapsed finding: changes with unrelated edits.
_COUNT = re.compile(
    r"\b\d+(?= (?:more|other|variants?|hardware|strateg(?:y|ies)|items?|"
    r"recipes?|combinations?|renderings?|places?)\b)"
)


# A list index in a pointer: `/base_args/3` is `/base_args/#`.
_INDEX = re.compile(r"/\d+(?=/|$)")
# What a message names, whatever its wording: a quoted or backticked word (a phrase such as
# `vllm serve` is wording), and release numbers.
_NAMED = re.compile(r"`[^`\s]+`|'[^'\s]+'|\b\d+\.\d+(?:\.\d+)*(?:\.?post\d+|rc\d+)?\b")
_RELEASE = re.compile(r"\d+\.\d+(?:\.\d+)*(?:\.?post\d+|rc\d+)?")
# The text under a span, at most this long (a span over a whole mapping says little more).
_SUBJECT_LIMIT = 200


def _subject(diag: Diagnostic) -> str:
    """The source text the finding stands on, stripped; empty when it cannot be read."""
    span = diag.span
    lines = _lines(diag.path)
    if span.line < 1 or span.line > len(lines):
        return ""
    if span.end_line not in (None, span.line) or span.end_column is None:
        return lines[span.line - 1][span.column - 1 :].strip()[:_SUBJECT_LIMIT]
    return lines[span.line - 1][span.column - 1 : span.end_column - 1].strip()[:_SUBJECT_LIMIT]


def _lines(path: Path) -> list[str]:
    try:
        stat = path.stat()
    except OSError:
        return []
    return _read_lines(path, stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=256)
def _read_lines(path: Path, mtime_ns: int, size: int) -> list[str]:
    del mtime_ns, size  # part of the cache key only: a rewritten file is read again
    try:
        return path.read_text(encoding="utf-8", errors="surrogateescape").split("\n")
    except OSError:
        return []


class BaselineError(Exception):
    """A baseline file that cannot be read or written."""


def normalised_message(message: str) -> str:
    return _COUNT.sub("N", _LINE_REFERENCE.sub(r"\1", message))


def tree_path(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return path.as_posix()


def pointer_text(pointer: Sequence[str | int]) -> str:
    """RFC 6901 JSON pointer."""
    return "".join("/" + str(part).replace("~", "~0").replace("/", "~1") for part in pointer)


# A base file's tree path -> its path after the change, for files the change renamed.
Renames = Mapping[str, str]
NO_RENAMES: Renames = {}


def _named_path(path: Path, root: Path, renamed: Renames) -> str:
    name = tree_path(path, root)
    return renamed.get(name, name)


def _named_words(diag: Diagnostic, root: Path, renamed: Renames, *, releases: bool = True) -> str:
    """The words and releases the message names (without ``releases``, the words alone); a
    renamed file's old id (`org/name` of `models/org/name.yaml`) read as its new one, as a
    message that names the file says it."""
    message = diag.message
    old = tree_path(diag.path, root)
    if old in renamed:
        for before, after in ((old, renamed[old]), (_recipe_id(old), _recipe_id(renamed[old]))):
            message = message.replace(before, after)
    named = set(_NAMED.findall(message))
    if not releases:
        named = {word for word in named if not _RELEASE.fullmatch(word)}
    return " ".join(sorted(named))


def _recipe_id(tree_file: str) -> str:
    return tree_file.removeprefix("models/").removesuffix(".yaml")


def _digest(parts: Sequence[str]) -> str:
    return hashlib.sha256("\0".join(parts).encode("utf-8", "surrogateescape")).hexdigest()[:20]


def legacy_fingerprint(diag: Diagnostic, root: Path) -> str:
    """The fingerprint baseline files written before fingerprints by cause hold."""
    return _digest(
        (
            tree_path(diag.path, root),
            diag.code,
            pointer_text(diag.pointer),
            normalised_message(diag.message),
        )
    )


def fingerprint(diag: Diagnostic, root: Path, renamed: Renames = NO_RENAMES) -> str:
    """The finding's cause: file, code, pointer shape, the text it stands on, and the
    releases and values its message names. List indices (an item inserted before it moves
    them) and the message's wording (reworded between releases of recipelint) are left out.
    A base file the change renamed is named as the change names it (``renamed``)."""
    return _digest(
        (
            _named_path(diag.path, root, renamed),
            diag.code,
            _INDEX.sub("/#", pointer_text(diag.pointer)),
            _subject(diag),
            _named_words(diag, root, renamed),
        )
    )


# Codes whose one finding gathers every variant and hardware a cause reaches, and names
# them: a change that adds a variant or a profile the cause reaches changes where the problem
# shows, not the problem (the replay's PRs 541/717/784 re-reported DeepSeek-V4-Flash's
# `--data-parallel-size 4` as new each time).
# RL341 lists the args an override drops: a change to the layer it replaces changes the list,
# not the override (PR 700 re-reported one that dropped a flag fewer). RL406 names the images
# the commands use beside the guide's: a change of those leaves the guide's mention as it was
# (PR 538 moved the commands from :nightly to :latest, neither the guide's :laguna).
EXTENT_CODES = frozenset({"RL341", "RL380", "RL381", "RL382", "RL383", "RL406"})

# Codes that name one problem by its effect on the strategies offered: a parallel flag outside
# the emitter multiplies the ranks of one (RL310) and is dropped by another (RL314). A change of
# the strategies moves the finding from one to the other (PR 411), it does not make one.
_SAME_CAUSE = {"RL314": "RL310"}


def cause(diag: Diagnostic, root: Path, renamed: Renames = NO_RENAMES) -> str | None:
    """The fingerprint without the pointer: the same problem wherever in the file it is
    written (a flag copied into a new variant). None when the text it stands on cannot be
    read: the code and the message alone would join unrelated findings. The releases the
    message names are left out: a change of min_vllm_version re-judges a problem the base had
    at another release (PRs 349, 790), it does not make one. Of a finding that names where
    its cause reaches (EXTENT_CODES), the text it stands on alone."""
    subject = _subject(diag)
    if not subject:
        return None
    named = "" if diag.code in EXTENT_CODES else _named_words(diag, root, renamed, releases=False)
    code = _SAME_CAUSE.get(diag.code, diag.code)
    return _digest((_named_path(diag.path, root, renamed), code, subject, named))


class Fingerprints(Counter[str]):
    """A base revision's fingerprint counts, where the base has each cause (`path:line` in
    the tree, the first place found), and the text of each of its YAML files by tree path
    (to tell the lines a change added from those it left)."""

    def __init__(self) -> None:
        super().__init__()
        self.places: dict[str, str] = {}
        self.texts: dict[str, str] = {}


# The duplicate-key finding: its two places are the same key written twice.
DUPLICATE_KEY = "RL002"


@dataclass
class Split:
    """Findings of the checked tree sorted into new ones and ones already known."""

    new: list[Diagnostic] = field(default_factory=list)
    known: list[Diagnostic] = field(default_factory=list)
    # Known fingerprints that matched nothing: fixed since, or moved.
    stale: Counter[str] = field(default_factory=Counter)


def split_known(found: Iterable[Diagnostic], root: Path, known: Counter[str]) -> Split:
    """Findings matched against known fingerprints by number; against a base revision's
    (Fingerprints), a new finding repeating a cause the base has becomes one notice."""
    remaining = Counter(known)
    split = Split()
    for diag in found:
        key = fingerprint(diag, root)
        if remaining[key] <= 0:
            key = legacy_fingerprint(diag, root)  # a baseline file written before
        if remaining[key] > 0:
            remaining[key] -= 1
            split.known.append(diag)
        else:
            split.new.append(diag)
    split.stale = +remaining
    if isinstance(known, Fingerprints):
        split.new = anchored_at_change(split.new, root, known.texts)
        split.new = repeats_noted(split.new, root, known.places)
    return split


def anchored_at_change(
    new: list[Diagnostic], root: Path, base_texts: dict[str, str]
) -> list[Diagnostic]:
    """New duplicate-key findings placed at the occurrence the change added: the loader
    reports the later one, which is the untouched line when the change wrote the key again
    above it."""
    return [
        _at_added_occurrence(diag, root, base_texts) if diag.code == DUPLICATE_KEY else diag
        for diag in new
    ]


def _at_added_occurrence(diag: Diagnostic, root: Path, base_texts: dict[str, str]) -> Diagnostic:
    base = base_texts.get(tree_path(diag.path, root))
    first = diag.related[0] if len(diag.related) == 1 else None
    if base is None or first is None or first.path != diag.path:
        return diag
    added = _added_lines(base.split("\n"), _lines(diag.path))
    if diag.span.line in added or first.span.line not in added:
        return diag
    said, _, _ = diag.message.rpartition(" (first defined at ")
    return replace(
        diag,
        span=first.span,
        message=f"{said or diag.message} (defined again at line {diag.span.line}, column "
        f"{diag.span.column}, a line this change left as it was)",
        related=(Related(diag.path, diag.span, "defined again here"),),
    )


def _added_lines(base: list[str], head: list[str]) -> set[int]:
    """The 1-based lines of ``head`` a change from ``base`` inserted or rewrote."""
    matcher = difflib.SequenceMatcher(None, base, head, autojunk=False)
    return {
        line + 1
        for tag, _b0, _b1, h0, h1 in matcher.get_opcodes()
        if tag in ("insert", "replace")
        for line in range(h0, h1)
    }


def repeats_noted(new: list[Diagnostic], root: Path, places: dict[str, str]) -> list[Diagnostic]:
    """New findings, those whose cause the base already has at ``places`` reported once per
    cause, as a notice naming that place: the change copies a known problem, it does not
    make one."""
    out: list[Diagnostic] = []
    first_of: dict[str, int] = {}  # cause -> where its notice is in ``out``
    copies: Counter[str] = Counter()
    for diag in new:
        key = cause(diag, root) if diag.severity > Severity.INFO else None
        if key is None or key not in places:
            out.append(diag)
            continue
        copies[key] += 1
        if key not in first_of:
            first_of[key] = len(out)
            out.append(diag)
    for key, at in first_of.items():
        times = f" in {copies[key]} places" if copies[key] > 1 else ""
        out[at] = replace(
            out[at],
            severity=Severity.INFO,
            message=f"{out[at].message} (a known problem: the base revision has it at "
            f"{places[key]}; this change repeats it{times})",
        )
    return out


def fingerprints(
    found: Iterable[Diagnostic], root: Path, renamed: Renames = NO_RENAMES
) -> Fingerprints:
    """Fingerprint counts of findings, with the first place each cause is found. A file the
    change renamed (``renamed``: base tree path -> new one) counts under its new name, so a
    rename alone makes nothing new."""
    counts = Fingerprints()
    counts.texts = {renamed.get(name, name): text for name, text in _texts(root).items()}
    for diag in found:
        counts[fingerprint(diag, root, renamed)] += 1
        key = cause(diag, root, renamed)
        if key is not None:
            counts.places.setdefault(key, f"{tree_path(diag.path, root)}:{diag.span.line}")
    return counts


def baseline_entries(found: Iterable[tuple[Diagnostic, Path]]) -> list[dict[str, Any]]:
    """Readable entries, sorted so that the file's diff in review shows what changed."""
    entries = [
        {
            "path": tree_path(diag.path, root),
            "code": diag.code,
            "pointer": pointer_text(diag.pointer),
            "message": normalised_message(diag.message),
            "fingerprint": fingerprint(diag, root),
        }
        for diag, root in found
    ]
    return sorted(entries, key=entry_order)


def baseline_text(
    found: Iterable[tuple[Diagnostic, Path]], kept: Iterable[dict[str, Any]] = ()
) -> tuple[str, int]:
    """The baseline file's text, and how many findings it records.

    ``kept`` are entries of an existing baseline for files this run did not check: they
    are written back unchanged, among the entries of ``found``.
    """
    entries = sorted([*baseline_entries(found), *kept], key=entry_order)
    document = {"recipelint-baseline": BASELINE_VERSION, "findings": entries}
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n", len(entries)


def entry_order(entry: dict[str, Any]) -> tuple[str, ...]:
    return tuple(str(entry.get(key, "")) for key in ("path", "code", "pointer", "message"))


def write_baseline(
    path: Path, found: Iterable[tuple[Diagnostic, Path]], kept: Iterable[dict[str, Any]] = ()
) -> int:
    text, count = baseline_text(found, kept)
    try:
        write_atomic(path, text.encode("utf-8"))  # a full disk keeps the earlier baseline whole
    except OSError as exc:
        raise BaselineError(f"cannot write the baseline {path}: {exc.strerror or exc}") from None
    return count


def read_baseline_entries(path: Path) -> list[dict[str, Any]]:
    """The entries of a baseline file, each checked to carry a fingerprint."""
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise BaselineError(f"cannot read the baseline {path}: {exc.strerror or exc}") from None
    except (ValueError, RecursionError) as exc:
        raise BaselineError(f"the baseline {path} is not JSON: {exc}") from None
    if not isinstance(document, dict):
        document = {}
    entries = document.get("findings")
    if document.get("recipelint-baseline") != BASELINE_VERSION or not isinstance(entries, list):
        raise BaselineError(
            f"{path} is not a recipelint baseline (write one with --write-baseline)"
        )
    for entry in entries:
        if not isinstance(entry, dict) or not isinstance(entry.get("fingerprint"), str):
            raise BaselineError(f"{path}: every entry needs a fingerprint string")
    return entries


def read_baseline(path: Path) -> tuple[Counter[str], dict[str, dict[str, Any]]]:
    """Fingerprint counts, and one readable entry per fingerprint for reporting stale ones."""
    counts: Counter[str] = Counter()
    described: dict[str, dict[str, Any]] = {}
    for entry in read_baseline_entries(path):
        key = entry["fingerprint"]
        counts[key] += 1
        described.setdefault(key, entry)
    return counts, described


def _texts(root: Path) -> dict[str, str]:
    """Each YAML file of a base tree by tree path: read before the base's copy is removed."""
    texts: dict[str, str] = {}
    for path in sorted(root.rglob("*.y*ml")):
        with contextlib.suppress(OSError, UnicodeDecodeError):
            texts[tree_path(path, root)] = path.read_text(encoding="utf-8")
    return texts
