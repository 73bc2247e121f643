"""The package list in pyproject.toml is written by hand; keep it complete."""

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_every_source_package_is_listed() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    listed = set(config["tool"]["setuptools"]["packages"])
    on_disk = {
        ".".join(init.parent.relative_to(ROOT).parts)
        for init in (ROOT / "recipelint").rglob("__init__.py")
    }
    assert on_disk - listed == set()
