"""RL4xx–RL6xx helpers: version order, image references, VRAM formula, drafts, guide blocks."""

from __future__ import annotations

from pathlib import Path

from treehelp import BlockYaml, Fragment, checked, findings_by_code

from recipelint.rules.values import expected_vram, parameter_billions
from recipelint.rules.variants import precision_words
from recipelint.rules.versions import IMAGE_REFERENCE, parse_version, split_image


def test_versions_order_pre_releases_before_releases() -> None:
    rc, final, post = (
        parse_version("0.25.0rc1"),
        parse_version("v0.25.0"),
        parse_version("0.25.0.post1"),
    )
    assert rc is not None and final is not None and post is not None
    assert rc < final < post and not rc.released and final.released
    assert parse_version("0.9.1") < parse_version("0.10.0")
    assert parse_version("nightly") is None and parse_version(None) is None


def test_image_references() -> None:
    assert split_image("vllm/vllm-openai:v0.20.0") == ("vllm/vllm-openai", "v0.20.0")
    assert split_image("quay.io/ascend/vllm-ascend:qwen3.8-a5") == (
        "quay.io/ascend/vllm-ascend",
        "qwen3.8-a5",
    )
    assert split_image("localhost:5000/x/y") == ("localhost:5000/x/y", None)
    for bad in (
        "docker pull vllm/vllm-openai:nightly",
        "vllm/VLLM:latest",
        "vllm/vllm-openai:",
        "",
    ):
        assert IMAGE_REFERENCE.match(bad) is None, bad


def test_vram_formula_inputs() -> None:
    assert parameter_billions("284B") == 284 and parameter_billions("2.4T") == 2400
    assert (
        abs(parameter_billions("350M") - 0.35) < 1e-9 and parameter_billions("Undisclosed") is None
    )
    assert (
        round(expected_vram(70, "bf16"), 6) == 168 and round(expected_vram(235, "NVFP4"), 6) == 141
    )
    assert expected_vram(8, "q4_k_m") is None


def test_precision_words_in_draft_names() -> None:
    assert precision_words("nvidia/Model-30B-A3B-NVFP4-DSpark") == {"nvfp4"}
    assert precision_words("RedHatAI/Model-speculator.eagle3") == set()
    assert precision_words("org/Model-W8A8-eagle") == {"int8"}


def test_draft_named_for_a_quantised_checkpoint(tmp_path) -> None:
    config = '{"method":"eagle3","model":"acme/demo-FP8-eagle3","num_speculative_tokens":3}'
    data = {
        "meta": {
            "title": "Demo",
            "slug": "demo",
            "provider": "Acme",
            "description": "Demo.",
            "date_added": "2026-01-10",
            "date_updated": "2026-01-12",
            "tasks": ["text"],
        },
        "model": {"model_id": "acme/demo", "min_vllm_version": "0.20.0", "parameter_count": "8B"},
        "features": {
            "spec_decoding": {"description": "x", "args": ["--speculative-config", config]}
        },
        "variants": {
            "default": {"precision": "bf16", "vram_minimum_gb": 20},
            "fp8": {"model_id": "acme/demo-FP8", "precision": "fp8", "vram_minimum_gb": 10},
        },
        "compatible_strategies": ["single_node_tp"],
    }
    documents = {"models/acme/demo.yaml": BlockYaml(data)}
    messages = [d.message for d in checked(tmp_path, documents) if d.code == "RL501"]
    # The FP8 draft reaches the bf16 default variant (precision word) and nothing else.
    assert (
        len(messages) == 1 and "to variant `default`" in messages[0] and "fp8 draft" in messages[0]
    )


def test_guide_version_pattern_is_linear_on_long_blank_runs() -> None:
    import time

    from recipelint.rules.versions import GUIDE_MINIMUM

    started = time.process_time()
    assert GUIDE_MINIMUM.search("vLLM" + " " * 50_000 + "x") is None
    assert time.process_time() - started < 1.0
    assert GUIDE_MINIMUM.search("- **vLLM**: ≥ 0.23.0.").group(1) == "0.23.0"


def test_env_value_not_string_quotes_the_value_as_javascript_prints_it(tmp_path: Path) -> None:
    recipe = Fragment("model:\n  base_env:\n    RATIO: 1.0\n    HUGE: 1.0e+21\n")
    found = findings_by_code(tmp_path, {"models/acme/demo.yaml": recipe})["RL551"]
    assert sorted(d.hint for d in found) == ['quote it: HUGE: "1e+21"', 'quote it: RATIO: "1"']
