"""Replay merged pull requests of a recipe repository and print the annotations each one gets.

A pull request is a commit on the first-parent history of a branch whose subject names it
as ``(#N)``; its parent is the base. Each one is checked out in a temporary clone and
checked as the GitHub Action checks it, and the error and warning findings, the ones
that become annotations, are printed per pull request with totals at the end.

    python benchmarks/replay_prs.py GITDIR [--branch main] [--limit N] [--pr 827 --pr 821]
        [--mode new-from-rev|whole-tree] [--recipelint "python -m recipelint"] [--json OUT]

``--mode whole-tree`` is what the action did before it knew the base: every finding of the
whole tree. ``--as-of-merge DATES`` checks each pull request as recipelint would have on the
day it merged: with this checkout's code, but only the flag catalogs of the vLLM and
vllm-omni releases published by then (DATES holds ``YYYY-MM-DD PACKAGE VERSION`` lines, e.g.
from the package index's JSON simple API, each file's ``upload-time``). Without it, a pull
request of April is told that a release of November deprecates its flag, or that a minimum
released in May has shipped. The environment and hardware catalogs, one file for all
releases, lose the later releases' eras. ``--mode new-from-rev`` (the default) passes ``--new-from-rev BASE``, as the
action does on ``pull_request`` events. Only pull requests that change a tree file
(the example workflow's path filter) are replayed.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench import PROJECT, RUN_FIRST_ON_PATH  # noqa: E402

CATALOG_FILE = re.compile(r"^(vllm|vllm-omni)-(\d[\w.]*)\.json$")
PR_SUBJECT = re.compile(r"\(#(\d+)\)\s*$")
TREE_FILE = re.compile(r"^(models/.+|strategies/[^/]+|kv_store/[^/]+|taxonomy|platforms)\.ya?ml$")
ANNOTATED = ("error", "warning")


@dataclass
class PullRequest:
    number: int
    head: str
    base: str
    subject: str


@dataclass
class Replay:
    pr: PullRequest
    status: int
    annotations: list[dict] = field(default_factory=list)
    error: str = ""


def git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), *args], check=True, capture_output=True, text=True
    ).stdout


def merged_pull_requests(repo: Path, branch: str) -> list[PullRequest]:
    """Oldest first, only those whose base already holds a recipe tree."""
    found = []
    log = git(repo, "log", "--first-parent", "--format=%H%x09%P%x09%s", branch)
    for line in log.splitlines():
        head, parents, subject = line.split("\t", 2)
        match = PR_SUBJECT.search(subject)
        if match and parents:
            found.append(PullRequest(int(match.group(1)), head, parents.split()[0], subject))
    found.reverse()
    return [pr for pr in found if _has_tree(repo, pr.base) and _changes_tree(repo, pr)]


def _has_tree(repo: Path, rev: str) -> bool:
    return (
        subprocess.run(
            ["git", "-C", str(repo), "cat-file", "-e", f"{rev}:taxonomy.yaml"], capture_output=True
        ).returncode
        == 0
    )


def _changes_tree(repo: Path, pr: PullRequest) -> bool:
    names = git(repo, "diff", "--name-only", pr.base, pr.head).splitlines()
    return any(TREE_FILE.match(name) for name in names)


def replay(
    clone: Path, pr: PullRequest, command: list[str], mode: str, env: dict[str, str] | None = None
) -> Replay:
    git(clone, "checkout", "--quiet", "--force", pr.head)
    git(clone, "clean", "-fdxq")
    args = [*command, "check", "--format", "json", "--jobs", "1"]
    if mode == "new-from-rev":
        args += ["--new-from-rev", pr.base]
    done = subprocess.run([*args, "."], cwd=clone, capture_output=True, text=True, env=env)
    try:
        findings = json.loads(done.stdout)
    except ValueError:
        findings = None
    if done.returncode not in (0, 1) or not isinstance(findings, list):
        lines = done.stderr.strip().splitlines()
        return Replay(pr, done.returncode, error=lines[-1] if lines else "no output")
    return Replay(pr, done.returncode, [f for f in findings if f["severity"] in ANNOTATED])


def release_dates(path: Path) -> list[tuple[str, str, str]]:
    """(date, package, version) of each final release listed in a DATES file."""
    found = []
    for line in path.read_text(encoding="utf-8").splitlines():
        parts = line.split()
        if len(parts) == 3 and re.fullmatch(r"[\d.]+(\.post\d+)?", parts[2]):
            found.append((parts[0], parts[1], parts[2]))
    return found


class CatalogsAsOf:
    """Copies of this checkout's package whose flag catalogs stop at a day, one per cut."""

    def __init__(self, dates: list[tuple[str, str, str]], scratch: Path) -> None:
        self.dates, self.scratch = dates, scratch
        self.copies: dict[frozenset[tuple[str, str]], Path] = {}

    def environment(self, day: str) -> dict[str, str]:
        """The environment that runs recipelint (`python -m recipelint`) as of ``day``."""
        late = frozenset((pkg, v) for date, pkg, v in self.dates if date > day)
        copy = self.copies.get(late)
        if copy is None:
            copy = self.copies[late] = self._cut(late, self.scratch / f"as-of-{len(self.copies)}")
        return {**os.environ, "PYTHONPATH": str(copy), "RECIPELINT_NO_CACHE": "1"}

    def _cut(self, late: frozenset[tuple[str, str]], copy: Path) -> Path:
        for part in ("recipelint", "rules", "schemas"):
            shutil.copytree(
                PROJECT / part, copy / part, ignore=shutil.ignore_patterns("__pycache__")
            )
        catalogs = copy / "rules" / "vllm"
        for path in catalogs.iterdir():
            found = CATALOG_FILE.match(path.name)
            if found and (found.group(1), found.group(2)) in late:
                path.unlink()
        for name in ("vllm-env.json", "vllm-hardware.json"):
            _cut_eras(catalogs / name, {v for pkg, v in late if pkg == "vllm"})
        environment = {**os.environ, "PYTHONPATH": str(copy)}
        for package in ("vllm", "vllm-omni"):
            kept = sorted(str(p) for p in catalogs.glob(f"{package}-[0-9]*.json"))
            subprocess.run(
                [
                    sys.executable,
                    "-c",
                    RUN_FIRST_ON_PATH,
                    "flags",
                    "history",
                    *kept,
                    "-o",
                    str(catalogs / f"{package}-history.json"),
                ],
                cwd=copy,
                env=environment,
                check=True,
                capture_output=True,
            )
        return copy


