"""RL501–RL503 (recipelint/rules/variants.py): a variant's checkpoint, precision and draft model."""

from __future__ import annotations

from treehelp import BlockYaml, checked

from recipelint.rules.variants import precision_words


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
