"""One `recipelint check` run over named paths: trees found, checked, and old findings set aside.

The command layer (`check`, `summary`) only parses options and prints; this module
finds the tree around each path, runs the engine, and, given a base revision or a
baseline file, separates the findings the change introduced from those that were
already there. It also takes the input conventions editors and CI tools expect:
``--config FILE`` (CheckOptions.config_file), one document read from stdin checked as
a file of its tree (CheckOptions.stdin_filename/stdin_text), and ``--show-settings``
(show_settings).
"""

from __future__ import annotations

import functools
import tempfile
from collections import Counter, defaultdict
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from recipelint.configuration.config import (
    COMMAND_LINE,
    Config,
    describe_settings,
    load_config,
    tree_overlay_with,
)
from recipelint.diagnostics import Diagnostic
from recipelint.read.configfile import (
    ConfigError,
    ConfigFileError,
    discover_config_file,
    read_explicit_config,
)
from recipelint.read.tree import find_tree_root
from recipelint.report.baseline import (
    BaselineError,
    entry_order,
    fingerprints,
    read_baseline,
    split_known,
)

if TYPE_CHECKING:
    from recipelint.checkcache import DocumentCache


class CheckError(Exception):
    """A usage problem found while running the check (a bad revision, an unreadable baseline)."""


@dataclass(frozen=True)
class CheckOptions:
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    jobs: int = 1
    # Report only findings absent at this git revision (a pull request's base).
    new_from_rev: str | None = None
    # Report only findings absent from this baseline file.
    baseline: Path | None = None
    # --config FILE: this configuration instead of the one discovered from each tree root.
    config_file: Path | None = None
    # --stdin-filename PATH: check ``stdin_text`` as the file PATH of its tree (PATH may not
    # exist on disk); the named paths are then ignored. Bytes are decoded as files are (RL004).
    stdin_filename: Path | None = None
    stdin_text: str | bytes | None = None
    # Keep parsed documents in the check cache (see checkcache); `--no-cache` and
    # RECIPELINT_NO_CACHE=1 turn it off. The library's default leaves trees untouched.
    use_cache: bool = False
    # --cache-dir: the cache folder instead of $RECIPELINT_CACHE_DIR or the tree root's.
    cache_dir: Path | None = None


@dataclass
class TreeCheck:
    root: Path
    diagnostics: list[Diagnostic]
    files: int
    sources: dict[Path, str | bytes]
    # The tree's configured documentation base (`docs-url`), for the report's links.
    docs_url: str | None = None
    # The named paths in this tree (resolved): the tree itself, folders or files.
    targets: list[Path] = field(default_factory=list)

    @property
    def whole(self) -> bool:
        return self.root in self.targets

    def covers(self, rel: object) -> bool:
        """Whether the file at tree path ``rel`` (a baseline entry's `path`) was checked."""
        return isinstance(rel, str) and _selected_path(self.root / rel, self.root, self.targets)


@dataclass
class CheckResult:
    diagnostics: list[Diagnostic] = field(default_factory=list)
    files: int = 0
    # Each checked file's text as its document held it (decoded by the report, a file at a time).
    sources: dict[Path, str | bytes] = field(default_factory=dict)
    # Findings set aside because they were present at the base revision or in the baseline.
    known: int = 0
    # Baseline entries that matched no finding: fixed since, and ready to be dropped.
    stale: list[dict[str, Any]] = field(default_factory=list)
    trees: list[TreeCheck] = field(default_factory=list)
    # Named paths that are not inside any recipe tree.
    outside: list[Path] = field(default_factory=list)

    @property
    def whole_trees(self) -> bool:
        """Every tree was checked whole, not some of its files or folders."""
        return all(tree.whole for tree in self.trees)

    def covers(self, entry: dict[str, Any]) -> bool:
        """Whether a baseline entry is about a file this run checked: only those can be stale,
        or be replaced when the baseline is written again."""
        return any(tree.covers(entry.get("path")) for tree in self.trees)


