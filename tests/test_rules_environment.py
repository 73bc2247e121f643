"""RL361–RL363: `VLLM_*` environment variables read against the per-release env catalog."""

from __future__ import annotations

from pathlib import Path

from treehelp import CONTEXT, Fragment, build_tree, check_tree, findings_by_code

from recipelint.diagnostics import Severity
from recipelint.flags.env_catalog import env_span
from recipelint.resolve import layers
from recipelint.rules.environment import env_mappings

RECIPE = "models/acme/demo.yaml"


def _recipe(fragment: str) -> dict[str, Fragment]:
    return {RECIPE: Fragment(fragment)}


def _env(values: str, minimum: str = "0.20.0") -> dict[str, Fragment]:
    return _recipe(f'model:\n  min_vllm_version: "{minimum}"\n  base_env:\n{values}')


def _messages(tmp_path: Path, documents: dict, code: str) -> list[str]:
    return [d.message for d in findings_by_code(tmp_path, documents).get(code, [])]


def test_a_removed_variable_names_the_releases_that_read_it(tmp_path: Path) -> None:
    first, last = env_span("VLLM_USE_V1") or ("", "")
    found = findings_by_code(tmp_path, _env('    VLLM_USE_V1: "1"\n'))["RL361"]
    lines = (tmp_path / RECIPE).read_text(encoding="utf-8").splitlines()
    assert lines[found[0].span.line - 1].strip() == 'VLLM_USE_V1: "1"'
    assert [d.message for d in found] == [
        f"`VLLM_USE_V1` was read by vLLM {first} to {last} only; "
        "no release from 0.20.0 on reads it, so setting it does nothing"
    ]
    assert found[0].severity is Severity.WARNING


def test_a_misspelt_variable_gets_a_did_you_mean(tmp_path: Path) -> None:
    found = findings_by_code(tmp_path, _env('    VLLM_USE_DEEP_GEM: "1"\n'))["RL361"]
    assert found[0].message == (
        "no vLLM release from 0.20.0 on reads `VLLM_USE_DEEP_GEM`: setting it does nothing"
    )
    assert found[0].hint is not None and "`VLLM_USE_DEEP_GEMM`" in found[0].hint


def test_a_variable_still_read_at_the_minimum_is_left_alone(tmp_path: Path) -> None:
    """VLLM_USE_V1 was read up to its last release: a recipe claiming that release is fine."""
    last = (env_span("VLLM_USE_V1") or ("", ""))[1]
    assert _messages(tmp_path, _env('    VLLM_USE_V1: "1"\n', last), "RL361") == []


def test_other_software_and_vllm_omni_variables_are_not_judged(tmp_path: Path) -> None:
    values = '    NCCL_NOT_A_THING: "1"\n    VLLM_OMNI_WHATEVER: "1"\n'
    assert findings_by_code(tmp_path, _env(values)) == {}


def test_a_variant_minimum_raises_the_release_its_env_is_judged_at(tmp_path: Path) -> None:
    last = (env_span("VLLM_USE_V1") or ("", ""))[1]
    fragment = (
        f'model:\n  min_vllm_version: "{last}"\n'
        "variants:\n  fp8:\n    precision: fp8\n    vram_minimum_gb: 10\n"
        '    min_vllm_version: "0.20.0"\n    extra_env:\n      VLLM_USE_V1: "1"\n'
    )
    assert len(_messages(tmp_path, _recipe(fragment), "RL361")) == 1


def test_env_under_an_image_of_another_build_is_not_judged(tmp_path: Path) -> None:
    fragment = (
        'model:\n  min_vllm_version: "0.20.0"\n'
        "variants:\n  default:\n    hardware_overrides:\n      b200:\n"
        "        docker_image: acme/vllm-fork:latest\n"
        '        extra_env:\n          VLLM_FORK_ONLY_SWITCH: "1"\n'
    )
    assert findings_by_code(tmp_path, _recipe(fragment)) == {}


def test_a_value_that_does_not_convert_is_an_error_with_the_accepted_form(tmp_path: Path) -> None:
    found = findings_by_code(tmp_path, _env('    VLLM_ENGINE_READY_TIMEOUT_S: "10m"\n'))
    assert list(found) == ["RL362"]
    (diag,) = found["RL362"]
    assert diag.severity is Severity.ERROR
    assert diag.message.startswith("`VLLM_ENGINE_READY_TIMEOUT_S: 10m` is not valid on vLLM 0.20.0")
    assert diag.hint == "accepted: an integer"


def test_a_choice_outside_its_list_is_an_error(tmp_path: Path) -> None:
    found = findings_by_code(tmp_path, _env('    VLLM_WORKER_MULTIPROC_METHOD: "forkserver"\n'))
    assert found["RL362"][0].hint == "accepted: one of fork, spawn"


