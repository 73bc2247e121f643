"""`recipelint check --fix` / `--diff`: safe fixes as minimal text edits that keep everything else.

It is long because every autofixable code has its fixer here, sharing the text-edit
primitives and the re-read that verifies each fix; structural and typography fixes are their
own modules.

Token fixes (a flag's spelling, a repeated flag, an env value) are *text edits* at the exact
source positions the loader records for the finding's pointer (libyaml marks: start and end
of every node and key). Structural fixes, which rename or insert mapping keys, are written
by ruamel.yaml's round trip (:mod:`recipelint.fix.structural_fix`), kept to the lines of the
keys they touch. Either way a fixer also states the *intended change to the data*, and a
fix is applied only if re-reading the edited text with recipelint's own loader gives
exactly that data; every line outside the edited ones is untouched by construction.

Fixers are keyed by rule code; :data:`FIXERS` holds those of the rules the catalog marks
`autofix: true` (:data:`ALL_FIXERS` also those waiting for the catalog).
"""

from __future__ import annotations

import copy
import difflib
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ruamel.yaml.comments import CommentedMap

from recipelint import argv
from recipelint.atomicfile import StagedFile, stage_file, sweep_temporaries
from recipelint.configuration.config import Config, load_config
from recipelint.diagnostics import Diagnostic
from recipelint.fix.fixedit import (
    Edit,
    Fix,
    Pointer,
    Source,
    Transform,
    at,
    exists_at,
    remove_items,
    rename_in_place,
    replace_item_with_two,
    replace_scalar,
    same_data,
)
from recipelint.fix.structural_fix import (
    Allowed,
    Change,
    append_key,
    rename_key,
    rewrite,
    same_style,
)
from recipelint.fix.typography_fix import fix_typographic_lookalike
from recipelint.jsvalue import JsonValue, js_string
from recipelint.read.load import Document, parse_yaml
from recipelint.read.tree import RecipeTree, load_tree
from recipelint.resolve.layers import place_of
from recipelint.rulebook.catalog import rule_info
from recipelint.rules.common import arg_units, as_dict
from recipelint.rules.variants import spec_offers

MAX_PASSES = 10
BOM = "\ufeff"
RETIRED_FEATURE, FEATURE = "mtp", "spec_decoding"

# ---------------------------------------------------------------- argument lists


@dataclass(frozen=True)
class RawUnit:
    """A flag and its value as the rules index them: item positions in the raw list."""

    flag: str
    index: int
    value: Any = argv.NO_VALUE
    value_index: int | None = None


def raw_units(items: list[Any]) -> list[RawUnit]:
    """The rule checks' tokenisation (no falsy filter), so finding indices line up."""
    return [
        RawUnit(
            unit.flag,
            unit.index,
            argv.NO_VALUE if unit.value is None else unit.value,
            unit.value_index,
        )
        for unit in arg_units(items)
    ]


def _list_target(doc: Document, diag: Diagnostic) -> tuple[Pointer, int, list[Any]] | None:
    pointer = diag.pointer
    if not pointer or not isinstance(pointer[-1], int) or not exists_at(doc.data, pointer[:-1]):
        return None
    items = at(doc.data, pointer[:-1])
    if not isinstance(items, list) or not 0 <= pointer[-1] < len(items):
        return None
    if place_of(doc.kind, pointer[:-1]) is None:
        return None  # no command joins this list: the reasoning about layer boundaries below does not hold
    return pointer[:-1], pointer[-1], items


def boundaries_kept(old: list[Any], new: list[Any]) -> bool:
    """A list keeps its meaning inside any concatenation if its first unit stays a flag (or
    not) and its last unit stays bare (or not): those decide gluing across layers."""
    before, after = argv.parse(old), argv.parse(new)
    if not before or not after:
        return bool(before) == bool(after)
    return (before[0].is_positional == after[0].is_positional) and (
        before[-1].is_bare == after[-1].is_bare
    )


def _drops_one_overridden_unit(before: list[argv.Unit], after: list[argv.Unit]) -> bool:
    """`after` is `before` minus one flag unit that a later unit of the same flag overrides,
    so every concatenation of layers dedupes to the same command."""
    for index, unit in enumerate(before):
        rest = before[index + 1 :]
        if (
            unit.flag is not None
            and unit.flag in argv.flags(rest)
            and before[:index] + rest == after
        ):
            return True
    return False


