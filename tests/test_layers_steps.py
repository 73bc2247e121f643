"""resolve/layers.py step by step, on hand-written selections (docs/upstream-behaviour.md#layer-order).

Each step is one row of upstream's `buildArgs`/`buildEnv` order; these tests pin what a
step reads and which list it yields, where the generated-recipe properties of
test_layers.py would need luck to reach (a PD role's exact-hardware list, a falsy list,
a selection without overrides).
"""

from __future__ import annotations

from typing import Any

import pytest
from test_resolve import CATALOG
from test_resolve import recipe as with_base_args

from recipelint.jsvalue import UNDEFINED
from recipelint.resolve import layers
from recipelint.resolve.command import Combination, render_command


def recipe(**extra: Any) -> dict[str, Any]:
    """test_resolve's recipe without its base args, so that a step's lists stand alone."""
    return with_base_args(**{"model": {"model_id": "org/model"}, **extra})


PD_SPEC = {"deploy_type": "pd_cluster", "prefill": {"vllm_args": ["--p"]}, "decode": {}}
TP_SPEC = {"deploy_type": "single_node", "vllm_args": ["--file"], "env": {"F": "1"}}


def selection(
    data: dict[str, Any],
    strategy: str = "single_node_tp",
    spec: Any = TP_SPEC,
    hw_id: str = "h100",
    gen: Any = "hopper",
    nvidia: bool = True,
    **extra: Any,
) -> layers.Selection:
    return layers.Selection(
        data,
        "default",
        data["variants"]["default"],
        hw_id,
        gen,
        nvidia,
        strategy,
        spec,
        layers.get(layers.get(data, "strategy_overrides"), strategy),
        **extra,
    )


def found(sel: layers.Selection, role: str | None = None, env: bool = False) -> list[Any]:
    steps = layers.ENV_STEPS if env else layers.ARG_STEPS
    return [(layer.place, layer.items) for layer in layers.layers(sel, role, steps)]


# ------------------------------------------------------------------ the recipe's own lists


@pytest.mark.parametrize("falsy", [None, ""])
def test_a_null_or_empty_list_adds_nothing(falsy: Any) -> None:
    # upstream spreads each list only when it is there; "" spreads into no characters
    data = recipe(model={"model_id": "m", "base_args": falsy, "base_env": falsy})
    assert found(selection(data))[0][0] is layers.FILE_ARGS
    assert found(selection(data), env=True)[0][0] is layers.FILE_ENV
    doc = render_command(CATALOG, data, Combination("default", "single_node_tp", "h100"))
    assert doc["argv"][3:] == ["--tensor-parallel-size", "1"]


def test_an_empty_list_is_a_layer_of_no_tokens() -> None:
    data = recipe(model={"model_id": "m", "base_args": []})
    assert found(selection(data))[0] == (layers.BASE_ARGS, [])  # [] is truthy in JavaScript


def test_a_string_where_a_list_belongs_is_spread_but_not_listed_for_the_rules() -> None:
    data = recipe(model={"model_id": "m", "base_args": "-x"})
    assert found(selection(data))[0] == (layers.BASE_ARGS, "-x")
    assert [layer.place for layer in layers.lists(data)] == []  # the rules read lists only


# ------------------------------------------------------------------ strategy overrides and roles


def _overridden() -> dict[str, Any]:
    return recipe(
        strategy_overrides={
            "single_node_tp": {
                "extra_args": ["--so-extra"],
                "vllm_args": ["--so-vllm"],
                "env": {"SO": "1"},
                "extra_env": {"SO_EXTRA": "1"},
                "hardware_overrides": {"h100": {"extra_args": ["--so-h100"]}},
            },
            "pd_cluster": {
                "extra_args": ["--pd-top"],  # not read for a PD role
                "env": {"PD": "1"},
                "extra_env": {"PD_EXTRA": "1"},
                "prefill": {
                    "extra_args": ["--role-extra"],
                    "vllm_args": ["--role-vllm"],
                    "env": {"ROLE": "1"},
                    "hardware_overrides": {"h100": {"extra_args": ["--role-h100"]}},
                },
            },
        }
    )


