"""RL551–RL555 (recipelint/rules/values.py): the values a recipe states.

RL555: an omni task's example request asks for the task it is listed under and served as.
The recipes here are shaped like a video model served by vLLM-Omni with two pipelines
(`--task-type fl2va`, `--task-type ref2va`) whose presets send `"task"` in the request.
RL554: the VRAM a variant states against the band its precision gives (the VRAM formula's
inputs); RL551: an env value that is not a string, found in the env maps a cheaper walk
gives as visiting every node does.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from propertyprofile import property_profile
from rulehelp import DOCUMENTS, KINDS, findings_of
from treehelp import Fragment, build_tree, findings_by_code

from recipelint.cli import main
from recipelint.diagnostics import Diagnostic, Severity
from recipelint.flags.catalog import newest_catalog
from recipelint.resolve import layers
from recipelint.rules.common import Pointer
from recipelint.rules.values import (
    SERVED_TASK_FLAG,
    env_maps,
    expected_vram,
    parameter_billions,
    requested_task,
)

RECIPE = "models/acme/demo.yaml"
HEADER = """\
meta:
  tasks: [omni]
model:
  min_vllm_version: "0.30.0"
omni:
  tasks:
"""


def _curl(task: str) -> str:
    return (
        "|\n"
        "        curl -X POST http://localhost:8000/v1/videos/sync \\\n"
        "          -F 'prompt=A car drives away at night.' \\\n"
        f'          -F \'extra_params={{"task":"{task}","duration":5.0}}\'\n'
    )


def _task(key: str, asks: str, overrides: str = "", extra: str = "") -> str:
    text = f"    - id: i2v\n      key: {key}\n{extra}      curl: {_curl(asks)}"
    return text + (f"      hardware_overrides:\n{overrides}" if overrides else "")


def _override(hardware: str, serves: str | None = None, asks: str | None = None) -> str:
    text = f"        {hardware}:\n          vram_minimum_gb: 48\n"
    if serves:
        text += f'          extra_args: ["{SERVED_TASK_FLAG}", "{serves}"]\n'
    if asks:
        text += "          curl: " + _curl(asks).replace("\n        ", "\n            ")
    return text


def _rl555(tmp_path: Path, *tasks: str) -> list[Diagnostic]:
    recipe = Fragment(HEADER + "".join(tasks))
    return findings_by_code(tmp_path, {RECIPE: recipe}).get("RL555", [])


def _written_line(tmp_path: Path, finding: Diagnostic) -> str:
    lines = (tmp_path / RECIPE).read_text(encoding="utf-8").splitlines()
    return lines[finding.span.line - 1][finding.span.column - 1 : finding.span.end_column - 1]


def test_the_served_task_flag_is_vllm_omnis() -> None:
    assert SERVED_TASK_FLAG in newest_catalog("vllm-omni").flags


@pytest.mark.parametrize(
    ("curl", "expected"),
    [
        ('-F \'extra_params={"task":"fl2va","duration":5.0}\'', "fl2va"),
        ('-d \'{"model": "m", "task_type": "CustomVoice"}\'', "CustomVoice"),
        ("-F 'task=ref2va' -F 'prompt=x'", "ref2va"),
        ('-d \'{"task": "a"}\' -d \'{"task": "b"}\'', None),  # two tasks: not one request's
        ("-F 'prompt=no task here'", None),
    ],
)
def test_the_task_a_request_asks_for(curl: str, expected: str | None) -> None:
    found = requested_task(curl)
    assert (found[0] if found else None) == expected


def test_an_override_request_for_another_task_than_the_key_names_is_an_error(
    tmp_path: Path,
) -> None:
    overrides = _override("rtx_4090_2x", "fl2va", "t2va")
    [finding] = _rl555(tmp_path, _task("fl2va_first", "fl2va", overrides))
    assert finding.severity is Severity.ERROR
    assert finding.pointer == ("omni", "tasks", 0, "hardware_overrides", "rtx_4090_2x", "curl")
    assert finding.message == (
        "the example request of omni task `fl2va_first` on `rtx_4090_2x` asks for task `t2va`, "
        "but its key names `fl2va`: the preset sends another task than the one it is listed under"
    )
    assert _written_line(tmp_path, finding) == "t2va"


def test_the_tasks_own_request_is_held_to_its_key(tmp_path: Path) -> None:
    [finding] = _rl555(
        tmp_path, _task("fl2va_first", "t2va", extra='      extra_args: ["--task-type", "fl2va"]\n')
    )
    assert finding.pointer == ("omni", "tasks", 0, "curl")
    assert _written_line(tmp_path, finding) == "t2va"


def test_a_copied_override_under_a_key_naming_no_task_is_held_to_the_tasks_request(
    tmp_path: Path,
) -> None:
    overrides = _override("rtx_4090_2x", "ref2va") + _override("dgx_spark_gb10", "fl2va", "t2va")
    found = _rl555(tmp_path, _task("ref_image", "ref2va", overrides))
    assert [(f.pointer[-2:], f.message.split(":")[0]) for f in found] == [
        (
            ("extra_args", 1),
            "omni task `ref_image` on `dgx_spark_gb10` serves `--task-type fl2va`, but the "
            "task's own example asks for `ref2va`",
        ),
        (
            ("dgx_spark_gb10", "curl"),
            "the example request of omni task `ref_image` on `dgx_spark_gb10` asks for task "
            "`t2va`, but the task's own example asks for `ref2va`",
        ),
    ]


def test_a_served_pipeline_other_than_the_requested_one_is_reported_at_the_flag_value(
    tmp_path: Path,
) -> None:
    overrides = _override("rtx_4090_2x", "ref2va") + _override("rtx_5090_2x", "fl2va")
    [finding] = _rl555(tmp_path, _task("ref_image", "ref2va", overrides))
    assert finding.pointer == (
        "omni",
        "tasks",
        0,
        "hardware_overrides",
        "rtx_5090_2x",
        "extra_args",
        1,
    )
    assert finding.hint == (
        "serve `--task-type ref2va` here, or move the override under the task it belongs to"
    )


def test_an_inline_flag_value_is_reported_at_its_item(tmp_path: Path) -> None:
    extra = '      extra_args: ["--task-type=fl2va"]\n'
    tasks = (
        _task("ref_image", "ref2va", extra=extra),
        _task("ref_video", "ref2va", extra='      extra_args: ["--task-type", "ref2va"]\n'),
    )
    [finding] = _rl555(tmp_path, *tasks)
    assert finding.pointer == ("omni", "tasks", 0, "extra_args", 0)


def test_presets_that_agree_are_silent(tmp_path: Path) -> None:
    # t2va is served by the fl2va pipeline: a requested task that is no served pipeline
    # is not compared with the server's
    t2va = _task("t2va", "t2va", _override("rtx_4090_2x", "fl2va", "t2va"))
    first = _task("fl2va_first", "fl2va", _override("rtx_4090_2x", "fl2va", "fl2va"))
    ref = _task("ref_image", "ref2va", _override("rtx_4090_2x", "ref2va"))
    assert _rl555(tmp_path, t2va, first, ref) == []


def test_tasks_without_requests_or_catalog_ids_are_not_judged(tmp_path: Path) -> None:
    recipe = Fragment(HEADER + "    - t2v\n    - id: i2v\n      description: Image to video\n")
    assert findings_by_code(tmp_path, {RECIPE: recipe}).get("RL555", []) == []


def test_check_reports_the_request_at_its_line_and_exits_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = build_tree(
        tmp_path / "tree",
        {
            RECIPE: Fragment(
                HEADER + _task("fl2va_first", "fl2va", _override("h200", "fl2va", "t2va"))
            )
        },
    )
    code = main(["check", str(root), "--select", "RL555", "--format", "json"])
    [found] = json.loads(capsys.readouterr().out)
    line = (root / RECIPE).read_text(encoding="utf-8").splitlines()[found["line"] - 1]
    assert code == 1
    assert found["code"] == "RL555"
    assert line[found["column"] - 1 :].startswith('t2va"')
    assert main(["check", str(root), "--select", "RL555", "--ignore", "RL555", "-q"]) == 0


def test_a_pipeline_other_than_the_keys_task_is_reported_with_the_key(tmp_path: Path) -> None:
    overrides = _override("rtx_4090_2x", "fl2va") + _override("rtx_5090_2x", "ref2va")
    [finding] = _rl555(tmp_path, _task("fl2va_first", "fl2va", overrides))
    assert finding.pointer[-3:] == ("rtx_5090_2x", "extra_args", 1)
    assert finding.message == (
        "omni task `fl2va_first` on `rtx_5090_2x` serves `--task-type ref2va`, but its key names "
        "`fl2va`: the server does not run the task the preset sends"
    )


# --- RL554: VRAM against the precision's band ----------------------------------------------


def _rl554(tmp_path: Path, variants: str, params: str = "8B") -> list[Diagnostic]:
    recipe = (
        f"model:\n  parameter_count: '{params}'\n  active_parameters: '{params}'\n"
        f"variants:\n{variants}"
    )
    return findings_of(tmp_path, recipe, "RL554")


def test_the_band_follows_the_variants_precision(tmp_path: Path) -> None:
    # 8B at 4 bits: the formula is 4.8 GB; a 4-bit checkpoint may need up to 3x that.
    four_bit = "  default:\n    precision: int4\n    vram_minimum_gb: 12\n"
    assert _rl554(tmp_path / "a", four_bit) == []
    # 8B in bf16: 19.2 GB by the formula; 16-bit weights leave no room for 2.5x.
    [wide] = _rl554(tmp_path / "b", "  default:\n    precision: bf16\n    vram_minimum_gb: 40\n")
    assert "a bf16 checkpoint needs 16–29 GB" in wide.message


@pytest.mark.parametrize(("vram", "reported"), [("16", False), ("15.5", False), ("15", True)])
def test_the_bands_low_end_allows_half_a_gigabyte_of_rounding(
    tmp_path: Path, vram: str, reported: bool
) -> None:
    """8B in bf16 may need as little as 16 GB; a figure rounded down by up to half a GB is
    still in the band."""
    variant = f"  default:\n    precision: bf16\n    vram_minimum_gb: {vram}\n"
    assert bool(_rl554(tmp_path, variant)) is reported


def test_a_variant_serving_its_own_checkpoint_is_judged_unless_it_names_another_size(
    tmp_path: Path,
) -> None:
    own = (
        "  default:\n    precision: bf16\n    vram_minimum_gb: 20\n"
        "  fp8:\n    model_id: acme/demo-FP8\n    precision: fp8\n    vram_minimum_gb: 40\n"
    )
    [finding] = _rl554(tmp_path / "a", own)
    assert finding.pointer == ("variants", "fp8", "vram_minimum_gb")
    sibling = (
        "  default:\n    precision: bf16\n    vram_minimum_gb: 20\n"
        "  small:\n    model_id: acme/demo-1.5B\n    precision: bf16\n    vram_minimum_gb: 4\n"
    )
    assert _rl554(tmp_path / "b", sibling) == []


def test_a_recipe_that_says_its_weights_mix_precisions_speaks_for_its_variants(
    tmp_path: Path,
) -> None:
    # 284B in fp8 is 341 GB by the formula; FP4 experts beside FP8 layers take far less.
    fp8 = "  default:\n    precision: fp8\n    vram_minimum_gb: 200\n"
    bf16 = "  bf16:\n    precision: bf16\n    vram_minimum_gb: 200\n"
    plain = _rl554(tmp_path / "a", fp8 + bf16, "284B")
    assert [f.pointer[1] for f in plain] == ["default", "bf16"]
    for key in ("description", "performance_headline"):
        said = f"meta:\n  {key}: 'MoE with native FP4+FP8 weights'\n"
        recipe = f"{said}model:\n  parameter_count: '284B'\nvariants:\n{fp8}{bf16}"
        # The headline names fp8 among the mixed precisions, not bf16.
        found = findings_of(tmp_path / key, recipe, "RL554")
        assert [f.pointer[1] for f in found] == ["bf16"], key
    # A "+" that joins no precisions ("linear + MLA attention") says nothing of the weights.
    for text in ("an FP8 checkpoint", "FP8 model with hybrid linear + MLA attention"):
        unmixed = f"meta:\n  description: '{text}'\nmodel:\n  parameter_count: '284B'\n"
        found = findings_of(tmp_path / text[:8], f"{unmixed}variants:\n{fp8}", "RL554")
        assert len(found) == 1, text


def test_vram_formula_inputs() -> None:
    assert parameter_billions("284B") == 284 and parameter_billions("2.4T") == 2400
    assert (
        abs(parameter_billions("350M") - 0.35) < 1e-9 and parameter_billions("Undisclosed") is None
    )
    assert (
        round(expected_vram(70, "bf16"), 6) == 168 and round(expected_vram(235, "NVFP4"), 6) == 141
    )
    assert expected_vram(8, "q4_k_m") is None


# --- RL551: env values that are not strings ------------------------------------------------


def test_env_value_not_string_quotes_the_value_as_javascript_prints_it(tmp_path: Path) -> None:
    recipe = Fragment("model:\n  base_env:\n    RATIO: 1.0\n    HUGE: 1.0e+21\n")
    found = findings_by_code(tmp_path, {"models/acme/demo.yaml": recipe})["RL551"]
    assert sorted(d.hint for d in found) == ['quote it: HUGE: "1e+21"', 'quote it: RATIO: "1"']


# --- env maps, by a cheaper walk -----------------------------------------------------------


def _plain_env_maps(
    value: Any, kind: str, pointer: Pointer = ()
) -> Iterator[tuple[Pointer, dict[str, Any]]]:
    """Every node visited, scalars included."""
    if isinstance(value, dict):
        for key, item in value.items():
            here = (*pointer, key)
            if isinstance(item, dict) and (
                key in layers.ENV_KEYS or layers.is_list_place(kind, here, layers.ENV)
            ):
                yield here, item
            else:
                yield from _plain_env_maps(item, kind, here)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _plain_env_maps(item, kind, (*pointer, index))


@property_profile(300)
@given(DOCUMENTS, KINDS)
def test_env_maps_are_those_of_visiting_every_node(data: Any, kind: str) -> None:
    assert list(env_maps(data, kind)) == list(_plain_env_maps(data, kind))


# --- RL553: dates ----------------------------------------------------------------------------


def test_an_update_dated_before_the_recipe_was_added_is_a_notice_at_date_updated(
    tmp_path: Path,
) -> None:
    dates = "meta:\n  date_added: 2026-01-10\n  date_updated: {}\n"
    [finding] = findings_of(tmp_path / "a", dates.format("2026-01-08"), "RL553")
    assert finding.pointer == ("meta", "date_updated")
    # Upstream's date_added backfill (#686) wrote merge days beside earlier authoring days.
    assert finding.severity is Severity.INFO
    assert finding.message == (
        "date_updated 2026-01-08 is earlier than date_added 2026-01-10: the recipe's page "
        "shows an update older than its catalog entry"
    )
    assert findings_of(tmp_path / "b", dates.format("2026-01-10"), "RL553") == []
    assert findings_of(tmp_path / "c", dates.format("2026-01-12"), "RL553") == []


def test_a_request_after_a_blank_first_line_is_reported_at_its_line(tmp_path: Path) -> None:
    serves = '      extra_args: ["--task-type", "fl2va"]\n'
    blank_first = _task("fl2va_first", "t2va", extra=serves).replace("curl: |\n", "curl: |\n\n")
    [finding] = _rl555(tmp_path, blank_first)
    assert finding.pointer == ("omni", "tasks", 0, "curl")
    assert _written_line(tmp_path, finding) == "t2va"
