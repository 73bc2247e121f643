"""The check context's shared indexes: what each hardware key of a recipe applies to."""

from __future__ import annotations

from pathlib import Path

import yaml
from treehelp import Fragment, document_text, tree_in_memory

from recipelint.read.tree import load_tree
from recipelint.resolve.plan import variant_hardware
from recipelint.rules.context import CheckContext

PROFILES = {
    "h100": {"brand": "NVIDIA", "generation": "hopper"},
    "b200": {"brand": "NVIDIA", "generation": ["blackwell", "b-series"]},
    "mi300x": {"brand": "AMD", "gpu_generation": "cdna3"},
    "odd": "not a mapping",
}


def _context(tmp_path: Path) -> CheckContext:
    (tmp_path / "models").mkdir()
    taxonomy = yaml.safe_dump({"hardware_profiles": PROFILES})
    (tmp_path / "taxonomy.yaml").write_text(taxonomy, encoding="utf-8")
    return CheckContext(load_tree(tmp_path))


def test_a_hardware_key_applies_to_the_profiles_it_names(tmp_path: Path) -> None:
    ctx = _context(tmp_path)
    assert ctx.hardware_members("nvidia") == {"h100", "b200"}
    assert ctx.hardware_members("blackwell") == ctx.hardware_members("b-series") == {"b200"}
    assert ctx.hardware_members("cdna3") == {"mi300x"}  # the older spelling of the field
    assert ctx.hardware_members("odd") == {"odd"}  # an id names its profile, whatever it holds
    # Tables key brands in lower case; an unknown key names nothing; `default` and no key, all.
    assert ctx.hardware_members("NVIDIA") == frozenset()
    assert ctx.hardware_members("h200") == frozenset()
    assert ctx.hardware_members("default") is None and ctx.hardware_members(None) is None


def test_brands_and_generations_of_the_taxonomy(tmp_path: Path) -> None:
    ctx = _context(tmp_path)
    assert ctx.brands == {"nvidia", "amd"}
    assert ctx.generations == {"hopper", "blackwell", "b-series", "cdna3"}


def test_a_tree_without_a_usable_taxonomy_has_no_hardware_and_renders_without_one(
    tmp_path: Path,
) -> None:
    absent, broken = tmp_path / "absent", tmp_path / "broken"
    for root in (absent, broken):
        (root / "models").mkdir(parents=True)
    (broken / "taxonomy.yaml").write_text("- not a mapping\n", encoding="utf-8")
    for root in (absent, broken):
        ctx = CheckContext(load_tree(root))
        assert ctx.profiles == {} and ctx.brands == set() and ctx.generations == set()
        assert ctx.hardware_members("nvidia") == frozenset()
        inputs = ctx.render_inputs
        assert (inputs.taxonomy, inputs.profiles, inputs.strategies) == ({}, {}, {})


RECIPE_TEXT = document_text(
    "models/acme/demo.yaml",
    Fragment(
        "model:\n  base_args: [--max-model-len, '4096']\n  base_env:\n    VLLM_LOGGING_LEVEL: DEBUG\n"
    ),
)


def test_a_variant_s_hardware_is_the_plan_s_default_then_the_others() -> None:
    tree, doc = tree_in_memory("models/acme/demo.yaml", RECIPE_TEXT)
    ctx = CheckContext(tree)
    variant = doc.data["variants"]["default"]
    expected = variant_hardware(ctx.render_inputs, doc.data, variant)
    default, ordered = ctx.variant_hardware(doc.data, variant)
    assert (default, ordered) == expected
    assert default in ctx.profiles and ordered[0] == default
    assert ctx.variant_hardware(doc.data, variant) == expected  # asked again: the same answer


def test_a_recipe_out_of_focus_still_has_its_argument_lists_and_env_mappings() -> None:
    tree, doc = tree_in_memory("models/acme/demo.yaml", RECIPE_TEXT)
    everywhere, nowhere = CheckContext(tree), CheckContext(tree, focus=lambda path: False)
    assert nowhere.recipes == [] and everywhere.recipes == [doc]
    for ctx in (everywhere, nowhere):
        assert [a.items for a in ctx.arg_lists_of(doc)] == [["--max-model-len", "4096"]]
        assert ctx.env_mappings_of(doc) == [
            (("model", "base_env"), {"VLLM_LOGGING_LEVEL": "DEBUG"})
        ]
