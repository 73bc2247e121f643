"""RL35x rules over small recipes, run through the real engine (catalog_harness)."""

from __future__ import annotations

from pathlib import Path

import pytest
from catalog_harness import CONTEXT, run_example

from recipelint.diagnostics import Diagnostic
from recipelint.rulebook import Example

pytestmark = pytest.mark.skipif(
    not (CONTEXT / "taxonomy.yaml").is_file(), reason="recipes/ context tree missing"
)


def findings(
    tmp_path: Path, min_version: str | None, args: list[str], extra: str = ""
) -> list[Diagnostic]:
    items = ", ".join(repr(a).replace("'", '"') if '"' not in a else f"'{a}'" for a in args)
    version = f'  min_vllm_version: "{min_version}"\n' if min_version else ""
    content = f"model:\n  model_id: acme/demo-model\n{version}  base_args: [{items}]\n{extra}"
    root = tmp_path / f"tree{len(list(tmp_path.iterdir()))}"  # one fresh tree per call
    root.mkdir()
    return [
        d
        for d in run_example(Example("models/acme/demo-model.yaml", content), root)
        if d.code.startswith(("RL35", "RL36"))
    ]


def codes(diags: list[Diagnostic]) -> list[str]:
    return sorted(d.code for d in diags)


def test_clean_arguments_give_nothing(tmp_path: Path) -> None:
    args = [
        "--tensor-parallel-size",
        "2",
        "--enable-prefix-caching",
        "--max-model-len",
        "128k",
        "--tool-call-parser",
        "hermes",
        "--enable-auto-tool-choice",
        "-cc.mode=3",
        "--compilation-config",
        '{"mode": 3, "pass_config": {"fuse_norm_quant": true}}',
    ]
    assert findings(tmp_path, "0.17.0", args) == []


def test_flag_added_after_minimum_names_the_release(tmp_path: Path) -> None:
    [diag] = findings(tmp_path, "0.9.0", ["--async-scheduling"])
    assert diag.code == "RL358" and "0.10.0" in diag.message and diag.severity.name == "ERROR"


def test_alias_younger_than_its_flag(tmp_path: Path) -> None:
    # --compilation-config exists since 0.8; its -cc alias only from 0.12.0.
    [diag] = findings(tmp_path, "0.10.0", ["-cc.mode=3"])
    assert diag.code == "RL358" and "0.12.0" in diag.message


def test_value_added_after_minimum(tmp_path: Path) -> None:
    [diag] = findings(tmp_path, "0.8.5", ["--reasoning-parser", "qwen3"])
    assert diag.code == "RL358" and "0.9.0" in diag.message


def test_flag_removed_by_newest_is_a_warning(tmp_path: Path) -> None:
    [diag] = findings(tmp_path, "0.8.5", ["--guided-decoding-backend", "xgrammar"])
    assert diag.code == "RL359" and "0.11.1" in diag.message and diag.severity.name == "WARNING"


def test_unknown_flag_with_did_you_mean(tmp_path: Path) -> None:
    [diag] = findings(tmp_path, "0.17.0", ["--tool-call-parser-plugin", "x.py"])
    assert diag.code == "RL350"
    assert diag.hint == "did you mean `--tool-parser-plugin`?"


def test_shape_problems_are_left_to_the_args_family(tmp_path: Path) -> None:
    # RL306 (flag and value in one item), RL305 (dotted without value), RL308 (JSON syntax)
    # and RL304 (underscores) report these; this family must not report them twice.
    for args in (
        ["--max-model-len auto"],
        ["--compilation-config.mode"],
        ["--speculative-config", "{bad json"],
        ["--max_model_len", "8192"],
    ):
        assert findings(tmp_path, "0.21.0", args) == [], args


def test_arity(tmp_path: Path) -> None:
    assert codes(findings(tmp_path, "0.17.0", ["--trust-remote-code=true"])) == ["RL352"]
    assert codes(findings(tmp_path, "0.17.0", ["--max-model-len", "--enforce-eager"])) == ["RL352"]
    assert codes(findings(tmp_path, "0.17.0", ["--no-enforce-eager", "yes"])) == ["RL352"]
    assert codes(findings(tmp_path, "0.17.0", ["--served-model-name", "a", "b"])) == []


