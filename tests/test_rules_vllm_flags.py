"""RL350–RL360 and RL364 (recipelint/rules/vllm_flags.py) over small recipes, run through the
real engine (catalog_harness). RL364: a flag given the value every release of the document's
range uses by default."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
from catalog_harness import CONTEXT, run_example
from treehelp import Fragment, findings_by_code

from recipelint.diagnostics import Diagnostic, Severity
from recipelint.flags.catalog import (
    Catalog,
    _raw_catalog,
    available_versions,
    load_catalog,
    newest_catalog,
)
from recipelint.flags.support import ReleaseStatus
from recipelint.rulebook.catalog import Example
from recipelint.rules import vllm_flags
from recipelint.rules.vllm_flags import Catalogs, Verdict, _ArgList, _is_default

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
    found = findings(tmp_path, "0.10.0", ["-cc.mode=3"])
    alias = [d for d in found if d.message.startswith("`-cc.mode=3`")]
    assert [(d.code, "0.12.0" in d.message) for d in alias] == [("RL358", True)]
    # The key is newer than the minimum too (0.10.0 named it `level`).
    assert {d.code for d in found} == {"RL358"}


def test_value_added_after_minimum(tmp_path: Path) -> None:
    [diag] = findings(tmp_path, "0.8.5", ["--reasoning-parser", "qwen3"])
    assert diag.code == "RL358" and "0.9.0" in diag.message


def test_flag_removed_by_newest_is_an_error(tmp_path: Path) -> None:
    # The newest parser refuses it: on the current vLLM the command does not start.
    [diag] = findings(tmp_path, "0.8.5", ["--guided-decoding-backend", "xgrammar"])
    assert diag.code == "RL359" and "0.11.1" in diag.message and diag.severity.name == "ERROR"


def test_json_key_gone_in_a_later_release_names_where_it_goes(tmp_path: Path) -> None:
    # use_inductor: declared by 0.11.0, deprecated in 0.11.1, gone from 0.12.0; 0.12.0's
    # pydantic CompilationConfig drops undeclared keys, 0.13.0's forbids them.
    for args in (
        ["--compilation-config", '{"use_inductor": false}'],
        ["--compilation-config.use_inductor", "false"],
    ):
        [diag] = findings(tmp_path, "0.11.0", args)
        assert (diag.code, diag.severity.name) == ("RL359", "ERROR"), args
        assert diag.message == (
            "`--compilation-config` key `use_inductor` is rejected by vllm from 0.13.0 on "
            "(last declared in 0.11.1; 0.12.0 drops it): vLLM does not start there"
        )
        assert diag.hint is not None and diag.hint.startswith("deprecated from 0.11.1; ")


def test_json_key_checked_in_every_release_not_only_the_minimum(tmp_path: Path) -> None:
    # Present in 0.20.0 and still in 0.29.0: only a release past the minimum refuses it.
    args = ["--attention-config", '{"use_fp4_indexer_cache": true}']
    [diag] = findings(tmp_path, "0.20.0", args)
    assert diag.code == "RL359" and "from 0.30.0 on (last declared in 0.29.0)" in diag.message


def test_a_key_a_release_drops_is_a_warning_there_not_an_error(tmp_path: Path) -> None:
    # enable_in_reasoning is declared from 0.11.1; 0.11.0's pydantic config drops it.
    args = ["--structured-outputs-config", '{"enable_in_reasoning": true}']
    [diag] = findings(tmp_path, "0.11.0", args)
    assert (diag.code, diag.severity.name) == ("RL357", "WARNING")
    assert diag.message == (
        "`--structured-outputs-config` key `enable_in_reasoning` does nothing in vllm 0.11.0: "
        "it is declared from 0.11.1 on, and older releases drop keys their config does not "
        "declare"
    )
    assert findings(tmp_path, "0.11.1", args) == []


def test_an_unknown_key_names_the_releases_that_refuse_and_those_that_drop(
    tmp_path: Path,
) -> None:
    [diag] = findings(tmp_path, "0.15.0", ["--kv-transfer-config", '{"kv_conector": "x"}'])
    assert (diag.code, diag.severity.name) == ("RL354", "ERROR")
    assert diag.message.startswith(
        "`kv_conector` is not a key of `--kv-transfer-config` in vllm 0.15.0 to "
    )
    assert ": 0.16.0 to " in diag.message and "(0.15.0 to 0.15.1 drops it)" in diag.message


def test_json_key_deprecated_but_accepted_is_a_warning_naming_the_release(tmp_path: Path) -> None:
    diags = findings(tmp_path, "0.10.0", ["--compilation-config.use_cudagraph", "true"])
    assert codes(diags) == ["RL359"]  # refused from 0.11.1: the error wins, the hint says when
    assert diags[0].hint is not None and diags[0].hint.startswith("deprecated from 0.10.1; ")
    [diag] = findings(tmp_path, "0.11.1", ["--compilation-config.level", "3"])
    assert codes([diag]) == ["RL359"] and "from 0.18.0 on" in diag.message


def test_json_key_unknown_in_every_release_is_an_error(tmp_path: Path) -> None:
    [diag] = findings(tmp_path, "0.31.0", ["--compilation-config", '{"cudagraph_mod": "FULL"}'])
    assert (diag.code, diag.severity.name) == ("RL354", "ERROR")
    assert "`cudagraph_mod` is not a key of `--compilation-config` in vllm 0.31.0 to" in (
        diag.message
    )


def test_json_key_of_a_younger_alias_is_judged_from_the_alias_on(tmp_path: Path) -> None:
    # -cc arrives in 0.12.0 (reported once); a key older than that adds nothing. A younger key
    # (0.17.0) is the one finding: raising the minimum to the alias's release would not be enough.
    assert codes(findings(tmp_path, "0.10.0", ["-cc.use_inductor_graph_partition=True"])) == [
        "RL358"
    ]
    [diag] = findings(tmp_path, "0.10.0", ["-cc.pass_config.fuse_rope_kvcache=True"])
    assert diag.code == "RL358" and diag.message.startswith(
        "`--compilation-config` key `pass_config.fuse_rope_kvcache` needs vllm 0.17.0 or newer"
    )


def test_soft_value_the_newest_release_no_longer_lists_is_a_warning(tmp_path: Path) -> None:
    # argparse takes any text for --tokenizer-mode; the newest release validates it later.
    [diag] = findings(tmp_path, "0.17.0", ["--tokenizer-mode", "slow"])
    assert (diag.code, diag.severity.name) == ("RL353", "WARNING")
    assert "does not know it" in diag.message


def test_unknown_flag_with_did_you_mean(tmp_path: Path) -> None:
    [diag] = findings(tmp_path, "0.17.0", ["--tool-call-parser-plugin", "x.py"])
    assert diag.code == "RL350"
    assert diag.hint == "did you mean `--tool-parser-plugin`, `--tool-call-parser`?"


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


def test_parser_next_to_a_misspelt_plugin_flag_is_the_plugins(tmp_path: Path) -> None:
    # The misspelt plugin flag is RL350's error; the parser name it was meant to register is
    # not a typo of a built-in parser, so it stays RL360's info, naming the flag as spelled.
    args = ["--tool-call-parser-plugin", "p.py", "--tool-call-parser", "nemotron_json"]
    diags = findings(tmp_path, "0.17.0", args)
    assert [(d.code, d.pointer[-1]) for d in diags] == [("RL350", 0), ("RL360", 3)]
    assert diags[1].message.endswith(
        "loaded with `--tool-call-parser-plugin` (once spelled `--tool-parser-plugin`)"
    )
    # An abbreviation argparse expands to the plugin flag loads it too.
    args = ["--reasoning-parser-plug", "p.py", "--reasoning-parser", "mine"]
    assert "RL353" not in codes(findings(tmp_path, "0.17.0", args))
    # An unrelated unknown flag does not.
    args = ["--tool-parser-dir", "p", "--tool-call-parser", "nemotron_json"]
    assert "RL353" in codes(findings(tmp_path, "0.17.0", args))


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
    [diag] = findings(tmp_path, "0.12.0", ["--model", "acme/demo-model"])
    assert diag.code == "RL355" and "`--model` is deprecated in vllm 0.12.0" in diag.message


def test_a_deprecated_flag_later_removed_is_one_finding_over_its_whole_range(
    tmp_path: Path,
) -> None:
    """Deprecated in 0.11.0, gone by the newest release: one RL359, not RL355 beside it."""
    [diag] = findings(tmp_path, "0.11.0", ["--guided-decoding-backend", "xgrammar"])
    assert diag.code == "RL359" and diag.message.startswith(
        "`--guided-decoding-backend` was removed after vllm 0.11.1"
    )
    assert "deprecated from vllm 0.11.0 (vLLM says: " in diag.message
    assert "will be removed in v0.12.0" in diag.message


def test_a_deprecated_flag_refused_between_releases_names_every_refusing_release(
    tmp_path: Path,
) -> None:
    """`--disable-log-requests`: deprecated in 0.12.0, refused 0.17.0 to 0.32.0, read again
    from 0.33.0 as the negation of `--enable-log-requests`."""
    [diag] = findings(tmp_path, "0.12.0", ["--disable-log-requests"])
    assert diag.code == "RL359"
    assert diag.message.startswith("`--disable-log-requests` is rejected by vllm 0.17.0 to 0.32.0,")
    assert "deprecated from vllm 0.12.0" in diag.message
    assert diag.hint is not None and diag.hint.startswith("delete it")


def test_variant_minimum_raises_the_baseline(tmp_path: Path) -> None:
    variants = (
        "variants:\n  default:\n    precision: bf16\n  fast:\n    precision: fp8\n"
        '    min_vllm_version: "0.10.0"\n    extra_args: ["--async-scheduling"]\n'
    )
    assert findings(tmp_path, "0.9.0", [], variants) == []
    assert codes(findings(tmp_path, "0.9.0", ["--async-scheduling"], variants)) == ["RL358"]


def _spec_mode(min_versions: dict[str, str | None]) -> str:
    """A recipe tail: a `spec` feature whose `draft` mode sets a speculative-config key of
    vllm 0.21.0 and is offered to the listed variants, each with its own minimum (or none)."""
    lines = ["variants:"]
    for key, version in min_versions.items():
        lines.append(f"  {key}:\n    precision: fp8")
        if version:
            lines.append(f'    min_vllm_version: "{version}"')
    offered = ", ".join(k for k in min_versions if k != "default")
    lines += [
        "features:",
        "  spec:",
        "    default_mode: plain",
        "    modes:",
        "      plain:",
        "        args: []",
        "      draft:",
        f"        variants: [{offered}]",
        "        args:",
        '          - "--speculative-config"',
        """          - '{"method":"mtp","num_speculative_tokens":2,"draft_sample_method":"greedy"}'""",
    ]
    return "\n".join(lines) + "\n"


def test_mode_confined_to_variants_is_judged_at_their_lowest_minimum(tmp_path: Path) -> None:
    """`draft_sample_method` arrived in 0.21.0. A mode offered only to variants whose own
    min_vllm_version is newer never renders on the model's 0.20.0 (DeepSeek-V4-Pro's dspark)."""
    modes = _spec_mode({"default": None, "fast": "0.25.0", "faster": "0.26.0"})
    assert findings(tmp_path, "0.20.0", [], modes) == []
    # One listed variant without a minimum of its own runs it on the model's 0.20.0.
    modes = _spec_mode({"default": None, "fast": "0.25.0", "slow": None})
    [diag] = findings(tmp_path, "0.20.0", [], modes)
    assert diag.code == "RL358" and diag.pointer[:4] == ("features", "spec", "modes", "draft")
    assert diag.message.endswith("needs vllm 0.21.0 or newer, but min_vllm_version is 0.20.0")
    # Listed variants' minimums below the key: the lowest of them is named.
    modes = _spec_mode({"default": None, "fast": "0.20.1", "faster": "0.26.0"})
    [diag] = findings(tmp_path, "0.20.0", [], modes)
    assert diag.code == "RL358" and diag.message.endswith("min_vllm_version is 0.20.1")


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


def test_json_key_deprecated_in_the_range_is_a_warning(tmp_path: Path) -> None:
    [diag] = findings(tmp_path, "0.28.0", ["--kernel-config", '{"enable_cutedsl_warmup": true}'])
    assert (diag.code, diag.severity.name) == ("RL355", "WARNING")
    assert diag.message == (
        "`--kernel-config` key `enable_cutedsl_warmup` is deprecated in vllm 0.28.0"
    )
    # What to do, not where to read about it: the newest release still takes the key.
    assert diag.hint == "drop the key; vllm 0.34.0 still accepts it"
    # A key that supersedes deprecated ones is not itself deprecated where it arrives.
    args = ["--attention-config", '{"mla_prefill_backend": "FLASHINFER"}']
    assert findings(tmp_path, "0.21.0", args) == []


def _shared_findings(root: Path, path: str, document: str | Fragment) -> list[Diagnostic]:
    root.mkdir(parents=True, exist_ok=True)
    found = findings_by_code(root, {path: document})
    return [d for code, diags in found.items() if code.startswith("RL35") for d in diags]


def test_a_strategy_file_is_judged_by_the_newest_release(tmp_path: Path) -> None:
    # Recipes of every minimum share it: a typo is its finding, a release it needs is not.
    typo = Fragment('vllm_args: ["--gpu-memory-utilisation", "0.9"]\n')
    [diag] = _shared_findings(tmp_path / "a", "strategies/single_node_tp.yaml", typo)
    assert diag.code == "RL350" and diag.pointer == ("vllm_args", 0)
    recent = Fragment('vllm_args: ["--async-scheduling", "--compilation-config.mode", "3"]\n')
    assert _shared_findings(tmp_path / "b", "strategies/single_node_tp.yaml", recent) == []


def test_a_kv_store_file_is_judged_from_its_own_minimum(tmp_path: Path) -> None:
    source = (CONTEXT / "kv_store/kv_store_centralized_mooncake.yaml").read_text(encoding="utf-8")
    key = '"kv_role":"kv_both"}'
    assert key in source
    older = source.replace(key, '"kv_role":"kv_both","kv_load_failure_policy":"fail"}', 1)
    older = older.replace('min_vllm_version: "0.21.0"', 'min_vllm_version: "0.9.0"')
    diags = _shared_findings(tmp_path, "kv_store/kv_store_centralized_mooncake.yaml", older)
    assert codes(diags) == ["RL358"] and "key `kv_load_failure_policy` needs vllm" in (
        diags[0].message
    )


def test_taxonomy_kv_offload_args_are_checked(tmp_path: Path) -> None:
    source = (CONTEXT / "taxonomy.yaml").read_text(encoding="utf-8")
    key = '"kv_connector":"SimpleCPUOffloadConnector"'
    assert key in source
    typo = source.replace(key, key + ',"kv_rol":"kv_both"', 1)
    [diag] = _shared_findings(tmp_path, "taxonomy.yaml", typo)
    assert (diag.code, diag.severity.name) == ("RL354", "ERROR")
    assert diag.pointer == ("kv_offload", "simple", "args", 1)
    assert "`kv_rol` is not a key of `--kv-transfer-config` in vllm 0.34.0:" in diag.message


def test_flag_refused_by_a_release_between_minimum_and_newest(tmp_path: Path) -> None:
    # --disable-log-requests left in 0.17.0 and came back in 0.33.0 as --enable-log-requests'
    # negation: a reader on 0.17-0.32 cannot start the command.
    diags = [
        d for d in findings(tmp_path, "0.12.0", ["--disable-log-requests"]) if d.code == "RL359"
    ]
    assert [(d.severity.name, d.message) for d in diags] == [
        (
            "ERROR",
            "`--disable-log-requests` is rejected by vllm 0.17.0 to 0.32.0, though 0.12.0 to "
            "0.16.0 and 0.33.0 to 0.34.0 accept it: vLLM does not start there; deprecated from "
            "vllm 0.12.0 (vLLM says: [DEPRECATED] Disable logging requests.)",
        )
    ]


def test_value_refused_by_a_release_between_minimum_and_newest(tmp_path: Path) -> None:
    # None is a choice where the converter maps the text to None: 0.23 and 0.31+, not 0.24-0.30.
    # Every refusing release is named, and the hint raises the minimum past the last of them:
    # 0.25.0, past the first, still refuses it.
    [diag] = findings(tmp_path, "0.23.0", ["--safetensors-load-strategy", "None"])
    assert (diag.code, diag.severity.name) == ("RL351", "ERROR")
    assert diag.message == (
        "`None` is not accepted by `--safetensors-load-strategy` in vllm 0.24.0 to 0.30.0, "
        "though 0.23.0 and 0.31.0 to 0.34.0 take it: vLLM does not start there"
    )
    assert diag.hint == ("raise min_vllm_version past 0.30.0, or use a value every release takes")


def test_value_younger_than_its_younger_flag_names_its_own_release(tmp_path: Path) -> None:
    # --linear-backend arrives in 0.22.0, its b12x value in 0.28.0: raising the minimum to the
    # flag's release would not be enough. One finding, at the value: the flag's own would
    # report the same cause (the minimum is too old) a second time.
    diags = findings(tmp_path, "0.20.0", ["--linear-backend", "b12x"])
    assert [(d.code, d.pointer[-1]) for d in diags] == [("RL358", 1)]
    assert diags[0].message == (
        "`--linear-backend b12x` needs vllm 0.28.0 or newer, but min_vllm_version is 0.20.0"
    )
    # A flag younger than the minimum with a value as old as the flag is reported at the flag.
    diags = findings(tmp_path, "0.20.0", ["--linear-backend", "auto"])
    assert [(d.code, d.pointer[-1]) for d in diags if d.code == "RL358"] == [("RL358", 0)]


def test_flag_deprecation_names_the_first_release_of_the_range_that_deprecates_it(
    tmp_path: Path,
) -> None:
    # Deprecated from 0.32.0 on, the newest (0.33.0) too: the message names 0.32.0.
    [diag] = findings(tmp_path, "0.20.0", ["--disable-cascade-attn"])
    assert (diag.code, diag.severity.name) == ("RL355", "WARNING")
    assert diag.message.startswith("`--disable-cascade-attn` is deprecated in vllm 0.32.0; ")


def test_model_flag_refused_by_serve_in_a_later_release_of_the_range(tmp_path: Path) -> None:
    # 0.5.4's `vllm serve` took --model; 0.5.5 to 0.11.0 refuse it before argparse runs.
    [diag] = findings(tmp_path, "0.5.4", ["--model", "acme/demo-model"])
    assert (diag.code, diag.severity.name) == ("RL350", "ERROR")
    assert diag.message.startswith("`--model` is rejected by `vllm serve` in vllm 0.5.5: ")


def test_a_removed_flag_read_as_an_abbreviation_is_to_be_deleted(tmp_path: Path) -> None:
    """`--device` left vLLM after 0.9.x; later releases read it as a prefix of `--device-ids`,
    which it never meant: the hint says delete it, not "spell it --device-ids"."""
    [diag] = [d for d in findings(tmp_path, "0.24.0", ["--device", "cuda"]) if d.code == "RL356"]
    assert diag.hint == "delete it"
    assert "was removed after vllm" in diag.message and "--device-ids" in diag.message


def test_a_deprecation_says_what_vllm_says_and_what_to_do(tmp_path: Path) -> None:
    """vLLM's own wording is quoted as vLLM's, and the hint acts on it instead of pointing
    at release notes: a no-op or a flag with no named successor is deleted."""
    [diag] = findings(tmp_path, "0.33.0", ["--disable-cascade-attn"])
    assert "; vLLM says: --disable-cascade-attn is deprecated and has no effect" in diag.message
    assert diag.hint is not None and diag.hint.startswith("delete it: vLLM says it has no effect")
    [diag] = [
        d for d in findings(tmp_path, "0.33.0", ["--log-config-file", "x"]) if d.code == "RL355"
    ]
    assert diag.hint is not None and diag.hint.startswith("delete it: vLLM names no replacement")
    assert "release notes" not in diag.hint


def test_a_removed_flag_s_hint_says_what_vllm_said_and_proposes_nothing_else(
    tmp_path: Path,
) -> None:
    [diag] = findings(tmp_path, "0.8.5", ["--guided-decoding-backend", "xgrammar"])
    assert diag.code == "RL359"
    assert diag.hint == (
        "delete it: vLLM names no replacement (vllm 0.11.1: [DEPRECATED] "
        "--guided-decoding-backend will be removed in v0.12.0.)"
    )
    [gone] = findings(tmp_path, "0.10.0", ["--swap-space", "4"])
    assert (
        gone.hint == "delete it: vLLM names no replacement (vllm 0.17.1 is the last to accept it)"
    )


def test_an_unknown_flag_gets_no_far_fetched_did_you_mean(tmp_path: Path) -> None:
    """`--kv-cache-size` shares a prefix with `--kv-cache-dtype`, an unrelated option."""
    [diag] = findings(tmp_path, "0.20.0", ["--kv-cache-size", "4"])
    assert diag.code == "RL350"
    assert diag.hint == "check the flag name in `vllm serve --help`"


def test_a_value_for_an_out_of_tree_platform_only_is_the_plugins(tmp_path: Path) -> None:
    # vllm-ascend registers `--quantization ascend`; no built-in platform runs its NPUs, so
    # a list that runs only there gets RL360's info, not RL353's typo warning.
    from treehelp import NPU_PROFILE, base_recipe, findings_by_code, taxonomy_with

    taxonomy = taxonomy_with(NPU_PROFILE)
    recipe = base_recipe()
    recipe["variants"]["npu"] = {
        "model_id": "acme/demo-w8a8",
        "precision": "int8",
        "vram_minimum_gb": 20,
        "supported_hardware": ["npu_x"],
        "extra_args": ["--quantization", "ascend"],
    }
    recipe["variants"]["gpu"] = {
        "model_id": "acme/demo-w8a8-gpu",
        "precision": "int8",
        "vram_minimum_gb": 20,
        "supported_hardware": ["h100"],
        "extra_args": ["--quantization", "ascend"],
    }
    found = findings_by_code(tmp_path, {"taxonomy.yaml": taxonomy, "models/acme/demo.yaml": recipe})
    assert [d.pointer[:2] for d in found.get("RL360", [])] == [("variants", "npu")]
    assert [d.pointer[:2] for d in found.get("RL353", [])] == [("variants", "gpu")]


def test_a_value_sharing_only_a_long_tail_gets_no_did_you_mean(tmp_path: Path) -> None:
    """`B12X_MLA_SPARSE` and `XPU_MLA_SPARSE` share two words of three: another backend,
    not a typo of this one, so the hint lists the known values instead of proposing it."""
    [diag] = findings(tmp_path, "0.25.0", ["--attention-backend", "B12X_MLA_SPARSE"])
    assert diag.code == "RL353" and diag.hint is not None
    assert "XPU_MLA_SPARSE" not in diag.hint and diag.hint.startswith("known values: ")
    [typo] = findings(tmp_path, "0.25.0", ["--attention-backend", "FLASH_ATTN_MLAA"])
    assert typo.hint == "did you mean `FLASH_ATTN_MLA`?"


def test_a_value_a_word_short_of_a_known_one_is_proposed_past_closer_rated_ones(
    tmp_path: Path,
) -> None:
    """difflib rates three backends sharing the tail `_MLA_SPARSE_DSV4` above the one that is
    this value with its first word written out."""
    [diag] = findings(tmp_path, "0.30.0", ["--attention-backend", "MLA_SPARSE_DSV4"])
    assert diag.code == "RL353"
    assert diag.hint == "did you mean `FLASHINFER_MLA_SPARSE_DSV4`?"


def test_a_deprecation_quotes_the_newest_release_s_wording(tmp_path: Path) -> None:
    """0.33.0 says `--mamba-cache-mode` "will be removed in v0.33.0", 0.34.0 that it will be
    removed in v0.34.0 and still accepts it: the newest word is quoted, and named as its."""
    [diag] = findings(tmp_path, "0.17.1", ["--mamba-cache-mode", "align"])
    assert (diag.code, diag.message) == (
        "RL355",
        "`--mamba-cache-mode` is deprecated in vllm 0.33.0; vllm 0.34.0 says: "
        "--mamba-cache-mode is deprecated and will be removed in v0.34.0.",
    )
    assert diag.hint == "delete it: vLLM names no replacement; 0.34.0 still accepts it"


def test_a_removed_json_key_s_hint_proposes_no_unnamed_replacement(tmp_path: Path) -> None:
    """The catalogs record no successor of a key, so the hint says to drop it and why, not
    to "use its replacement" that nothing names."""
    args = ["--attention-config", '{"use_fp4_indexer_cache": true}']
    [diag] = findings(tmp_path, "0.25.0", args)
    assert diag.code == "RL359"
    assert diag.hint == "deprecated from 0.28.0; drop the key: no release after 0.29.0 declares it"


# --- RL364: a flag set to its default ------------------------------------------------------


def test_a_value_every_release_of_the_range_defaults_to_is_an_info(tmp_path: Path) -> None:
    [diag] = findings(tmp_path, "0.17.0", ["--tensor-parallel-size", "1"])
    assert (diag.code, diag.severity.name) == ("RL364", "INFO")
    assert diag.message.startswith("`--tensor-parallel-size 1` is what vllm 0.17.0 to ")
    assert diag.message.endswith(" use when the flag is not given: it changes nothing")
    assert findings(tmp_path, "0.17.0", ["--tensor-parallel-size", "2"]) == []


def test_a_value_whose_default_changes_in_the_range_is_not_reported(tmp_path: Path) -> None:
    # 0.92 is the default from 0.10 on, until the newest releases choose it at start-up.
    assert findings(tmp_path, "0.20.0", ["--gpu-memory-utilization", "0.92"]) == []


BEYOND = "99.0.0"  # newer than every catalog: RL407 names the release it is judged at
# And a nightly build, as upstream's add-recipe guide writes it (PRs 419, 655, 767).
BEYOND_ALL = (BEYOND, "nightly")


def test_what_no_catalog_knows_is_not_reported_beyond_the_catalogs(tmp_path: Path) -> None:
    # A release newer than the catalogs may have added each of these: judging it by the
    # newest catalog would call a new flag, choice or JSON key an error.
    for args in (
        ["--a-flag-of-a-later-release"],
        ["--kv-cache-dtype", "fp9"],
        ["--reasoning-parser", "a_parser_of_a_later_release"],
        ["--compilation-config", '{"a_key_of_a_later_release": 1}'],
    ):
        assert findings(tmp_path, "0.31.0", args) != [], args  # an error at a catalogued minimum
        for beyond in BEYOND_ALL:
            notice = findings(tmp_path, beyond, args)
            assert codes(notice) == ["RL365"], (beyond, args)
            assert notice[0].severity is Severity.INFO


def test_what_the_catalogs_saw_removed_is_still_reported_beyond_them(tmp_path: Path) -> None:
    # Declared up to 0.29.0: unknown to the newest, as to a range that starts after 0.29.0.
    args = ["--attention-config", '{"use_fp4_indexer_cache": true}']
    for beyond in BEYOND_ALL:
        removed = ["--guided-decoding-backend", "xgrammar"]
        assert codes(findings(tmp_path, beyond, removed)) == ["RL359"], beyond
        assert codes(findings(tmp_path, beyond, args)) == codes(findings(tmp_path, "0.31.0", args))
        assert codes(findings(tmp_path, beyond, args)) == ["RL354"], beyond


def test_args_run_by_an_image_of_another_build_are_judged_as_a_later_build(
    tmp_path: Path,
) -> None:
    """A hardware override that pins a community image (PR 786's `eugr/spark-vllm-b12x` for
    DGX Spark) runs that build's flags: a backend no vLLM release knows is no evidence there,
    a flag the newest release refuses still is."""
    override = (
        "variants:\n  default:\n    hardware_overrides:\n      b200:\n{image}"
        '        extra_args: ["--moe-backend", "not_yet_a_backend",'
        ' "--guided-decoding-backend", "xgrammar"]\n'
    )
    community = '        docker_image: "eugr/spark-vllm-b12x:latest"\n'
    own = '        docker_image: "vllm/vllm-openai:v0.31.0"\n'
    in_community = findings(tmp_path, "0.31.0", [], override.format(image=community))
    assert sorted((d.code, d.pointer[-1]) for d in in_community) == [("RL359", 2), ("RL365", 1)]
    [notice] = [d for d in in_community if d.code == "RL365"]
    assert notice.message == (
        "no catalogued release says `not_yet_a_backend` is a value `--moe-backend` takes in vllm"
        f" (up to {available_versions()[-1]}); these args run an image that is not the vLLM"
        " project's, a build of its own, which may have added it"
    )
    in_own = findings(tmp_path, "0.31.0", [], override.format(image=own))
    assert sorted((d.code, d.pointer[-1]) for d in in_own) == [("RL351", 1), ("RL359", 2)]


def test_an_override_is_judged_by_the_builds_of_the_deployments_it_reaches(
    tmp_path: Path,
) -> None:
    """PR 786: a strategy's generation override pins no image itself, but when the strategy
    is granted only to hardware whose variant pins a community image, every command the
    override joins runs that build. Granted to stock hardware as well, it is a release's."""
    recipe = (
        "meta:\n  hardware: {{b200: verified, dgx_spark_gb10: verified}}\n"
        "variants:\n  default:\n    hardware_overrides:\n      dgx_spark_gb10:\n"
        '        docker_image: "eugr/spark-vllm-b12x:latest"\n'
        "strategy_hardware:\n  multi_node_tp: {granted}\n"
        "strategy_overrides:\n  multi_node_tp:\n    hardware_overrides:\n      blackwell:\n"
        '        extra_args: ["--moe-backend", "not_yet_a_backend"]\n'
    )
    override = ("strategy_overrides", "multi_node_tp", "hardware_overrides", "blackwell")
    spark_only = findings(
        tmp_path, "0.31.0", [], recipe.format(granted="{dgx_spark_gb10: supported}")
    )
    [notice] = [d for d in spark_only if d.pointer[:4] == override]
    assert (notice.code, notice.severity) == ("RL365", Severity.INFO)
    assert "these args run only `eugr/spark-vllm-b12x:latest` wherever they render: an image " in (
        notice.message
    )
    both = recipe.format(granted="{dgx_spark_gb10: supported, b200: supported}")
    stock = [d for d in findings(tmp_path, "0.31.0", [], both) if d.pointer[:4] == override]
    assert codes(stock) == ["RL351"]


