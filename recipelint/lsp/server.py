"""The pygls server: protocol messages in, the feature modules' answers out.

Everything runs on the server's one event loop, so the loaded trees are never read
and written at once. A burst of edits is checked once, after a short quiet spell; no
handler lets an exception escape: a broken buffer costs its own answer, never the server.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import re
import sys
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, TypeVar, cast

from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol

from recipelint import __version__
from recipelint.lsp import actions, completion, hover, library, navigation
from recipelint.lsp.convert import UTF16, Lines, path_uri, to_protocol, uri_path
from recipelint.lsp.cursor import Cursor, cursor_at
from recipelint.lsp.library import Document
from recipelint.lsp.workspace import LoadedTree, Workspace

# Seconds of quiet after an edit before the buffer is checked: typing stays fluid and a
# burst of keystrokes costs one check.
DEBOUNCE_SECONDS = 0.15
# Seconds of quiet before the other open documents of the tree are checked after an edit.
SETTLE_SECONDS = 1.0
Handler = TypeVar("Handler", bound=Callable[..., Any])
log = logging.getLogger(__name__)


# A header line that ends a line of garbage: what a message read with a malformed
# Content-Length left in front of the next message's header.
HEADER_AT_END = re.compile(rb"Content-Length: \d+\r\n$")


class RecipeProtocol(LanguageServerProtocol):
    """pygls' protocol, with every request answered and no handler's future kept once done."""

    def _execute_handler(
        self,
        msg_id: Any,
        handler: Any,
        callback: Any,
        args: tuple[Any, ...] | None = None,
        kwargs: dict[str, Any] | None = None,
    ) -> None:
        super()._execute_handler(msg_id, handler, callback, args, kwargs)
        # pygls (2.1.1, its newest release) keeps the future of a notification's handler
        # run as a generator (as didChange is) under a fresh id that nothing removes:
        # each edit would leak one.
        future = self._request_futures.get(msg_id)
        if future is not None:
            future.add_done_callback(functools.partial(self._forget_future, msg_id))

    def _forget_future(self, msg_id: Any, future: Future[Any]) -> None:
        if self._request_futures.get(msg_id) is future:
            del self._request_futures[msg_id]

    def structure_message(self, data: dict[str, Any]) -> Any:
        try:
            return super().structure_message(data)
        except JsonRpcException as error:
            if "jsonrpc" not in data or "method" not in data or "id" not in data:
                raise
            # pygls drops a request it cannot read; the client would wait for ever.
            return Refused(data["id"], error)

    def handle_message(self, message: Any) -> None:
        if isinstance(message, Refused):
            msg_id = message.msg_id if isinstance(message.msg_id, (int, str)) else None
            self._send_response(msg_id, None, message.error.to_response_error())  # type: ignore[arg-type]
            return
        super().handle_message(message)


@dataclass(frozen=True)
class Refused:
    """A request whose parameters cannot be read: answered with their error, not handled."""

    msg_id: Any
    error: JsonRpcException


class ResynchronisingInput:
    """Standard input that finds the next message after a malformed one.

    pygls reads headers a line at a time; after a Content-Length it cannot read, the
    body runs into the next message's header line, and that message was lost. A line
    that ends in a header is cut down to the header.
    """

    def __init__(self, stream: BinaryIO) -> None:
        self.stream = stream

    def readline(self) -> bytes:
        line = self.stream.readline()
        found = HEADER_AT_END.search(line)
        return line[found.start() :] if found is not None and found.start() > 0 else line

    def read(self, size: int) -> bytes:
        return self.stream.read(size)


class RecipeServer(LanguageServer):
    """A language server with the recipe trees of the open documents loaded."""

    def __init__(self) -> None:
        super().__init__("recipelint", __version__, protocol_cls=RecipeProtocol)
        self.trees = Workspace()
        self.uris: dict[Path, str] = {}
        self.findings: dict[Path, tuple[Document | None, list[actions.SentFinding]]] = {}
        self.pending: dict[Path, asyncio.TimerHandle] = {}
        self.debounce = DEBOUNCE_SECONDS

    # ------------------------------------------------------------ documents

    @property
    def encoding(self) -> str:
        chosen = self.server_capabilities.position_encoding
        return str(getattr(chosen, "value", chosen) or UTF16)

    def located(self, uri: str) -> tuple[Path, LoadedTree] | None:
        path = uri_path(uri)
        loaded = self.trees.tree_of(path) if path is not None else None
        if path is None or loaded is None or not loaded.holds(path):
            return None  # not a file of a recipe tree: no answers
        return path, loaded

    def opened(self, uri: str, text: str) -> None:
        place = self.located(uri)
        if place is None:
            return
        path, loaded = place
        self.uris[path] = uri
        current = loaded.document(path)
        unchanged = current is not None and current.text == text
        loaded.set_text(path, text)
        # A file opened as saved changes nothing the other open documents read.
        self.diagnose(loaded, [path] if unchanged else loaded.dependents(path))

    def changed(self, uri: str, text: str) -> None:
        place = self.located(uri)
        if place is None:
            return
        path, loaded = place
        loaded.set_text(path, text)
        dependents = loaded.dependents(path)
        for dependent in dependents:
            self.schedule(loaded, dependent, self.debounce)
        # Other recipes may read what this one holds (its slug, its output paths): they are
        # checked again too, once the typing has settled.
        for other in loaded.buffers:
            if other not in dependents:
                self.schedule(loaded, other, max(self.debounce, SETTLE_SECONDS), restart=False)

    def closed(self, uri: str) -> None:
        place = self.located(uri)
        if place is None:
            return
        path, loaded = place
        dependents = loaded.dependents(path)
        loaded.forget(path)
        self.uris.pop(path, None)
        self.findings.pop(path, None)
        self.publish(path, uri, [])
        self.diagnose(loaded, [other for other in dependents if other != path])

    def files_changed(self, changes: list[types.FileEvent]) -> None:
        """Files changed on disk: update each affected tree and re-check its open documents."""
        touched: dict[Path, LoadedTree] = {}
        for change in changes:
            path = uri_path(change.uri)
            root = library.find_tree_root(path) if path is not None else None
            loaded = self.trees.trees.get(root) if root is not None else None
            if path is None or loaded is None:
                continue
            exists = change.type != types.FileChangeType.Deleted
            if loaded.saved(path, exists):
                touched[loaded.root] = loaded
        for loaded in touched.values():
            for path in loaded.buffers:
                self.schedule(loaded, path, self.debounce)

    def watch_files(self) -> None:
        """Ask the client to report changes to tree files and configurations, when it can."""
        capability = self.client_capabilities.workspace
        watched = capability.did_change_watched_files if capability else None
        if watched is None or not watched.dynamic_registration:
            return
        patterns = ["**/*.yaml", "**/*.yml", "**/pyproject.toml", "**/.recipelint.toml"]
        options = types.DidChangeWatchedFilesRegistrationOptions(
            watchers=[types.FileSystemWatcher(glob_pattern=pattern) for pattern in patterns]
        )
        registration = types.Registration(
            id="recipelint-watched-files",
            method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
            register_options=options,
        )
        self.client_register_capability(types.RegistrationParams([registration]))

    # ------------------------------------------------------------ diagnostics

    def schedule(self, loaded: LoadedTree, path: Path, delay: float, restart: bool = True) -> None:
        """Check ``path`` after ``delay`` seconds; ``restart``: instead of any check already
        waiting (an edit postpones its own check), else only when that one would come later."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self.diagnose(loaded, [path])
            return
        waiting = self.pending.get(path)
        if waiting is not None:
            if not restart and waiting.when() <= loop.time() + delay:
                return
            waiting.cancel()
        self.pending[path] = loop.call_later(delay, self.diagnose, loaded, [path])

    def diagnose(self, loaded: LoadedTree, paths: list[Path]) -> None:
        for path in paths:
            self.pending.pop(path, None)
            uri = self.uris.get(path)
            if uri is None or path not in loaded.buffers:
                continue
            try:
                self.publish(path, uri, self.check(loaded, path))
            except Exception:  # noqa: BLE001 - a failed check must not end the session
                log.exception("recipelint: checking %s failed", path)
                self.window_log_message(
                    types.LogMessageParams(types.MessageType.Error, f"checking {path} failed")
                )

    def check(self, loaded: LoadedTree, path: Path) -> list[actions.SentFinding]:
        doc = loaded.document(path)
        found = [d for d in loaded.check(path) if d.path == path]
        lines = Lines(doc.text if doc is not None else loaded.buffers.get(path, ""), self.encoding)
        lines_of = self.lines_of(loaded)
        findings = [actions.SentFinding(d, to_protocol(d, lines, lines_of)) for d in found]
        self.findings[path] = (doc, findings)
        return findings

    def lines_of(self, loaded: LoadedTree) -> Callable[[Path], Lines]:
        texts = {doc.path: doc.text for doc in loaded.tree.documents()}

        @functools.cache
        def lines(path: Path) -> Lines:
            text = texts.get(path)
            if text is None:
                try:
                    text = path.read_text(encoding="utf-8", errors="replace")
                except OSError:
                    text = ""
            return Lines(text, self.encoding)

        return lines

    def publish(self, path: Path, uri: str, findings: list[actions.SentFinding]) -> None:
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=[f.shown for f in findings])
        )

    # ------------------------------------------------------------ requests

    def at(
        self, uri: str, position: types.Position
    ) -> tuple[LoadedTree, Document, Cursor, int] | None:
        """The document and the cursor for a request (None outside any recipe tree)."""
        place = self.located(uri)
        if place is None:
            return None
        path, loaded = place
        doc = loaded.document(path)
        if doc is None or len(doc.text) > loaded.limits.max_file_bytes:
            return None  # a file over the size limit is only reported (RL003), as `check` does
        lines = Lines(doc.text, self.encoding)
        character = lines.from_units(position.line, position.character)
        return loaded, doc, cursor_at(lines.lines, position.line, character), character


