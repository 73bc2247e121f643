"""scripts/parity_proof.py: the file-by-file comparison of two compiled folders."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest
from conftest import PROJECT_ROOT

_SPEC = importlib.util.spec_from_file_location(
    "parity_proof", PROJECT_ROOT / "scripts" / "parity_proof.py"
)
assert _SPEC is not None and _SPEC.loader is not None
parity_proof = importlib.util.module_from_spec(_SPEC)
sys.modules["parity_proof"] = parity_proof  # dataclasses look their module up by name
_SPEC.loader.exec_module(parity_proof)


def _write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(text.encode("utf-8"))
    return root


@pytest.fixture
def folders(tmp_path: Path) -> tuple[Path, Path]:
    expected = _write(
        tmp_path / "expected",
        {
            "models.json": '[\n  {\n    "hf_id": "a/b"\n  }\n]',
            "a/b.json": '{\n  "meta": {\n    "title": "B"\n  }\n}',
            "a/b/hw/h200.json": '{"argv": ["vllm", "serve", "a/b", "-tp", "8"], "n": 1}',
            "a/b/hw/b200.json": '{"env": {"x/y~z": "1"}}',
            "strategies.json": "{}",
            "taxonomy.json": "{}",
            "notes.txt": "plain text",
        },
    )
    produced = _write(
        tmp_path / "produced",
        {
            "models.json": '[\n  {\n    "hf_id": "a/b"\n  }\n]',
            "a/b.json": '{"meta": {"title": "B"}}',  # same value, other bytes
            "a/b/hw/h200.json": '{"argv": ["vllm", "serve", "a/b", "-tp", "4"], "n": 1.0}',
            "a/b/hw/b200.json": '{"env": {"x/y~z": 1}}',
            "strategies.json": "{}",
            "notes.txt": "other text",
            "a/b/hw/mi300x.json": "{}",
        },
    )
    return expected, produced


def test_every_file_of_either_folder_gets_one_status(folders: tuple[Path, Path]) -> None:
    results = {r.path: r for r in parity_proof.compare_folders(*folders)}
    assert {path: r.status for path, r in results.items()} == {
        "models.json": "identical",
        "strategies.json": "identical",
        "a/b.json": "json-equal",
        "a/b/hw/h200.json": "different",
        "a/b/hw/b200.json": "different",
        "notes.txt": "different",
        "taxonomy.json": "missing",
        "a/b/hw/mi300x.json": "extra",
    }
    assert (
        results["a/b/hw/h200.json"].detail == "at /argv/4 (JSON pointer)"
    )  # 1 and 1.0 are one number
    assert results["a/b/hw/b200.json"].detail == "at /env/x~1y~0z (JSON pointer)"
    assert results["notes.txt"].detail.startswith("not both JSON")


def test_first_difference_is_an_rfc6901_pointer() -> None:
    first = parity_proof.first_difference
    assert first({"a": [1, {"b": True}]}, {"a": [1, {"b": True}]}) is None
    assert first({"a": [1, {"b": True}]}, {"a": [1, {"b": 1}]}) == "/a/1/b"  # true is not 1
    assert first({"a": [1, 2]}, {"a": [1, 2, 3]}) == "/a/2"  # the first extra item
    assert first({"a": 1, "b": 2}, {"b": 2, "a": 1}) is None  # key order is bytes, not value
    assert first({"a": 1}, {"a": 1, "c": 3}) == "/c"
    assert first([], {}) == ""  # the whole document
    assert first(1, 1.0) is None and first("1", 1) == ""


def test_report_counts_and_verdict(folders: tuple[Path, Path]) -> None:
    results = parity_proof.compare_folders(*folders)
    lines = list(parity_proof.report(results, shown=1))
    assert lines[-2] == "2 identical, 1 json-equal, 3 different, 1 missing, 1 extra"
    assert lines[-1] == "parity: 2/8 identical"
    assert "different  … and 2 more" in lines
    assert not parity_proof.all_identical(results)


def test_compare_mode_exits_0_only_when_everything_is_identical(
    folders: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    expected, produced = folders
    assert parity_proof.main(["--compare", str(expected), str(produced)]) == 1
    assert capsys.readouterr().out.endswith("parity: 2/8 identical\n")
    assert parity_proof.main(["--compare", str(expected), str(expected)]) == 0
    assert capsys.readouterr().out.endswith("parity: 7/7 identical\n")
    empty = tmp_path / "empty"
    empty.mkdir()
    assert (
        parity_proof.main(["--compare", str(empty), str(empty)]) == 1
    )  # nothing compared proves nothing


def test_unusable_inputs_are_messages_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert parity_proof.main(["--compare", str(tmp_path / "absent"), str(tmp_path)]) == 2
    assert "is not a folder" in capsys.readouterr().err
    assert parity_proof.main([str(tmp_path)]) == 2
    assert "is not a checkout of vllm-project/recipes" in capsys.readouterr().err
    with pytest.raises(SystemExit) as usage:
        parity_proof.main([])
    assert usage.value.code == 2