def _cut_eras(path: Path, late: set[str]) -> None:
    """A catalog of eras (runs of releases, ``first`` .. ``last``) as of the releases kept: an
    era that starts later goes, one that reaches past them ends at the newest kept."""
    catalog = json.loads(path.read_text(encoding="utf-8"))
    kept = [v for v in catalog["releases"] if v not in late]
    position = {v: i for i, v in enumerate(catalog["releases"])}
    newest_kept = {i: v for v, i in position.items() if v in kept}

    def clamp(era: dict) -> dict:
        last = max(i for i in newest_kept if i <= position[era["last"]])
        return {**era, "last": newest_kept[last]}

    table = catalog.get("variables", catalog.get("entries"))
    for name, eras in list(table.items()):
        table[name] = [clamp(era) for era in eras if era["first"] in kept]
        if not table[name]:
            del table[name]
    catalog["releases"] = kept
    path.write_text(json.dumps(catalog, indent=1, sort_keys=True) + "\n", encoding="utf-8")


def _merge_day(repo: Path, pr: PullRequest) -> str:
    return git(repo, "log", "-1", "--format=%cs", pr.head).strip()


def _print(result: Replay, verbose: bool) -> None:
    counts = Counter(f["severity"] for f in result.annotations)
    codes = Counter(f["code"] for f in result.annotations)
    summary = " ".join(f"{code}x{n}" for code, n in sorted(codes.items()))
    status = f"exit {result.status}" + (f" ({result.error})" if result.error else "")
    print(
        f"#{result.pr.number} {result.pr.head[:9]} {counts['error']}E {counts['warning']}W "
        f"{status} {summary}".rstrip()
    )
    if verbose:
        for f in result.annotations:
            print(
                f"    {f['path']}:{f['line']}:{f['column']}: {f['code']} {f['severity']}: "
                f"{f['message']}"
            )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "repo", type=Path, help="a git directory or checkout of the recipe repository"
    )
    parser.add_argument("--branch", default="main")
    parser.add_argument(
        "--pr", type=int, action="append", default=[], help="only this pull request"
    )
    parser.add_argument("--limit", type=int, default=0, help="only the newest N pull requests")
    parser.add_argument("--mode", choices=["new-from-rev", "whole-tree"], default="new-from-rev")
    parser.add_argument(
        "--recipelint",
        default=f"{shlex.quote(sys.executable)} -m recipelint",
        help="the command that runs recipelint",
    )
    parser.add_argument("--json", type=Path, help="also write every annotation here")
    parser.add_argument(
        "--as-of-merge",
        type=Path,
        metavar="DATES",
        help="judge each pull request with the catalogs of the releases published by its merge",
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="print each annotation")
    options = parser.parse_args(argv)

    prs = merged_pull_requests(options.repo, options.branch)
    if options.pr:
        prs = [pr for pr in prs if pr.number in set(options.pr)]
    if options.limit:
        prs = prs[-options.limit :]
    command = shlex.split(options.recipelint)
    results = []
    with tempfile.TemporaryDirectory(prefix="replay-") as scratch:
        clone = Path(scratch) / "repo"
        subprocess.run(
            ["git", "clone", "--quiet", "--shared", "--no-checkout", str(options.repo), str(clone)],
            check=True,
        )
        as_of = (
            CatalogsAsOf(release_dates(options.as_of_merge), Path(scratch))
            if options.as_of_merge
            else None
        )
        command_as_of = [sys.executable, "-c", RUN_FIRST_ON_PATH]
        for pr in prs:
            env = as_of.environment(_merge_day(options.repo, pr)) if as_of else None
            result = replay(clone, pr, command_as_of if as_of else command, options.mode, env)
            results.append(result)
            _print(result, options.verbose)
            sys.stdout.flush()
    _totals(results)
    if options.json:
        options.json.write_text(
            json.dumps(
                [
                    {
                        "pr": r.pr.number,
                        "head": r.pr.head,
                        "base": r.pr.base,
                        "status": r.status,
                        "error": r.error,
                        "annotations": r.annotations,
                    }
                    for r in results
                ],
                indent=1,
            )
            + "\n"
        )
    return 0


def _totals(results: list[Replay]) -> None:
    severities = Counter(f["severity"] for r in results for f in r.annotations)
    codes = Counter(f["code"] for r in results for f in r.annotations)
    failing = sum(1 for r in results if r.status == 1)
    broken = sum(1 for r in results if r.status not in (0, 1))
    with_annotations = sum(1 for r in results if r.annotations)
    print(
        f"pull requests: {len(results)}; with annotations: {with_annotations}; "
        f"failing (exit 1): {failing}; usage/internal errors: {broken}"
    )
    print(f"annotations: {severities['error']} errors, {severities['warning']} warnings")
    print("per code: " + " ".join(f"{c}x{n}" for c, n in sorted(codes.items())))


if __name__ == "__main__":
    sys.exit(main())
