#!/usr/bin/env python3
"""Memory of `recipelint lsp` over a long editing session, driven over stdio.

usage: python benchmarks/lsp_soak.py [TREE] [--edits 10000] [--check-every 100]

A recipe of TREE (the embedded recipes/ tree by default; its largest recipe) is opened
and edited --edits times, one keystroke each: a letter typed into its description, then
deleted, so the text (and what the server rightly holds for it) stays the same size.
Edits are sent as an editor sends them while the author types; after every
--check-every edits the soak waits for the diagnostics of the last one, so the session
checks the recipe too (the server's usual quiet time decides when). The server's
resident memory (VmRSS) is printed every 1,000 edits: flat figures are a server that
keeps nothing per message.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import sys
import time
from pathlib import Path

from lsp_bench import SERVER, Session, largest_recipe, position_of

PROJECT = Path(__file__).resolve().parent.parent
# The server as an editor starts it: its own quiet time after an edit, so a burst of
# keystrokes is checked once (lsp_bench times each check alone, with no quiet time).
EDITOR_SERVER = SERVER[: SERVER.index("--debounce-ms")]
REPORT_EVERY = 1000


def resident_kib(pid: int) -> int | None:
    """The process's resident set in KiB (None where /proc is absent)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    for line in status.splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return None


async def soak(tree: Path, edits: int, check_every: int) -> None:
    recipe = largest_recipe(tree)
    text = recipe.read_text(encoding="utf-8")
    uri = recipe.resolve().as_uri()
    place = position_of(text.splitlines(), r'^\s+description:\s*"(.*)"')
    if place is None:
        raise SystemExit(f"{recipe}: no quoted description to type into")
    session = Session(EDITOR_SERVER)
    await session.start()
    assert session.process is not None
    pid = session.process.pid
    await session.timed(uri, lambda: session.open(uri, text))
    print(f"recipe: {recipe.relative_to(tree)}; {edits} edits, checked every {check_every}")
    start_kib = resident_kib(pid)
    print(f"{'edits':>6}  {'RSS MiB':>8}  {'growth KiB':>10}  {'s':>6}")
    print(f"{0:>6}  {(start_kib or 0) / 1024:8.1f}  {0:>10}  {0:6.1f}")
    began = time.perf_counter()
    for index in range(edits):
        typed = index % 2 == 0
        change = functools.partial(
            session.change, uri, index + 2, place, "x" if typed else "", 0 if typed else 1
        )
        if (index + 1) % check_every == 0:
            await session.timed(uri, change)
        else:
            change()
        if (index + 1) % REPORT_EVERY == 0:
            # A request is answered after every message before it: all edits are handled.
            await session.request("textDocument/documentSymbol", {"textDocument": {"uri": uri}})
            kib = resident_kib(pid)
            growth = kib - start_kib if kib is not None and start_kib is not None else 0
            elapsed = time.perf_counter() - began
            print(f"{index + 1:>6}  {(kib or 0) / 1024:8.1f}  {growth:>10}  {elapsed:6.1f}")
    await session.stop()
    if start_kib is None:
        print("(no /proc on this system: memory not measured)", file=sys.stderr)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tree", nargs="?", type=Path, default=PROJECT / "recipes")
    parser.add_argument("--edits", type=int, default=10_000)
    parser.add_argument("--check-every", type=int, default=100)
    args = parser.parse_args()
    if not (args.tree / "taxonomy.yaml").is_file():
        raise SystemExit(f"{args.tree}: not a recipe tree")
    asyncio.run(soak(args.tree.resolve(), args.edits, max(1, args.check_every)))


if __name__ == "__main__":
    main()