def test_an_override_that_runs_only_the_nightly_image_is_judged_as_a_nightly_build(
    tmp_path: Path,
) -> None:
    """A hardware override whose hardware runs the project's nightly image (a variant's
    `docker_image.amd`) runs no release: what no catalog knows is a notice there."""
    recipe = (
        "meta:\n  hardware: {{mi300x: verified, b200: verified}}\n"
        "variants:\n  default:\n    docker_image: {{amd: {image}}}\n"
        "compatible_strategies: [single_node_tp]\n"
        'hardware_overrides:\n  amd:\n    extra_args: ["--moe-backend", "not_yet_a_backend"]\n'
    )
    nightly = findings(tmp_path, "0.31.0", [], recipe.format(image="vllm/vllm-openai-rocm:nightly"))
    assert codes(nightly) == ["RL365"]
    assert "the vLLM project's nightly image" in nightly[0].message
    released = findings(tmp_path, "0.31.0", [], recipe.format(image="vllm/vllm-openai-rocm:latest"))
    assert codes(released) == ["RL351"]


def test_a_recipe_that_requires_nightly_is_judged_at_the_release_it_names(
    tmp_path: Path,
) -> None:
    """`nightly_required` sends every command to the nightly image, but says that build is
    the release min_vllm_version names: what that release lacks is still its finding. A
    nightly image pinned without it runs no release the recipe names."""
    override = (
        "meta:\n  hardware: {b200: verified}\ncompatible_strategies: [single_node_tp]\n"
        'hardware_overrides:\n  blackwell:\n    extra_args: ["--async-scheduling"]\n'
    )
    variant = "variants:\n  default:\n    precision: bf16\n"
    pinned = variant + "    docker_image: vllm/vllm-openai:nightly\n"

    def found(model: str, extra: str) -> list[str]:
        content = f"model:\n  model_id: acme/demo-model\n{model}{extra}"
        root = tmp_path / f"tree{len(list(tmp_path.iterdir()))}"
        root.mkdir()
        example = Example("models/acme/demo-model.yaml", content)
        return codes([d for d in run_example(example, root) if d.code.startswith("RL35")])

    release = '  min_vllm_version: "0.9.0"\n'
    assert found(release, override + variant) == ["RL358"]
    assert found(release, override + pinned) == []
    assert found(release + "  nightly_required: true\n", override + variant) == ["RL358"]


