"""Progress for long operations: one self-rewriting status line on a terminal's stderr.

Reports and diffs go to stdout and are often piped or captured by CI, so progress
goes to stderr, and only when stderr is a terminal: a log file must not fill with
carriage returns. `quiet` silences it too. The stream and the terminal test are
injectable so tests can force it on.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterable, Iterator
from typing import TextIO, TypeVar

T = TypeVar("T")
# Redraw at most this often: a status line per recipe would cost more than the work.
MIN_INTERVAL = 0.1
_CLEAR = "\r\x1b[K"


class Progress:
    """`label done/total`, redrawn in place; cleared when closed."""

    def __init__(
        self,
        label: str,
        total: int | None = None,
        *,
        quiet: bool = False,
        stream: TextIO | None = None,
        tty: bool | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.stream = stream if stream is not None else sys.stderr
        is_tty = tty if tty is not None else _isatty(self.stream)
        self.enabled = is_tty and not quiet
        self.label, self.total, self.done = label, total, 0
        self._clock = clock
        self._drawn_at: float | None = None

    def __enter__(self) -> Progress:
        self._draw(force=True)
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def phase(self, label: str, total: int | None = None) -> None:
        """Start the next step of the operation (a new label and count)."""
        self.label, self.total, self.done = label, total, 0
        self._draw(force=True)

    def advance(self, count: int = 1) -> None:
        self.done += count
        self._draw(force=self.total is not None and self.done >= self.total)

    def iterate(self, items: Iterable[T]) -> Iterator[T]:
        for item in items:
            yield item
            self.advance()

    def close(self) -> None:
        if self.enabled and self._drawn_at is not None:
            self.stream.write(_CLEAR)
            self.stream.flush()
        self._drawn_at = None

    def _draw(self, force: bool = False) -> None:
        if not self.enabled:
            return
        now = self._clock()
        if not force and self._drawn_at is not None and now - self._drawn_at < MIN_INTERVAL:
            return
        count = (
            f" {self.done}/{self.total}"
            if self.total is not None
            else (f" {self.done}" if self.done else "")
        )
        self.stream.write(f"{_CLEAR}{self.label}{count}")
        self.stream.flush()
        self._drawn_at = now


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # a closed or fake stream is no terminal
        return False
