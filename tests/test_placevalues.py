"""Values at declared args/env places: found by place (resolve.layers.PLACES), not by key name."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from treehelp import BlockYaml, base_recipe, build_tree

from recipelint.compile.compiler import compile_tree
from recipelint.compile.placevalues import place_values
from recipelint.resolve.layers import ARGS, ENV

RECIPE = "models/acme/demo.yaml"


def test_values_of_any_type_at_declared_places_in_document_order() -> None:
    recipe: dict[str, Any] = {
        "meta": {"extra_args": "not a place"},
        "model": {"base_args": ["--a"], "base_env": {"A": "1"}},
        "variants": {
            "v": {
                "extra_args": "--b --c",
                "hardware_overrides": {"h100": {"extra_args": 5, "extra_env": ["X=1"]}},
                "notes": {"extra_args": ["not a place either"]},
            },
        },
        "strategy_overrides": {
            "pd": {"prefill": {"vllm_args": None, "env": {"B": "2"}}, "other": {"vllm_args": []}}
        },
        "omni": {"tasks": [{"extra_args": ["--t"]}]},
    }
    assert list(place_values(recipe, ARGS)) == [
        (("model", "base_args"), ["--a"]),
        (("variants", "v", "extra_args"), "--b --c"),
        (("variants", "v", "hardware_overrides", "h100", "extra_args"), 5),
        (("omni", "tasks", 0, "extra_args"), ["--t"]),
    ]
    assert list(place_values(recipe, ENV)) == [
        (("model", "base_env"), {"A": "1"}),
        (("variants", "v", "hardware_overrides", "h100", "extra_env"), ["X=1"]),
        (("strategy_overrides", "pd", "prefill", "env"), {"B": "2"}),
    ]


def test_a_string_of_arguments_is_reported_where_it_is_declared(tmp_path: Path) -> None:
    data = base_recipe()
    data["variants"]["default"]["extra_args"] = "--enforce-eager"
    target = build_tree(tmp_path, {RECIPE: BlockYaml(data)}) / RECIPE
    spread = [
        d
        for d in compile_tree(tmp_path).diagnostics
        if d.code == "RL704" and "spreads into single characters" in d.message
    ]
    assert [(d.path, d.pointer) for d in spread] == [
        (target, ("variants", "default", "extra_args"))
    ]