def test_a_recipe_that_builds_vllm_omni_from_a_clone_runs_its_main_branch(
    tmp_path: Path,
) -> None:
    """PR 739's MiniMax-H3 installs vLLM-Omni from a checkout: a flag of omni's main branch is
    no evidence against it, though the recipe's minimum names a release without it."""
    omni = "meta:\n  tasks: [omni]\n"
    clone = (
        "dependencies:\n  - note: omni from main\n    command: "
        '"git clone https://github.com/vllm-project/vllm-omni.git && cd vllm-omni && '
        'uv pip install -e ."\n'
    )
    args = ["--a-flag-of-omni-main"]
    assert codes(findings(tmp_path, "0.26.0", args, omni)) == ["RL350"]
    [notice] = findings(tmp_path, "0.26.0", args, omni + clone)
    assert notice.code == "RL365" and notice.severity is Severity.INFO
    assert "vllm-omni built from a clone of its main branch" in notice.message


# --- what the mutation bench found unchecked ----------------------------------------------


def test_a_feature_s_hardware_override_is_judged_at_the_baseline_whatever_its_modes_are_named(
    tmp_path: Path,
) -> None:
    """A mode confined to a variant lowers nothing but that mode's own args: the feature's
    hardware override of the same name (`h200`) renders with every mode, at the baseline."""
    tail = (
        "variants:\n  default:\n    precision: bf16\n  fast:\n    precision: fp8\n"
        '    min_vllm_version: "0.25.0"\n'
        "features:\n  spec:\n    default_mode: plain\n"
        "    hardware_overrides:\n      h200:\n        args:\n"
        '          - "--speculative-config"\n'
        """          - '{"method":"mtp","num_speculative_tokens":2,"draft_sample_method":"greedy"}'\n"""
        "    modes:\n      plain:\n        args: []\n"
        "      h200:\n        variants: [fast]\n        args: []\n"
    )
    [diag] = findings(tmp_path, "0.20.0", [], tail)
    assert diag.code == "RL358"
    assert diag.pointer == ("features", "spec", "hardware_overrides", "h200", "args", 1)
    assert diag.message.endswith("needs vllm 0.21.0 or newer, but min_vllm_version is 0.20.0")


