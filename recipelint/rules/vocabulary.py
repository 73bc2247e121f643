"""RL221–RL222: the vocabulary the command builder offers, against what exists and renders.

The taxonomy's `strategies` list is the serving-strategy vocabulary; each id must name a
strategy file (RL221; a file missing from the list is RL211). A feature or a feature mode
is a pill of the builder; one whose `args` list is empty, with nothing else to add,
toggles nothing (RL222).
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator

from recipelint.jsvalue import JsonValue
from recipelint.read.load import Document
from recipelint.rules.common import Pointer, as_dict, as_list
from recipelint.rules.context import CheckContext
from recipelint.rules.registry import Finding, check

UNLISTED_FILE, EMPTY_TOGGLE = "RL221", "RL222"


# -- the strategy vocabulary -------------------------------------------------------------


def _strategy_ids(ctx: CheckContext) -> set[str]:
    """Ids a strategy file answers to: its `name`, and its file name (RL211 judges a mismatch)."""
    ids = set(ctx.strategies)
    ids.update(doc.path.name.removesuffix(".yaml") for doc in ctx.tree.strategies)
    return ids


@check(UNLISTED_FILE)
def listed_strategies_exist(ctx: CheckContext) -> Iterator[Finding]:
    taxonomy = ctx.tree.taxonomy
    if taxonomy is None or not taxonomy.usable or not ctx.in_focus(taxonomy):
        return
    listed = as_dict(taxonomy.data).get("strategies")
    if not isinstance(listed, list):
        return  # the schema stage reports a vocabulary that is no list
    known = _strategy_ids(ctx)
    for index, name in enumerate(listed):
        if isinstance(name, str) and name not in known:
            yield Finding(
                taxonomy,
                ("strategies", index),
                f"taxonomy.yaml lists strategy `{name}`, but no file in strategies/ defines it: "
                "the builder offers a strategy nothing can render",
                _missing_strategy_hint(ctx, name, known),
            )


def _missing_strategy_hint(ctx: CheckContext, name: str, known: set[str]) -> str:
    if name in ctx.kv_stores:
        return (
            f"`{name}` is a kv_store deployment (the KV Offload row), not a serving strategy: "
            "remove it from the list"
        )
    close = difflib.get_close_matches(name, sorted(known), n=1)
    if close:
        return f"did you mean `{close[0]}`?"
    return f"add strategies/{name}.yaml, or remove `{name}` from the list"


# -- toggles that add nothing ----------------------------------------------------------------


@check(EMPTY_TOGGLE)
def toggles_that_add_nothing(ctx: CheckContext) -> Iterator[Finding]:
    for doc in ctx.recipes:
        for name, feature in as_dict(as_dict(doc.data).get("features")).items():
            yield from _empty_feature(doc, name, as_dict(feature))


def _empty_feature(doc: Document, name: str, feature: dict[str, JsonValue]) -> Iterator[Finding]:
    modes = feature.get("modes")
    if modes:  # a modal feature renders its modes' args; malformed modes are RL212's
        for mode_name, mode in as_dict(modes).items():
            spec = as_dict(mode)
            if _adds_nothing(spec):
                yield _finding(
                    doc,
                    ("features", name, "modes", mode_name, "args"),
                    f"mode `{mode_name}` of feature `{name}`",
                )
        return
    if _adds_nothing(feature) and not as_dict(feature.get("env")) and not feature.get("companion"):
        yield _finding(doc, ("features", name, "args"), f"feature `{name}`")


def _adds_nothing(spec: dict[str, JsonValue]) -> bool:
    """An empty `args` list, and no hardware override that gives the toggle args elsewhere."""
    args = spec.get("args")
    if not isinstance(args, list) or args:
        return False
    overrides = as_dict(spec.get("hardware_overrides")).values()
    return not any(as_list(as_dict(override).get("args")) for override in overrides)


def _finding(doc: Document, pointer: Pointer, what: str) -> Finding:
    return Finding(
        doc,
        pointer,
        f"{what} has an empty `args` list: turning it on adds nothing to the command",
        "give it the flags it stands for, or remove it",
        code=EMPTY_TOGGLE,
    )
