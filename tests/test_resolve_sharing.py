"""What the renderer shares between the renderings of a recipe changes none of them.

The plan hands every hardware of a variant one mapping of shared work (strategy runs,
strategy facts, offered strategies, features, docker images, env wrappers). For generated
recipes, each hardware's rendering with that sharing equals the rendering built with
nothing shared, and so do the problems reported.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given
from test_properties_recipes import (
    RENDER_PROFILE,
    base_catalog,
    recipes,
    to_yaml,
    with_recipe,
)

from recipelint.resolve.plan import (
    HardwareRendering,
    Problems,
    build_variant_rendering,
    render_variant,
    variant_hardware,
)

CATALOG = base_catalog()


def _unshared(
    recipe: dict[str, Any], variant_key: str, problems: Problems
) -> list[HardwareRendering]:
    """Every hardware of the variant rendered on its own: a fresh mapping of shared work each."""
    variant = recipe["variants"][variant_key]
    _default, hw_ids = variant_hardware(CATALOG, recipe, variant)
    built = (
        build_variant_rendering(CATALOG, recipe, variant_key, hw_id, problems, {})
        for hw_id in hw_ids
    )
    return [rendering for rendering in built if rendering is not None]


@RENDER_PROFILE
@given(recipes())
def test_shared_work_renders_what_unshared_work_does(generated: dict[str, Any]) -> None:
    _tree, doc = with_recipe(to_yaml(generated))
    recipe = doc.data
    for variant_key in recipe["variants"]:
        shared_problems, alone_problems = Problems(), Problems()
        shared = render_variant(CATALOG, recipe, variant_key, shared_problems)
        alone = _unshared(recipe, variant_key, alone_problems)
        if shared is not None:
            assert shared[1] == alone, variant_key
        assert shared_problems == alone_problems, variant_key
