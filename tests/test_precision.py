"""Warnings that were wrong on real pull requests, rebuilt as small synthetic trees.

Each test keeps the rule firing on the mistake it exists for, and silent on the
deliberate pattern that upstream contributors write.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from treehelp import BlockYaml, base_recipe, tree_findings

from recipelint.diagnostics import Diagnostic

RECIPE = "models/acme/demo.yaml"


def check(
    root: Path, data: dict[str, Any], others: dict[str, dict[str, Any]] | None = None
) -> list[Diagnostic]:
    """The findings in the recipe ``data`` of a tree that holds ``others`` beside it."""
    documents = {rel: BlockYaml(recipe) for rel, recipe in {RECIPE: data, **(others or {})}.items()}
    return [d for d in tree_findings(root, documents) if d.path == root / RECIPE]


def found(diagnostics: list[Diagnostic], *codes: str) -> list[Diagnostic]:
    return [d for d in diagnostics if d.code in codes]


def recipe(**changes: Any) -> dict[str, Any]:
    data = base_recipe()
    data.update(changes)
    return data


# --- RL406: the guide's image tag -------------------------------------------------------------


@pytest.mark.parametrize(
    "image",
    [
        "vllm/vllm-openai:v0.20.0",
        "vllm/vllm-openai:0.20.0",
        "vllm/vllm-openai-rocm:v0.20.0",
        "vllm/vllm-openai:v0.20.0-cu129",
    ],
)
def test_guide_may_name_the_release_of_min_vllm_version(tmp_path: Path, image: str) -> None:
    data = recipe(guide=f"## Launch\n```bash\ndocker run {image} acme/demo\n```\n")
    assert found(check(tmp_path, data), "RL406") == []


def test_guide_naming_another_release_is_still_reported(tmp_path: Path) -> None:
    data = recipe(guide="## Launch\n```bash\ndocker run vllm/vllm-openai:v0.21.0 acme/demo\n```\n")
    [finding] = found(check(tmp_path, data), "RL406")
    assert "`vllm/vllm-openai:latest`" in finding.message and "docker_image" in (finding.hint or "")


def test_guide_may_name_a_commit_build_of_the_nightly_image_the_recipe_runs(tmp_path: Path) -> None:
    data = recipe(
        guide="## Launch\n```bash\ndocker run vllm/vllm-openai:nightly-8bff831f0aa2 acme/demo\n```\n"
    )
    data["model"] = {**data["model"], "nightly_required": True}
    assert found(check(tmp_path / "a", data), "RL406") == []
    # Without nightly_required the commands run the release: a nightly build in the guide differs.
    data["model"].pop("nightly_required")
    assert len(found(check(tmp_path / "b", data), "RL406")) == 1


def test_an_image_name_the_guide_makes_itself_is_no_claim(tmp_path: Path) -> None:
    guide = (
        "## Launch\n```bash\ndocker pull vllm/vllm-openai:latest\n"
        "docker tag vllm/vllm-openai:latest vllm/vllm-openai:deploy\n```\n"
        "Run the image `vllm/vllm-openai:deploy`:\n"
        "```bash\ndocker run --gpus all vllm/vllm-openai:deploy acme/demo\n```\n"
        "## Build\n```bash\ndocker build . --target vllm-openai -t vllm/vllm-openai:mine\n"
        "docker run vllm/vllm-openai:mine acme/demo\n```\n"
    )
    assert found(check(tmp_path, recipe(guide=guide)), "RL406") == []


def test_the_source_of_a_docker_tag_is_still_a_claim(tmp_path: Path) -> None:
    guide = "## Launch\n```bash\ndocker tag vllm/vllm-openai:v0.21.0 vllm/vllm-openai:deploy\n```\n"
    [finding] = found(check(tmp_path, recipe(guide=guide)), "RL406")
    assert "`vllm/vllm-openai:v0.21.0`" in finding.message


def test_images_of_a_stack_the_builder_never_renders_are_no_claim(tmp_path: Path) -> None:
    guide = (
        "## Launch\n```bash\ndocker run --gpus all vllm/vllm-openai:latest acme/demo\n```\n"
        "## Kubernetes\nThe manifest runs `vllm/vllm-openai:v0.21.0`:\n"
        "```yaml\ncontainers:\n  - image: vllm/vllm-openai:v0.21.0\n```\n"
        "## Slurm\n```bash\nsrun --container-image=vllm/vllm-openai:v0.22.0 vllm serve acme/demo\n"
        "kubectl run demo --image=vllm/vllm-openai:v0.23.0\n```\n"
    )
    assert found(check(tmp_path, recipe(guide=guide)), "RL406") == []


def test_words_naming_an_image_the_section_runs_with_docker_are_a_claim(tmp_path: Path) -> None:
    guide = (
        "## Kubernetes\n```yaml\nimage: vllm/vllm-openai:v0.21.0\n```\n"
        "## Docker\nUse `vllm/vllm-openai:v0.21.0`.\n"
    )
    [finding] = found(check(tmp_path, recipe(guide=guide)), "RL406")
    assert finding.line == _guide_line(tmp_path, "Use `vllm/vllm-openai:v0.21.0`")


def _guide_line(tmp_path: Path, text: str) -> int:
    lines = (tmp_path / RECIPE).read_text(encoding="utf-8").split("\n")
    return next(n for n, line in enumerate(lines, start=1) if text in line)


# --- RL603: the guide's `vllm serve` ---------------------------------------------------------


@pytest.mark.parametrize(
    "served",
    [
        "acme/demo-FP8",
        "acme/demo-NVFP4",
        "acme/demo-AWQ",
        "acme/demo-Instruct",
        "acme/Demo-Base-GPTQ-Int4",
        "quantco/demo-NVFP4",  # a publisher one of the variants is served from
        "unknown/demo-FP8",
        "inferact/demo-NVFP4-W4A4",  # a third party's quantisation of the model
    ],
)
def test_guide_may_serve_another_build_of_the_same_model(tmp_path: Path, served: str) -> None:
    data = recipe(guide=f"## Launch\n```bash\nvllm serve {served} --max-model-len 8192\n```\n")
    data["variants"] = {
        **data["variants"],
        "nvfp4": {"model_id": "quantco/demo-NVFP4-v2", "precision": "nvfp4", "vram_minimum_gb": 8},
    }
    assert found(check(tmp_path, data), "RL603") == []


@pytest.mark.parametrize("served", ["acme/demo-70B", "unknown/demo-70B-FP8", "acme/other"])
def test_guide_serving_another_model_is_still_reported(tmp_path: Path, served: str) -> None:
    data = recipe(guide=f"## Launch\n```bash\nvllm serve {served} --max-model-len 8192\n```\n")
    [finding] = found(check(tmp_path, data), "RL603")
    assert "serve `acme/demo`" in (finding.hint or "") and f"model_id: {served}" in (
        finding.hint or ""
    )


def test_guide_may_serve_another_recipe_of_the_tree(tmp_path: Path) -> None:
    data = recipe(guide="## Launch\n```bash\nvllm serve acme/other --max-model-len 8192\n```\n")
    other = recipe()
    other["model"] = {**other["model"], "model_id": "acme/other"}
    assert found(check(tmp_path, data, {"models/acme/other.yaml": other}), "RL603") == []


# --- RL341: strategy generation overrides ------------------------------------------------------


def test_override_restating_the_family_it_replaces_is_a_replacement(tmp_path: Path) -> None:
    """The mega-kernel pattern: the TP command swaps the variant's MoE backend for its own."""
    data = recipe(
        hardware_overrides={
            "blackwell": {"extra_args": ["--attention_config.use_fp4_indexer_cache", "True"]}
        }
    )
    data["variants"] = {
        "default": {
            "precision": "fp8",
            "vram_minimum_gb": 20,
            "hardware_overrides": {
                "blackwell": {"extra_args": ["--moe-backend", "deep_gemm_mega_moe"]}
            },
        }
    }
    data["strategy_overrides"] = {
        "single_node_tp": {
            "hardware_overrides": {"blackwell": {"extra_args": ["--moe-backend", "b12x"]}}
        }
    }
    assert found(check(tmp_path, data), "RL341") == []


