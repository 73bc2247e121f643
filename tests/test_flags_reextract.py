"""Re-extract every committed catalog from its release and compare (opt-in, needs local sources).

Set RECIPELINT_VLLM_CACHE to a folder holding unpacked releases named
``vllm-<version>/`` and ``vllm-omni-<version>/`` (each containing the ``vllm/`` or
``vllm_omni/`` package) or the wheels themselves; docs/flags.md shows how to fill it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from recipelint.flags.env_catalog import ENV_CATALOG
from recipelint.flags.envs import era_table, extract_env, release_table
from recipelint.flags.extract import extract_catalog
from recipelint.flags.hardware import HARDWARE_CATALOG, extract_hardware

RULES = Path(__file__).resolve().parent.parent / "rules" / "vllm"
CACHE = os.environ.get("RECIPELINT_VLLM_CACHE")

pytestmark = pytest.mark.skipif(not CACHE, reason="RECIPELINT_VLLM_CACHE is not set")


def _source(package: str, version: str) -> Path | None:
    assert CACHE is not None
    root = Path(CACHE)
    folder = root / f"{package}-{version}"
    if folder.is_dir():
        return folder
    wheels = sorted(root.glob(f"{package.replace('-', '_')}-{version}-*.whl"))
    return wheels[0] if wheels else None


def _committed() -> list[tuple[str, str, Path]]:
    out = []
    for path in sorted(RULES.glob("*.json")):
        if path.name.endswith("-history.json") or path.name in (ENV_CATALOG, HARDWARE_CATALOG):
            continue
        data = json.loads(path.read_text())
        out.append((data["package"], data["version"], path))
    return out


@pytest.mark.parametrize(
    ("package", "version", "path"), _committed(), ids=lambda v: str(getattr(v, "name", v))
)
def test_reextraction_matches_committed(package: str, version: str, path: Path) -> None:
    source = _source(package, version)
    if source is None:
        pytest.skip(f"{package} {version} is not in {CACHE}")
    with_vllm = _source("vllm", version) if package == "vllm-omni" else None
    if package == "vllm-omni" and with_vllm is None:
        pytest.skip(f"vllm {version} (needed by vllm-omni {version}) is not in {CACHE}")
    assert extract_catalog(source, with_vllm) == json.loads(path.read_text())


def _env_releases() -> list[str]:
    return list(json.loads((RULES / ENV_CATALOG).read_text())["releases"])


@pytest.mark.parametrize("version", _env_releases())
def test_env_reextraction_matches_committed(version: str) -> None:
    source = _source("vllm", version)
    if source is None:
        pytest.skip(f"vllm {version} is not in {CACHE}")
    committed = json.loads((RULES / ENV_CATALOG).read_text())
    assert extract_env(source) == release_table(committed, version)


@pytest.mark.parametrize("version", _env_releases())
def test_hardware_reextraction_matches_committed(version: str) -> None:
    source = _source("vllm", version)
    if source is None:
        pytest.skip(f"vllm {version} is not in {CACHE}")
    committed = json.loads((RULES / HARDWARE_CATALOG).read_text())
    table = extract_hardware(source)
    assert table["entries"] == era_table(committed, "entries", version)
