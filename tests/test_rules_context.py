"""The check context's shared indexes: what each hardware key of a recipe applies to."""

from __future__ import annotations

from pathlib import Path

import yaml

from recipelint.read.tree import load_tree
from recipelint.rules.context import CheckContext

PROFILES = {
    "h100": {"brand": "NVIDIA", "generation": "hopper"},
    "b200": {"brand": "NVIDIA", "generation": ["blackwell", "b-series"]},
    "mi300x": {"brand": "AMD", "gpu_generation": "cdna3"},
    "odd": "not a mapping",
}


def _context(tmp_path: Path) -> CheckContext:
    (tmp_path / "models").mkdir()
    taxonomy = yaml.safe_dump({"hardware_profiles": PROFILES})
    (tmp_path / "taxonomy.yaml").write_text(taxonomy, encoding="utf-8")
    return CheckContext(load_tree(tmp_path))


def test_a_hardware_key_applies_to_the_profiles_it_names(tmp_path: Path) -> None:
    ctx = _context(tmp_path)
    assert ctx.hardware_members("nvidia") == {"h100", "b200"}
    assert ctx.hardware_members("blackwell") == ctx.hardware_members("b-series") == {"b200"}
    assert ctx.hardware_members("cdna3") == {"mi300x"}  # the older spelling of the field
    assert ctx.hardware_members("odd") == {"odd"}  # an id names its profile, whatever it holds
    # Tables key brands in lower case; an unknown key names nothing; `default` and no key, all.
    assert ctx.hardware_members("NVIDIA") == frozenset()
    assert ctx.hardware_members("h200") == frozenset()
    assert ctx.hardware_members("default") is None and ctx.hardware_members(None) is None


def test_brands_and_generations_of_the_taxonomy(tmp_path: Path) -> None:
    ctx = _context(tmp_path)
    assert ctx.brands == {"nvidia", "amd"}
    assert ctx.generations == {"hopper", "blackwell", "b-series", "cdna3"}
