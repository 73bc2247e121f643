"""`recipelint show` on generated recipes: its attribution is the compiler's own join.

Below, the same for token lists: :func:`recipelint.argv.unit_fates` is the dedupe told unit
by unit.

For every rendering a generated recipe publishes for its default variant (the recommended
strategy on each hardware, and every alternative), the combination `show` chooses renders
the same `vllm serve` argvs; the tokens it keeps, laid end to end, are each argv after
`vllm serve MODEL`; every token it attributes to a list is that list's item at the index
it names; and the env it keeps is the rendered env, each variable from the mapping it names.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given
from test_properties_argv import PROFILE as ARGV_PROFILE
from test_properties_argv import js_truthy, reference_dedupe, token_lists, typed
from test_properties_recipes import (
    HARDWARE,
    HF_ID,
    RENDER_PROFILE,
    base_inputs,
    recipes,
    to_yaml,
    with_recipe,
)
from test_show import _argvs

from recipelint.argv import is_flag_token, unit_fates
from recipelint.compile.compiler import Compiler, OutputMap
from recipelint.report.showing import CommandSection, Loaded, build_view, choose
from recipelint.resolve.attribution import AttributedCommand, Token

INPUTS = base_inputs()


def _published(files: OutputMap, hardware: str) -> dict[str, Any]:
    """The default variant's renderings on one hardware, by strategy name ({} when none)."""
    path = f"{HF_ID}/hw/{hardware}.json"
    if path not in files:
        return {}
    recommended = files.document(path)
    found = {recommended["strategy"]: recommended}
    for name, link in recommended.get("alternatives", {}).items():
        found[name] = files.document(link.lstrip("/"))
    return found


def _from_its_list(token: Token) -> bool:
    """The token is its list's item at the index the source names (the emitter's tokens aside)."""
    layer = token.source.layer
    return layer is None or layer.items[token.source.key] is token.value


def _rendered_env(rendering: dict[str, Any], command: AttributedCommand) -> Any:
    return rendering[command.role]["env"] if command.role else rendering["env"]


def _assert_attributed(command: AttributedCommand, rendering: dict[str, Any]) -> None:
    assert command.args.deduped() == command.argv[3:], command.label
    for unit in command.args.units:
        assert all(_from_its_list(token) for token in unit.tokens), unit
        if unit.replaced_by is not None:
            assert unit.replaced_by.kept and unit.replaced_by.values[0] == unit.values[0]
    assert all(_from_its_list(token) for token in command.args.falsy)
    for assignment in command.env:
        layer = assignment.source.layer
        assert layer is None or layer.items[assignment.name] is assignment.value
    kept = {a.name: a.value for a in command.env if a.kept}
    assert kept == _rendered_env(rendering, command), command.label


@RENDER_PROFILE
@given(recipes())
def test_show_keeps_the_rendered_argv_and_attributes_each_token_to_its_list(
    generated: dict[str, Any],
) -> None:
    tree, doc = with_recipe(to_yaml(generated))
    files = Compiler[OutputMap](tree).run().files
    loaded = Loaded(tree, INPUTS, doc, HF_ID)
    for hardware in HARDWARE:
        for strategy, rendering in _published(files, hardware).items():
            view = build_view(loaded, choose(loaded, "default", hardware, strategy))
            commands = [s.command for s in view.sections if isinstance(s, CommandSection)]
            assert [c.argv for c in commands] == _argvs(rendering), (hardware, strategy)
            for command in commands:
                _assert_attributed(command, rendering)


@ARGV_PROFILE
@given(token_lists)
def test_unit_fates_keep_the_dedupe_and_name_each_dropped_units_winner(tokens: list[Any]) -> None:
    """The units tile the truthy tokens; the kept ones are the dedupe; a dropped unit's
    replacer is a kept unit of the same flag after it."""
    kept = [token for token in tokens if js_truthy(token)]
    fates = unit_fates(kept)
    assert [token for start, stop, _ in fates for token in kept[start:stop]] == kept
    assert all(unit[1] == after[0] for unit, after in zip(fates, fates[1:], strict=False))
    survivors = [kept[start:stop] for start, stop, replacer in fates if replacer is None]
    assert typed([token for unit in survivors for token in unit]) == typed(reference_dedupe(tokens))
    for index, (start, _stop, replacer) in enumerate(fates):
        if replacer is not None:
            assert is_flag_token(kept[start]) and replacer > index
            assert fates[replacer][2] is None and kept[fates[replacer][0]] == kept[start]