def fix_duplicate_flag(doc: Document, diag: Diagnostic, source: Source) -> Fix | None:
    """RL301, exact repeats only: drop the *earlier* copy, which dedupe would drop anyway;
    the survivor stays where the compiled command has it."""
    target = _list_target(doc, diag)
    if target is None:
        return None
    list_pointer, index, items = target
    units = raw_units(items)
    later = next((u for u in units if u.index == index), None)
    earlier = [u for u in units if later and u.flag == later.flag and u.index < index]
    if later is None or not earlier or not same_data(earlier[-1].value, later.value):
        return None
    drop = earlier[-1]
    last = drop.value_index if drop.value_index is not None else drop.index
    kept = items[: drop.index] + items[last + 1 :]
    if not _drops_one_overridden_unit(argv.parse(items), argv.parse(kept)) or not boundaries_kept(
        items, kept
    ):
        return None
    edit = remove_items(source, list_pointer, drop.index, last)
    if edit is None:
        return None

    def transform(data: Any) -> None:
        del at(data, list_pointer)[drop.index : last + 1]

    return Fix(diag.code, diag.pointer, (edit,), transform, edit.start)


def fix_equals_form(doc: Document, diag: Diagnostic, source: Source) -> Fix | None:
    """RL303: `--x=v` -> `--x`, `v`, when the split means the same flag and value to vLLM.

    The list's boundaries keep their meaning: the first unit stays a flag, and a last
    `--x=v` only stops being bare (it could glue a next layer's leading positional,
    which vLLM would have read as a positional anyway)."""
    target = _list_target(doc, diag)
    if target is None:
        return None
    list_pointer, index, items = target
    item = items[index]
    if not (isinstance(item, str) and item.startswith("--") and "=" in item):
        return None
    name, value = item.split("=", 1)
    following = items[index + 1] if index + 1 < len(items) else None
    if (
        not value
        or value.startswith("-")
        or (isinstance(following, str) and not following.startswith("-"))
    ):
        return None  # `--x=` / `--x=-1` / a following value would change what the parts mean
    edit = replace_item_with_two(source, list_pointer, index, name, value)
    if edit is None:
        return None

    def transform(data: Any) -> None:
        at(data, list_pointer)[index : index + 1] = [name, value]

    return Fix(diag.code, diag.pointer, (edit,), transform, edit.start)


def dashed(token: str) -> str:
    """`--foo_bar.x_y=v` -> `--foo-bar.x_y=v`: only the option name, never JSON keys or values."""
    option, equals, value = token.partition("=")
    head, dot, tail = option.partition(".")
    return head.replace("_", "-") + dot + tail + equals + value


def fix_underscore_flag(doc: Document, diag: Diagnostic, source: Source) -> Fix | None:
    """RL304: spell the option name with dashes, as vLLM itself rewrites it."""
    target = _list_target(doc, diag)
    if target is None:
        return None
    list_pointer, index, items = target
    item = items[index]
    if not argv.is_flag_token(item) or dashed(item) == item:
        return None
    new = dashed(item)
    edit = replace_scalar(source, (*list_pointer, index), new)
    if edit is None:
        return None

    def transform(data: Any) -> None:
        at(data, list_pointer)[index] = new

    return Fix(diag.code, diag.pointer, (edit,), transform, edit.start)


# ---------------------------------------------------------------- env and features


def fix_env_value(doc: Document, diag: Diagnostic, source: Source) -> Fix | None:
    """RL551: quote a number/boolean/null env value as the text docker `-e` already prints."""
    pointer = diag.pointer
    if not pointer or not exists_at(doc.data, pointer):
        return None
    value = at(doc.data, pointer)
    if isinstance(value, (str, dict, list)):
        return None  # a mapping or list has no meaningful string form
    text = js_string(value)
    edit = replace_scalar(source, pointer, text)
    if edit is None:
        return None

    def transform(data: Any) -> None:
        at(data, pointer[:-1])[pointer[-1]] = text

    return Fix(diag.code, pointer, (edit,), transform, edit.start)


