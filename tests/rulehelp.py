"""Helpers the rule tests of more than one tests/test_rules_<module>.py share (tests/treehelp.py
builds the trees they check)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hypothesis import strategies as st
from treehelp import BlockYaml, Fragment, checked, findings_by_code

from recipelint.diagnostics import Diagnostic
from recipelint.resolve import layers


def codes(tmp_path: Path, data: dict[str, Any], code: str) -> list[str]:
    """The messages of ``code`` in a tree whose one recipe is ``data``."""
    found = checked(tmp_path, {"models/acme/demo.yaml": BlockYaml(data)})
    return [d.message for d in found if d.code == code]


def findings_of(tmp_path: Path, recipe: str, code: str) -> list[Diagnostic]:
    """The findings of ``code`` in a tree whose one recipe is the fragment ``recipe``."""
    return findings_by_code(tmp_path, {"models/acme/demo.yaml": Fragment(recipe)}).get(code, [])


# Strategies whose commands span nodes or data-parallel ranks, beside the single-node one.
MULTI_NODE = "compatible_strategies: [single_node_tp, multi_node_tp, single_node_dep]\n"


# --- data of any shape, for the property tests of the rules' cheaper walks ---------------


# Keys the declared places and the rules look for, and a few they do not.
KEYS = st.sampled_from(
    [
        "model",
        "variants",
        "fp8",
        "hardware_overrides",
        "h100",
        "strategy_overrides",
        "single_node_tp",
        "prefill",
        "decode",
        "env",
        "extra_env",
        "extra_args",
        "omni",
        "tasks",
        "model_id",
        "docker_image",
        "base_env",
        "vllm",
        "kv_offload",
        "VLLM_X",
        "a\x1bb",
        "other",
    ]
)


SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.text(alphabet=st.sampled_from(list("ab -$;\x00\x1b\x7f\x85\x9f\t\n")), max_size=6),
)


DATA = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(KEYS, inner, max_size=5),
    max_leaves=40,
)


KINDS = st.sampled_from([layers.RECIPE, layers.STRATEGY_FILE, layers.KV_FILE, layers.TAXONOMY])


def _nested(pattern: tuple[str, ...], leaf: Any) -> Any:
    """``leaf`` at a place of ``pattern``: a role, a task and every wildcard filled in."""
    for part in reversed(pattern):
        if part == layers.TASK:
            leaf = [leaf]
        else:
            leaf = {layers.PD_ROLES[0] if part == layers.ROLE else part.strip("<>"): leaf}
    return leaf


ENV_PATTERNS = [place.pattern for place in layers.PLACES if place.kind == layers.ENV]


MAPPINGS = st.dictionaries(KEYS, DATA, max_size=3)


PLACED = st.sampled_from(ENV_PATTERNS).flatmap(lambda p: MAPPINGS.map(lambda d: _nested(p, d)))


# Data with env mappings at declared places (and beside them), as well as data of any shape.
DOCUMENTS = st.one_of(DATA, PLACED, st.dictionaries(KEYS, PLACED | DATA, max_size=4))
