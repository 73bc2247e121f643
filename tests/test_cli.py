"""The `recipelint` entry point: what every command shares.

A reader that stops early (`recipelint rules | head -1`) is no failure: the command
exits 0 without a word on stderr, as ruff does, whichever command was printing.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from conftest import EMBEDDED_TREE

PRINTING_COMMANDS = [
    ["rules"],
    ["rules", "--format", "json"],
    ["rules", "--format", "markdown"],
    ["explain", "RL002"],
    ["rule", "RL002"],
    ["--help"],
    ["check", "--help"],
    ["--version"],
    ["check", str(EMBEDDED_TREE), "--format", "json"],
    ["check", str(EMBEDDED_TREE), "--statistics"],
    ["schema", "recipe"],
]


def _run_into_a_closed_pipe(args: list[str]) -> subprocess.CompletedProcess[bytes]:
    """Run recipelint with standard output a pipe nobody reads any more: the first write fails."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        return subprocess.run(
            [sys.executable, "-m", "recipelint", *args],
            stdout=write_end,
            stderr=subprocess.PIPE,
            timeout=120,
            check=False,
        )
    finally:
        os.close(write_end)


@pytest.mark.parametrize("args", PRINTING_COMMANDS, ids=" ".join)
def test_a_reader_that_leaves_early_is_no_failure(args: list[str]) -> None:
    done = _run_into_a_closed_pipe(args)
    assert done.returncode == 0, done.stderr.decode()
    assert done.stderr == b""


def test_head_of_the_rule_list_exits_zero() -> None:
    """The case as a shell runs it: the status of recipelint itself, left of the pipe."""
    script = f'"{sys.executable}" -m recipelint rules | head -1; exit "${{PIPESTATUS[0]}}"'
    done = subprocess.run(
        ["bash", "-c", script], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("RL001") and done.stdout.count("\n") == 1
    assert done.stderr == ""