def test_a_deprecation_vllm_gives_no_wording_for_folds_into_the_removal_quoting_nothing(
    tmp_path: Path,
) -> None:
    # 0.10.2 to 0.12.0 deprecate `--disable-mm-preprocessor-cache` without a word; 0.17.0 is gone.
    [diag] = findings(tmp_path, "0.10.2", ["--disable-mm-preprocessor-cache"])
    assert (diag.code, diag.message) == (
        "RL359",
        "`--disable-mm-preprocessor-cache` was removed after vllm 0.12.0; the newest release "
        f"({available_versions()[-1]}) rejects it; deprecated from vllm 0.10.2",
    )
    assert diag.hint == "delete it: vLLM names no replacement"


def _newest_with(flag: str, **changes: Any) -> Catalog:
    """The newest vllm catalog, but with ``changes`` to one flag's entry: what a later
    extraction could record."""
    raw = copy.deepcopy(_raw_catalog(available_versions()[-1], "vllm"))
    raw["flags"][flag].update(changes)
    return Catalog.from_json(raw)


def _verdicts(items: list[str], minimum: Catalog, newest: Catalog) -> list[Verdict]:
    cats = Catalogs("vllm", minimum, minimum.version, newest)
    return _ArgList(items, cats, frozenset()).check()


def test_the_first_release_s_wording_stands_when_the_newest_deprecates_without_a_word() -> None:
    # 0.33.0 says `--mamba-cache-mode` "will be removed in v0.33.0"; a newest release that
    # deprecates it without wording says nothing newer to quote.
    newest = _newest_with("--mamba-cache-mode", deprecated=True)
    [verdict] = _verdicts(["--mamba-cache-mode", "align"], load_catalog("0.33.0"), newest)
    assert (verdict.code, verdict.message) == (
        "RL355",
        "`--mamba-cache-mode` is deprecated in vllm 0.33.0; vLLM says: "
        "--mamba-cache-mode is deprecated and will be removed in v0.33.0.",
    )


