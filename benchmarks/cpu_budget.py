#!/usr/bin/env python3
"""Instructions a whole-tree check executes, counted by valgrind's callgrind.

usage: python benchmarks/cpu_budget.py [TREE] [--against REV ...] [--ignore CODES]

On a shared machine wall and CPU times of one check move by tens of percent from run to
run; the instruction count of a run does not (two runs agree to a few parts in a million),
so a CPU budget ("at most 10% more than revision X") is held against it. TREE defaults to
the upstream corpus, as benchmarks/bench.py finds it. The check runs single-process
(`--jobs 1`), without the check cache (RECIPELINT_NO_CACHE=1), with a fixed hash seed and
with Python's bytecode cache on, after one warm-up run that writes it, as an installed copy
runs. Each --against REV is the same check run on that git revision of this checkout (its
files exported to a scratch folder, in this interpreter), printed with its ratio to the
working copy. --ignore is passed to the check: the difference to a run without it is what
those rules cost. Valgrind slows the run about a hundredfold: one run takes minutes.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench import DEFAULT_TREE, PROJECT, RUN_FIRST_ON_PATH  # noqa: E402

ENVIRONMENT = {
    **{key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"},
    "PYTHONHASHSEED": "0",
    "RECIPELINT_NO_CACHE": "1",
}
# What a check reads of a checkout: the package, its rule catalog and its schemas.
PACKAGE_PARTS = ("recipelint", "rules", "schemas")
TOTALS = re.compile(rb"^(?:summary|totals): (\d+)", re.MULTILINE)


def check_command(tree: Path, ignore: str | None) -> list[str]:
    # Each revision with its own catalogs and schemas, the working copy included.
    command = [sys.executable, "-c", RUN_FIRST_ON_PATH, "check", str(tree)]
    command += ["--exit-zero", "-q", "--jobs", "1"]
    return command + (["--ignore", ignore] if ignore else [])


def instructions(command: list[str], source: Path, work: Path) -> int:
    """The instructions callgrind counts in one run of the command, after a warm-up run."""
    # `python -c` puts the working folder first on the path: run in the source folder.
    environment = {**ENVIRONMENT, "PYTHONPATH": str(source)}
    subprocess.run(command, cwd=source, env=environment, stdout=subprocess.DEVNULL, check=True)
    out = work / "callgrind.out"
    subprocess.run(
        ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", *command],
        cwd=source,
        env=environment,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=True,
    )
    found = TOTALS.search(out.read_bytes())
    out.unlink()
    if found is None:
        raise SystemExit("callgrind wrote no totals")
    return int(found.group(1))


def exported(revision: str, into: Path) -> Path:
    """The package of a git revision of this checkout, as files in a scratch folder."""
    archive = subprocess.run(
        ["git", "-C", str(PROJECT), "archive", "--format=tar", revision, *PACKAGE_PARTS],
        capture_output=True,
        check=True,
    ).stdout
    into.mkdir()
    with tempfile.TemporaryFile() as buffer:
        buffer.write(archive)
        buffer.seek(0)
        with tarfile.open(fileobj=buffer) as tar:
            tar.extractall(into, filter="data")
    return into


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("tree", nargs="?", type=Path, default=DEFAULT_TREE)
    parser.add_argument("--against", action="append", default=[], metavar="REV")
    parser.add_argument("--ignore", metavar="CODES")
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        parser.error("valgrind is not installed (apt-get install valgrind)")
    if not (args.tree / "taxonomy.yaml").is_file():
        parser.error(f"{args.tree} is not a recipe tree")
    command = check_command(args.tree.resolve(), args.ignore)
    with tempfile.TemporaryDirectory(prefix="recipelint-cpu-budget-") as scratch:
        work = Path(scratch)
        here = instructions(command, PROJECT, work)
        print(f"tree: {args.tree.resolve()}  ignore: {args.ignore or '-'}")
        print("| code | instructions | ratio to it |")
        print("|---|---|---|")
        print(f"| working copy | {here:,} | |")
        for number, revision in enumerate(args.against):
            source = exported(revision, work / f"rev{number}")
            theirs = instructions(command, source, work)
            print(f"| {revision} | {theirs:,} | {here / theirs:.3f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