def _feature_name_places(data: dict[str, JsonValue]) -> Iterator[tuple[Pointer, bool]]:
    """Every place that names the retired feature: (pointer, is a mapping key)."""
    yield ("features", RETIRED_FEATURE), True
    listed = data.get("opt_in_features") or []
    # Not narrowed to a list: a string's characters or a mapping's keys are enumerated and a
    # number raises, as before, so the fix is offered (or not) on malformed data as it was.
    for index, name in enumerate(listed):  # type: ignore[arg-type]
        if name == RETIRED_FEATURE:
            yield ("opt_in_features", index), False
    hardware = data.get("hardware_opt_in_features")
    for hw, names in hardware.items() if isinstance(hardware, dict) else ():
        for index, name in enumerate(names if isinstance(names, list) else []):
            if name == RETIRED_FEATURE:
                yield ("hardware_opt_in_features", hw, index), False
    variants = data.get("variants")
    for key, variant in variants.items() if isinstance(variants, dict) else ():
        modes = variant.get("default_modes") if isinstance(variant, dict) else None
        if isinstance(modes, dict) and RETIRED_FEATURE in modes:
            yield ("variants", key, "default_modes", RETIRED_FEATURE), True


def fix_retired_feature(doc: Document, diag: Diagnostic, source: Source) -> Fix | None:
    """RL503: rename the `mtp` feature, and every reference to it, to `spec_decoding`
    (a structural fix: ruamel renames the keys, only their lines are rewritten)."""
    data = doc.data
    if not isinstance(data, dict):
        return None
    features = data.get("features")
    if not isinstance(features, dict) or RETIRED_FEATURE not in features or FEATURE in features:
        return None
    places = list(_feature_name_places(data))
    if any(is_key and FEATURE in at(data, pointer[:-1]) for pointer, is_key in places):
        return None  # renaming would collide with an existing key

    def change(tree: Any) -> bool:
        for pointer, is_key in places:
            parent = at(tree, pointer[:-1])
            if is_key:
                if not rename_key(parent, RETIRED_FEATURE, FEATURE):
                    return False
            elif parent[pointer[-1]] == RETIRED_FEATURE:
                parent[pointer[-1]] = same_style(FEATURE, parent[pointer[-1]])
            else:
                return False  # ruamel reads the document otherwise than recipelint does
        return True

    def transform(new_data: Any) -> None:
        for pointer, is_key in places:
            if is_key:
                rename_in_place(at(new_data, pointer[:-1]), RETIRED_FEATURE, FEATURE)
            else:
                at(new_data, pointer[:-1])[pointer[-1]] = FEATURE

    lines = [source.lines(pointer, key=is_key) for pointer, is_key in places]
    if any(found is None for found in lines):
        return None
    allowed = Allowed(lines=frozenset(line for found in lines if found for line in found))
    return structural(doc, diag, change, allowed, transform)


def _spec_mode_for(
    data: dict[str, JsonValue], variant: str, spec: dict[str, JsonValue]
) -> tuple[str, str] | None:
    """The one (feature, mode) a variant's default_modes can select for RL502: the only
    draft-less mode that lists the variant by name, in a feature default_modes lacks."""
    selected = as_dict(spec.get("default_modes"))
    candidates = {
        (offer.feature, offer.mode)
        for offer in spec_offers(data)
        if offer.mode is not None
        and offer.restricted
        and variant in offer.variants
        and not any(draft.model for draft in offer.drafts)
        and offer.feature not in selected
    }
    return candidates.pop() if len(candidates) == 1 else None


def fix_fused_draft_default_mode(doc: Document, diag: Diagnostic, source: Source) -> Fix | None:
    """RL502: add `default_modes: {feature: mode}` to the variant (a structural insert), when
    exactly one mode can be meant."""
    if len(diag.pointer) != 2 or diag.pointer[0] != "variants":
        return None
    variant = diag.pointer[1]
    spec = at(doc.data, diag.pointer)
    selected = spec.get("default_modes") if isinstance(spec, dict) else None
    # A variant or default_modes that is not a mapping gets no fix, as when reading it raised
    # (_proposed); `at` found the variant, so the document is a mapping.
    chosen = (
        _spec_mode_for(as_dict(doc.data), variant, spec)
        if isinstance(variant, str) and isinstance(spec, dict)
        else None
    )
    if chosen is None or not (selected is None or isinstance(selected, dict) and selected):
        return None
    feature, mode = chosen
    pointer = diag.pointer if selected is None else (*diag.pointer, "default_modes")
    addition: tuple[str, Any] = (
        ("default_modes", {feature: mode}) if selected is None else (feature, mode)
    )
    allowed = source.insertion(pointer)
    if allowed is None:
        return None

    def change(tree: Any) -> bool:
        key, value = addition
        fresh = CommentedMap(value) if isinstance(value, dict) else value
        return append_key(at(tree, pointer), key, fresh)

    def transform(new_data: Any) -> None:
        key, value = addition
        at(new_data, pointer)[key] = copy.deepcopy(value)

    return structural(doc, diag, change, allowed, transform)