def test_a_flag_of_fixed_arity_takes_that_many_values_and_no_more() -> None:
    # argparse's nargs=2 reads the next two items as values; a third is a stray positional
    # (the argument-shape family's), not a value to judge.
    newest = _newest_with("--kv-cache-dtype", nargs=2)
    verdicts = _verdicts(["--kv-cache-dtype", "fp8", "fp9", "fp7"], newest, newest)
    assert [(v.code, v.index) for v in verdicts] == [("RL353", 2)]
    assert verdicts[0].message.startswith("`fp9` is not a known value of `--kv-cache-dtype` in ")


def test_a_key_some_releases_of_the_range_drop_names_them_and_the_last_that_declared_it(
    tmp_path: Path,
) -> None:
    args = ["--compilation-config", '{"pass_config": {"fuse_norm_quant": true}}']
    [diag] = findings(tmp_path, "0.8.2", args)
    assert (diag.code, diag.severity.name) == ("RL357", "WARNING")
    assert diag.message == (
        "`--compilation-config` key `pass_config.fuse_norm_quant` does nothing in vllm 0.9.0 to "
        "0.11.1 (last declared in 0.8.5): the config drops keys it does not declare"
    )
    assert diag.hint == "drop the key, or raise min_vllm_version past the releases that drop it"


