"""RL301–RL315 (recipelint/rules/args.py): upstream's tokenisation, which layers meet in one
command, parallel flags, JSON values and the shape of arguments."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rulehelp import codes
from treehelp import (
    Fragment,
    build_context,
    check_tree,
    checked,
    context_text,
    findings_by_code,
)
from treehelp import base_recipe as recipe

from recipelint.diagnostics import Diagnostic, Severity
from recipelint.read.tree import load_tree
from recipelint.resolve.layers import Scope
from recipelint.rules.args import co_occur
from recipelint.rules.common import arg_units as units
from recipelint.rules.context import CheckContext


def test_units_follow_upstream_dedupe_tokenisation() -> None:
    parsed = units(["--offset", "-1", "--x=2", "--enable-y", "pos", "--z", 3, "--w", "", "v"])
    # A dash value is a flag of its own; a bare flag takes the next item that is not a flag,
    # a number too; falsy items are dropped first (docs/upstream-behaviour.md#last-wins-dedupe).
    assert [(u.flag, u.value) for u in parsed] == [
        ("--offset", None),
        ("-1", None),
        ("--x=2", None),
        ("--enable-y", "pos"),
        ("--z", 3),
        ("--w", "v"),
    ]
    # Each unit keeps the positions of its items, so findings point at the item itself.
    assert [(u.index, u.value_index) for u in parsed] == [
        (0, None),
        (1, None),
        (2, None),
        (3, 4),
        (5, 6),
        (7, 9),
    ]
    assert parsed[2].name == "--x" and parsed[2].inline_value == "2"
    assert units(["--max_model_len", "1"])[0].canonical == "--max-model-len"
    assert units(["--no-enable-prefix-caching"])[0].canonical == "--enable-prefix-caching"
    assert (
        units(["--attention_config.use_fp4_indexer_cache", "True"])[0].base == "--attention_config"
    )


def test_co_occurrence_of_layers(tmp_path: Path) -> None:
    ctx = CheckContext(load_tree(build_context(tmp_path)))
    base = Scope("base")
    assert co_occur(base, Scope("variant", "fp8"), ctx, {})
    assert not co_occur(Scope("variant", "fp8"), Scope("variant", "nvfp4"), ctx, {})
    # Two modes of one feature, and a feature's args against its own override, never meet.
    assert not co_occur(
        Scope("mode", feature="spec", mode="a"), Scope("mode", feature="spec", mode="b"), ctx, {}
    )
    assert not co_occur(
        Scope("feature", feature="f"), Scope("feature-hw", feature="f", hardware="hopper"), ctx, {}
    )
    assert co_occur(
        Scope("mode", feature="spec", mode="a"), Scope("feature", feature="tools"), ctx, {}
    )
    # `hopper || nvidia` picks one key of the same map; a strategy generation override replaces the recipe's.
    assert not co_occur(
        Scope("recipe-hw", hardware="hopper"), Scope("recipe-hw", hardware="nvidia"), ctx, {}
    )
    assert not co_occur(
        Scope("recipe-hw", hardware="blackwell"),
        Scope("strategy-hw", strategy="single_node_tp", hardware="blackwell"),
        ctx,
        {},
    )
    assert co_occur(
        Scope("recipe-hw", hardware="blackwell"),
        Scope("strategy-hw", strategy="single_node_tp", hardware="b200"),
        ctx,
        {},
    )
    # A variant's exact-GPU list and its generation list are not one key of one map: on an h100
    # both land in the command (the exact one before the emitter, the generation one after it).
    assert co_occur(
        Scope("variant-hw", "v", hardware="hopper"),
        Scope("variant-hw", "v", hardware="h100"),
        ctx,
        {},
    )
    assert co_occur(
        Scope("variant-hw", "v", hardware="h100"),
        Scope("variant-hw", "v", hardware="hopper"),
        ctx,
        {},
    )
    # The recipe's and the variant's generation lists are two maps: both land on a hopper GPU.
    assert co_occur(
        Scope("recipe-hw", hardware="hopper"), Scope("variant-hw", "v", hardware="hopper"), ctx, {}
    )
    # Disjoint hardware never meets.
    assert not co_occur(
        Scope("recipe-hw", hardware="hopper"), Scope("variant-hw", "v", hardware="b200"), ctx, {}
    )


def test_spelling_conflict_only_between_layers_of_one_command(tmp_path: Path) -> None:
    data = recipe()
    data["model"]["base_args"] = ["--max-model-len", "8192"]
    data["features"] = {
        "spec_decoding": {
            "description": "x",
            "modes": {
                "a": {"args": ["--max_model_len", "4096"]},
                "b": {"args": ["--max-model-len=2048"]},
            },
        }
    }
    messages = codes(tmp_path, data, "RL302")
    # Each mode conflicts with the base args; the two modes are never in one command together.
    assert len(messages) == 2
    assert any("underscore and dash" in m for m in messages) and any(
        "`--x=v` and `--x v`" in m for m in messages
    )


def test_a_strategy_s_own_generation_block_keeps_the_recipe_s_out_of_its_commands(
    tmp_path: Path,
) -> None:
    """docs/upstream-behaviour.md#layer-order: a strategy's `blackwell` override replaces the
    recipe's, even one of env alone (PR 689: Kimi-K3's pd_cluster decode never met the recipe's
    blackwell `--enable-prefix-caching`)."""
    data = recipe()
    data["compatible_strategies"] = ["single_node_tp", "single_node_dep"]
    data["hardware_overrides"] = {"blackwell": {"extra_args": ["--enable-prefix-caching"]}}
    data["strategy_overrides"] = {
        "single_node_dep": {"extra_args": ["--no-enable-prefix-caching"]},
    }
    assert len(codes(tmp_path / "a", data, "RL302")) == 1
    data["strategy_overrides"]["single_node_dep"]["hardware_overrides"] = {
        "blackwell": {"extra_env": {"NCCL_DEBUG": "WARN"}}
    }
    assert codes(tmp_path / "b", data, "RL302") == []


def test_parallel_flag_is_overridden_on_tp_but_multiplies_on_dep(tmp_path: Path) -> None:
    data = recipe()
    data["model"]["base_args"] = ["--tensor-parallel-size", "4"]
    assert len(codes(tmp_path / "tp", data, "RL314")) == 1
    assert codes(tmp_path / "tp2", data, "RL310") == []
    data["compatible_strategies"] = ["single_node_tp", "single_node_dep"]
    multiplied = codes(tmp_path / "dep", data, "RL310")
    assert len(multiplied) == 1 and multiplied[0].endswith("on: single_node_dep")
    assert codes(tmp_path / "dep2", data, "RL314") == []


def test_parallel_flag_after_the_emitter_is_a_single_node_override(tmp_path: Path) -> None:
    data = recipe()
    data["hardware_overrides"] = {"amd": {"extra_args": ["--tensor-parallel-size", "2"]}}
    assert codes(tmp_path / "a", data, "RL310") == codes(tmp_path / "b", data, "RL314") == []
    data["compatible_strategies"] = ["single_node_tp", "multi_node_tp"]
    assert codes(tmp_path / "c", data, "RL310")[0].endswith("on: multi_node_tp")


def test_strategy_override_of_its_own_emitted_flag_is_allowed(tmp_path: Path) -> None:
    data = recipe()
    data["compatible_strategies"] = ["single_node_dep"]
    data["strategy_overrides"] = {
        "single_node_dep": {"extra_args": ["--data-parallel-size", "4"]},
        "multi_node_dep": {"extra_args": ["--tensor-parallel-size", "2"]},
    }
    messages = codes(tmp_path, data, "RL310")
    assert len(messages) == 1 and messages[0].endswith("on: multi_node_dep")


def test_json_values(tmp_path: Path) -> None:
    data = recipe()
    data["model"]["base_args"] = [
        "--hf-overrides",
        '{"a": "false"}',
        "--kv-transfer-config",
        "nixl",
        "--compilation-config",
        "{'mode': 3}",
    ]
    assert len(codes(tmp_path / "a", data, "RL309")) == 1
    invalid = codes(tmp_path / "b", data, "RL308")
    assert len(invalid) == 2 and any("takes a JSON object" in m for m in invalid)


def test_a_json_number_longer_than_python_reads_is_a_finding(tmp_path: Path) -> None:
    # json.loads refuses it with a plain ValueError (the integer digit limit), not a syntax error.
    data = recipe()
    data["model"]["base_args"] = ["--speculative-config", "[" + "1" * 5000 + "]"]
    (message,) = codes(tmp_path, data, "RL308")
    assert message.startswith("value of `--speculative-config` cannot be read as JSON (")
    assert "digits" in message


def test_spelling_conflict_with_a_strategy_file_is_reported_in_the_recipe(tmp_path: Path) -> None:
    data = recipe()
    data["features"] = {
        "kv": {"description": "x", "args": ["--kv_transfer_config", '{"kv_connector":"X"}']}
    }
    assert (
        codes(tmp_path / "a", data, "RL302") == []
    )  # pd_cluster is not offered: its args never meet these
    data["compatible_strategies"] = ["single_node_tp", "pd_cluster"]
    messages = codes(tmp_path / "b", data, "RL302")
    assert len(messages) == 1 and "strategies/pd_cluster.yaml: " in messages[0]


def test_flag_with_only_trailing_whitespace_is_reported_not_a_crash(tmp_path: Path) -> None:
    # Found by test_properties_recipes: `"-A "` has whitespace but nothing to split off.
    data = recipe()
    data["variants"] = {"default": {**next(iter(data["variants"].values())), "extra_args": ["-A "]}}
    assert codes(tmp_path, data, "RL306") == [
        "`-A ` is one argv item: vLLM receives a single unknown option `-A ` in argv and docker_argv, "
        "and dedupe cannot match `-A`"
    ]
    hints = [d.hint for d in check_tree(tmp_path) if d.code == "RL306"]
    assert hints == ['remove the trailing whitespace: "-A"']


def test_a_flag_and_its_value_in_one_item_names_the_flag_dedupe_cannot_match(
    tmp_path: Path,
) -> None:
    data = recipe()
    data["model"]["base_args"] = ["--max-model-len 8192"]
    assert codes(tmp_path, data, "RL306") == [
        "`--max-model-len 8192` is one argv item: vLLM receives a single unknown option "
        "`--max-model-len 8192` in argv and docker_argv, and dedupe cannot match `--max-model-len`"
    ]
    hints = [d.hint for d in check_tree(tmp_path) if d.code == "RL306"]
    assert hints == ['split it into two items: "--max-model-len", "8192"']


def test_a_flag_and_its_dotted_value_in_one_item_is_one_finding(tmp_path: Path) -> None:
    # Seen on a real pull request: the dot of `0.97` made RL305 call it a dotted sub-flag.
    data = recipe()
    data["variants"] = {
        "default": {
            **next(iter(data["variants"].values())),
            "extra_args": ["--gpu-memory-utilization 0.97"],
        }
    }
    assert len(codes(tmp_path, data, "RL306")) == 1
    assert [d.code for d in check_tree(tmp_path) if d.code in ("RL305", "RL306")] == ["RL306"]


def _taxonomy_json_findings(tmp_path: Path, old: str, new: str) -> list[Any]:
    """RL308/RL309 findings once ``old`` in the embedded taxonomy is replaced by ``new``."""
    source = context_text("taxonomy.yaml")
    assert old in source
    documents = {"taxonomy.yaml": source.replace(old, new, 1)}
    taxonomy = tmp_path / "taxonomy.yaml"
    found = [d for d in checked(tmp_path, documents) if d.code in ("RL308", "RL309")]
    assert all(d.path == taxonomy for d in found)
    return found


def test_json_values_of_the_taxonomy_kv_offload_options_are_checked(tmp_path: Path) -> None:
    value = '"kv_connector":"SimpleCPUOffloadConnector"'
    [boolean] = _taxonomy_json_findings(
        tmp_path / "a", value, value + ',"kv_role_extra":{"lazy":"false"}'
    )
    assert boolean.code == "RL309" and boolean.pointer == ("kv_offload", "simple", "args", 1)
    assert "`kv_role_extra.lazy`" in boolean.message
    [invalid] = _taxonomy_json_findings(tmp_path / "b", value, value + ",")
    assert "not valid JSON" in invalid.message
    assert invalid.code == "RL308" and invalid.pointer == ("kv_offload", "simple", "args", 1)


def test_shape_checks_cover_the_taxonomy_kv_offload_options(tmp_path: Path) -> None:
    # The RL35x family leaves shape problems to this one, so these lists need it too.
    source = context_text("taxonomy.yaml")
    item = '      - "--kv-transfer-config"\n'
    assert item in source
    documents = {
        "taxonomy.yaml": source.replace(item, '      - "--kv_transfer_config"\n      - ""\n', 1)
    }
    taxonomy = tmp_path / "taxonomy.yaml"
    found = [d for d in checked(tmp_path, documents) if d.path == taxonomy]
    assert sorted((d.code, d.pointer) for d in found) == [
        ("RL304", ("kv_offload", "simple", "args", 0)),
        ("RL313", ("kv_offload", "simple", "args", 1)),
    ]


# --- RL301, RL303, RL307, RL311, RL312, RL315: one argument list's own items ----------------


def _base_args(tmp_path: Path, fragment: str) -> dict[str, list[Diagnostic]]:
    return findings_by_code(tmp_path, {"models/acme/demo.yaml": Fragment(fragment)})


def test_a_flag_repeated_in_one_list_is_rl301_with_its_value_and_rl315_with_another(
    tmp_path: Path,
) -> None:
    args = 'model:\n  base_args: ["--max-model-len", "8192", "--max-model-len", "{}"]\n'
    same = _base_args(tmp_path / "a", args.format("8192"))
    [repeated] = same["RL301"]
    assert repeated.pointer == ("model", "base_args", 2) and "RL315" not in same
    assert repeated.message == "`--max-model-len` appears twice in this list with the same value"
    other = _base_args(tmp_path / "b", args.format("32768"))
    [conflict] = other["RL315"]
    assert conflict.pointer == ("model", "base_args", 2) and "RL301" not in other
    assert conflict.message.startswith(
        "`--max-model-len` appears twice in this list (`--max-model-len 8192` at "
        "`model.base_args[0]`, then `--max-model-len 32768`)"
    )
    # Another layer repeating the flag replaces it there: no list repeats it.
    layered = 'model:\n  base_args: ["--max-model-len", "8192"]\n'
    layered += 'variants:\n  default:\n    extra_args: ["--max-model-len", "8192"]\n'
    assert _base_args(tmp_path / "c", layered) == {}


def test_a_value_after_equals_is_an_info_and_the_split_form_is_silent(tmp_path: Path) -> None:
    [finding] = _base_args(tmp_path / "a", 'model:\n  base_args: ["--max-num-seqs=256"]\n')["RL303"]
    assert finding.pointer == ("model", "base_args", 0)
    assert finding.severity is Severity.INFO
    assert finding.hint == 'split it into two items: "--max-num-seqs", "256"'
    assert _base_args(tmp_path / "b", 'model:\n  base_args: ["--max-num-seqs", "256"]\n') == {}


def test_a_value_starting_with_a_dash_is_reported_at_the_value(tmp_path: Path) -> None:
    args = 'model:\n  base_args: ["--max-logprobs", "-1", "--max-num-seqs", "8"]\n'
    [finding] = _base_args(tmp_path / "a", args)["RL307"]
    assert finding.pointer == ("model", "base_args", 1)
    assert finding.message.startswith("value `-1` of `--max-logprobs` starts with `-`")
    assert finding.hint == 'write it inline: "--max-logprobs=-1"'
    inline = _base_args(tmp_path / "b", 'model:\n  base_args: ["--max-logprobs=-1"]\n')
    assert "RL307" not in inline


def test_speculative_config_in_a_variant_is_reported_and_in_a_feature_is_not(
    tmp_path: Path,
) -> None:
    variant = 'variants:\n  default:\n    extra_args: ["--speculative-config", "{}"]\n'
    [finding] = _base_args(tmp_path / "a", variant)["RL311"]
    assert finding.pointer == ("variants", "default", "extra_args", 0)
    assert finding.message.startswith("`--speculative-config` in a variant's args")
    feature = "features:\n  spec_decoding:\n    description: x\n"
    feature += '    args: ["--speculative-config", "{}"]\n'
    assert _base_args(tmp_path / "b", feature) == {}


def test_omni_in_base_args_is_reported_whether_or_not_the_recipe_is_omni(
    tmp_path: Path,
) -> None:
    args = 'model:\n  base_args: ["--omni", "--port", "8080"]\n'
    [plain] = _base_args(tmp_path / "a", args)["RL312"]
    assert plain.pointer == ("model", "base_args", 0)
    assert "hands every strategy's command to vllm-omni" in plain.message
    [omni] = _base_args(tmp_path / "b", "meta:\n  tasks: [omni]\n" + args)["RL312"]
    assert omni.message.startswith("`--omni` in base_args is redundant")
    assert _base_args(tmp_path / "c", 'model:\n  base_args: ["--port", "8080"]\n') == {}


def test_a_parallel_flag_the_emitter_writes_with_the_same_value_is_harmless(
    tmp_path: Path,
) -> None:
    # PRs 413/464: base_args `--tensor-parallel-size 4` beside single_node_tp `tp: 4` is dropped
    # for the emitter's identical flag; only a different value is lost.
    data = recipe()
    data["model"]["base_args"] = ["--tensor-parallel-size", "4"]
    data["strategy_overrides"] = {"single_node_tp": {"tp": 4}}
    assert codes(tmp_path / "same", data, "RL314") == []
    data["strategy_overrides"] = {"single_node_tp": {"tp": 2}}
    assert len(codes(tmp_path / "other", data, "RL314")) == 1
    data["model"]["base_args"] = ["--tensor-parallel-size=2"]
    assert codes(tmp_path / "inline", data, "RL314") == []


def test_parallel_flags_that_fill_the_planned_gpus_still_fix_the_world(tmp_path: Path) -> None:
    # PRs 655/712: a Hopper multi_node_dep override of TP 8 x DP 2 (one DP rank a node) fills
    # the two 8-GPU nodes the plan allots, but the site's Nodes row offers more nodes, where the
    # fixed DP 2 leaves GPUs idle and start ranks past the world (upstream moved to tp_dp, #759).
    data = recipe()
    data["compatible_strategies"] = ["multi_node_dep"]
    hybrid = ["--tensor-parallel-size", "8", "--data-parallel-size", "2"]
    hopper = {"extra_args": [*hybrid, "--data-parallel-size-local", "1"]}
    data["strategy_overrides"] = {"multi_node_dep": {"hardware_overrides": {"hopper": hopper}}}
    [message] = codes(tmp_path / "hybrid", data, "RL310")
    assert message.endswith("on: multi_node_dep")


def test_a_parallel_size_the_gpus_cannot_hold_is_harmlessly_replaced(tmp_path: Path) -> None:
    # PR 464: base_args TP 8 beside `tp: 8` is the emitter's own value on 8-GPU nodes; on a
    # 4-GPU tray the emitter's TP 4 is the size that runs, and TP 8 could not have.
    data = recipe()
    data["model"]["base_args"] = ["--tensor-parallel-size", "8"]
    data["strategy_overrides"] = {"single_node_tp": {"tp": 8}}
    assert codes(tmp_path / "over", data, "RL314") == []
    data["model"]["base_args"] = ["--tensor-parallel-size", "2"]
    assert len(codes(tmp_path / "under", data, "RL314")) == 1


def test_a_dash_item_that_follows_no_flag_is_no_flag_s_value(tmp_path: Path) -> None:
    # `-1` after a value or first in the list belongs to no option: dedupe reads it as a flag of
    # its own, and no option loses its value.
    after_value = 'model:\n  base_args: ["--served-model-name", "demo", "-1"]\n'
    assert "RL307" not in _base_args(tmp_path / "a", after_value)
    first = 'model:\n  base_args: ["-1", "--port", "8080"]\n'
    assert "RL307" not in _base_args(tmp_path / "b", first)


def test_flags_the_pd_cluster_emitter_writes_are_overridden_not_multiplied(
    tmp_path: Path,
) -> None:
    # docs/upstream-behaviour.md#parallelism-flags: pd_cluster writes the whole DP and node set
    # itself, so a recipe's `--node-rank` before it is dropped rather than added to its ranks.
    data = recipe()
    data["compatible_strategies"] = ["pd_cluster"]
    data["model"]["base_args"] = ["--node-rank", "1"]
    assert codes(tmp_path / "pd", data, "RL310") == []
    [message] = codes(tmp_path / "pd2", data, "RL314")
    assert message.endswith("on: pd_cluster")


def test_a_single_node_dp_emitter_writes_the_dp_size_alone(tmp_path: Path) -> None:
    # single_node_dep emits `--data-parallel-size` only: a local size or start rank beside it
    # survives and resizes the ranks (the multi-node DP set is not written on one node).
    data = recipe()
    data["compatible_strategies"] = ["single_node_dep"]
    data["model"]["base_args"] = ["--data-parallel-size-local", "2"]
    [message] = codes(tmp_path, data, "RL310")
    assert message.endswith("on: single_node_dep")


def test_a_strategy_s_generation_block_meets_the_strategy_s_own_args(tmp_path: Path) -> None:
    # The strategy's generation override replaces the recipe's and the variant's generation
    # lists, not its own extra_args: on blackwell both join one command.
    data = recipe()
    data["strategy_overrides"] = {
        "single_node_tp": {
            "extra_args": ["--max-model-len", "8192"],
            "hardware_overrides": {"blackwell": {"extra_args": ["--max_model_len", "4096"]}},
        }
    }
    [message] = codes(tmp_path, data, "RL302")
    assert "underscore and dash spellings" in message