def guarded(default: Any) -> Callable[[Handler], Handler]:
    """A handler that answers ``default`` (and logs why) instead of failing."""

    def wrap(handler: Handler) -> Handler:
        @functools.wraps(handler)
        def run(*args: Any) -> Any:
            try:
                return handler(*args)
            except Exception:  # noqa: BLE001 - one bad request must not end the session
                log.exception("recipelint: %s failed", handler.__name__)
                return default

        return cast(Handler, run)

    return wrap


server = RecipeServer()


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
@guarded(None)
def did_open(ls: RecipeServer, params: types.DidOpenTextDocumentParams) -> None:
    ls.opened(params.text_document.uri, params.text_document.text)


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
@guarded(None)
def did_change(ls: RecipeServer, params: types.DidChangeTextDocumentParams) -> None:
    document = ls.workspace.get_text_document(params.text_document.uri)
    ls.changed(params.text_document.uri, document.source)


@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
@guarded(None)
def did_close(ls: RecipeServer, params: types.DidCloseTextDocumentParams) -> None:
    ls.closed(params.text_document.uri)


@server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
@guarded(None)
def did_change_watched_files(ls: RecipeServer, params: types.DidChangeWatchedFilesParams) -> None:
    ls.files_changed(list(params.changes))


@server.feature(types.INITIALIZED)
@guarded(None)
def on_initialized(ls: RecipeServer, params: types.InitializedParams) -> None:
    ls.watch_files()


