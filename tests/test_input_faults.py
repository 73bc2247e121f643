"""Inputs that used to pass unnoticed: an output name too long for a file system, a pipe or
socket where recipes are read, an invisible bidi control character in a model id."""

from __future__ import annotations

import json
import os
import socket
from pathlib import Path

import pytest
from test_compile_safety import make_tree, recipe_text

from recipelint.cli import main
from recipelint.compile.outputpaths import unsafe_path_reason
from recipelint.read.tree import load_tree

DEFAULT = "default: {precision: bf16, vram_minimum_gb: 10}"


def with_variant(model_id: str) -> str:
    """A recipe whose second variant is published under ``model_id``."""
    variant = f"big: {{precision: fp8, vram_minimum_gb: 10, model_id: {json.dumps(model_id)}}}"
    return recipe_text("org/model").replace(DEFAULT, f"{DEFAULT}\n  {variant}")


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    capsys.readouterr()
    status = main(list(args))
    captured = capsys.readouterr()
    return status, captured.out + captured.err


@pytest.mark.parametrize(
    ("path", "too_long"),
    [
        ("org/" + "x" * 250 + ".json", False),  # 255 bytes: the longest name allowed
        ("org/" + "x" * 251 + ".json", True),
        ("org/" + "é" * 128, True),  # 128 characters, 256 bytes
        ("x" * 300 + "/model.json", True),
    ],
)
def test_a_path_segment_over_255_bytes_is_refused(path: str, too_long: bool) -> None:
    reason = unsafe_path_reason(path)
    assert (reason is not None and "255" in reason) is too_long


def test_a_model_id_too_long_for_a_file_name_is_a_finding_and_compile_refuses_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    long_id = "org/" + "L" * 300
    tree = make_tree(tmp_path / "tree", {"models/org/model.yaml": with_variant(long_id)})
    status, shown = run(capsys, "check", "--select", "RL7", str(tree))
    assert status == 1
    assert "RL701" in shown and "more than the 255 a file name may have" in shown
    status, shown = run(capsys, "compile", str(tree), "-o", str(tmp_path / "out"))
    assert status == 1  # as the other refused output paths: a finding, nothing written
    assert "RL701" in shown and "File name too long" not in shown
    assert not (tmp_path / "out").exists()
    assert [p.name for p in tmp_path.iterdir()] == ["tree"]


def _fifo(path: Path) -> None:
    os.mkfifo(path)


def _socket(path: Path) -> None:
    server = socket.socket(socket.AF_UNIX)
    server.bind(os.fspath(path))
    server.close()  # the socket file stays


@pytest.mark.parametrize(("make", "kind"), [(_fifo, "named pipe"), (_socket, "socket")])
def test_a_pipe_or_socket_among_the_recipes_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], make: object, kind: str
) -> None:
    tree = make_tree(tmp_path / "tree")
    special = tree / "models" / "org" / "other.yaml"
    make(special)  # type: ignore[operator]
    (tree / "strategies" / "pipe.yaml").unlink(missing_ok=True)
    problems = [d for d in load_tree(tree).problems if d.code == "RL021"]
    assert [(d.path, kind in d.message) for d in problems] == [(special, True)]
    for named in (tree, special):  # the tree, or the file itself on the command line
        status, shown = run(capsys, "check", "--select", "RL021", str(named))
        assert status == 1 and "RL021" in shown and "models/org/other.yaml" in shown
    status, shown = run(capsys, "compile", str(tree), "-o", str(tmp_path / "out"))
    assert status == 1 and "RL021" in shown


def test_a_pipe_in_a_flat_folder_is_named(tmp_path: Path) -> None:
    tree = make_tree(tmp_path / "tree")
    os.mkfifo(tree / "strategies" / "stalled.yaml")
    problems = [d for d in load_tree(tree).problems if d.code == "RL021"]
    assert [d.path.name for d in problems] == ["stalled.yaml"]


def test_a_bidi_control_character_in_a_model_id_is_found_and_fixed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tree = make_tree(
        tmp_path / "tree", {"models/org/model.yaml": with_variant("org/model-\u202eFP8")}
    )
    status, shown = run(capsys, "check", "--select", "RL321", str(tree))
    assert status == 1
    assert "model_id `org/model-\\u202eFP8` holds U+202E RIGHT-TO-LEFT OVERRIDE" in shown
    status, _ = run(capsys, "check", "--select", "RL321", "--fix", str(tree))
    assert status == 0
    assert 'model_id: "org/model-FP8"' in (tree / "models/org/model.yaml").read_text()