def test_strategy_overrides_without_a_role() -> None:
    sel = selection(_overridden())
    assert found(sel)[-3:] == [
        (layers.STRATEGY_EXTRA_ARGS, ["--so-extra"]),
        (layers.STRATEGY_VLLM_ARGS, ["--so-vllm"]),
        (layers.STRATEGY_HW_ARGS, ["--so-h100"]),
    ]
    assert found(sel, env=True)[-2:] == [
        (layers.STRATEGY_ENV, {"SO": "1"}),
        (layers.STRATEGY_EXTRA_ENV, {"SO_EXTRA": "1"}),
    ]


def test_a_pd_role_reads_its_own_overrides_and_exact_hardware_list() -> None:
    sel = selection(_overridden(), "pd_cluster", PD_SPEC)
    assert found(sel, "prefill") == [
        (layers.FILE_ROLE_ARGS, ["--p"]),
        (layers.ROLE_EXTRA_ARGS, ["--role-extra"]),
        (layers.ROLE_VLLM_ARGS, ["--role-vllm"]),
        (layers.ROLE_HW_ARGS, ["--role-h100"]),
    ]
    assert found(sel, "prefill", env=True) == [
        (layers.STRATEGY_ENV, {"PD": "1"}),
        (layers.ROLE_ENV, {"ROLE": "1"}),  # and not the strategy's extra_env
    ]
    assert found(sel, "decode") == []  # no role block, and the top-level extra_args are not read


def test_a_pd_strategy_file_has_no_list_outside_a_role() -> None:
    assert found(selection(recipe(), "pd_cluster", PD_SPEC)) == []


def test_the_role_exact_hardware_layer_has_its_scope() -> None:
    sel = selection(_overridden(), "pd_cluster", PD_SPEC)
    [role_hw] = [
        layer for layer in layers.layers(sel, "prefill") if layer.place is layers.ROLE_HW_ARGS
    ]
    assert role_hw.pointer == (
        "strategy_overrides",
        "pd_cluster",
        "prefill",
        "hardware_overrides",
        "h100",
        "extra_args",
    )
    assert role_hw.scope == layers.Scope(
        "role-hw", strategy="pd_cluster", role="prefill", hardware="h100"
    )


# ------------------------------------------------------------------ the generation keyspace


@pytest.mark.parametrize(
    ("table", "gen", "nvidia", "expected"),
    [
        ({"hopper": {"a": 1}, "nvidia": {"b": 2}}, "hopper", True, ("hopper", {"a": 1})),
        ({"hopper": {}, "nvidia": {"b": 2}}, "hopper", True, ("hopper", {})),  # {} is truthy
        ({"hopper": None, "nvidia": {"b": 2}}, "hopper", True, ("nvidia", {"b": 2})),
        ({"nvidia": {"b": 2}}, "blackwell", True, ("nvidia", {"b": 2})),
        ({"nvidia": {"b": 2}}, "amd", False, (None, None)),
        ({"amd": {"c": 3}}, UNDEFINED, False, (None, None)),
        ({"nvidia": {"b": 2}}, None, True, ("nvidia", {"b": 2})),
        ({"1": {"d": 4}}, 1, False, ("1", {"d": 4})),  # table[gen] with gen as a string
    ],
)
def test_generation_key(table: Any, gen: Any, nvidia: bool, expected: tuple[Any, Any]) -> None:
    assert layers.generation_key(table, gen, nvidia) == expected


def test_a_truthy_strategy_generation_override_replaces_the_recipes_and_the_variants() -> None:
    data = recipe(
        hardware_overrides={"hopper": {"extra_args": ["--recipe"], "extra_env": {"R": "1"}}},
        strategy_overrides={
            "single_node_tp": {"hardware_overrides": {"hopper": {"extra_env": {"S": "1"}}}}
        },
    )
    sel = selection(data)
    assert [place for place, _ in found(sel)] == [layers.FILE_ARGS]  # nothing from the recipe
    assert found(sel, env=True)[-1] == (layers.STRATEGY_HW_ENV, {"S": "1"})
    plain = selection(recipe(hardware_overrides=data["hardware_overrides"]))
    assert found(plain)[-1] == (layers.RECIPE_HW_ARGS, ["--recipe"])
    assert found(plain, env=True)[-1] == (layers.RECIPE_HW_ENV, {"R": "1"})


# ------------------------------------------------------------------ presence and kv


