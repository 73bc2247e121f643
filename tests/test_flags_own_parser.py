"""The catalog's value sets against each release's own argparse code (opt-in, needs local sources).

With RECIPELINT_VLLM_CACHE set (see tests/test_flags_reextract.py), the release's own
``StoreBoolean`` action and ``nullable_str`` converter (``optional_type(str)`` in 0.8.5,
which dropped ``nullable_str``) are lifted out of its sources and run in a real
``argparse`` parser; every probe value must be accepted exactly when the committed
catalog says ``ok``. Those helpers import nothing beyond the standard library, so vLLM
itself is never imported.
"""

from __future__ import annotations
import __future__

import argparse
import ast
import contextlib
import io
import json
import os
import re
from pathlib import Path
from typing import Any

import pytest

from recipelint.flags.catalog import available_versions, load_catalog

CACHE = os.environ.get("RECIPELINT_VLLM_CACHE")
pytestmark = pytest.mark.skipif(not CACHE, reason="RECIPELINT_VLLM_CACHE is not set")

PROBES = ("true", "false", "True", "FALSE", "maybe", "1", "None", "")


def _release_definition(version: str, name: str) -> Any:
    """Exec the release's own top-level definition of ``name`` (found in any module)."""
    assert CACHE is not None
    root = Path(CACHE) / f"vllm-{version}" / "vllm"
    if not root.is_dir():
        pytest.skip(f"vllm {version} is not unpacked in {CACHE}")
    for path in sorted(root.rglob("*.py")):
        text = path.read_text(encoding="utf-8", errors="replace")
        if f"class {name}(" not in text and f"def {name}(" not in text:
            continue
        for node in ast.parse(text).body:
            if isinstance(node, (ast.ClassDef, ast.FunctionDef)) and node.name == name:
                namespace: dict[str, Any] = {
                    "argparse": argparse,
                    "Action": argparse.Action,
                    "json": json,
                    "re": re,
                }
                module = ast.Module(body=[node], type_ignores=[])
                # Annotations stay unevaluated: they name typing helpers the module imported.
                flags = __future__.annotations.compiler_flag
                code = compile(module, str(path), "exec", flags=flags)
                exec(code, namespace)  # noqa: S102 - stdlib-only helper
                return namespace[name]
    return None


def _accepts(parser: argparse.ArgumentParser, argv: list[str]) -> bool:
    with contextlib.redirect_stderr(io.StringIO()):
        try:
            parser.parse_args(argv)
        except (SystemExit, ValueError):
            return False
    return True


@pytest.mark.parametrize(
    "version",
    [
        v
        for v in available_versions()
        if any(s.choices_any_case for s in load_catalog(v).flags.values())
    ],
)
def test_boolean_switch_values_match_the_release_action(version: str) -> None:
    action = _release_definition(version, "StoreBoolean")
    assert action is not None
    catalog = load_catalog(version)
    for name, spec in catalog.flags.items():
        if not spec.choices_any_case:
            continue
        parser = argparse.ArgumentParser()
        nargs = "?" if spec.value == "optional" else None
        parser.add_argument(name, action=action, nargs=nargs, const="True")
        if spec.value == "optional":
            assert _accepts(parser, [name])
        for probe in PROBES:
            expected = catalog.value_status(name, probe) == "ok"
            assert _accepts(parser, [name, probe]) == expected, (version, name, probe)


@pytest.mark.parametrize(
    "version",
    [
        v
        for v in available_versions()
        if any(s.choices and "None" in s.choices for s in load_catalog(v).flags.values())
        and v.startswith(("0.5.", "0.6.", "0.7.", "0.8."))
    ],
)
def test_none_choice_matches_the_release_converter(version: str) -> None:
    convert = _release_definition(version, "nullable_str")
    if convert is None:
        # 0.8.5 replaced nullable_str with optional_type(str), which maps "None" and "" to None.
        optional_type = _release_definition(version, "optional_type")
        assert optional_type is not None
        convert = optional_type(str)
    catalog = load_catalog(version)
    for name, spec in catalog.flags.items():
        if not spec.choices or "None" not in spec.choices:
            continue
        # The release builds these choices as its method names plus None.
        choices = [None if c == "None" else c for c in spec.choices]
        parser = argparse.ArgumentParser()
        parser.add_argument(name, type=convert, choices=choices)
        for probe in ("None", spec.choices[-1], "no-such-method"):
            expected = catalog.value_status(name, probe) == "ok"
            assert _accepts(parser, [name, probe]) == expected, (version, name, probe)
