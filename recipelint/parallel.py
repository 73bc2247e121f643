"""Independent tasks on several CPUs: forked helpers share the already loaded tree.

Only fork makes this pay: a helper starts with the parsed tree in memory instead of
reloading it, and a task is just an index into a list it inherited, so nothing but
results crosses a process boundary. Helpers start as soon as the tasks exist and the
caller joins in when it has done its own work, taking tasks from the same counter.
Where fork does not exist (Windows), with one job, or when a helper dies, the caller
runs what is left itself; the results are the same, in task order.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
from collections.abc import Callable, Sequence
from typing import Any

from recipelint.collector import frozen_heap


def available_cpus() -> int:
    """CPUs this process may run on (the affinity mask, so a container's limit counts)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def can_fork() -> bool:
    return hasattr(os, "fork") and hasattr(os, "waitpid")


class SharedTasks:
    """Run ``tasks`` on ``helpers`` forked processes plus the caller (see :meth:`results`)."""

    def __init__(self, tasks: Sequence[Callable[[], Any]], helpers: int) -> None:
        self.tasks = tasks
        self._helpers: list[tuple[int, int]] = []  # (pid, read end of its result pipe)
        self._next: Any = None  # a shared counter (multiprocessing Value) once helpers start
        if helpers > 0 and len(tasks) > 1 and can_fork():
            self._start(min(helpers, len(tasks) - 1))

    def _start(self, helpers: int) -> None:
        # Imported here: a one-file check never starts helpers and should not pay for it.
        import multiprocessing

        try:
            self._next = multiprocessing.get_context("fork").Value("l", 0)
        except (OSError, ImportError):  # no shared memory here (some sandboxes): run inline
            return
        # Frozen objects are skipped by the collector, so a helper's collections neither
        # walk the inherited tree nor copy its memory pages by touching them.
        with frozen_heap():
            for _ in range(helpers):
                read, write = os.pipe()
                try:
                    pid = os.fork()
                except OSError:
                    os.close(read)
                    os.close(write)
                    break
                if pid == 0:  # pragma: no cover - runs in the helper, which never returns
                    os.close(read)
                    self._serve(write)
                os.close(write)
                self._helpers.append((pid, read))

    def _take(self) -> int | None:
        if self._next is None:
            return None
        with self._next.get_lock():
            index = self._next.value
            self._next.value += 1
        return index if index < len(self.tasks) else None

    def _serve(self, pipe: int) -> None:  # pragma: no cover - runs in the helper
        status = 0
        try:
            done: dict[int, Any] = {}
            while (index := self._take()) is not None:
                try:
                    done[index] = self.tasks[index]()
                except BaseException:  # noqa: BLE001 - the caller reruns it and sees the error itself
                    continue
            with os.fdopen(pipe, "wb") as stream:
                pickle.dump(done, stream, protocol=pickle.HIGHEST_PROTOCOL)
        except BaseException:  # noqa: BLE001 - whatever is missing, the caller runs
            status = 1
        finally:
            os._exit(status)

    def close(self) -> None:
        """Stop helpers whose results will not be collected (the caller failed meanwhile)."""
        for pid, pipe in self._helpers:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
            os.close(pipe)
            os.waitpid(pid, 0)
        self._helpers = []

    def __enter__(self) -> SharedTasks:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def results(self) -> list[Any]:
        """Take tasks until none is left, then collect the helpers'; every result, in task order."""
        done: dict[int, Any] = {}
        if self._next is None:
            return [task() for task in self.tasks]
        while (index := self._take()) is not None:
            done[index] = self.tasks[index]()
        for pid, pipe in self._helpers:
            done.update(self._collect(pid, pipe))
        self._helpers = []
        # A helper that died, or a task that failed there, is run here.
        return [
            done[index] if index in done else self.tasks[index]()
            for index in range(len(self.tasks))
        ]

    @staticmethod
    def _collect(pid: int, pipe: int) -> dict[int, Any]:
        try:
            with os.fdopen(pipe, "rb") as stream:
                data = stream.read()
        finally:
            os.waitpid(pid, 0)
        try:
            found = pickle.loads(data)
        except Exception:  # noqa: BLE001 - a helper killed mid-write: its tasks are rerun
            return {}
        return found if isinstance(found, dict) else {}


def run_tasks(tasks: Sequence[Callable[[], Any]], jobs: int) -> list[Any]:
    """Every task's result, in task order, on ``jobs`` processes (this one included)."""
    with SharedTasks(tasks, jobs - 1) as shared:
        return shared.results()