def test_present_says_which_needs_a_selection_has() -> None:
    data = _overridden()
    assert selection(recipe()).present() == 0
    assert selection(data).present() == 0b001
    assert selection(recipe(), features=[("--f",)]).present() == 0b010
    assert selection(recipe(), kv={"vllm": {}}).present() == 0b100
    assert selection(recipe(), kv_option={"args": []}).present() == 0b100
    assert selection(data, features=[("--f",)], kv={}).present() == 0b111


def test_has_kv_and_pd() -> None:
    assert not selection(recipe()).has_kv
    assert selection(recipe(), kv={}).has_kv and selection(recipe(), kv_option={}).has_kv
    assert selection(recipe(), "pd_cluster", PD_SPEC).pd and not selection(recipe()).pd


def test_a_kv_stores_role_args_are_read_for_a_pd_strategy_only() -> None:
    kv = {"pd": {"prefill": {"args": ["--kv-prefill"]}}, "vllm": {"env": {"MC": "1"}}}
    not_pd = selection(recipe(), kv=kv)
    assert found(not_pd, "prefill") == [(layers.FILE_ARGS, ["--file"])]
    assert found(not_pd, "prefill", env=True) == [(layers.FILE_ENV, {"F": "1"})]
    pd = selection(recipe(), "pd_cluster", PD_SPEC, kv=kv)
    assert found(pd, "prefill")[-1] == (layers.KV_ROLE_ARGS, ["--kv-prefill"])


# ------------------------------------------------------------------ the declaration


def test_which_scopes_join_before_the_emitters_tokens() -> None:
    # #layer-order: base, variant, the variant's exact-hardware list and the strategy file come
    # before the parallelism flags; a variant's generation list comes after them
    assert {"base", "variant", "strategy-file"} == layers.BEFORE_EMITTER
    assert {"variant-hw"} == layers.EITHER_SIDE_OF_EMITTER
    assert {"strategy-hw", "recipe-hw", "variant-hw"} == layers.GENERATION_LAYERS


@pytest.mark.parametrize(
    ("document", "pointer", "kind", "listed"),
    [
        ("recipe", ("model", "base_args"), layers.ARGS, True),
        ("recipe", ("model", "base_env"), layers.ENV, True),
        ("recipe", ("model", "base_env"), layers.ARGS, False),
        ("recipe", ("model", "base_args", 0), layers.ARGS, False),
        ("recipe", ("model",), layers.ARGS, False),
        ("taxonomy", ("kv_offload", "native", "args"), layers.ARGS, True),
        ("recipe", ("kv_offload", "native", "args"), layers.ARGS, False),
        ("strategy", ("omni", "tasks", "0", "extra_args"), layers.ARGS, False),
        ("recipe", ("omni", "tasks", "0", "extra_args"), layers.ARGS, False),  # an index is an int
    ],
)
def test_is_list_place(document: str, pointer: tuple[Any, ...], kind: str, listed: bool) -> None:
    assert layers.is_list_place(document, pointer, kind) is listed


def _runs(steps: tuple[layers.Step, ...]) -> list[tuple[str, list[str]]]:
    return [(run.kind, [step.name for step in run.steps]) for run in layers.runs(steps)]


def test_runs_group_the_join_order_into_as_few_runs_as_their_reads_allow() -> None:
    before, after = layers.split_at_emitter(layers.ARG_STEPS)
    # the steps that read only the variant and the hardware are joined once per placement
    assert _runs(before) == [
        (layers.PLACEMENT_RUN, ["base", "variant", "variant-exact-hardware"]),
        (layers.STRATEGY_RUN, ["strategy-file"]),
    ]
    assert _runs(after) == [
        (layers.STRATEGY_RUN, ["strategy-override", "generation"]),
        (
            layers.COMBINATION_RUN,
            ["exact-hardware", "features", "kv-option", "kv-store", "kv-store-role"],
        ),
    ]
    env_before, env_after = layers.split_at_emitter(layers.ENV_STEPS)
    assert [kind for kind, _ in _runs(env_before)] == [
        layers.PLACEMENT_RUN,
        layers.STRATEGY_RUN,
        layers.COMBINATION_RUN,
    ]
    assert [names for _, names in _runs(env_after)] == [
        ["strategy-override", "generation"],
        ["exact-hardware"],
    ]