def structural(
    doc: Document, diag: Diagnostic, change: Change, allowed: Allowed, transform: Transform
) -> Fix | None:
    """A fix whose edits ruamel's round trip writes, kept to the ``allowed`` lines."""
    replacements = rewrite(doc.text, change, allowed)
    if not replacements:
        return None
    edits = tuple(Edit(r.start, r.end, r.text) for r in replacements)
    return Fix(diag.code, diag.pointer, edits, transform, min(edit.start for edit in edits))


Fixer = Callable[[Document, Diagnostic, Source], "Fix | None"]
# Every fixer, including those ready for a rule whose catalog entry does not say
# `autofix: true` yet: a fixer runs only for a rule the catalog marks, so the `[*]` marks,
# the fixable counts and what `--fix` does always agree.
ALL_FIXERS: dict[str, Fixer] = {
    "RL301": fix_duplicate_flag,
    "RL303": fix_equals_form,
    "RL304": fix_underscore_flag,
    "RL502": fix_fused_draft_default_mode,
    "RL503": fix_retired_feature,
    "RL321": fix_typographic_lookalike,
    "RL551": fix_env_value,
}


def _marked_autofix(code: str) -> bool:
    info = rule_info(code)
    return bool(info and info.autofix)


FIXERS: dict[str, Fixer] = {
    code: fixer for code, fixer in ALL_FIXERS.items() if _marked_autofix(code)
}


# ---------------------------------------------------------------- applying


def apply_edits(text: str, edits: Iterable[Edit]) -> str:
    out, cursor = [], 0
    for edit in sorted(set(edits)):
        out += [text[cursor : edit.start], edit.text]
        cursor = edit.end
    out.append(text[cursor:])
    return "".join(out)


def _reparse(doc: Document, text: str) -> Document:
    return parse_yaml(text, doc.path, doc.kind, doc.rel)


def _achieves(doc: Document, fixes: list[Fix]) -> str | None:
    """The edited text if re-reading it gives exactly the intended data, else None."""
    expected = copy.deepcopy(doc.data)
    for fix in sorted(
        fixes, key=lambda f: f.anchor, reverse=True
    ):  # later positions first keep pointers valid
        fix.transform(expected)
    text = apply_edits(doc.text, [edit for fix in fixes for edit in fix.edits])
    again = _reparse(doc, text)
    same_problems = [p.code for p in again.problems] == [p.code for p in doc.problems]
    return text if again.usable and same_problems and same_data(again.data, expected) else None


def _overlaps(fix: Fix, chosen: list[Fix]) -> bool:
    """Edits that touch the same text conflict, unless they are the very same edit
    (two findings on one token asking for the same change)."""
    for edit in fix.edits:
        for other in chosen:
            for taken in other.edits:
                if edit == taken:
                    continue
                if edit.start < taken.end and taken.start < edit.end or edit.start == taken.start:
                    return True
    return False


def _proposed(
    doc: Document, diag: Diagnostic, source: Source, fixers: Mapping[str, Fixer]
) -> Fix | None:
    """The fixer's proposal; data of a shape no fixer expects means no fix, never a traceback."""
    fixer = fixers.get(diag.code)
    try:
        return fixer(doc, diag, source) if fixer else None
    except (KeyError, IndexError, TypeError, ValueError, AttributeError):
        return None


