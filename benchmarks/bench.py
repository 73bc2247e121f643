#!/usr/bin/env python3
"""Speed and memory of recipelint on a recipe tree, with the upstream build beside it.

usage: python benchmarks/bench.py [TREE] [--runs N] [--upstream DIR]

TREE defaults to corpus/upstream/tree in $RECIPELINT_SHARED (else ../shared), the
setting the tests use for the upstream corpus. Each figure is the median of N
runs of a fresh process (process start included) after one warm-up run, measured
with wait4() so user CPU and peak RSS are the child's own (with any helpers it
forked). Commands run with Python's bytecode cache on, as an installed package does.
--upstream names a checkout of vllm-project/recipes whose node_modules holds js-yaml 4
(`npm install js-yaml@4`); its build is then run on a scratch copy of TREE and shown
side by side, with recipelint's compile CPU and memory as a ratio of it.
How the figures grow with the tree: benchmarks/scale.py (trees 1x, 5x, 10x the size).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

PROJECT = Path(__file__).resolve().parent.parent
# The one setting for the upstream corpus, as in tests/conftest.py (not imported: it needs pytest).
SHARED = Path(os.environ.get("RECIPELINT_SHARED") or PROJECT.parent / "shared").expanduser()
DEFAULT_TREE = SHARED / "corpus" / "upstream" / "tree"
# `python -c RUN_FIRST_ON_PATH ARGS...` runs the recipelint first on sys.path (the working
# folder, then PYTHONPATH) with its own data: an editable install's import hook would
# otherwise lend a copy of another revision the checkout's `recipelint._catalog` and
# `recipelint._schemas` (its rule and flag catalogs, its schemas).
RUN_FIRST_ON_PATH = (
    "import sys; sys.meta_path[:] = [f for f in sys.meta_path"
    " if not getattr(f, '__module__', '').startswith('__editable__')]; "
    "from recipelint.cli import run; run()"
)
TREE_PARTS = ("models", "strategies", "kv_store", "taxonomy.yaml", "platforms.yaml")


@dataclass
class Sample:
    wall: float
    user: float
    system: float
    peak_mb: float
    status: int


# As installed packages run: with bytecode caches (pip compiles them at install time;
# an editable checkout gets them on the warm-up run), whatever this shell says.
ENVIRONMENT = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}


def run_once(command: list[str], cwd: Path | None = None) -> Sample:
    start = time.perf_counter()
    process = subprocess.Popen(
        command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENVIRONMENT
    )
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    return Sample(wall, usage.ru_utime, usage.ru_stime, usage.ru_maxrss / 1024, process.returncode)


def median_of(command: list[str], runs: int, cwd: Path | None = None, before=None) -> Sample:
    if before:
        before()
    run_once(command, cwd)  # warm-up: bytecode and file caches, as on any later run
    samples = []
    for _ in range(runs):
        if before:
            before()
        samples.append(run_once(command, cwd))
    return Sample(
        statistics.median(s.wall for s in samples),
        statistics.median(s.user for s in samples),
        statistics.median(s.system for s in samples),
        max(s.peak_mb for s in samples),
        max(s.status for s in samples),
    )


def recipelint(*args: str) -> list[str]:
    return [sys.executable, "-c", "from recipelint.cli import run; run()", *args]


def first_recipe(tree: Path) -> Path:
    return next(p for p in sorted((tree / "models").rglob("*.yaml")))


def scratch_copy(tree: Path, into: Path) -> Path:
    into.mkdir(parents=True, exist_ok=True)
    for part in TREE_PARTS:
        source = tree / part
        if source.is_dir():
            shutil.copytree(source, into / part)
        elif source.is_file():
            shutil.copy2(source, into / part)
    return into


def upstream_sample(upstream: Path, tree: Path, runs: int, work: Path) -> Sample | None:
    node = shutil.which("node")
    script = upstream / "scripts" / "build-recipes-api.mjs"
    if not node or not script.is_file():
        return None
    build = work / "upstream"
    build.mkdir()
    for part in ("scripts", "src", "node_modules", "package.json"):
        if (upstream / part).exists():
            (build / part).symlink_to(upstream / part)
    for part in TREE_PARTS:
        if (tree / part).exists():
            (build / part).symlink_to(tree / part)
    return median_of(
        [node, str(script.relative_to(upstream))],
        runs,
        cwd=build,
        before=lambda: shutil.rmtree(build / "public", ignore_errors=True),
    )


def row(name: str, sample: Sample | None, baseline: Sample | None = None) -> str:
    if sample is None:
        return f"| {name} | n/a | | | | |"
    flag = "" if sample.status in (0, 1) else f" (exit {sample.status})"
    ratio = ""
    if baseline is not None and baseline.user > 0 and baseline.peak_mb > 0:
        ratio = (
            f"{sample.user / baseline.user:.2f} CPU, {sample.peak_mb / baseline.peak_mb:.2f} memory"
        )
    return (
        f"| {name}{flag} | {sample.wall:.3f} | {sample.user:.3f} | {sample.system:.3f} "
        f"| {sample.peak_mb:.0f} | {ratio} |"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tree", nargs="?", type=Path, default=DEFAULT_TREE)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument(
        "--upstream", type=Path, help="checkout of vllm-project/recipes with node_modules"
    )
    args = parser.parse_args()
    if not (args.tree / "taxonomy.yaml").is_file():
        parser.error(f"{args.tree} is not a recipe tree")
    tree = args.tree.resolve()
    samples: list[tuple[str, Sample | None, bool]] = []  # name, sample, compared with upstream
    with tempfile.TemporaryDirectory(prefix="recipelint-bench-") as tmp:
        work = Path(tmp)
        out = work / "out"
        samples.append(
            ("check, whole tree", median_of(recipelint("check", "-q", str(tree)), args.runs), False)
        )
        samples.append(
            (
                "check, one file",
                median_of(recipelint("check", "-q", str(first_recipe(tree))), args.runs),
                False,
            )
        )
        samples.append(
            (
                "compile, whole tree",
                median_of(
                    recipelint("compile", str(tree), "-o", str(out)),
                    args.runs,
                    before=lambda: shutil.rmtree(out, ignore_errors=True),
                ),
                True,
            )
        )
        copy = scratch_copy(tree, work / "tree")
        touched = first_recipe(copy)
        cache = work / "cache"
        cached_out = work / "cached-out"
        warm = recipelint("compile", str(copy), "-o", str(cached_out), "--cache", str(cache))
        cached = (
            median_of(
                warm, args.runs, before=lambda: touched.write_text(touched.read_text() + "\n")
            )
            if run_once(warm).status == 0
            else None
        )
        samples.append(("compile after touching one recipe (cache)", cached, True))
        # Last, so that its 100 MB of writes being flushed cannot slow the runs above.
        upstream = upstream_sample(args.upstream, tree, args.runs, work) if args.upstream else None
        if args.upstream:
            samples.append(("upstream node build, whole tree", upstream, False))
    rows = [row(name, sample, upstream if compared else None) for name, sample, compared in samples]
    print(f"tree: {tree}  runs: {args.runs} (median; peak = max)")
    print("| what | wall s | user s | sys s | peak MB | vs upstream |")
    print("|---|---|---|---|---|---|")
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
