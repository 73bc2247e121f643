"""RL364: a flag given the value every release of the document's range uses by default."""

from __future__ import annotations

from pathlib import Path

from test_rules_vllm_flags import findings


def test_a_value_every_release_of_the_range_defaults_to_is_an_info(tmp_path: Path) -> None:
    [diag] = findings(tmp_path, "0.17.0", ["--tensor-parallel-size", "1"])
    assert (diag.code, diag.severity.name) == ("RL364", "INFO")
    assert diag.message.startswith("`--tensor-parallel-size 1` is what vllm 0.17.0 to ")
    assert diag.message.endswith(" use when the flag is not given: it changes nothing")
    assert findings(tmp_path, "0.17.0", ["--tensor-parallel-size", "2"]) == []


def test_a_value_whose_default_changes_in_the_range_is_not_reported(tmp_path: Path) -> None:
    # 0.92 is the default from 0.10 on, until the newest releases choose it at start-up.
    assert findings(tmp_path, "0.20.0", ["--gpu-memory-utilization", "0.92"]) == []
