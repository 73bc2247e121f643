"""Parallel check: the same findings as a sequential one, and no lost work when a helper dies."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from conftest import CORPUS_TREE as CORPUS
from conftest import SKIP_REASON

from recipelint.check import engine
from recipelint.parallel import SharedTasks, can_fork, run_tasks
from recipelint.read.tree import load_tree

PROJECT = Path(__file__).resolve().parent.parent

needs_fork = pytest.mark.skipif(not can_fork(), reason="helper processes need fork()")


def _slow(index: int) -> tuple[int, int]:
    time.sleep(
        0.02
    )  # long enough that a helper takes some tasks before the caller has done them all
    return index, os.getpid()


@needs_fork
def test_results_come_back_in_task_order_and_helpers_share_the_work() -> None:
    results = run_tasks([lambda i=i: _slow(i) for i in range(24)], 2)
    assert [i for i, _ in results] == list(range(24))
    pids = {pid for _, pid in results}
    assert os.getpid() in pids and len(pids) == 2


@needs_fork
def test_a_helper_that_dies_does_not_lose_its_tasks() -> None:
    parent = os.getpid()

    def dies_in_a_helper(index: int) -> str:
        time.sleep(0.02)
        if os.getpid() != parent:
            os._exit(3)
        return f"done {index}"

    assert run_tasks([lambda i=i: dies_in_a_helper(i) for i in range(8)], 2) == [
        f"done {i}" for i in range(8)
    ]


@needs_fork
def test_a_task_that_fails_in_a_helper_fails_here_as_itself() -> None:
    def fails() -> None:
        raise ValueError("bad input")

    with pytest.raises(ValueError, match="bad input"):
        run_tasks([lambda: _slow(0), fails, lambda: _slow(2), lambda: _slow(3)], 2)


@needs_fork
def test_helpers_are_stopped_when_the_caller_fails_before_collecting() -> None:
    with (
        pytest.raises(RuntimeError),
        SharedTasks([lambda i=i: _slow(i) for i in range(50)], 1) as shared,
    ):
        pids = [pid for pid, _ in shared._helpers]
        raise RuntimeError("the caller's own work failed")
    for pid in pids:
        with pytest.raises(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)  # already reaped


def test_one_job_runs_inline() -> None:
    assert run_tasks([os.getpid, os.getpid], 1) == [os.getpid(), os.getpid()]


@needs_fork
@pytest.mark.parametrize(
    "tree",
    [
        PROJECT / "recipes",
        pytest.param(CORPUS, marks=pytest.mark.skipif(not CORPUS.is_dir(), reason=SKIP_REASON)),
    ],
    ids=["embedded", "corpus"],
)
def test_parallel_check_finds_exactly_what_a_sequential_check_finds(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(engine, "PARALLEL_MIN_RECIPES", 0)
    sequential = engine.run_checks(load_tree(tree), jobs=1)
    assert engine.run_checks(load_tree(tree), jobs=2) == sequential
    assert engine.run_checks(load_tree(tree), jobs=3) == sequential


def test_frozen_heap_freezes_for_its_block_and_leaves_a_callers_freeze_alone() -> None:
    import gc

    from recipelint.collector import frozen_heap

    assert gc.get_freeze_count() == 0
    with frozen_heap():
        assert gc.get_freeze_count() > 0
    assert gc.get_freeze_count() == 0
    gc.freeze()
    try:
        mine = gc.get_freeze_count()
        with frozen_heap():
            pass
        assert gc.get_freeze_count() == mine
    finally:
        gc.unfreeze()
