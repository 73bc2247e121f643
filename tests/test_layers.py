"""resolve/layers.py is the one model of a recipe's argument layers: the renderer joins exactly its layers.

The properties, for generated recipes: every rendered argv is upstream's dedupe of the
combination's layers (in join order) with the strategy emitter's tokens at the emitter's
place; the args the renderer builds before that dedupe are those layers spread, and its
env is the env layers assigned in order with the PD device pinning at the emitter's place,
also when placements share what they joined as the plan's do; and every recipe layer a
combination joins is one of the lists the rules see (the static enumeration, with the
same pointer and scope).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given
from test_properties_recipes import (
    RENDER_PROFILE,
    base_inputs,
    recipes,
    to_yaml,
    with_recipe,
)

from recipelint.argv import dedupe_tokens
from recipelint.resolve import layers
from recipelint.resolve.command import (
    NVL4_HARDWARE,
    NVL4_ONLY_ENV,
    Combination,
    Placement,
    command_parts,
    env_parts,
    pinned_devices,
    render_command,
    rendered_layers,
)
from recipelint.resolve.features import default_features
from recipelint.resolve.formatting import RenderError

INPUTS = base_inputs()


def _argvs(doc: dict[str, Any], multi: bool) -> Iterator[tuple[str | None, str | None, list[Any]]]:
    """(PD role, node role, argv) of each `vllm serve` line a rendering holds (a worker: its first)."""
    if doc["deploy_type"] == "pd_cluster":
        for role in layers.PD_ROLES:
            yield role, None, doc[role]["argv"]
    elif doc["deploy_type"] == "kv_store_lb":
        yield None, "head" if multi else None, doc["vllm_argv"]
        if multi:
            yield None, "worker", doc["vllm_worker_argvs"][0]
    elif multi:
        yield None, "head", doc["head_argv"]
        yield None, "worker", doc["worker_argvs"][0]
    else:
        yield None, None, doc["argv"]


def _combinations(recipe: dict[str, Any]) -> Iterator[Combination]:
    """Every variant x hardware x serving strategy the tree offers, plus each one composed with a kv_store."""
    kv_ids = INPUTS.kv_ids[:1]
    for variant in recipe["variants"]:
        for hw_id in INPUTS.profiles:
            features = tuple(default_features(recipe, hw_id, variant))
            for strategy in recipe["compatible_strategies"]:
                deploy = INPUTS.deploy_type_of(strategy)
                if deploy is layers.UNDEFINED or deploy == "kv_store_lb":
                    continue
                nodes = 2 if deploy == "multi_node" else 1
                yield Combination(variant, strategy, hw_id, nodes, features)
                for kv in kv_ids if deploy != "pd_cluster" else ():
                    yield Combination(variant, strategy, hw_id, nodes, features, kv_offload=kv)


def _spread(found: list[layers.Layer]) -> list[Any]:
    return [token for layer in found for token in layer.items]


@RENDER_PROFILE
@given(recipes())
def test_rendered_args_are_the_joined_layers_and_the_emitters_tokens(
    generated: dict[str, Any],
) -> None:
    _tree, doc = with_recipe(to_yaml(generated))
    recipe = doc.data
    static = {(layer.pointer, layer.scope) for layer in layers.lists(recipe)}
    for combo in _combinations(recipe):
        try:
            rendered = render_command(INPUTS, recipe, combo)
        except RenderError:
            continue  # upstream drops the rendering too
        for role, node_role, argv in _argvs(rendered, combo.node_count > 1):
            before, emitter, after = command_parts(INPUTS, recipe, combo, role, node_role)
            assert argv[3:] == dedupe_tokens(_spread(before) + emitter + _spread(after)), (
                combo,
                role,
                node_role,
            )
            for layer in before + after:
                if layer.document == layers.RECIPE:
                    assert (layer.pointer, layer.scope) in static, (combo, layer)


def _assigned(found: list[layers.Layer], env: dict[str, Any]) -> dict[str, Any]:
    """`Object.assign` of each layer's mapping in turn (the generator writes mappings only)."""
    for layer in found:
        env.update(layer.items)
    return env


def _expected_env(
    recipe: dict[str, Any], combo: Combination, role: str | None, pd: bool
) -> dict[str, Any]:
    before, after = env_parts(INPUTS, recipe, combo, role)
    env = _assigned(before, {})
    env.update(pinned_devices(INPUTS, recipe, combo, role))
    env = _assigned(after, env)
    if pd and combo.hw_id not in NVL4_HARDWARE:  # NVLink-only variables leave other PD clusters
        for key in NVL4_ONLY_ENV:
            env.pop(key, None)
    return env


def _rendered_env(doc: dict[str, Any], role: str | None) -> dict[str, Any]:
    return doc[role]["env"] if role else doc["env"]


@RENDER_PROFILE
@given(recipes())
def test_the_renderer_spreads_the_layers_and_assigns_the_env_layers_in_order(
    generated: dict[str, Any],
) -> None:
    _tree, doc = with_recipe(to_yaml(generated))
    recipe = doc.data
    strategy_runs: dict[Any, Any] = {}  # shared by every placement, as the plan shares it
    placements: dict[tuple[str, str], Placement] = {}
    for combo in _combinations(recipe):
        key = (combo.variant_key, combo.hw_id)
        if key not in placements:
            placements[key] = Placement(INPUTS, recipe, *key, strategy_runs)
        placement = placements[key]
        try:
            rendered = render_command(INPUTS, recipe, combo, None, placement)
        except RenderError:
            continue
        pd = rendered["deploy_type"] == "pd_cluster"
        for role, node_role, _argv in _argvs(rendered, combo.node_count > 1):
            args, env = rendered_layers(INPUTS, recipe, combo, role, node_role, 1, placement)
            before, emitter, after = command_parts(INPUTS, recipe, combo, role, node_role)
            assert args == _spread(before) + emitter + _spread(after), (combo, role, node_role)
            assert list(env.items()) == list(_expected_env(recipe, combo, role, pd).items()), (
                combo,
                role,
            )
            assert list(env.items()) == list(_rendered_env(rendered, role).items()), (combo, role)


