"""Every catalog entry is well formed, and every example reports what it documents.

A failing example reports its rule's code, a passing one does not, and neither
reports anything else but the codes its ``also`` names.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from catalog_harness import CONTEXT, run_example

from recipelint.rulebook.catalog import Example, load_rulebook
from recipelint.rulebook.examples import fragment_changes

CATALOG = load_rulebook()
EXAMPLES = [
    pytest.param(info.code, kind, example, id=f"{info.code}-{kind}-{n}")
    for info in CATALOG.values()
    for kind, examples in (("failing", info.failing), ("passing", info.passing))
    for n, example in enumerate(examples)
]


def test_catalog_entries_are_well_formed() -> None:
    assert CATALOG, "the catalog is empty"
    for code, info in CATALOG.items():
        assert re.fullmatch(r"RL\d{3}", code), code
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", info.name), info.name
        assert info.summary, f"{code} has no summary"
        assert info.rationale, f"{code} has no rationale"


def test_rule_names_are_unique() -> None:
    names = [info.name for info in CATALOG.values()]
    assert len(names) == len(set(names))


def test_every_rule_has_a_failing_example_or_says_why_not() -> None:
    for code, info in CATALOG.items():
        assert bool(info.failing) != bool(info.no_example), (
            f"{code}: give a failing example, or `no_example:` saying why no file can show it"
        )


def test_the_codes_examples_also_report_are_rules() -> None:
    for info in CATALOG.values():
        for example in info.failing + info.passing:
            assert set(example.also) <= set(CATALOG), f"{info.code}: {example.also}"
            assert info.code not in example.also, f"{info.code} names itself in `also`"


def test_fragments_change_only_what_they_show() -> None:
    """Every fragment names the keys it is about; the rest comes from the base document."""
    for info in CATALOG.values():
        for example in info.failing + info.passing:
            for file in (example, *example.beside):
                if file.is_fragment:
                    changed, removed = fragment_changes(file.path, file.text)
                    assert changed or removed, f"{info.code}: a fragment that changes nothing"


@pytest.mark.skipif(
    not (CONTEXT / "taxonomy.yaml").is_file(), reason="recipes/ context tree missing"
)
@pytest.mark.parametrize(("code", "kind", "example"), EXAMPLES)
def test_example(code: str, kind: str, example: Example, tmp_path: Path) -> None:
    codes = {d.code for d in run_example(example, tmp_path)}
    expected = set(example.also) | ({code} if kind == "failing" else set())
    assert codes == expected, f"{code} {kind} example reported {sorted(codes)}"