def group_by_tree(
    paths: tuple[Path, ...] | list[Path],
) -> tuple[dict[Path, list[Path]], list[Path]]:
    """Named paths grouped by the tree around them, and those inside no tree."""
    groups: dict[Path, list[Path]] = defaultdict(list)
    outside: list[Path] = []
    for path in paths:
        root = find_tree_root(path)
        if root is None:
            outside.append(path)
        else:
            groups[root].append(path.resolve())
    return groups, outside


def tree_config(root: Path, options: CheckOptions) -> Config:
    """The tree's configuration (--config or discovered) with the command line's select and ignore on top."""
    config = load_config(root, options.config_file)
    origins = dict(config.origins)
    if options.select:
        origins["select"] = f"{COMMAND_LINE} (--select)"
        config = replace(config, select=options.select)
    if options.ignore:
        extended = config.origin("ignore") if config.ignore else None
        origins["ignore"] = (
            f"{extended} + {COMMAND_LINE} (--ignore)" if extended else f"{COMMAND_LINE} (--ignore)"
        )
        config = replace(config, ignore=config.ignore + options.ignore)
    return replace(config, origins=origins)


def check_config_file(options: CheckOptions) -> None:
    """Fail early, as a usage error naming it, when the --config file cannot serve at all."""
    if options.config_file is not None:
        try:
            read_explicit_config(options.config_file)
        except ConfigFileError as exc:
            raise CheckError(f"--config: {exc.diagnostic.message}") from None


@dataclass
class SettingsReport:
    """--show-settings: the resolved configuration of each tree, and the problems of those
    whose configuration cannot be used (RL016/RL108 diagnostics, to print as findings)."""

    text: str
    diagnostics: list[Diagnostic] = field(default_factory=list)


def show_settings(paths: tuple[Path, ...] | list[Path], options: CheckOptions) -> SettingsReport:
    """describe_settings for the tree of each path (or of the --stdin-filename path)."""
    check_config_file(options)
    groups, _ = group_by_tree(_checked_paths(paths, options))
    report = SettingsReport("")
    parts: list[str] = []
    for root in groups:
        try:
            parts.append(describe_settings(tree_config(root, options), root))
        except ConfigError as exc:
            report.diagnostics.extend(exc.diagnostics)
    report.text = "\n".join(parts)
    return report


def _checked_paths(paths: tuple[Path, ...] | list[Path], options: CheckOptions) -> list[Path]:
    # Like ruff: with --stdin-filename the one document is what is checked.
    return [options.stdin_filename] if options.stdin_filename is not None else list(paths)


def _stdin_override(root: Path, options: CheckOptions) -> tuple[Path, str | bytes] | None:
    """The in-memory document for this tree, when the stdin file belongs to it."""
    if options.stdin_filename is None or options.stdin_text is None:
        return None
    path = options.stdin_filename.resolve()  # as group_by_tree names it
    return (path, options.stdin_text) if root in path.parents else None


def check_tree(
    root: Path, targets: list[Path], options: CheckOptions, config: Config | None = None
) -> TreeCheck:
    from recipelint.check.engine import run_checks
    from recipelint.collector import few_full_collections
    from recipelint.read.tree import load_tree

    try:
        config = config or tree_config(root, options)
    except ConfigError as exc:
        return TreeCheck(root, list(exc.diagnostics), 0, {}, targets=targets)
    # Every stage asks about the same files again and again: each is answered once.
    focus = functools.cache(lambda path: _selected_path(path, root, targets))
    cache = _document_cache(root, options)
    with few_full_collections():
        tree = load_tree(root, config.limits, override=_stdin_override(root, options), cache=cache)
        found = run_checks(tree, config, focus=focus, jobs=options.jobs, cache=cache)
    if cache is not None:
        cache.flush()
    sources = {doc.path: doc.stored_text for doc in tree.documents()}
    files = sum(1 for doc in tree.documents() if focus(doc.path))
    return TreeCheck(root, found, files, sources, config.docs_url, targets)


def _document_cache(root: Path, options: CheckOptions) -> DocumentCache | None:
    from recipelint.checkcache import DocumentCache, cache_disabled, cache_folder

    if not options.use_cache or cache_disabled():
        return None
    return DocumentCache.open(cache_folder(root, options.cache_dir))