def test_a_key_dropped_up_to_the_newest_release_says_no_later_release_declares_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # No committed catalog has one yet (every newest config refuses undeclared keys): a
    # history in which the last three releases drop the key their predecessors declared.
    history = (
        ReleaseStatus("0.30.0", "ok"),
        ReleaseStatus("0.31.0", "ok"),
        ReleaseStatus("0.32.0", "ignored"),
        ReleaseStatus("0.33.0", "ignored"),
        ReleaseStatus("0.34.0", "ignored"),
    )
    monkeypatch.setattr(vllm_flags, "_key_verdicts", lambda *_: history)
    minimum = load_catalog("0.30.0")
    verdicts = _verdicts(["--compilation-config", '{"mode": 3}'], minimum, newest_catalog())
    assert [(v.code, v.index) for v in verdicts] == [("RL357", 1)]
    assert verdicts[0].message == (
        "`--compilation-config` key `mode` does nothing in vllm from 0.32.0 on (last declared "
        "in 0.31.0): the config drops keys it does not declare"
    )
    assert verdicts[0].hint == "drop the key: no release after 0.31.0 declares it"


def test_the_plugin_info_names_the_parser_kind_and_the_plugin_flag(tmp_path: Path) -> None:
    args = ["--reasoning-parser-plugin", "p.py", "--reasoning-parser", "mine"]
    [diag] = findings(tmp_path, "0.17.0", args)
    assert diag.message == (
        "`mine` is not a built-in reasoning-parser of vllm 0.17.0; it is expected from the "
        "plugin loaded with `--reasoning-parser-plugin`"
    )


