"""What the renderer shares between the renderings of a recipe changes none of them.

The plan hands every hardware of a variant one mapping of shared work (strategy runs,
strategy facts, offered strategies, features, docker images, env wrappers, and whole
renderings of hardware that read alike), and the publisher hands the same mapping to each of
a recipe's variants. For generated recipes, each hardware's rendering with that sharing
equals the rendering built with nothing shared, and so do the problems reported. The renderings are shared between hardware of equal brand, generation and GPU
count that the recipe does not name, so a second catalog gives most hardware a twin that
differs only in its VRAM (which moves the plan's node counts and the single_node_tp size)
and its id, which the generated recipes name or not.
"""

from __future__ import annotations

from typing import Any
from unittest.mock import patch

from hypothesis import given
from test_properties_recipes import (
    RENDER_PROFILE,
    base_inputs,
    recipes,
    to_yaml,
    with_recipe,
)

from recipelint.resolve.command import RenderInputs, placed_rendering
from recipelint.resolve.plan import (
    HardwareRendering,
    Problems,
    build_variant_rendering,
    render_variant,
    variant_hardware,
)

INPUTS = base_inputs()


def _twins(catalog: RenderInputs) -> RenderInputs:
    """The catalog with b200 read as a second h100, and a twin of gb200 (outside its NVL4
    family, which PD renderings tell apart) and of mi300x, each with another VRAM, in
    taxonomy order after their originals."""
    profiles = dict(catalog.profiles)
    profiles["b200"] = {**profiles["h100"], "vram_gb": 320}
    twins = {"gb200": ("gb200_twin", 384), "mi300x": ("mi325x", 4000)}
    ordered: dict[str, Any] = {}
    for hw_id, profile in profiles.items():
        ordered[hw_id] = profile
        if hw_id in twins:
            twin, vram = twins[hw_id]
            ordered[twin] = {**profile, "vram_gb": vram}
    return RenderInputs(catalog.taxonomy, ordered, catalog.strategies)


TWINS = _twins(INPUTS)


def _unshared(
    catalog: RenderInputs, recipe: dict[str, Any], variant_key: str, problems: Problems
) -> list[HardwareRendering]:
    """Every hardware of the variant rendered on its own: a fresh mapping of shared work each."""
    variant = recipe["variants"][variant_key]
    _default, hw_ids = variant_hardware(catalog, recipe, variant)
    built = (
        build_variant_rendering(catalog, recipe, variant_key, hw_id, problems, {})
        for hw_id in hw_ids
    )
    return [rendering for rendering in built if rendering is not None]


def _shared_equals_unshared(catalog: RenderInputs, generated: dict[str, Any]) -> None:
    """Each variant rendered with the work its recipe's variants share (as the publisher
    renders them) equals its hardware rendered one by one with nothing shared."""
    _tree, doc = with_recipe(to_yaml(generated))
    recipe = doc.data
    for documents in (True, False):
        shared_work: dict[Any, Any] = {}
        for variant_key in recipe["variants"]:
            shared_problems, alone_problems = Problems(), Problems()
            shared = render_variant(
                catalog, recipe, variant_key, shared_problems, documents, shared_work
            )
            alone = _unshared(catalog, recipe, variant_key, alone_problems)
            if shared is not None and documents:
                assert shared[1] == alone, variant_key
            assert shared_problems == alone_problems, (variant_key, documents)


@RENDER_PROFILE
@given(recipes())
def test_shared_work_renders_what_unshared_work_does(generated: dict[str, Any]) -> None:
    _shared_equals_unshared(INPUTS, generated)


@RENDER_PROFILE
@given(recipes())
def test_hardware_that_reads_alike_shares_renderings_that_equal_unshared_ones(
    generated: dict[str, Any],
) -> None:
    _shared_equals_unshared(TWINS, generated)


def _renders(recipe: dict[str, Any], share: bool = True) -> int:
    """How many renderings of the recipe's default variant on TWINS are laid out."""
    with patch("recipelint.resolve.plan.placed_rendering", wraps=placed_rendering) as laid_out:
        if share:
            render_variant(TWINS, recipe, "default", Problems())
        else:
            _unshared(TWINS, recipe, "default", Problems())
    return laid_out.call_count


def test_twins_share_renderings_unless_the_recipe_names_one() -> None:
    """Not vacuous: the twin catalog makes hardware share, and naming one stops it."""
    recipe: dict[str, Any] = {
        "meta": {"hardware": {"b200": "verified"}},
        "model": {"model_id": "acme/m"},
        "variants": {"default": {"vram_minimum_gb": 10}},
        "compatible_strategies": ["single_node_tp", "multi_node_tp"],
    }
    assert _renders(recipe) < _renders(recipe, share=False)
    named = {**recipe, "strategy_overrides": {"multi_node_tp": {"hardware_overrides": {}}}}
    overrides = named["strategy_overrides"]["multi_node_tp"]["hardware_overrides"]
    overrides["b200"] = overrides["h100"] = {"extra_args": ["--x"]}
    shared_calls = _renders(named)
    assert shared_calls > _renders(recipe)
