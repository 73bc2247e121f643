#!/usr/bin/env python3
"""The check cache and lazy imports: pre-commit's one-file check (of an unchanged file, and of
the file just edited), a whole-tree check after one edit, and `--help`, each cold (no cache)
and warm, with check-jsonschema beside them.

usage: python benchmarks/cache_bench.py [TREE] [--runs N] [--recipe REL]

TREE (default: the upstream corpus, as benchmarks/bench.py finds it) is copied to a scratch
folder, so the cache is written there. Each figure is the median of N (default 7) runs of
a fresh process, wall and user CPU, measured as bench.py does. check-jsonschema (pip
install check-jsonschema) validates the same recipe with recipelint's own recipe schema.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench import DEFAULT_TREE, PROJECT, Sample, median_of  # noqa: E402

RECIPELINT = [sys.executable, "-m", "recipelint"]
SCHEMA = PROJECT / "schemas" / "recipe.schema.json"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("tree", nargs="?", type=Path, default=DEFAULT_TREE)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--recipe", default="models/openai/gpt-oss-120b.yaml")
    args = parser.parse_args()
    # A user's install keeps its bytecode: measured without it, every run would compile the
    # package's modules again and the figures would show that instead of the check.
    if os.environ.pop("PYTHONDONTWRITEBYTECODE", None) is not None:
        print("PYTHONDONTWRITEBYTECODE is set: the runs are measured without it", file=sys.stderr)
    with tempfile.TemporaryDirectory(prefix="recipelint-cache-bench-") as scratch:
        tree = Path(scratch) / "tree"
        shutil.copytree(args.tree, tree)
        cache = tree / ".recipelint_cache"
        edited = tree / args.recipe
        original = edited.read_bytes()
        edits = iter(range(1_000_000))

        def nothing() -> None:
            pass

        def no_cache() -> None:
            shutil.rmtree(cache, ignore_errors=True)

        def edit_one() -> None:
            # A new text each run: the edited recipe misses, the rest of the tree hits.
            edited.write_bytes(original + f"# edit {next(edits)}\n".encode())

        one = [*RECIPELINT, "check", "-q", args.recipe]
        whole = [*RECIPELINT, "check", "-q", "."]
        rows: list[tuple[str, Sample]] = [
            ("--help", median_of([*RECIPELINT, "--help"], args.runs, tree, nothing)),
            (
                "one file, cold (--no-cache)",
                median_of([*one, "--no-cache"], args.runs, tree, nothing),
            ),
            ("one file, warm", median_of(one, args.runs, tree, nothing)),
            ("one file, warm after editing it", median_of(one, args.runs, tree, edit_one)),
            (
                "whole tree, cold (--no-cache)",
                median_of([*whole, "--no-cache"], args.runs, tree, nothing),
            ),
            ("whole tree, first run (cache empty)", median_of(whole, args.runs, tree, no_cache)),
            ("whole tree, warm after editing one", median_of(whole, args.runs, tree, edit_one)),
        ]
        edited.write_bytes(original)
        validator = shutil.which("check-jsonschema") or str(
            Path(sys.executable).parent / "check-jsonschema"
        )
        if Path(validator).exists():
            command = [validator, "--schemafile", str(SCHEMA), args.recipe]
            rows.append(
                ("check-jsonschema, one file", median_of(command, args.runs, tree, nothing))
            )
        else:
            print("check-jsonschema is not installed: its row is left out", file=sys.stderr)
    print(f"medians of {args.runs} runs, tree {args.tree}, recipe {args.recipe}")
    print(f"{'run':<40} {'wall s':>8} {'user s':>8} {'peak MB':>8}")
    for name, sample in rows:
        print(f"{name:<40} {sample.wall:>8.3f} {sample.user:>8.3f} {sample.peak_mb:>8.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
