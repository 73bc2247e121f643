"""The rule stage (recipelint.check.engine): every check function runs once, and each
finding is kept under its code when the configuration enables that code.

Rules that share one reading of the data (the layer rules RL340/RL341 and the backend rules
RL370-RL373 read one plan of each recipe's commands; the guide rules RL601-RL606 read each
guide once) report the same whichever of them are selected: selecting only some of them
neither drops nor changes the findings of the others. Work the rules share or skip across
recipes gives what the plain computation gives: copies of a recipe get the findings each
would get alone.
"""

from __future__ import annotations

import re
import shutil
from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest

from recipelint.check import engine
from recipelint.check.engine import run_checks
from recipelint.configuration.config import Config
from recipelint.diagnostics import Diagnostic
from recipelint.read.tree import load_tree
from recipelint.rules import registry
from recipelint.rules.context import CheckContext
from recipelint.rules.registry import CheckFunction, Finding, registered_checks


def _count_calls(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """Wraps every registered check so that its calls are counted by module.function."""
    calls: Counter[str] = Counter()
    wrapped: dict[CheckFunction, tuple[str, ...]] = {}
    for entry in registered_checks():
        name = f"{entry.function.__module__}.{entry.function.__name__}"

        def counted(
            ctx: CheckContext, function: CheckFunction = entry.function, name: str = name
        ) -> Iterable[Finding]:
            calls[name] += 1
            return function(ctx)

        wrapped[counted] = entry.codes
    monkeypatch.setattr(registry, "_REGISTRY", wrapped)
    return calls


def test_every_check_runs_once_whatever_codes_it_reports(
    monkeypatch: pytest.MonkeyPatch, embedded_tree: Path
) -> None:
    checks = registered_checks()
    assert any(len(entry.codes) > 1 for entry in checks)
    calls = _count_calls(monkeypatch)
    engine.run_checks(load_tree(embedded_tree))
    assert len(calls) == len(checks)
    assert set(calls.values()) == {1}


def test_a_check_whose_codes_are_all_off_does_not_run(
    monkeypatch: pytest.MonkeyPatch, embedded_tree: Path
) -> None:
    calls = _count_calls(monkeypatch)
    found = engine.run_checks(load_tree(embedded_tree), Config(select=("RL340",)))
    assert calls == Counter({"recipelint.rules.resolved.resolved_commands": 1})
    assert {d.code for d in found} <= {"RL340"}


def _route(monkeypatch: pytest.MonkeyPatch, root: Path, config: Config) -> list[tuple[str, str]]:
    tree = load_tree(root)
    doc = tree.recipes[0]

    def mixed(ctx: CheckContext) -> Iterator[Finding]:
        yield Finding(doc, ("meta",), "names RL301", code="RL301")
        yield Finding(doc, ("meta",), "names RL303", code="RL303")
        yield Finding(doc, ("meta",), "names no code")
        yield Finding(doc, ("meta",), "names a code its check does not report", code="RL999")

    # Every family imported first: one imported under the stand-in registry would register
    # its checks there and be lost to every later test of the process.
    registered_checks()
    monkeypatch.setattr(registry, "_REGISTRY", {mixed: ("RL301", "RL303")})
    found = engine._rule_problems(CheckContext(tree, config))
    return sorted((d.code, d.message) for d in found)


def test_each_finding_goes_to_its_code(
    monkeypatch: pytest.MonkeyPatch, embedded_tree: Path
) -> None:
    assert _route(monkeypatch, embedded_tree, Config()) == [
        ("RL301", "names RL301"),
        ("RL301", "names no code"),
        ("RL303", "names RL303"),
        ("RL303", "names no code"),
    ]


def test_a_finding_of_a_code_switched_off_is_dropped(
    monkeypatch: pytest.MonkeyPatch, embedded_tree: Path
) -> None:
    assert _route(monkeypatch, embedded_tree, Config(ignore=("RL303",))) == [
        ("RL301", "names RL301"),
        ("RL301", "names no code"),
    ]


def test_every_finding_names_a_code_its_check_reports(
    monkeypatch: pytest.MonkeyPatch, corpus_tree: Path
) -> None:
    """A finding of a code its check did not register would be dropped without a word."""
    strays: list[tuple[str, str | None]] = []
    wrapped: dict[CheckFunction, tuple[str, ...]] = {}
    for entry in registered_checks():

        def checked(
            ctx: CheckContext,
            function: CheckFunction = entry.function,
            codes: tuple[str, ...] = entry.codes,
        ) -> Iterator[Finding]:
            for finding in function(ctx):
                if finding.code is None and len(codes) > 1 or finding.code not in (None, *codes):
                    strays.append((function.__name__, finding.code))
                yield finding

        wrapped[checked] = entry.codes
    monkeypatch.setattr(registry, "_REGISTRY", wrapped)
    assert engine.run_checks(load_tree(corpus_tree))
    assert strays == []


def test_every_family_module_registers_a_check() -> None:
    """A listed family that registers nothing is imported by every check for nothing, and
    a module missing from the list would have its checks silently never run."""
    families = {entry.function.__module__ for entry in registered_checks()}
    assert families == set(registry.FAMILY_MODULES)


SHARED_READINGS = (
    ("RL340", "RL341", "RL370", "RL371", "RL372", "RL373"),
    ("RL601", "RL602", "RL603", "RL604", "RL605", "RL606"),
)


def _shown(found: list[Diagnostic], codes: set[str]) -> list[tuple[str, str, int, int, str]]:
    return sorted(
        (d.code, str(d.path), d.span.line, d.span.column, d.message)
        for d in found
        if d.code in codes
    )


@pytest.mark.parametrize("which", ["corpus_tree", "edge_tree", "embedded_tree"])
@pytest.mark.parametrize("codes", SHARED_READINGS)
def test_each_rule_of_a_shared_reading_reports_alone_what_it_reports_with_the_others(
    which: str, codes: tuple[str, ...], request: pytest.FixtureRequest
) -> None:
    tree = load_tree(request.getfixturevalue(which))
    together = _shown(engine.run_checks(tree, Config(select=codes)), set(codes))
    alone = [
        finding
        for code in codes
        for finding in _shown(engine.run_checks(tree, Config(select=(code,))), {code})
    ]
    assert sorted(alone) == together


MEMOISED_CODES = ("RL340", "RL341", "RL370", "RL371", "RL372", "RL373", "RL604", "RL605", "RL606")


COPIED = (
    "deepseek-ai/DeepSeek-V4-Flash.yaml",
    "deepseek-ai/DeepSeek-V4-Pro.yaml",
    "Qwen/Qwen3-32B.yaml",
    "nvidia/NVIDIA-Nemotron-3.5-Lightning-30B-A3B-BF16.yaml",
)


def _tree_with(root: Path, corpus: Path, recipes: dict[str, str]) -> Path:
    root.mkdir()
    for name in ("taxonomy.yaml", "platforms.yaml"):
        shutil.copy(corpus / name, root / name)
    for folder in ("strategies", "kv_store"):
        shutil.copytree(corpus / folder, root / folder)
    for rel, text in recipes.items():
        (root / "models" / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / "models" / rel).write_text(text, encoding="utf-8")
    return root


def _copy_of(text: str) -> str:
    """Another checkpoint of the same recipe, laid out differently: every line moves down."""
    moved = re.sub(r'(model_id: *"?)([^/"\s]+)/', r"\1\2-copy/", text)
    return "# a copy of the recipe, served from other repositories\n\n" + moved


def _memoised_findings(root: Path, org: str) -> list[tuple[Any, ...]]:
    found = run_checks(load_tree(root), Config(select=MEMOISED_CODES))
    return [
        (d.path.name, d.code, d.span, d.message, d.hint, d.pointer)
        for d in found
        if d.path.parent.name == org
    ]


def test_copies_of_a_recipe_get_the_findings_each_would_get_alone(
    tmp_path: Path, corpus_tree: Path
) -> None:
    originals = {rel: (corpus_tree / "models" / rel).read_text(encoding="utf-8") for rel in COPIED}
    copies = {f"copy-{rel}": _copy_of(text) for rel, text in originals.items()}
    together = _tree_with(tmp_path / "together", corpus_tree, {**originals, **copies})
    alone = _tree_with(tmp_path / "alone", corpus_tree, copies)
    for org in {rel.split("/")[0] for rel in COPIED}:
        expected = _memoised_findings(alone, f"copy-{org}")
        assert expected or org == "Qwen"
        assert _memoised_findings(together, f"copy-{org}") == expected
