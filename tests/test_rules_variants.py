"""RL501–RL503 (recipelint/rules/variants.py): a variant's checkpoint, precision and draft model."""

from __future__ import annotations

from pathlib import Path

from rulehelp import findings_of
from treehelp import BlockYaml, checked

from recipelint.diagnostics import Diagnostic
from recipelint.rules.variants import precision_words


def test_precision_words_in_draft_names() -> None:
    assert precision_words("nvidia/Model-30B-A3B-NVFP4-DSpark") == {"nvfp4"}
    assert precision_words("RedHatAI/Model-speculator.eagle3") == set()
    assert precision_words("org/Model-W8A8-eagle") == {"int8"}


def test_draft_named_for_a_quantised_checkpoint(tmp_path) -> None:
    variants = {
        "default": {"precision": "bf16", "vram_minimum_gb": 20},
        "fp8": {"model_id": "acme/demo-FP8", "precision": "fp8", "vram_minimum_gb": 10},
    }
    messages = [d.message for d in _offering(tmp_path, "acme/demo-FP8-eagle3", variants)]
    # The FP8 draft reaches the bf16 default variant (precision word) and nothing else.
    assert (
        len(messages) == 1 and "to variant `default`" in messages[0] and "fp8 draft" in messages[0]
    )


FUSED_DRAFT = """\
features:
  spec_decoding:
    description: Speculative decoding
    default_mode: mtp
    modes:
      mtp:
        label: MTP
        args: ["--speculative-config", '{"method":"mtp","num_speculative_tokens":1}']
      dspark:
        label: DSpark
        variants: [dspark]
        args: ["--speculative-config", '{"method":"dspark","num_speculative_tokens":5}']
variants:
  dspark:
    model_id: "acme/demo-DSpark"
    label: "DSpark"
    precision: bf16
    vram_minimum_gb: 22
"""


def test_a_fused_draft_variant_without_default_modes_is_reported_at_the_variant(
    tmp_path: Path,
) -> None:
    [finding] = findings_of(tmp_path / "a", FUSED_DRAFT, "RL502")
    assert finding.pointer == ("variants", "dspark")
    assert finding.message.startswith(
        "variant `dspark` serves a checkpoint with a fused dspark draft, but sets no default_modes"
    )
    assert finding.hint == "add `default_modes: {spec_decoding: dspark}` to the variant"
    selected = FUSED_DRAFT + "    default_modes:\n      spec_decoding: dspark\n"
    assert findings_of(tmp_path / "b", selected, "RL502") == []


def test_a_feature_keyed_mtp_is_reported_at_the_key(tmp_path: Path) -> None:
    feature = "features:\n  {}:\n    description: MTP\n"
    feature += '    args: ["--speculative-config", \'{{"method":"mtp"}}\']\n'
    [finding] = findings_of(tmp_path / "a", feature.format("mtp"), "RL503")
    assert finding.pointer == ("features", "mtp")
    assert finding.message == (
        "feature key `mtp` was retired: the site and tools look for `spec_decoding`"
    )
    assert findings_of(tmp_path / "b", feature.format("spec_decoding"), "RL503") == []


def _offering(tmp_path: Path, draft: str, variants: dict[str, object]) -> list[Diagnostic]:
    """RL501 of a recipe whose feature offers the draft ``draft`` to every variant."""
    config = f'{{"method":"eagle3","model":"{draft}","num_speculative_tokens":3}}'
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
        "variants": variants,
        "compatible_strategies": ["single_node_tp"],
    }
    documents = {"models/acme/demo.yaml": BlockYaml(data)}
    return [d for d in checked(tmp_path, documents) if d.code == "RL501"]


BF16_AND_LONG = {
    "default": {"precision": "bf16", "vram_minimum_gb": 20},
    "long": {"model_id": "acme/demo-Long", "precision": "bf16", "vram_minimum_gb": 20},
}


def test_a_draft_named_for_another_checkpoint_of_one_precision_is_reported(
    tmp_path: Path,
) -> None:
    [finding] = _offering(tmp_path, "acme/demo-Long-eagle3", BF16_AND_LONG)
    assert "to variant `default`: it was made for `demo-long`, not `demo`" in finding.message


def test_the_organisation_of_a_draft_names_no_checkpoint(tmp_path: Path) -> None:
    assert _offering(tmp_path, "demo-long-drafts/eagle3", BF16_AND_LONG) == []


def test_a_draft_no_variant_fits_is_to_be_renamed_or_removed(tmp_path: Path) -> None:
    only = {"default": {"precision": "bf16", "vram_minimum_gb": 20}}
    [finding] = _offering(tmp_path, "acme/demo-FP8-eagle3", only)
    assert finding.hint == (
        "name a draft made for the checkpoints this recipe serves, or remove this "
        "--speculative-config"
    )


def test_a_draft_named_for_the_recipes_own_checkpoint_fits_every_variant_of_it(
    tmp_path: Path,
) -> None:
    """`demo-eagle3` is made for `demo`, the recipe's own checkpoint: no variant's name tells
    against it (`demo-long` is not in it), and the organisation `acme` names nothing."""
    assert _offering(tmp_path, "acme/demo-eagle3", BF16_AND_LONG) == []


def test_fp4_and_nvfp4_labels_are_one_family(tmp_path: Path) -> None:
    nvfp4 = {"default": {"precision": "nvfp4", "vram_minimum_gb": 20}}
    assert _offering(tmp_path / "a", "acme/demo-FP4-eagle3", nvfp4) == []
    [finding] = _offering(tmp_path / "b", "acme/demo-FP8-eagle3", nvfp4)
    assert "fp8 draft" in finding.message


def test_a_mode_offered_to_every_variant_needs_no_default_modes(tmp_path: Path) -> None:
    """The mtp mode lists no variants: a checkpoint named for it opens with it anyway."""
    mtp_variant = (
        '  mtpv:\n    model_id: "acme/demo-MTP"\n    precision: bf16\n    vram_minimum_gb: 22\n'
    )
    found = findings_of(tmp_path, FUSED_DRAFT + mtp_variant, "RL502")
    assert [finding.pointer for finding in found] == [("variants", "dspark")]


def test_a_fused_draft_is_known_by_its_mode_name_as_well_as_its_method(tmp_path: Path) -> None:
    renamed = FUSED_DRAFT.replace('"method":"dspark"', '"method":"eagle3"')
    assert renamed != FUSED_DRAFT
    [finding] = findings_of(tmp_path, renamed, "RL502")
    assert finding.pointer == ("variants", "dspark")
