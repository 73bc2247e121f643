"""Independent tasks on several CPUs: forked workers share the already loaded tree.

Only fork makes this pay: a worker starts with the parsed tree in memory instead of
reloading it, and a task is just an index into a list the worker inherited. Where
fork does not exist (Windows), with one job, or for a handful of tasks, the tasks
run inline, in order, with the same results.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

T = TypeVar("T")

# The tasks of the current run; a forked worker reads them from its copy of this module.
_TASKS: Sequence[Callable[[], Any]] = ()


def available_cpus() -> int:
    """CPUs this process may run on (the affinity mask, so a container's limit counts)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def can_fork() -> bool:
    import multiprocessing

    return "fork" in multiprocessing.get_all_start_methods()


def _run_task(index: int) -> Any:
    return _TASKS[index]()


def run_tasks(tasks: Sequence[Callable[[], T]], jobs: int) -> list[T]:
    """Every task's result, in task order; list the longest tasks first for the best balance."""
    global _TASKS
    if jobs <= 1 or len(tasks) <= 1 or not can_fork():
        return [task() for task in tasks]
    # Imported here: a one-file check never starts workers and should not pay for these.
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    _TASKS = tasks
    # Frozen objects are skipped by the collector, so the workers' collections neither
    # walk the inherited tree nor copy its memory pages by touching them.
    gc.freeze()
    try:
        context = multiprocessing.get_context("fork")
        with ProcessPoolExecutor(min(jobs, len(tasks)), mp_context=context) as pool:
            return list(pool.map(_run_task, range(len(tasks))))
    except (BrokenProcessPool, OSError):
        # A worker died (killed, out of memory) or could not start: do the work here,
        # where a real error surfaces as itself.
        return [task() for task in tasks]
    finally:
        gc.unfreeze()
        _TASKS = ()