def test_a_switch_word_read_the_other_way_is_a_warning(tmp_path: Path) -> None:
    found = findings_by_code(tmp_path, _env('    VLLM_ROCM_USE_AITER: "yes"\n'))
    assert list(found) == ["RL363"]
    assert found["RL363"][0].severity is Severity.WARNING
    assert "read as false" in found["RL363"][0].message
    hint = found["RL363"][0].hint
    assert hint is not None and hint.startswith("write `1` for true")


def test_a_falsy_word_for_a_presence_switch_asks_to_remove_it(tmp_path: Path) -> None:
    found = findings_by_code(tmp_path, _env('    VLLM_MXFP4_USE_MARLIN: "0"\n'))
    (diag,) = found["RL363"]
    assert diag.message.endswith("VLLM_MXFP4_USE_MARLIN is true for any non-empty text")
    assert diag.hint is not None and diag.hint.startswith("remove the variable")


def test_strategy_and_kv_store_env_are_read_too(tmp_path: Path) -> None:
    strategy = (CONTEXT / "strategies" / "multi_node_tp.yaml").read_text(encoding="utf-8")
    kv_store = (CONTEXT / "kv_store" / "kv_store_centralized_mooncake.yaml").read_text(
        encoding="utf-8"
    )
    documents = {
        "strategies/multi_node_tp.yaml": strategy + '  VLLM_RPC_TIMEOUT: "soon"\n',
        "kv_store/kv_store_centralized_mooncake.yaml": kv_store.replace(
            '    PYTHONHASHSEED: "0"\n', '    PYTHONHASHSEED: "0"\n    VLLM_NO_SUCH_VARIABLE: "1"\n'
        ),
    }
    found = findings_by_code(tmp_path, documents)
    assert {code: len(items) for code, items in found.items()} == {"RL362": 1, "RL361": 1}


def test_env_mappings_follow_the_declared_places() -> None:
    data = {
        "model": {"base_env": {"A": "1"}},
        "variants": {"fp8": {"extra_env": {"B": "1"}, "hardware_overrides": {"h200": {}}}},
        "strategy_overrides": {"pd_cluster": {"prefill": {"env": {"C": "1"}}}},
        "unrelated": {"env": {"D": "1"}},
    }
    assert [pointer for pointer, _ in env_mappings(data, layers.RECIPE)] == [
        ("model", "base_env"),
        ("variants", "fp8", "extra_env"),
        ("strategy_overrides", "pd_cluster", "prefill", "env"),
    ]


def test_json_nested_past_the_parsers_depth_is_an_invalid_value(tmp_path: Path) -> None:
    deep = "[" * 100_000 + "]" * 100_000
    values = f'    VLLM_FLASHINFER_ALLREDUCE_FUSION_THRESHOLDS_MB: "{deep}"\n'
    (diag,) = findings_by_code(tmp_path, _env(values))["RL362"]
    assert "nested deeper than Python's JSON parser reads" in diag.message


def test_a_name_no_release_reads_is_left_alone_when_the_recipe_asks_for_nightly(
    tmp_path: Path,
) -> None:
    """Only main may read it yet; a variable releases read and then dropped stays reported."""
    recipe = Fragment(
        'model:\n  min_vllm_version: "0.25.0"\n  nightly_required: true\n'
        '  base_env:\n    VLLM_BRAND_NEW_KNOB: "1"\n    VLLM_USE_FLASHINFER_MOE_FP4: "1"\n'
    )
    found = findings_by_code(tmp_path, {"models/acme/demo.yaml": recipe}).get("RL361", [])
    assert [d.pointer[-1] for d in found] == ["VLLM_USE_FLASHINFER_MOE_FP4"]


def test_an_unrelated_name_gets_no_did_you_mean(tmp_path: Path) -> None:
    """A name sharing only a prefix with a real variable is not offered that variable."""
    found = findings_by_code(tmp_path, _env('    VLLM_USE_TRITON_FLASH: "1"\n'))["RL361"]
    assert found and found[0].hint is not None
    assert "VLLM_USE_TRITON_AWQ" not in found[0].hint


def test_a_variable_vllm_dropped_is_to_be_deleted_not_swapped_for_a_neighbour(
    tmp_path: Path,
) -> None:
    """A name releases read is no misspelling: a variable one edit away is another setting
    (FP4 is not INT4), so the hint says to delete it, as for a flag vLLM removed."""
    last = (env_span("VLLM_USE_FLASHINFER_MOE_FP4") or ("", ""))[1]
    values = '    VLLM_USE_FLASHINFER_MOE_FP4: "1"\n'
    found = findings_by_code(tmp_path, _env(values, "0.25.0"))["RL361"]
    assert found[0].hint == f"delete it: no release after vLLM {last} reads it"