def test_override_that_reads_as_an_addition_is_reported_with_the_wider_key(tmp_path: Path) -> None:
    """A hopper tweak that silently displaces the variant's brand-wide nvidia layer."""
    data = recipe()
    data["variants"] = {
        "default": {
            "precision": "bf16",
            "vram_minimum_gb": 20,
            "hardware_overrides": {
                "nvidia": {"extra_args": ["--kernel-config.enable_flashinfer_autotune=False"]}
            },
        }
    }
    data["strategy_overrides"] = {
        "single_node_tp": {
            "hardware_overrides": {"hopper": {"extra_args": ["--max-model-len", "131072"]}}
        }
    }
    [finding] = found(check(tmp_path, data), "RL341")
    assert "drops `--kernel-config.enable_flashinfer_autotune=False`" in finding.message
    assert "displaces the `nvidia` layer" in finding.message and "`h200:`" in (finding.hint or "")


def test_an_option_the_strategy_adds_on_every_generation_is_not_a_kept_copy(tmp_path: Path) -> None:
    """The TP override adds an autotune opt-out on both generations; on hopper it drops the caps."""
    data = recipe(
        hardware_overrides={
            "hopper": {
                "extra_args": ["--max-model-len", "200000", "--no-enable-flashinfer-autotune"]
            },
            "blackwell": {"extra_args": ["--kv-cache-dtype", "fp8"]},
        }
    )
    data["strategy_overrides"] = {
        "single_node_tp": {
            "hardware_overrides": {
                "hopper": {"extra_args": ["--no-enable-flashinfer-autotune"]},
                "blackwell": {
                    "extra_args": ["--kv-cache-dtype", "fp8", "--no-enable-flashinfer-autotune"]
                },
            }
        }
    }
    [finding] = found(check(tmp_path, data), "RL341")
    assert (
        "hardware_overrides.hopper keeps none" in finding.message
        and "`--max-model-len`" in finding.message
    )


