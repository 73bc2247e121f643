"""Write the fuzz seed corpus: every embedded tree file, prefixed with its slot byte.

    python fuzz/make_corpus.py fuzz/corpus [--shared $RECIPELINT_SHARED/corpus/upstream/tree]

With --shared (optional, read-only, never copied into the repository's tracked
files: the corpus folder is git-ignored scratch) the upstream recipes are added.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from invariant import EMBEDDED_TREE, SLOTS, seed_files  # noqa: E402


def write_seeds(out: Path, tree: Path) -> int:
    out.mkdir(parents=True, exist_ok=True)
    count = 0
    for slot, path in seed_files(tree):
        data = bytes([SLOTS.index(slot)]) + path.read_bytes()
        (out / hashlib.sha1(data).hexdigest()).write_bytes(data)
        count += 1
    return count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--shared", type=Path, help="an upstream recipe tree to add as seeds")
    args = parser.parse_args()
    count = write_seeds(args.out, EMBEDDED_TREE)
    if args.shared and args.shared.is_dir():
        count += write_seeds(args.out, args.shared)
    print(f"{count} seeds in {args.out}")


if __name__ == "__main__":
    main()