# ------------------------------------------------------------------ the declaration


def test_key_sets_are_the_declared_places_last_keys() -> None:
    assert {"base_args", "extra_args", "vllm_args", "args"} == layers.ARG_KEYS
    assert {"base_env", "extra_env", "env"} == layers.ENV_KEYS


def test_lists_nest_as_the_document_does() -> None:
    recipe = {
        "model": {"base_args": ["--a"]},
        "variants": {
            "fp8": {"extra_args": ["--b"], "hardware_overrides": {"h100": {"extra_args": ["--c"]}}},
            "bf16": {"extra_args": ["--d"]},
        },
        "strategy_overrides": {
            "pd_cluster": {"prefill": {"vllm_args": ["--e"]}, "other": {"vllm_args": ["--x"]}}
        },
        "features": {"spec": {"modes": {"mtp": {"args": ["--f"]}}}},
        "omni": {"tasks": [{"extra_args": ["--g"]}]},
    }
    found = [(layer.pointer, layer.scope) for layer in layers.lists(recipe)]
    assert found == [
        (("model", "base_args"), layers.Scope("base")),
        (("variants", "fp8", "extra_args"), layers.Scope("variant", "fp8")),
        (
            ("variants", "fp8", "hardware_overrides", "h100", "extra_args"),
            layers.Scope("variant-hw", "fp8", hardware="h100"),
        ),
        (("variants", "bf16", "extra_args"), layers.Scope("variant", "bf16")),
        (
            ("strategy_overrides", "pd_cluster", "prefill", "vllm_args"),
            layers.Scope("role", strategy="pd_cluster", role="prefill"),
        ),
        (
            ("features", "spec", "modes", "mtp", "args"),
            layers.Scope("mode", feature="spec", mode="mtp"),
        ),
        (("omni", "tasks", 0, "extra_args"), layers.Scope("omni", "omni-task-0")),
    ]  # `other` is no PD role: no command joins its list


def test_lists_of_shared_files() -> None:
    spec = {"vllm_args": ["--a"], "decode": {"vllm_args": ["--b"]}, "env": {"X": "1"}}
    assert [
        (layer.pointer, layer.scope)
        for layer in layers.lists(spec, layers.STRATEGY_FILE, strategy="s")
    ] == [
        (("vllm_args",), layers.Scope("strategy-file", strategy="s")),
        (("decode", "vllm_args"), layers.Scope("strategy-file", strategy="s", role="decode")),
    ]
    assert [
        layer.pointer
        for layer in layers.lists(spec, layers.STRATEGY_FILE, layers.ENV, strategy="s")
    ] == []


@pytest.mark.parametrize(
    ("document", "pointer", "expected"),
    [
        (
            "recipe",
            ("variants", "x", "hardware_overrides", "b200", "extra_args"),
            layers.VARIANT_HW_ARGS,
        ),
        (
            "recipe",
            ("strategy_overrides", "pd_cluster", "decode", "extra_args"),
            layers.ROLE_EXTRA_ARGS,
        ),
        ("recipe", ("strategy_overrides", "pd_cluster", "router", "extra_args"), None),
        ("recipe", ("omni", "tasks", 2, "extra_args"), layers.OMNI_TASK_ARGS),
        ("recipe", ("guide", "extra_args"), None),
        ("strategy", ("prefill", "vllm_args"), layers.FILE_ROLE_ARGS),
        ("kv_store", ("vllm", "vllm_args"), layers.KV_ARGS),
    ],
)
def test_place_of(document: str, pointer: tuple, expected: layers.Place | None) -> None:
    assert layers.place_of(document, pointer) is expected


@pytest.mark.parametrize(
    ("meta", "omni"),
    [
        ({"tasks": ["text", "omni"]}, True),
        ({"tasks": "omni"}, True),  # `tasks.includes("omni")` on a string
        ({"tasks": ["text"]}, False),
        ({"tasks": {"omni": True}}, False),
        ({}, False),
        (None, False),
    ],
)
def test_is_omni(meta: Any, omni: bool) -> None:
    assert layers.is_omni({"meta": meta}) is omni


@pytest.mark.parametrize("steps", [layers.ARG_STEPS, layers.ENV_STEPS])
def test_runs_cover_the_join_order_and_read_no_more_than_their_kind(
    steps: tuple[layers.Step, ...],
) -> None:
    for part in layers.split_at_emitter(steps):
        found = layers.runs(part)
        assert tuple(step for run in found for step in run.steps) == part
        for run in found:
            reads = frozenset().union(*(step.reads for step in run.steps))
            if run.kind == layers.PLACEMENT_RUN:
                assert reads <= layers.PLACEMENT_READS
            elif run.kind == layers.STRATEGY_RUN:
                assert reads <= layers.STRATEGY_READS
            assert run.placed == bool(reads & layers.PLACEMENT_READS)
            everything = (1 << len(layers.NEEDS)) - 1
            assert run.by_presence[everything] == run.steps


def test_a_step_that_reads_kv_or_features_is_left_out_without_them() -> None:
    [run] = layers.runs(
        tuple(step for step in layers.ARG_STEPS if step.name in ("features", "kv-store"))
    )
    assert [step.name for step in run.by_presence[0]] == []
    assert [step.name for step in run.by_presence[0b010]] == ["features"]
    assert [step.name for step in run.by_presence[0b100]] == ["kv-store"]