def test_a_variant_without_its_own_minimum_is_judged_at_the_recipes(tmp_path: Path) -> None:
    fragment = (
        'model:\n  min_vllm_version: "0.20.0"\n'
        "variants:\n  fp8:\n    precision: fp8\n    vram_minimum_gb: 10\n"
        '    extra_env:\n      VLLM_USE_V1: "1"\n'
    )
    (diag,) = findings_by_code(tmp_path, _recipe(fragment))["RL361"]
    assert diag.pointer == ("variants", "fp8", "extra_env", "VLLM_USE_V1")
    assert "no release from 0.20.0 on reads it" in diag.message


def test_a_hardware_override_is_not_judged_at_a_variants_minimum_of_the_same_name(
    tmp_path: Path,
) -> None:
    """Only env under variants.<name> takes that variant's minimum: a recipe-wide override for
    b200 keeps the recipe's, even beside a variant that happens to be called b200."""
    last = (env_span("VLLM_USE_V1") or ("", ""))[1]
    fragment = (
        f'model:\n  min_vllm_version: "{last}"\n'
        "variants:\n  b200:\n    precision: fp8\n    vram_minimum_gb: 10\n"
        '    min_vllm_version: "0.20.0"\n    extra_env:\n      VLLM_USE_V1: "1"\n'
        'hardware_overrides:\n  b200:\n    extra_env:\n      VLLM_USE_V1: "1"\n'
    )
    found = findings_by_code(tmp_path, _recipe(fragment)).get("RL361", [])
    assert [d.pointer for d in found] == [("variants", "b200", "extra_env", "VLLM_USE_V1")]


def test_a_minimum_older_than_the_catalog_judges_a_value_by_the_newest_reading(
    tmp_path: Path,
) -> None:
    """Early releases read VLLM_WORKER_MULTIPROC_METHOD as any text; the newest take a choice."""
    values = '    VLLM_WORKER_MULTIPROC_METHOD: "forkserver"\n'
    (diag,) = findings_by_code(tmp_path, _env(values, "0.3.0"))["RL362"]
    assert diag.message.startswith(
        "`VLLM_WORKER_MULTIPROC_METHOD: forkserver` is not valid on vLLM ("
    )
    assert diag.hint == "accepted: one of fork, spawn"


def test_a_malformed_minimum_is_left_to_the_schema_and_env_is_still_judged(
    tmp_path: Path,
) -> None:
    values = '    VLLM_WORKER_MULTIPROC_METHOD: "forkserver"\n'
    found = findings_by_code(tmp_path, _env(values, "garbage"))
    (diag,) = found["RL362"]
    assert diag.message.startswith(
        "`VLLM_WORKER_MULTIPROC_METHOD: forkserver` is not valid on vLLM ("
    )
    assert "RL361" not in found


def test_a_value_is_judged_by_the_reading_of_the_minimum_up_to_its_last_release(
    tmp_path: Path,
) -> None:
    """0.28.0 is the last release reading VLLM_KV_CACHE_LAYOUT as HND or NHD; BHLNC came in 0.29.0."""
    found = findings_by_code(tmp_path, _env('    VLLM_KV_CACHE_LAYOUT: "BHLNC"\n', "0.28.0"))
    (diag,) = found["RL362"]
    assert diag.message.startswith("`VLLM_KV_CACHE_LAYOUT: BHLNC` is not valid on vLLM 0.28.0")
    assert diag.hint == "accepted: one of HND, NHD"
    assert (
        findings_by_code(tmp_path / "later", _env('    VLLM_KV_CACHE_LAYOUT: "BHLNC"\n', "0.29.0"))
        == {}
    )


def test_a_misspelling_is_matched_against_the_names_the_minimum_reads(tmp_path: Path) -> None:
    """VLLM_USE_V1 was read up to 0.11.0: a recipe on 0.10.0 is offered it, one on the newest is not."""
    (diag,) = findings_by_code(tmp_path, _env('    VLLM_USEV1: "1"\n', "0.10.0"))["RL361"]
    assert (
        diag.message == "no vLLM release from 0.10.0 on reads `VLLM_USEV1`: setting it does nothing"
    )
    assert diag.hint == "did you mean `VLLM_USE_V1`?"


def test_without_a_minimum_a_misspelling_is_matched_against_the_newest_release(
    tmp_path: Path,
) -> None:
    (diag,) = findings_by_code(tmp_path, _env('    VLLM_USEV1: "1"\n', "0.3.0"))["RL361"]
    assert diag.message == "no vLLM release reads `VLLM_USEV1`: setting it does nothing"
    assert diag.hint == "remove it, or check the name against `recipelint env list`"


def test_env_is_judged_in_a_tree_without_a_taxonomy(tmp_path: Path) -> None:
    root = build_tree(tmp_path, _env('    VLLM_USE_V1: "1"\n'))
    (root / "taxonomy.yaml").unlink()
    found = [d for d in check_tree(root) if d.code.startswith("RL36")]
    assert [(d.code, d.pointer) for d in found] == [("RL361", ("model", "base_env", "VLLM_USE_V1"))]
