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
first variant: the command recipelint renders for it. Wall times grow with whatever else
the machine runs; the server's CPU per edit, and the same edits checked in this process
and timed in CPU seconds, hardly do.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import json
import os
import re
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

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
Position = dict[str, int]


class Session:
    """One server process spoken to in raw JSON-RPC, as an editor does: the time of a request
    is the server's answer and the transport, not a Python client's decoding of it."""

    def __init__(self, command: list[str] | None = None) -> None:
        self.command = command or SERVER
        self.process: asyncio.subprocess.Process | None = None
        self.answers: dict[int, asyncio.Future[Any]] = {}
        self.arrived: dict[str, asyncio.Event] = {}
        self.findings: dict[str, int] = {}
        self.next_id = 0
        self.reader: asyncio.Task[None] | None = None

    async def start(self) -> None:
        self.process = await asyncio.create_subprocess_exec(
            *self.command,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
        )
        self.reader = asyncio.create_task(self.read())
        await self.request("initialize", {"processId": os.getpid(), "capabilities": {}})
        self.notify("initialized", {})

    async def stop(self) -> None:
        await self.request("shutdown", None)
        self.notify("exit", None)
        assert self.process is not None
        await self.process.wait()
        if self.reader is not None:
            self.reader.cancel()

    def send(self, message: dict[str, Any]) -> None:
        assert self.process is not None and self.process.stdin is not None
        body = json.dumps({"jsonrpc": "2.0", **message}).encode("utf-8")
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def notify(self, method: str, params: Any) -> None:
        self.send({"method": method, "params": params})

    async def request(self, method: str, params: Any) -> Any:
        self.next_id += 1
        answer = self.answers[self.next_id] = asyncio.get_running_loop().create_future()
        self.send({"id": self.next_id, "method": method, "params": params})
        return await asyncio.wait_for(answer, WAIT_SECONDS)

    async def read(self) -> None:
        assert self.process is not None and self.process.stdout is not None
        stream = self.process.stdout
        while True:
            length = 0
            while (line := await stream.readline()) not in (b"\r\n", b""):
                name, _, value = line.decode("ascii").partition(":")
                if name.strip().lower() == "content-length":
                    length = int(value)
            if not line:
                return
            self.receive(json.loads(await stream.readexactly(length)))

    def receive(self, message: dict[str, Any]) -> None:
        if "id" in message and "method" in message:  # a request of the server's: answer it
            self.send({"id": message["id"], "result": None})
        elif "id" in message:
            self.answers.pop(message["id"]).set_result(message.get("result"))
        elif message.get("method") == "textDocument/publishDiagnostics":
            uri = message["params"]["uri"]
            self.findings[uri] = len(message["params"]["diagnostics"])
            self.arrived.setdefault(uri, asyncio.Event()).set()

    def cpu_seconds(self) -> float | None:
        """User and system CPU the server has used so far (None where /proc is absent)."""
        assert self.process is not None
        try:
            fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            return None
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    async def timed(self, uri: str, send: Callable[[], None]) -> float:
        """Seconds from sending a notification until diagnostics for ``uri`` arrive."""
        event = self.arrived[uri] = asyncio.Event()
        start = time.perf_counter()
        send()
        await asyncio.wait_for(event.wait(), WAIT_SECONDS)
        return time.perf_counter() - start

    def open(self, uri: str, text: str) -> None:
        document = {"uri": uri, "languageId": "yaml", "version": 1, "text": text}
        self.notify("textDocument/didOpen", {"textDocument": document})

    def change(self, uri: str, version: int, at: Position, text: str, length: int) -> None:
        end = {"line": at["line"], "character": at["character"] + length}
        change = {"range": {"start": at, "end": end}, "text": text}
        self.notify(
            "textDocument/didChange",
            {"textDocument": {"uri": uri, "version": version}, "contentChanges": [change]},
        )


def largest_recipe(tree: Path) -> Path:
    recipes = sorted((tree / "models").rglob("*.yaml"), key=lambda p: (-p.stat().st_size, p))
    if not recipes:
        raise SystemExit(f"{tree}: no recipe under models/")
    return recipes[0]


