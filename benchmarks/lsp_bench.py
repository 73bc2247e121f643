#!/usr/bin/env python3
"""Latency of `recipelint lsp` on a recipe tree, driven over stdio as an editor drives it.

usage: python benchmarks/lsp_bench.py [TREE] [--edits 200] [--requests 50] [--servers 3]
                                      [--show-hover]

TREE defaults to corpus/upstream/tree in $RECIPELINT_SHARED (else ../shared), the
setting the tests use for the upstream corpus. The largest recipe of the tree is opened
in a fresh server (--servers times: the figure is the median) and the time until its
first diagnostics arrive is measured from `didOpen` (the tree is loaded then). In one
server it is then edited --edits times, one keystroke each (typing into its description,
then into a number), and each edit is timed until its diagnostics arrive; the server
runs with `--debounce-ms 0`, so the figure is the check itself, not the quiet time an
editor session waits after a burst of typing. Hover and completion are timed --requests
times at a flag, a variant key and a hardware id. --show-hover prints the hover of the
first variant: the command recipelint renders for it.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import os
import re
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.lsp.client import LanguageClient

PROJECT = Path(__file__).resolve().parent.parent
# The one setting for the upstream corpus, as in tests/conftest.py (not imported: it needs pytest).
SHARED = Path(os.environ.get("RECIPELINT_SHARED") or PROJECT.parent / "shared").expanduser()
DEFAULT_TREE = SHARED / "corpus" / "upstream" / "tree"
SERVER = [
    sys.executable,
    "-c",
    "from recipelint.cli import run; run()",
    "lsp",
    "--debounce-ms",
    "0",
]
WAIT_SECONDS = 60.0


class Session:
    """One server process and the diagnostics it publishes, with when they arrived."""

    def __init__(self) -> None:
        self.client = LanguageClient("recipelint-lsp-bench", "1")
        self.arrived: dict[str, asyncio.Event] = {}
        self.findings: dict[str, int] = {}

        @self.client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def published(params: types.PublishDiagnosticsParams) -> None:
            self.findings[params.uri] = len(params.diagnostics)
            self.arrived.setdefault(params.uri, asyncio.Event()).set()

    async def start(self) -> None:
        await self.client.start_io(*SERVER)
        await self.client.initialize_async(
            types.InitializeParams(capabilities=types.ClientCapabilities(), process_id=os.getpid())
        )
        self.client.initialized(types.InitializedParams())

    async def stop(self) -> None:
        await self.client.shutdown_async(None)
        self.client.exit(None)
        await self.client.stop()

    def expect(self, uri: str) -> asyncio.Event:
        event = self.arrived[uri] = asyncio.Event()
        return event

    async def timed(self, uri: str, send: Callable[[], None]) -> float:
        """Seconds from sending a notification until diagnostics for ``uri`` arrive."""
        event = self.expect(uri)
        start = time.perf_counter()
        send()
        await asyncio.wait_for(event.wait(), WAIT_SECONDS)
        return time.perf_counter() - start

    def open(self, uri: str, text: str) -> None:
        self.client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                types.TextDocumentItem(uri=uri, language_id="yaml", version=1, text=text)
            )
        )

    def change(self, uri: str, version: int, at: types.Position, text: str, length: int) -> None:
        end = types.Position(at.line, at.character + length)
        self.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                types.VersionedTextDocumentIdentifier(version=version, uri=uri),
                [types.TextDocumentContentChangePartial(range=types.Range(at, end), text=text)],
            )
        )


def largest_recipe(tree: Path) -> Path:
    recipes = sorted((tree / "models").rglob("*.yaml"), key=lambda p: (-p.stat().st_size, p))
    if not recipes:
        raise SystemExit(f"{tree}: no recipe under models/")
    return recipes[0]


def position_of(lines: list[str], pattern: str, offset: int = 0) -> types.Position | None:
    """The first line matching ``pattern``: the match's start (group 1 if any) plus ``offset``."""
    compiled = re.compile(pattern)
    for number, line in enumerate(lines):
        match = compiled.search(line)
        if match:
            start = match.start(1) if compiled.groups else match.start()
            return types.Position(number, start + offset)
    return None


def figures(seconds: list[float]) -> str:
    ms = sorted(s * 1000 for s in seconds)
    p95 = ms[min(len(ms) - 1, round(0.95 * (len(ms) - 1)))]
    return f"p50 {statistics.median(ms):6.1f} ms   p95 {p95:6.1f} ms   max {ms[-1]:6.1f} ms"


