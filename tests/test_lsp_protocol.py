"""The protocol itself: bytes an editor (or a broken one) writes to `recipelint lsp`.

Every request gets an answer, a malformed frame costs only itself, and the server keeps
nothing per notification once it is handled.
"""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any, BinaryIO

import pytest

from recipelint.lsp.server import RecipeServer

SCRIPT = Path(sys.executable).with_name("recipelint")
SERVER = (
    [str(SCRIPT), "lsp"]
    if SCRIPT.exists()
    else [sys.executable, "-c", "from recipelint.cli import run; run()", "lsp"]
)
# Generous: the machine running the tests may be busy; an answer that never comes fails
# the test when this runs out.
ANSWER_SECONDS = 30.0


def frame(message: dict[str, Any]) -> bytes:
    body = json.dumps(message).encode("utf-8")
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def request(msg_id: int, method: str, params: Any = None) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params}


class RawClient:
    """`recipelint lsp` over pipes: bytes in, the messages it writes read back in order."""

    def __init__(self) -> None:
        self.process = subprocess.Popen(
            SERVER, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
        )
        self.messages: queue.Queue[dict[str, Any] | None] = queue.Queue()
        assert self.process.stdout is not None
        threading.Thread(target=self._read, args=(self.process.stdout,), daemon=True).start()

    def _read(self, stream: BinaryIO) -> None:
        while True:
            length = None
            while (line := stream.readline()) not in (b"\r\n", b""):
                name, _, value = line.decode("ascii").partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            if not line or length is None:
                self.messages.put(None)
                return
            self.messages.put(json.loads(stream.read(length)))

    def send(self, data: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def answer(self, msg_id: int, what: str = "") -> dict[str, Any]:
        """The response to request ``msg_id``; notifications before it are passed over."""
        while True:
            try:
                message = self.messages.get(timeout=ANSWER_SECONDS)
            except queue.Empty:
                pytest.fail(f"no answer to request {msg_id} ({what}) in {ANSWER_SECONDS:.0f} s")
            assert message is not None, "the server closed its output"
            if message.get("id") == msg_id and "method" not in message:
                return message

    def start(self) -> None:
        self.send(frame(request(1, "initialize", {"processId": None, "capabilities": {}})))
        assert "result" in self.answer(1)
        self.send(frame({"jsonrpc": "2.0", "method": "initialized", "params": {}}))

    def stop(self) -> int:
        """Shut down as an editor does; the exit status."""
        self.send(frame(request(99, "shutdown")))
        assert self.answer(99).get("result", "missing") is None
        self.send(frame({"jsonrpc": "2.0", "method": "exit"}))
        return self.process.wait(timeout=ANSWER_SECONDS)

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


@pytest.fixture
def client() -> Any:
    raw = RawClient()
    raw.start()
    yield raw
    raw.close()


UNREADABLE_PARAMS = {
    "wrong types": {"textDocument": 5, "position": "here"},
    "missing field": {"position": {"line": 0, "character": 0}},
    "not an object": [1, 2, 3],
}


def test_requests_with_unreadable_params_are_answered_with_invalid_params(
    client: RawClient,
) -> None:
    # One server for every case: starting one is most of a case's cost.
    for msg_id, name in enumerate(sorted(UNREADABLE_PARAMS), start=2):
        client.send(frame(request(msg_id, "textDocument/hover", UNREADABLE_PARAMS[name])))
        assert client.answer(msg_id, name)["error"]["code"] == -32602, name
    assert client.stop() == 0


MALFORMED_HEADERS = {
    "not a number": b"Content-Length: abc\r\n\r\n",
    "negative": b"Content-Length: -5\r\n\r\n",
    "zero": b"Content-Length: 0\r\n\r\n",
    "too short": b"Content-Length: 7\r\n\r\n",
    "misspelt": b"Content-Lenght: 64\r\n\r\n",
}


def test_a_malformed_content_length_costs_only_its_own_message(client: RawClient) -> None:
    lost = json.dumps(request(2, "textDocument/hover", {})).encode("utf-8")
    for msg_id, name in enumerate(sorted(MALFORMED_HEADERS), start=3):
        client.send(MALFORMED_HEADERS[name] + lost)
        client.send(frame(request(msg_id, "workspace/symbol", {"query": "x"})))
        assert "id" in client.answer(msg_id, f"the request after a header {name}")
    assert client.stop() == 0


def test_a_malformed_message_right_before_shutdown_does_not_lose_it(client: RawClient) -> None:
    client.send(b"Content-Length: 1O\r\n\r\n" + json.dumps(request(2, "shutdown")).encode())
    assert client.stop() == 0


class Collected:
    """A writer that keeps what the server writes."""

    def __init__(self) -> None:
        self.written: list[bytes] = []

    def write(self, data: bytes) -> None:
        self.written.append(data)


def test_notifications_leave_no_futures_behind(tmp_path: Path) -> None:
    server = RecipeServer()
    protocol = server.protocol
    protocol.set_writer(Collected())

    def receive(message: dict[str, Any]) -> None:
        protocol.handle_message(
            json.loads(json.dumps(message), object_hook=protocol.structure_message)
        )

    receive(request(1, "initialize", {"processId": None, "capabilities": {}}))
    uri = (tmp_path / "notes.txt").as_uri()
    receive(
        {
            "jsonrpc": "2.0",
            "method": "textDocument/didOpen",
            "params": {
                "textDocument": {"uri": uri, "languageId": "yaml", "version": 1, "text": ""}
            },
        }
    )
    for version in range(2, 202):
        receive(
            {
                "jsonrpc": "2.0",
                "method": "textDocument/didChange",
                "params": {
                    "textDocument": {"uri": uri, "version": version},
                    "contentChanges": [{"text": f"edit {version}\n"}],
                },
            }
        )
    assert server.workspace.get_text_document(uri).source == "edit 201\n"
    assert protocol._request_futures == {}