def test_a_float_default_written_another_way_is_still_the_default(tmp_path: Path) -> None:
    # --kv-cache-metrics-sample defaults to 0.01 from 0.12.0 on; argparse reads float(text).
    for written in ("0.01", "0.010", "1e-2"):
        [diag] = findings(tmp_path, "0.17.0", ["--kv-cache-metrics-sample", written])
        assert diag.code == "RL364", written
        assert diag.message.startswith(f"`--kv-cache-metrics-sample {written}` is what vllm ")
    assert findings(tmp_path, "0.17.0", ["--kv-cache-metrics-sample", "0.02"]) == []


def test_a_boolean_default_is_matched_by_the_word_argparse_turns_into_it() -> None:
    # A value-taking flag whose default is a boolean (0.4.0's --enable-chunked-prefill).
    assert _is_default("true", True) and _is_default("True", True)
    assert _is_default("false", False) and _is_default("FALSE", False)
    assert not _is_default("true", False) and not _is_default("false", True)
    assert not _is_default("yes", True) and not _is_default("0", False)


@pytest.mark.parametrize("stated", ["requires vLLM >= 0.10.0", "needs vLLM 0.10.0 or newer"])
def test_a_feature_that_states_a_newer_vllm_is_judged_from_it(tmp_path: Path, stated: str) -> None:
    # PR 456: an opt-in EAGLE3 feature "(requires vLLM >= 0.9.0)" on a model served since 0.6.0.
    feature = (
        "features:\n  fast:\n"
        f'    description: "Async scheduling ({stated})"\n'
        '    args: ["--async-scheduling"]\n'
    )
    assert [d for d in findings(tmp_path, "0.9.0", [], feature) if d.code == "RL358"] == []
    older = feature.replace("0.10.0", "0.9.1")
    [diag] = [d for d in findings(tmp_path, "0.9.0", [], older) if d.code == "RL358"]
    assert "0.10.0" in diag.message and diag.pointer[:2] == ("features", "fast")