@server.feature(types.TEXT_DOCUMENT_HOVER)
@guarded(None)
def on_hover(ls: RecipeServer, params: types.HoverParams) -> types.Hover | None:
    found = ls.at(params.text_document.uri, params.position)
    if found is None:
        return None
    loaded, doc, cursor, character = found
    lines = Lines(doc.text, ls.encoding)
    text = hover.hover_text(loaded.tree, doc, lines.lines, cursor, character)
    if text is None:
        return None
    word = types.Range(
        lines.position(cursor.line, cursor.word_start), lines.position(cursor.line, cursor.word_end)
    )
    return types.Hover(types.MarkupContent(types.MarkupKind.Markdown, text), word)


@server.feature(
    types.TEXT_DOCUMENT_COMPLETION, types.CompletionOptions(trigger_characters=["-", " "])
)
@guarded(None)
def on_completion(ls: RecipeServer, params: types.CompletionParams) -> types.CompletionList | None:
    found = ls.at(params.text_document.uri, params.position)
    if found is None:
        return None
    loaded, doc, cursor, _ = found
    claims = loaded.claims(doc.path, cursor.variant)
    items = completion.complete(loaded.tree, doc, cursor, Lines(doc.text, ls.encoding), claims)
    return types.CompletionList(is_incomplete=False, items=items)


@server.feature(types.TEXT_DOCUMENT_DEFINITION)
@guarded(None)
def on_definition(ls: RecipeServer, params: types.DefinitionParams) -> types.Location | None:
    found = ls.at(params.text_document.uri, params.position)
    if found is None:
        return None
    loaded, doc, cursor, _ = found
    return navigation.definition(loaded.tree, doc, cursor)


@server.feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
@guarded([])
def on_document_symbol(
    ls: RecipeServer, params: types.DocumentSymbolParams
) -> list[types.DocumentSymbol]:
    place = ls.located(params.text_document.uri)
    doc = place[1].document(place[0]) if place is not None else None
    return navigation.outline(doc) if doc is not None else []


@server.feature(
    types.TEXT_DOCUMENT_CODE_ACTION,
    types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix, actions.FIX_ALL]),
)
@guarded([])
def on_code_action(ls: RecipeServer, params: types.CodeActionParams) -> list[types.CodeAction]:
    place = ls.located(params.text_document.uri)
    if place is None:
        return []
    path, loaded = place
    checked, findings = ls.findings.get(path, (None, []))
    doc = loaded.document(path)
    if doc is None or doc is not checked:
        return []  # the buffer changed since its findings were published: they are re-checked
    wanted = [f for f in findings if _overlaps(f.shown.range, params.range)]
    return actions.code_actions(doc, params.text_document.uri, wanted, ls.encoding)


def _overlaps(one: types.Range, other: types.Range) -> bool:
    return (one.start.line, one.start.character) <= (other.end.line, other.end.character) and (
        other.start.line,
        other.start.character,
    ) <= (one.end.line, one.end.character)


def serve(debounce_seconds: float = DEBOUNCE_SECONDS) -> None:
    """Speak the protocol over stdin and stdout until the client exits."""
    server.debounce = debounce_seconds
    server.start_io(stdin=cast(BinaryIO, ResynchronisingInput(sys.stdin.buffer)))


__all__ = ["RecipeServer", "path_uri", "serve", "server"]
