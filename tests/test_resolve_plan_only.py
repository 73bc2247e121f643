"""Judging renderings without laying them out finds what rendering them finds.

The check plans a recipe's publication for its paths and findings only, so its renderings
are worked out and judged but no command line, docker command or document is built. For
generated recipes, hostile ones included (non-string and non-list args, non-mapping env,
a PD pool `tp` that is not positive, hardware without an image, counts beyond any real
deployment), that plan writes the same paths in the same order, reports the same findings
and index entries, and its renderings fail, fall back and report problems exactly as the
full rendering's do.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from test_properties_recipes import (
    ARG_LIST_KEYS,
    INDEX,
    NOT_A_STRING,
    PROFILE,
    _paths,
    _set,
    pick,
    recipes,
    to_yaml,
    with_recipe,
)

from recipelint.compile.publication import PlannedPaths, Publisher, RecipeOutcome, WriteJournal
from recipelint.resolve.plan import Problems, render_variant

PLAN_PROFILE = settings(PROFILE, max_examples=max(1, PROFILE.max_examples // 2))
ENV_KEYS = ("base_env", "extra_env", "env")
NOT_A_LIST = st.sampled_from(["--x", 7, {"k": "v"}, True])
NOT_A_MAPPING = st.sampled_from([["A=1"], "A=1", 3, False])
NOT_POSITIVE = st.sampled_from([0, -2, "4", 0.0])
BEYOND_ANY_DEPLOYMENT = 5000


def _places(recipe: dict[str, Any], keys: tuple[str, ...]) -> list[tuple[Any, ...]]:
    return [pointer for pointer, _ in _paths(recipe) if pointer and pointer[-1] in keys]


def _non_string_arg(draw: st.DrawFn, recipe: dict[str, Any]) -> None:
    lists = [
        (pointer, value)
        for pointer, value in _paths(recipe)
        if pointer and pointer[-1] in ARG_LIST_KEYS and isinstance(value, list) and value
    ]
    if lists:
        pointer, values = pick(draw, lists)
        _set(recipe, (*pointer, draw(INDEX) % len(values)), draw(NOT_A_STRING))


def _replaced(draw: st.DrawFn, recipe: dict[str, Any], keys: tuple[str, ...], bad: Any) -> None:
    places = _places(recipe, keys)
    if places:
        _set(recipe, pick(draw, places), draw(bad))


def _bad_env_entry(draw: st.DrawFn, recipe: dict[str, Any]) -> None:
    envs = [value for pointer, value in _paths(recipe) if pointer and pointer[-1] in ENV_KEYS]
    mappings = [env for env in envs if isinstance(env, dict)]
    if mappings:
        env = pick(draw, mappings)
        env[draw(st.sampled_from([7, "X_CONFIG_PATH", "A_1"]))] = draw(NOT_A_STRING)


def _pd_pool(draw: st.DrawFn, recipe: dict[str, Any]) -> None:
    recipe["compatible_strategies"] = [*recipe["compatible_strategies"], "pd_cluster"]
    pd = recipe.setdefault("strategy_overrides", {}).setdefault("pd_cluster", {})
    role: dict[str, Any] = {"parallelism": "dep", "tp": draw(NOT_POSITIVE)}
    if draw(st.booleans()):
        role["nodes"] = draw(st.sampled_from([2, BEYOND_ANY_DEPLOYMENT]))
    pd[draw(st.sampled_from(["prefill", "decode"]))] = role


def _scaled_out(draw: st.DrawFn, recipe: dict[str, Any]) -> None:
    recipe["compatible_strategies"] = [
        *recipe["compatible_strategies"],
        draw(st.sampled_from(["multi_node_tp", "multi_node_dep", "multi_node_tp_pp"])),
    ]
    recipe["strategy_min_gpus"] = draw(st.sampled_from([16, 64, 10**6]))


def _no_image(draw: st.DrawFn, recipe: dict[str, Any]) -> None:
    recipe["model"]["nightly_required"] = True


HOSTILE = (
    _non_string_arg,
    lambda draw, recipe: _replaced(draw, recipe, ARG_LIST_KEYS, NOT_A_LIST),
    lambda draw, recipe: _replaced(draw, recipe, ENV_KEYS, NOT_A_MAPPING),
    _bad_env_entry,
    _pd_pool,
    _scaled_out,
    _no_image,
)


@st.composite
def hostile_recipes(draw: st.DrawFn) -> dict[str, Any]:
    """A generated recipe with none to three hostile changes."""
    recipe = draw(recipes())
    for change in draw(st.lists(st.sampled_from(HOSTILE), max_size=3)):
        change(draw, recipe)
    return recipe


def _journal(outcome: RecipeOutcome) -> list[str | tuple[str]]:
    """The paths a full publication writes and the folders it clears, as a plan keeps them."""
    writes = outcome.writes
    assert isinstance(writes, WriteJournal)
    return [op[1] if op[0] == "write" else (op[1],) for op in writes.ops]


@PLAN_PROFILE
@given(hostile_recipes())
def test_a_paths_only_publication_finds_what_the_full_one_does(generated: dict[str, Any]) -> None:
    tree, doc = with_recipe(to_yaml(generated))
    publisher = Publisher(tree, None)
    globals_ = publisher.publish_globals(PlannedPaths())
    assert globals_ is not None
    full = publisher.publish_recipe(doc, globals_)
    planned = publisher.publish_recipe(doc, globals_, paths_only=True)
    assert planned.writes.ops == _journal(full)
    assert planned.diagnostics == full.diagnostics
    assert planned.index_entry == full.index_entry
    assert planned.promoted_entries == full.promoted_entries


@PLAN_PROFILE
@given(hostile_recipes())
def test_judged_renderings_fail_and_report_as_rendered_ones_do(generated: dict[str, Any]) -> None:
    tree, doc = with_recipe(to_yaml(generated))
    globals_ = Publisher(tree, None).publish_globals(PlannedPaths())
    assert globals_ is not None
    recipe = doc.data
    for variant_key in recipe["variants"]:
        rendered_problems, judged_problems = Problems(), Problems()
        rendered = render_variant(globals_.inputs, recipe, variant_key, rendered_problems)
        judged = render_variant(globals_.inputs, recipe, variant_key, judged_problems, False)
        assert judged_problems == rendered_problems, variant_key
        assert (judged is None) == (rendered is None), variant_key
        if judged is not None and rendered is not None:
            assert judged[0] == rendered[0]
            assert [(h.hw_id, list(h.alternatives)) for h in judged[1]] == [
                (h.hw_id, list(h.alternatives)) for h in rendered[1]
            ]