def plan_document(
    doc: Document, diagnostics: list[Diagnostic], fixers: Mapping[str, Fixer] | None = None
) -> str | None:
    """Apply every fix for one document that verifies alone and does not overlap an earlier one
    (``fixers``: the table to use, :data:`FIXERS` unless a test names others)."""
    if not doc.usable:
        return None
    source = Source(doc)
    chosen: list[Fix] = []
    for diag in sorted(diagnostics, key=Diagnostic.sort_key):
        fix = _proposed(doc, diag, source, FIXERS if fixers is None else fixers)
        if fix is None or _overlaps(fix, chosen) or _achieves(doc, [fix]) is None:
            continue
        chosen.append(fix)
    if not chosen:
        return None
    return _achieves(doc, chosen) or _achieves(doc, chosen[:1])


# ---------------------------------------------------------------- trees


@dataclass
class FixResult:
    root: Path
    original: dict[Path, str] = field(default_factory=dict)
    fixed: dict[Path, str] = field(default_factory=dict)
    passes: int = 0
    # Findings of fixable rules per code in the first pass, and in the last one (what no
    # safe edit could repair): their difference is what --fix reports as fixed.
    found: Counter[str] = field(default_factory=Counter)
    left: Counter[str] = field(default_factory=Counter)
    # The same, per file.
    found_in: dict[Path, Counter[str]] = field(default_factory=dict)
    left_in: dict[Path, Counter[str]] = field(default_factory=dict)

    @property
    def fixed_counts(self) -> Counter[str]:
        return self.found - self.left  # Counter subtraction drops counts below one

    def fixed_counts_without(self, skipped: Iterable[Path]) -> Counter[str]:
        """The fixed counts, less those of files whose fixes were not written."""
        counts = self.fixed_counts
        for path in skipped:
            counts -= self.found_in.get(path, Counter()) - self.left_in.get(path, Counter())
        return counts

    @property
    def changed(self) -> list[Path]:
        return sorted(path for path, text in self.fixed.items() if text != self.original[path])

    def diff(self, display: Callable[[Path], str] = str) -> str:
        chunks: list[str] = []
        for path in self.changed:
            name = display(path)
            chunks += difflib.unified_diff(
                self.original[path].splitlines(keepends=True),
                self.fixed[path].splitlines(keepends=True),
                fromfile=f"a/{name}",
                tofile=f"b/{name}",
            )
        return "".join(
            line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"
            for line in chunks
        )


def _replace_document(tree: RecipeTree, old: Document, new: Document) -> None:
    for name in ("taxonomy", "platforms"):
        if getattr(tree, name) is old:
            setattr(tree, name, new)
    for docs in (tree.strategies, tree.kv_stores, tree.recipes):
        for index, doc in enumerate(docs):
            if doc is old:
                docs[index] = new


def fix_tree(root: Path, focus: Callable[[Path], bool], config: Config | None = None) -> FixResult:
    """Fix the focused files of one tree in memory, pass after pass, until nothing fixable is left."""
    from recipelint.check.engine import run_checks

    config = config or load_config(root)
    tree = load_tree(root, config.limits)
    result = FixResult(root, {doc.path: doc.text for doc in tree.documents()})
    # Only the enabled fixable rules need to run (no compile stage, no other family): the
    # user's ignores, per-file ignores and suppressions still apply to them.
    fixable = tuple(code for code in FIXERS if config.is_enabled(code))
    if not fixable:
        return result
    config = replace(config, select=fixable)
    for result.passes in range(1, MAX_PASSES + 1):
        by_path: dict[Path, list[Diagnostic]] = {}
        for diag in run_checks(tree, config, focus):
            if diag.code in FIXERS:
                by_path.setdefault(diag.path, []).append(diag)
        result.left = Counter(d.code for found in by_path.values() for d in found)
        result.left_in = {path: Counter(d.code for d in found) for path, found in by_path.items()}
        if result.passes == 1:
            result.found, result.found_in = Counter(result.left), dict(result.left_in)
        progress = False
        for doc in list(tree.documents()):
            text = plan_document(doc, by_path.get(doc.path, [])) if doc.path in by_path else None
            if text is not None and text != doc.text:
                _replace_document(tree, doc, _reparse(doc, text))
                result.fixed[doc.path] = text
                progress = True
        if not progress:
            break
    return result


class FixWriteError(Exception):
    """The fixes could not be written (a read-only folder, a full disk); no file was changed."""


