"""`recipelint show` on generated recipes: its attribution is the compiler's own join.

For every rendering a generated recipe publishes for its default variant (the recommended
strategy on each hardware, and every alternative), the combination `show` chooses renders
the same `vllm serve` argvs; the tokens it keeps, laid end to end, are each argv after
`vllm serve MODEL`; every token it attributes to a list is that list's item at the index
it names; and the env it keeps is the rendered env, each variable from the mapping it names.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given
from test_properties_recipes import (
    HARDWARE,
    HF_ID,
    RENDER_PROFILE,
    base_catalog,
    recipes,
    to_yaml,
    with_recipe,
)
from test_show import _argvs

from recipelint.compiler import Compiler, OutputMap
from recipelint.resolve.attribution import AttributedCommand, Token
from recipelint.showing import Loaded, build_view, choose

CATALOG = base_catalog()


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
    loaded = Loaded(tree, CATALOG, doc, HF_ID)
    for hardware in HARDWARE:
        for strategy, rendering in _published(files, hardware).items():
            view = build_view(loaded, choose(loaded, "default", hardware, strategy))
            commands = [section.command for section in view.sections]  # type: ignore[attr-defined]
            assert [c.argv for c in commands] == _argvs(rendering), (hardware, strategy)
            for command in commands:
                _assert_attributed(command, rendering)