def position_of(lines: list[str], pattern: str, offset: int = 0) -> Position | None:
    """The first line matching ``pattern``: the match's start (group 1 if any) plus ``offset``."""
    compiled = re.compile(pattern)
    for number, line in enumerate(lines):
        match = compiled.search(line)
        if match:
            start = match.start(1) if compiled.groups else match.start()
            return {"line": number, "character": start + offset}
    return None


def first_key_under(lines: list[str], heading: str) -> Position | None:
    """The position just inside the first key on the line after ``heading``."""
    found = position_of(lines, heading)
    if found is None or found["line"] + 1 >= len(lines):
        return None
    line = lines[found["line"] + 1]
    return {"line": found["line"] + 1, "character": len(line) - len(line.lstrip()) + 1}


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


def edited_texts(text: str, count: int) -> list[str]:
    """The texts the stdio edits produce, one per keystroke, for the in-process figures."""
    lines = text.splitlines(keepends=True)
    description = position_of([line.rstrip("\n") for line in lines], r'^\s+description:\s*"(.*)"')
    number = position_of([line.rstrip("\n") for line in lines], r"^\s+vram_minimum_gb:\s*(\d)")
    if description is None or number is None:
        raise SystemExit("the recipe has no quoted description or vram_minimum_gb to edit")
    texts = []
    for index in range(count):
        at = description if index % 2 == 0 else number
        line = lines[at["line"]]
        column = at["character"]
        if index % 2 == 0:
            lines[at["line"]] = line[:column] + "x" + line[column:]
        else:
            lines[at["line"]] = line[:column] + str(index % 9 + 1) + line[column + 1 :]
        texts.append("".join(lines))
    return texts


def in_process_checks(recipe: Path, count: int) -> list[float]:
    """CPU seconds of each re-check in this process (the server's work without the transport;
    CPU time, unlike wall time, hardly depends on what else the machine runs)."""
    from recipelint.lsp.workspace import Workspace

    path = recipe.resolve()
    loaded = Workspace().tree_of(path)
    if loaded is None:
        raise SystemExit(f"{recipe}: not in a recipe tree")
    texts = edited_texts(path.read_text(encoding="utf-8"), count)
    loaded.set_text(path, texts[0])
    loaded.check(path)  # warm: imports and compiled schemas, as the server has them by then
    spent = []
    for text in texts:
        start = time.process_time()
        loaded.set_text(path, text)
        loaded.check(path)
        spent.append(time.process_time() - start)
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
    cpu_before = session.cpu_seconds()
    spent = await edits(session, uri, lines, edit_count)
    cpu = session.cpu_seconds() - cpu_before if cpu_before is not None else None
    print(f"re-diagnosis after an edit ({edit_count} edits):  {figures(spent)}")
    if cpu is not None:
        # CPU time barely depends on what else the machine runs; wall time does.
        print(f"  server CPU per edit: {cpu / edit_count * 1000:.1f} ms (mean)")
    print(
        f"  the same edits checked in process, CPU time:  {figures(in_process_checks(recipe, edit_count))}"
    )

    document = {"uri": uri}
    places = {
        "a flag": position_of(lines, r'^\s+- "?(--[a-z])', 3),
        # The first key under each section heading.
        "a variant key (rendered command)": first_key_under(lines, r"^variants:\s*$"),
        "a hardware id": first_key_under(lines, r"^  hardware:\s*$"),
    }
    hover_shown = None
    for name, place in places.items():
        if place is None:
            continue
        params = {"textDocument": document, "position": place}
        spent, answer = await requests(
            request_count, functools.partial(session.request, "textDocument/hover", params)
        )
        print(f"hover on {name}:  {figures(spent)}")
        if name.startswith("a variant") and answer is not None:
            hover_shown = answer["contents"]["value"]
    completions = {
        "flags (in an argument list)": places["a flag"],
        "hardware ids": places["a hardware id"],
    }
    for name, place in completions.items():
        if place is None:
            continue
        params = {"textDocument": document, "position": place}
        spent, answer = await requests(
            request_count, functools.partial(session.request, "textDocument/completion", params)
        )
        items = len(answer["items"]) if answer is not None else 0
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