def test_arg_another_layer_sets_again_is_not_dropped(tmp_path: Path) -> None:
    data = recipe(hardware_overrides={"blackwell": {"extra_args": ["--max-num-seqs", "8"]}})
    data["strategy_overrides"] = {
        "single_node_tp": {
            "extra_args": ["--max-num-seqs", "16"],
            "hardware_overrides": {"blackwell": {"extra_args": ["--enable-prefix-caching"]}},
        }
    }
    assert found(check(tmp_path, data), "RL341") == []


# --- RL501: a draft for another checkpoint, and a hint that leads out --------------------------


NVFP4_DRAFT = '{"method":"eagle3","model":"acme/demo-NVFP4-eagle3","num_speculative_tokens":3}'
NGRAM = '{"method":"ngram","num_speculative_tokens":3,"prompt_lookup_max":4}'
LOOP = ("RL501", "RL101", "RL213", "RL702")


def two_variants() -> dict[str, Any]:
    data = recipe(opt_in_features=["spec_decoding"])
    data["variants"] = {
        "default": {"precision": "bf16", "vram_minimum_gb": 20},
        "nvfp4": {"model_id": "acme/demo-NVFP4", "precision": "nvfp4", "vram_minimum_gb": 6},
    }
    return data


def test_flat_feature_hint_leads_to_a_tree_every_rule_accepts(tmp_path: Path) -> None:
    data = two_variants()
    data["features"] = {
        "spec_decoding": {
            "description": "Speculative decoding",
            "args": ["--speculative-config", NVFP4_DRAFT],
        }
    }
    [finding] = found(check(tmp_path / "a", data), *LOOP)
    assert (
        finding.code == "RL501"
        and "modes" in (finding.hint or "")
        and "ngram" in (finding.hint or "")
    )
    # The hint's fix: modes, the draft limited to the variant it fits, a draft-free mode for the others.
    data["features"] = {
        "spec_decoding": {
            "description": "Speculative decoding",
            "modes": {
                "eagle3": {
                    "label": "EAGLE3",
                    "variants": ["nvfp4"],
                    "args": ["--speculative-config", NVFP4_DRAFT],
                },
                "ngram": {"label": "N-gram", "args": ["--speculative-config", NGRAM]},
            },
        }
    }
    assert found(check(tmp_path / "b", data), *LOOP) == []


def test_mode_hint_names_the_stranded_variant(tmp_path: Path) -> None:
    data = two_variants()
    data["features"] = {
        "spec_decoding": {
            "description": "Speculative decoding",
            "modes": {"eagle3": {"label": "EAGLE3", "args": ["--speculative-config", NVFP4_DRAFT]}},
        }
    }
    [finding] = found(check(tmp_path / "a", data), *LOOP)
    assert "`variants: [nvfp4]`" in (finding.hint or "") and "for `default`" in (finding.hint or "")
    modes = data["features"]["spec_decoding"]["modes"]
    modes["eagle3"]["variants"] = ["nvfp4"]
    modes["ngram"] = {
        "label": "N-gram",
        "variants": ["default"],
        "args": ["--speculative-config", NGRAM],
    }
    assert found(check(tmp_path / "b", data), *LOOP) == []


def test_restricted_mode_listing_the_wrong_variant(tmp_path: Path) -> None:
    data = two_variants()
    data["features"] = {
        "spec_decoding": {
            "description": "Speculative decoding",
            "modes": {
                "eagle3": {
                    "label": "EAGLE3",
                    "variants": ["default", "nvfp4"],
                    "args": ["--speculative-config", NVFP4_DRAFT],
                },
                "ngram": {"label": "N-gram", "args": ["--speculative-config", NGRAM]},
            },
        }
    }
    [finding] = found(check(tmp_path / "a", data), *LOOP)
    assert "remove `default` from the mode's `variants`" in (finding.hint or "")
    data["features"]["spec_decoding"]["modes"]["eagle3"]["variants"] = ["nvfp4"]
    assert found(check(tmp_path / "b", data), *LOOP) == []


def test_nvfp4_draft_in_a_variants_own_args(tmp_path: Path) -> None:
    data = two_variants()
    data["variants"]["bf16"] = {
        "model_id": "acme/demo-BF16",
        "precision": "bf16",
        "vram_minimum_gb": 20,
        "extra_args": ["--speculative-config", NVFP4_DRAFT],
    }
    [finding] = found(check(tmp_path / "a", data), "RL501")
    assert "variant `bf16`" in finding.message and finding.pointer == (
        "variants",
        "bf16",
        "extra_args",
        1,
    )
    # The same draft in the NVFP4 variant's own args fits its checkpoint.
    del data["variants"]["bf16"]
    data["variants"]["nvfp4"]["extra_args"] = ["--speculative-config", NVFP4_DRAFT]
    assert found(check(tmp_path / "b", data), "RL501") == []