# The temporary file a fix is written to beside a recipe (atomicfile's `.<name>.<random>.tmp`).
_FIX_TEMPORARY = re.compile(r"\..+\.ya?ml\.[a-z0-9_]+\.tmp")


def write_fixed(result: FixResult) -> list[Path]:
    """Write the changed files, keeping a byte-order mark and the file mode; returns the
    files left as they are because they changed on disk after they were read (an editor
    saved them meanwhile): writing the fix would lose that edit.

    Every fixed text is written beside its file first; files are replaced only once all of
    them are written, so a folder that cannot be written or a full disk changes none."""
    staged: list[tuple[Path, StagedFile]] = []
    for changed in result.changed:
        try:
            staged.append((changed, _stage(changed, result)))
        except OSError as exc:
            for _, pending in staged:
                pending.discard()
            raise FixWriteError(
                f"cannot write the fixes of {_display(changed)}: {_reason(exc)}; "
                "no file was changed"
            ) from None
    skipped: list[Path] = []
    for index, (changed, pending) in enumerate(staged):
        if _text_on_disk(pending.destination) != result.original[changed]:
            pending.discard()
            skipped.append(changed)
            continue
        try:
            pending.commit()
        except OSError as exc:
            for _, rest in staged[index + 1 :]:
                rest.discard()
            raise FixWriteError(
                f"cannot replace {_display(changed)} with its fixed text: {_reason(exc)}; "
                "it and the files after it were left as they were"
            ) from None
    return skipped


def _stage(changed: Path, result: FixResult) -> StagedFile:
    path = changed.resolve()  # through a link inside the tree: rewrite the file, keep the link
    raw = path.read_bytes()
    prefix = BOM if raw.startswith(BOM.encode()) else ""
    data = (prefix + result.fixed[changed]).encode("utf-8")
    return stage_file(path, data, mode=path.stat().st_mode & 0o7777)


def _text_on_disk(path: Path) -> str | None:
    """The file's text as the loader reads it (a byte-order mark dropped); None if unreadable."""
    try:
        text = path.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    return text[1:] if text.startswith(BOM) else text


def _reason(exc: OSError) -> str:
    return exc.strerror or str(exc)


def _is_fix_temporary(name: str) -> bool:
    return _FIX_TEMPORARY.fullmatch(name) is not None


def sweep_fix_leftovers(folders: Iterable[Path]) -> list[Path]:
    """Remove the temporary files that runs of --fix killed while writing left in ``folders``."""
    removed: list[Path] = []
    for folder in sorted(set(folders)):
        removed += sweep_temporaries(folder, _is_fix_temporary)
    return removed


@dataclass
class Changes:
    """What `check --fix/--diff` did over every tree named on the command line."""

    files: list[Path] = field(default_factory=list)
    # Files not written because they changed on disk while --fix ran.
    skipped: list[Path] = field(default_factory=list)
    diff: str = ""
    # Findings repaired per rule code (see FixResult.found/left).
    fixed: Counter[str] = field(default_factory=Counter)


def _display(path: Path) -> str:
    try:
        return path.relative_to(Path.cwd()).as_posix()
    except ValueError:
        return path.as_posix()


def fix_paths(
    groups: dict[Path, list[Path]],
    select: tuple[str, ...] = (),
    ignore: tuple[str, ...] = (),
    write: bool = True,
    config_file: Path | None = None,
) -> Changes:
    """Fix the named files of each tree (the rest of the tree is context), writing them if ``write``."""
    from recipelint.check.checking import CheckOptions, tree_config
    from recipelint.read.configfile import ConfigError

    changes = Changes()
    for root, targets in groups.items():
        try:
            config = tree_config(root, CheckOptions(select, ignore, config_file=config_file))
        except ConfigError:
            continue  # the check that follows reports the broken configuration

        def focus(path: Path, root: Path = root, targets: list[Path] = targets) -> bool:
            return any(t in (root, path) or t in path.parents for t in targets)

        result = fix_tree(root, focus, config)
        skipped: list[Path] = []
        if write:
            sweep_fix_leftovers(path.resolve().parent for path in result.original if focus(path))
            skipped = write_fixed(result)
        changes.files += [path for path in result.changed if path not in skipped]
        changes.skipped += skipped
        changes.fixed += result.fixed_counts_without(skipped)
        changes.diff += result.diff(_display)
    return changes
