"""Parallel check: the same findings as a sequential one, and no lost work when a worker dies."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from recipelint import engine
from recipelint.parallel import can_fork, run_tasks
from recipelint.tree import load_tree

PROJECT = Path(__file__).resolve().parent.parent
CORPUS = PROJECT.parent / "shared" / "corpus" / "upstream" / "tree"

needs_fork = pytest.mark.skipif(not can_fork(), reason="worker processes need fork()")


@needs_fork
def test_results_come_back_in_task_order() -> None:
    tasks = [lambda i=i: (i, os.getpid()) for i in range(12)]
    results = run_tasks(tasks, 2)
    assert [i for i, _ in results] == list(range(12))
    assert os.getpid() not in {pid for _, pid in results}  # the work really ran in workers


@needs_fork
def test_a_worker_that_dies_does_not_lose_its_task() -> None:
    parent = os.getpid()

    def dies_in_a_worker() -> str:
        if os.getpid() != parent:
            os._exit(3)
        return "done here"

    assert run_tasks([dies_in_a_worker, lambda: "other"], 2) == ["done here", "other"]


def test_one_job_runs_inline() -> None:
    assert run_tasks([os.getpid, os.getpid], 1) == [os.getpid(), os.getpid()]


@needs_fork
@pytest.mark.parametrize("tree", [
    PROJECT / "recipes",
    pytest.param(CORPUS, marks=pytest.mark.skipif(not CORPUS.is_dir(), reason="needs ../shared/corpus")),
], ids=["embedded", "corpus"])
def test_parallel_check_finds_exactly_what_a_sequential_check_finds(tree: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(engine, "PARALLEL_MIN_RECIPES", 0)
    loaded = load_tree(tree)
    sequential = engine.run_checks(loaded, jobs=1)
    assert engine.run_checks(load_tree(tree), jobs=2) == sequential
    assert engine.run_checks(load_tree(tree), jobs=3) == sequential