def test_hard_choice_and_type(tmp_path: Path) -> None:
    [diag] = findings(tmp_path, "0.17.0", ["--kv-cache-dtype", "fp9"])
    assert diag.code == "RL351" and diag.hint == "did you mean `fp8`?"
    assert codes(findings(tmp_path, "0.17.0", ["--tensor-parallel-size", "two"])) == ["RL351"]


def test_soft_values_fold_case(tmp_path: Path) -> None:
    # AttentionConfig looks the enum up with value.upper().
    assert findings(tmp_path, "0.20.0", ["--attention-backend", "flashinfer"]) == []
    assert codes(findings(tmp_path, "0.20.0", ["--attention-backend", "FLASHINFERR"])) == ["RL353"]


def test_parser_plugin_lowers_to_info(tmp_path: Path) -> None:
    diags = findings(
        tmp_path, "0.17.0", ["--reasoning-parser-plugin", "p.py", "--reasoning-parser", "mine"]
    )
    assert [(d.code, d.severity.name) for d in diags] == [("RL360", "INFO")]


def test_json_value_keys(tmp_path: Path) -> None:
    diags = findings(
        tmp_path, "0.17.0", ["--speculative-config", '{"method": "mtp", "num_spec_tokens": 2}']
    )
    assert codes(diags) == ["RL354"] and "num_spec_tokens" in diags[0].message


def test_abbreviation(tmp_path: Path) -> None:
    [diag] = findings(tmp_path, "0.17.0", ["--max-model", "8192"])
    assert diag.code == "RL356"


def test_omni_recipes_use_the_omni_catalog(tmp_path: Path) -> None:
    omni = "meta:\n  tasks: [omni]\n"
    assert findings(tmp_path, "0.22.0", ["--vae-use-slicing"], omni) == []
    assert codes(findings(tmp_path, "0.22.0", ["--vae-use-slicing"])) == ["RL350"]


def test_no_minimum_checks_against_newest_only(tmp_path: Path) -> None:
    assert findings(tmp_path, None, ["--async-scheduling"]) == []


def test_deprecation_quotes_the_release(tmp_path: Path) -> None:
    diags = findings(tmp_path, "0.11.0", ["--guided-decoding-backend", "xgrammar"])
    assert codes(diags) == ["RL355", "RL359"]  # deprecated in 0.11.0, gone by the newest release
    assert "will be removed in v0.12.0" in next(d.message for d in diags if d.code == "RL355")


def test_variant_minimum_raises_the_baseline(tmp_path: Path) -> None:
    variants = (
        "variants:\n  default:\n    precision: bf16\n  fast:\n    precision: fp8\n"
        '    min_vllm_version: "0.10.0"\n    extra_args: ["--async-scheduling"]\n'
    )
    assert findings(tmp_path, "0.9.0", [], variants) == []
    assert codes(findings(tmp_path, "0.9.0", ["--async-scheduling"], variants)) == ["RL358"]


def test_model_flag_with_serve(tmp_path: Path) -> None:
    [diag] = findings(tmp_path, "0.10.0", ["--model", "acme/demo-model"])
    assert diag.code == "RL350" and "positional argument" in diag.message
    assert codes(findings(tmp_path, "0.12.0", ["--model", "acme/demo-model"])) == ["RL355"]


def test_plugin_does_not_rescue_a_hard_choice(tmp_path: Path) -> None:
    # 0.10.0 builds --tool-call-parser's choices from the registry before any plugin loads.
    diags = findings(
        tmp_path, "0.10.0", ["--tool-parser-plugin", "p.py", "--tool-call-parser", "mine"]
    )
    assert codes(diags) == ["RL351"]


def test_flag_that_lived_between_minimum_and_newest(tmp_path: Path) -> None:
    # --structured-outputs-config arrived in 0.11.0; --guided-decoding-backend left after 0.11.1.
    [diag] = findings(tmp_path, None, ["--guided-decoding-backend", "xgrammar"])
    assert diag.code == "RL359" and "0.4.1 to 0.11.1" in diag.message
