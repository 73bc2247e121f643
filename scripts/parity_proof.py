#!/usr/bin/env python3
"""The parity proof: upstream's own compiler and `recipelint compile` on one tree, file by file.

    python scripts/parity_proof.py UPSTREAM_CHECKOUT      # a checkout of vllm-project/recipes
    python scripts/parity_proof.py --fetch                # clone the pinned commit (needs network)
    python scripts/parity_proof.py --compare EXPECTED PRODUCED   # only compare two folders

The upstream side is built by upstream's own code: `node scripts/build-recipes-api.mjs`
(with js-yaml 4.3.2, installed with npm when the checkout has no such copy) runs in a
scratch folder holding the checkout's recipe tree and compiler sources, so the output
folder holds exactly what the build writes (the checkout's tracked `public/` logos stay
out) and the checkout itself is never written to except for the js-yaml install. The
recipelint side is `recipelint compile CHECKOUT -o OUT --no-provenance` (a clone has a
GitHub `origin`, which would otherwise add a `source` block upstream does not write).

Every file of either folder is then one of: identical (same bytes), json-equal (same
JSON value, other bytes), different (the first differing JSON pointer is shown),
missing (only upstream wrote it) or extra (only recipelint did). The last line is
`parity: I/N identical`, N counting the files of both folders. Exit status: 0 when every
file is identical, 1 when any is not, 2 when the proof could not run (no node or npm,
a failed build or compile, a folder that is not an upstream checkout).

Requirements: git (for --fetch), Node.js (the corpus was built with 20.20.2) and npm
(only when js-yaml 4.3.2 must be installed: that needs the npm registry).
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

UPSTREAM_URL = "https://github.com/vllm-project/recipes"
PINNED_COMMIT = "8959cf64189c71d36e11c6a30335f923f261b1f7"
JS_YAML = "4.3.2"
BUILD_SCRIPT = "scripts/build-recipes-api.mjs"
# What the build reads: its two source folders and the recipe tree (optional parts may be absent).
BUILD_INPUTS = (
    "scripts",
    "src/lib",
    "models",
    "strategies",
    "kv_store",
    "taxonomy.yaml",
    "platforms.yaml",
    "quickstart",
)
REQUIRED_INPUTS = (BUILD_SCRIPT, "src/lib/command-synthesis.js", "models", "taxonomy.yaml")
STATUSES = ("identical", "json-equal", "different", "missing", "extra")
# The recipelint run uses the interpreter running this script, as the console script would.
RECIPELINT = "import sys; from recipelint.cli import main; sys.exit(main(sys.argv[1:]))"
SHOWN_PER_STATUS = 20


class ProofError(Exception):
    """The proof could not run; the message says why (exit status 2)."""


# --- comparison ------------------------------------------------------------------------------


@dataclass(frozen=True)
class FileResult:
    path: str  # relative, with forward slashes
    status: str  # one of STATUSES
    detail: str = ""  # for `different`: where the values first differ


def files_under(folder: Path) -> dict[str, Path]:
    """Every regular file below `folder`, by its relative posix path."""
    return {
        path.relative_to(folder).as_posix(): path
        for path in folder.rglob("*")
        if path.is_file() and not path.is_symlink()
    }


def compare_folders(expected: Path, produced: Path) -> list[FileResult]:
    """One result per file of either folder, sorted by path."""
    want, have = files_under(expected), files_under(produced)
    results = []
    for name in sorted(want.keys() | have.keys()):
        if name not in have:
            results.append(FileResult(name, "missing"))
        elif name not in want:
            results.append(FileResult(name, "extra"))
        else:
            results.append(compare_files(name, want[name].read_bytes(), have[name].read_bytes()))
    return results


def compare_files(name: str, expected: bytes, produced: bytes) -> FileResult:
    if expected == produced:
        return FileResult(name, "identical")
    try:
        left, right = json.loads(expected), json.loads(produced)
    except ValueError:  # UnicodeDecodeError is a ValueError too
        return FileResult(name, "different", "not both JSON; the bytes differ")
    pointer = first_difference(left, right)
    if pointer is None:
        return FileResult(name, "json-equal")
    return FileResult(name, "different", f"at {pointer or '/'} (JSON pointer)")


def first_difference(left: Any, right: Any, pointer: str = "") -> str | None:
    """The RFC 6901 pointer of the first place two JSON values differ, or None when equal.

    Objects are walked in the first value's key order, then keys only the second has;
    JSON has one number type, so 1 and 1.0 are equal, but true is not 1.
    """
    if _kind(left) != _kind(right):
        return pointer
    if isinstance(left, dict):
        for key in [*left, *(k for k in right if k not in left)]:
            child = f"{pointer}/{_escape(key)}"
            if key not in left or key not in right:
                return child
            found = first_difference(left[key], right[key], child)
            if found is not None:
                return found
        return None
    if isinstance(left, list):
        for index, (a, b) in enumerate(zip(left, right, strict=False)):
            found = first_difference(a, b, f"{pointer}/{index}")
            if found is not None:
                return found
        return None if len(left) == len(right) else f"{pointer}/{min(len(left), len(right))}"
    return None if left == right else pointer


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    return type(value).__name__


def _escape(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def report(results: list[FileResult], shown: int = SHOWN_PER_STATUS) -> Iterator[str]:
    """Lines for the non-identical files (at most `shown` per status), the counts, the verdict."""
    counts = Counter(result.status for result in results)
    for status in STATUSES[1:]:
        listed = [r for r in results if r.status == status]
        for result in listed[:shown]:
            yield f"{status:<10} {result.path}" + (f"  {result.detail}" if result.detail else "")
        if len(listed) > shown:
            yield f"{status:<10} … and {len(listed) - shown} more"
    yield ", ".join(f"{counts[status]} {status}" for status in STATUSES)
    yield f"parity: {counts['identical']}/{len(results)} identical"


def all_identical(results: list[FileResult]) -> bool:
    return bool(results) and all(result.status == "identical" for result in results)


# --- running the two compilers -----------------------------------------------------------------


def run(command: list[str], cwd: Path | None = None, what: str = "") -> str:
    """Run a command (argument list, no shell); its output, or a ProofError with its tail."""
    try:
        done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=False)
    except OSError as error:
        raise ProofError(
            f"{what or command[0]}: cannot run {command[0]}: {error.strerror}"
        ) from None
    if done.returncode != 0:
        tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-15:])
        raise ProofError(f"{what or ' '.join(command)} failed (exit {done.returncode}):\n{tail}")
    return done.stdout


def fetch_pinned(into: Path) -> Path:
    """A checkout of the pinned upstream commit, fetched from GitHub (network needed)."""
    checkout = into / "recipes"
    run(["git", "init", "--quiet", str(checkout)], what="git init")
    run(
        [
            "git",
            "-C",
            str(checkout),
            "fetch",
            "--quiet",
            "--depth",
            "1",
            UPSTREAM_URL,
            PINNED_COMMIT,
        ],
        what=f"fetching {UPSTREAM_URL} at {PINNED_COMMIT[:12]}",
    )
    run(["git", "-C", str(checkout), "checkout", "--quiet", "FETCH_HEAD"], what="git checkout")
    return checkout


def check_checkout(checkout: Path) -> None:
    absent = [part for part in REQUIRED_INPUTS if not (checkout / part).exists()]
    if absent:
        raise ProofError(
            f"{checkout} is not a checkout of vllm-project/recipes: no {', '.join(absent)}"
        )


def checkout_commit(checkout: Path) -> str | None:
    try:
        return run(["git", "-C", str(checkout), "rev-parse", "HEAD"]).strip()
    except ProofError:
        return None


def js_yaml_version(node_modules: Path) -> str | None:
    try:
        return json.loads((node_modules / "js-yaml" / "package.json").read_text(encoding="utf-8"))[
            "version"
        ]
    except (OSError, ValueError, KeyError, TypeError):
        return None


def ensure_js_yaml(checkout: Path) -> Path:
    """A node_modules folder holding js-yaml 4.3.2: the checkout's own, else one npm installs.

    npm installs into `<checkout>/.parity-proof/` with an explicit prefix: run in the
    checkout itself it would install the website's whole package.json.
    """
    for node_modules in (checkout / "node_modules", checkout / ".parity-proof" / "node_modules"):
        if js_yaml_version(node_modules) == JS_YAML:
            return node_modules
    prefix = checkout / ".parity-proof"
    prefix.mkdir(exist_ok=True)
    run(
        [
            "npm",
            "install",
            "--prefix",
            str(prefix),
            "--no-save",
            "--no-package-lock",
            "--no-audit",
            "--no-fund",
            "--ignore-scripts",
            f"js-yaml@{JS_YAML}",
        ],
        what=f"npm install js-yaml@{JS_YAML}",
    )
    if js_yaml_version(prefix / "node_modules") != JS_YAML:
        raise ProofError(f"npm did not install js-yaml {JS_YAML} into {prefix}")
    return prefix / "node_modules"


def build_upstream(checkout: Path, node_modules: Path, scratch: Path) -> Path:
    """Run upstream's build on a copy of the checkout's inputs; the folder it wrote."""
    scratch.mkdir(parents=True)
    for part in BUILD_INPUTS:
        source = checkout / part
        if source.is_dir():
            shutil.copytree(source, scratch / part, symlinks=True)
        elif source.is_file():
            (scratch / part).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, scratch / part)
    # The build imports js-yaml by name; Node looks for it in node_modules above the script.
    (scratch / "node_modules").symlink_to(node_modules.resolve(), target_is_directory=True)
    run(
        ["node", BUILD_SCRIPT],
        cwd=scratch,
        what="upstream build (node scripts/build-recipes-api.mjs)",
    )
    return scratch / "public"


def compile_with_recipelint(checkout: Path, out: Path) -> Path:
    run(
        [
            sys.executable,
            "-c",
            RECIPELINT,
            "compile",
            str(checkout),
            "-o",
            str(out),
            "--no-provenance",
            "-q",
        ],
        what="recipelint compile",
    )
    return out


def prove(checkout: Path, work: Path) -> list[FileResult]:
    check_checkout(checkout)
    commit = checkout_commit(checkout)
    print(
        f"upstream checkout {checkout} at {commit or 'an unknown commit'}"
        + ("" if commit == PINNED_COMMIT else f" (the pinned commit is {PINNED_COMMIT[:12]})"),
        file=sys.stderr,
    )
    print(f"node {run(['node', '--version'], what='node --version').strip()}", file=sys.stderr)
    expected = build_upstream(checkout, ensure_js_yaml(checkout), work / "upstream")
    produced = compile_with_recipelint(checkout, work / "recipelint")
    return compare_folders(expected, produced)


# --- command line -----------------------------------------------------------------------------


def parse_arguments(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("checkout", nargs="?", type=Path, help="a checkout of vllm-project/recipes")
    parser.add_argument(
        "--fetch",
        action="store_true",
        help=f"clone {UPSTREAM_URL} at {PINNED_COMMIT[:12]} into a temporary folder (network)",
    )
    parser.add_argument(
        "--compare",
        nargs=2,
        type=Path,
        metavar=("EXPECTED", "PRODUCED"),
        help="only compare two output folders",
    )
    parser.add_argument(
        "--keep",
        type=Path,
        metavar="DIR",
        help="build into DIR (must not exist) and keep both outputs there",
    )
    parser.add_argument(
        "--show",
        type=int,
        default=SHOWN_PER_STATUS,
        metavar="N",
        help=f"list at most N files per status (default {SHOWN_PER_STATUS})",
    )
    options = parser.parse_args(argv)
    chosen = sum(bool(x) for x in (options.checkout, options.fetch, options.compare))
    if chosen != 1:
        parser.error("give exactly one of CHECKOUT, --fetch or --compare EXPECTED PRODUCED")
    if options.keep and options.keep.exists():
        parser.error(f"--keep {options.keep}: the folder already exists")
    return options


def results_for(options: argparse.Namespace, work: Path) -> list[FileResult]:
    if options.compare:
        for folder in options.compare:
            if not folder.is_dir():
                raise ProofError(f"{folder} is not a folder")
        return compare_folders(*options.compare)
    checkout = fetch_pinned(work) if options.fetch else options.checkout.resolve()
    return prove(checkout, work)


def main(argv: list[str] | None = None) -> int:
    options = parse_arguments(sys.argv[1:] if argv is None else argv)
    try:
        if options.keep:
            options.keep.mkdir(parents=True)
            results = results_for(options, options.keep.resolve())
        else:
            with tempfile.TemporaryDirectory(prefix="parity-proof-") as temporary:
                results = results_for(options, Path(temporary))
    except ProofError as error:
        print(f"parity_proof: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    for line in report(results, options.show):
        print(line)
    return 0 if all_identical(results) else 1


if __name__ == "__main__":
    sys.exit(main())
