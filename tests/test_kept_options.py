"""The flag options of a type (read from every release's catalog) are kept in the user's
cache: the same answer as reading the catalogs, read back without them."""

from __future__ import annotations

from pathlib import Path

import pytest

from recipelint.flags import catalog
from recipelint.rules.args import JSON_TYPES

TYPES = frozenset(JSON_TYPES)


def _unread(types: frozenset[str], package: str) -> frozenset[str]:
    raise AssertionError("the catalogs were read")


def test_options_of_a_type_are_kept_and_read_back(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("RECIPELINT_NO_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    read = catalog._options_of_type(TYPES, "vllm")
    assert read and catalog.options_of_type.__wrapped__(TYPES, "vllm") == read
    monkeypatch.setattr(catalog, "_options_of_type", _unread)
    assert catalog.options_of_type.__wrapped__(TYPES, "vllm") == read


def test_options_of_a_type_are_read_when_the_cache_is_off(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("RECIPELINT_NO_CACHE", "1")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert catalog.options_of_type.__wrapped__(TYPES, "vllm") == catalog._options_of_type(
        TYPES, "vllm"
    )
    assert not (tmp_path / "recipelint").exists()
