"""Every catalog entry is well formed, and every example behaves as documented."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from catalog_harness import CONTEXT, run_example

from recipelint.rulebook import load_catalog

CATALOG = load_catalog()
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


@pytest.mark.skipif(
    not (CONTEXT / "taxonomy.yaml").is_file(), reason="recipes/ context tree missing"
)
@pytest.mark.parametrize(("code", "kind", "example"), EXAMPLES)
def test_example(code: str, kind: str, example, tmp_path: Path) -> None:
    codes = [d.code for d in run_example(example, tmp_path)]
    if kind == "failing":
        assert code in codes, f"{code} failing example did not raise it; got {codes}"
    else:
        assert code not in codes, f"{code} passing example raised it"