async def first_diagnostics(uri: str, text: str) -> tuple[float, float]:
    """(seconds from didOpen to the first diagnostics, seconds to start and initialize)."""
    session = Session()
    start = time.perf_counter()
    await session.start()
    started = time.perf_counter() - start
    opened = await session.timed(uri, lambda: session.open(uri, text))
    await session.stop()
    return opened, started


async def edits(session: Session, uri: str, lines: list[str], count: int) -> list[float]:
    """Time ``count`` keystrokes: into the description, then into a number."""
    description = position_of(lines, r'^\s+description:\s*"(.*)"', 0)
    number = position_of(lines, r"^\s+vram_minimum_gb:\s*(\d)")
    if description is None or number is None:
        raise SystemExit("the recipe has no quoted description or vram_minimum_gb to edit")
    spent = []
    for index in range(count):
        if index % 2 == 0:  # type a letter at the start of the description
            at, text, length = description, "x", 0
        else:  # replace the first digit of a number with another
            at, text, length = number, str(index % 9 + 1), 1
        version = index + 2
        spent.append(
            await session.timed(
                uri, functools.partial(session.change, uri, version, at, text, length)
            )
        )
    return spent


async def requests(count: int, call: Callable[[], Awaitable[Any]]) -> tuple[list[float], Any]:
    spent, answer = [], None
    for _ in range(count):
        start = time.perf_counter()
        answer = await call()
        spent.append(time.perf_counter() - start)
    return spent, answer


async def run(tree: Path, edit_count: int, request_count: int, servers: int, show: bool) -> None:
    recipe = largest_recipe(tree)
    text = recipe.read_text(encoding="utf-8")
    lines = text.splitlines()
    uri = recipe.resolve().as_uri()
    count = sum(1 for _ in (tree / "models").rglob("*.yaml"))
    print(f"tree: {tree} ({count} recipes)")
    print(f"recipe: {recipe.relative_to(tree)} ({len(lines)} lines)")

    opened = [await first_diagnostics(uri, text) for _ in range(servers)]
    print(
        f"first diagnostics after didOpen:  median {statistics.median(o for o, _ in opened):.2f} s"
        f" over {servers} fresh servers (start and initialize before it: "
        f"{statistics.median(s for _, s in opened):.2f} s)"
    )

    session = Session()
    await session.start()
    await session.timed(uri, lambda: session.open(uri, text))
    print(f"findings in the recipe: {session.findings[uri]}")
    print(
        f"re-diagnosis after an edit ({edit_count} edits):  {figures(await edits(session, uri, lines, edit_count))}"
    )

    document = types.TextDocumentIdentifier(uri)
    places = {
        "a flag": position_of(lines, r'^\s+- "?(--[a-z])', 3),
        "a variant key (rendered command)": position_of(lines, r"^variants:\s*$"),
        "a hardware id": position_of(lines, r"^  hardware:\s*$"),
    }
    # The keys are on the line after their section's heading.
    for name in ("a variant key (rendered command)", "a hardware id"):
        heading = places[name]
        if heading is not None:
            places[name] = types.Position(
                heading.line + 1,
                len(lines[heading.line + 1]) - len(lines[heading.line + 1].lstrip()) + 1,
            )
    hover_shown = None
    for name, place in places.items():
        if place is None:
            continue
        params = types.HoverParams(document, place)
        spent, answer = await requests(
            request_count, lambda p=params: session.client.text_document_hover_async(p)
        )
        print(f"hover on {name}:  {figures(spent)}")
        if name.startswith("a variant") and answer is not None:
            hover_shown = answer.contents.value
    completions = {
        "flags (in an argument list)": places["a flag"],
        "hardware ids": places["a hardware id"],
    }
    for name, place in completions.items():
        if place is None:
            continue
        params = types.CompletionParams(document, place)
        spent, answer = await requests(
            request_count, lambda p=params: session.client.text_document_completion_async(p)
        )
        items = len(answer.items) if answer is not None else 0
        print(f"completion of {name} ({items} items):  {figures(spent)}")
    await session.stop()
    if show and hover_shown:
        print("\nhover on the first variant key:\n")
        print(hover_shown)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tree", nargs="?", type=Path, default=DEFAULT_TREE)
    parser.add_argument("--edits", type=int, default=200)
    parser.add_argument("--requests", type=int, default=50)
    parser.add_argument("--servers", type=int, default=3)
    parser.add_argument("--show-hover", action="store_true")
    args = parser.parse_args()
    if not (args.tree / "taxonomy.yaml").is_file():
        raise SystemExit(f"{args.tree}: not a recipe tree (set RECIPELINT_SHARED or pass TREE)")
    asyncio.run(run(args.tree.resolve(), args.edits, args.requests, args.servers, args.show_hover))


if __name__ == "__main__":
    main()