def _selected_path(path: Path, root: Path, targets: list[Path]) -> bool:
    return any(t in (root, path) or t in path.parents for t in targets)


def run_check(paths: tuple[Path, ...] | list[Path], options: CheckOptions) -> CheckResult:
    """Check the named paths (or the stdin document); CheckError for a usage problem."""
    check_config_file(options)
    groups, outside = group_by_tree(_checked_paths(paths, options))
    result = CheckResult(outside=outside)
    known: Counter[str] = Counter()
    described: dict[str, dict[str, Any]] = {}
    if options.baseline is not None:
        try:
            known, described = read_baseline(options.baseline)
        except BaselineError as exc:
            raise CheckError(str(exc)) from None
    remaining = Counter(known)
    for root, targets in groups.items():
        checked = check_tree(root, targets, options)
        result.trees.append(checked)
        result.files += checked.files
        result.sources.update(checked.sources)
        found = checked.diagnostics
        if options.new_from_rev is not None:
            base = _base_fingerprints(root, targets, options)
            split = split_known(found, root, base)
            found, result.known = split.new, result.known + len(split.known)
        if options.baseline is not None:
            split = split_known(found, root, remaining)
            found, result.known = split.new, result.known + len(split.known)
            remaining = split.stale
        result.diagnostics.extend(found)
    # Entries of files left unchecked say nothing about whether they are fixed.
    unmatched = [key for key in remaining if result.covers(described[key])]
    result.stale = [
        described[key]
        for key in sorted(unmatched, key=lambda k: entry_order(described[k]))
        for _ in range(remaining[key])
    ]
    return result


def _base_config(base_root: Path, root: Path, config: Config) -> Config:
    """The checked tree's configuration with the base tree's schema overlays. The base is
    extracted without the folders above it: a configuration found there (or named by
    --config) is lent to it, so its schema overlays apply to the base as well."""
    source = config.source
    lent = source is not None and (config.explicit or source.parent != root)
    try:
        found = read_explicit_config(source) if lent and source else discover_config_file(base_root)
    except ConfigError:
        found = None  # the configuration error is reported by the checked tree itself
    return replace(config, overlay=tree_overlay_with(base_root, found))


def _base_fingerprints(root: Path, targets: list[Path], options: CheckOptions) -> Counter[str]:
    """Fingerprints of the findings the same check gives on the tree at the base revision.

    The base is judged by the checked tree's configuration: a pull request that changes
    the configuration is measured by the rules it proposes.
    """
    from recipelint.read.revision import (
        RevisionError,
        extract_tree,
        locate_commit,
        renamed_files,
    )

    try:
        try:
            top, sha = locate_commit(options.new_from_rev or "", root)
        except RevisionError as exc:
            raise CheckError(
                f"--new-from-rev: {exc} (in a shallow clone, fetch the base commit first)"
            ) from None
        tree_path = Path(root).resolve().relative_to(top).as_posix()
        try:
            config = tree_config(root, options)
        except ConfigError:
            return Counter()  # the configuration error is reported by the checked tree itself
        with tempfile.TemporaryDirectory(prefix="recipelint-base-") as scratch:
            from recipelint.read.revision import TREE_ENTRIES

            base_root = extract_tree(sha, top, tree_path, Path(scratch), TREE_ENTRIES)
            if find_tree_root(base_root) != base_root:
                return Counter()  # the tree is new: every finding is new
            base_targets = [base_root / t.relative_to(root) for t in targets if t != root]
            base_targets = [t for t in base_targets if t.exists()]
            if not base_targets or any(t == root for t in targets):
                base_targets = [base_root]
            # The base is a scratch copy: nothing of it is worth keeping.
            base_options = replace(options, use_cache=False)
            base_config = _base_config(base_root, root, config)
            checked = check_tree(base_root, base_targets, base_options, base_config)
            renamed = renamed_files(sha, top, tree_path)
            return fingerprints(checked.diagnostics, base_root, renamed)
    except RevisionError as exc:
        raise CheckError(str(exc)) from None
