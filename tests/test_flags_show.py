"""`recipelint flags show` takes a flag name as written, leading dashes and all."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from recipelint.cli import cli


def _show(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["flags", "show", *args])
    return result.exit_code, result.output


@pytest.mark.parametrize(
    "args",
    [
        ["--moe-backend"],
        ["--", "--moe-backend"],
        ["--moe-backend", "--package", "vllm"],
        ["--package=vllm", "--moe-backend"],
        ["--package", "vllm", "--moe-backend"],
    ],
)
def test_a_dashed_flag_name_is_the_argument(args: list[str]) -> None:
    code, output = _show(*args)
    assert code == 0, output
    assert output.startswith("--moe-backend -> --moe-backend via exact in vllm ")


def test_own_options_still_take_their_values() -> None:
    code, output = _show("--version", "0.10.0", "--max-model-len")
    assert code == 0, output
    assert output.startswith("--max-model-len -> --max-model-len via exact in vllm 0.10.0")


def test_short_alias_and_equals_forms() -> None:
    assert "-> --compilation-config via alias" in _show("-cc.mode=3")[1]
    assert "-> --tensor-parallel-size via exact" in _show("--tensor_parallel_size=4")[1]


def test_an_unknown_dashed_flag_is_looked_up_not_refused_by_click() -> None:
    code, output = _show("--moe-backnd")
    assert code == 0, output
    assert "--moe-backnd: not accepted by vllm" in output and "--moe-backend" in output


def test_usage_errors_stay_usage_errors() -> None:
    assert _show()[0] == 2  # no flag named
    assert _show("--moe-backend", "--max-model-len")[0] == 2  # one flag at a time
    code, output = _show("--help")
    assert code == 0 and "Usage:" in output
