"""Format verdicts kept between runs (recipelint.schema.formats): the same verdicts as
jsonschema's, read back without asking it, at most MAX_VERDICTS of them, and none kept
when the cache is off."""

from __future__ import annotations

from pathlib import Path

import pytest

from recipelint.checkcache import user_values
from recipelint.schema import formats
from recipelint.schema.formats import FormatVerdicts, checked_by_jsonschema, format_verdicts

DATES = ["2026-01-15", "2026-02-30", "0000-01-01", "2026-11-29T10:00:00Z", "26-1-1", "", "x"]


@pytest.fixture
def user_cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    monkeypatch.delenv("RECIPELINT_NO_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    store = user_values()
    assert store is not None
    return store.folder


def _unasked(name: str, value: object) -> bool:
    raise AssertionError(f"jsonschema asked about {value!r}")


def test_kept_verdicts_are_jsonschemas_and_are_read_back_without_it(
    user_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = FormatVerdicts(user_cache, b"source")
    assert [first.conforms("date", v) for v in DATES] == [
        checked_by_jsonschema("date", v) for v in DATES
    ]
    first.save()
    monkeypatch.setattr(formats, "checked_by_jsonschema", _unasked)
    again = FormatVerdicts(user_cache, b"source")
    assert [again.conforms("date", v) for v in DATES] == [
        True,
        False,
        False,
        False,
        False,
        False,
        False,
    ]
    # Another jsonschema's (or Python's) checks: nothing is read back.
    with pytest.raises(AssertionError, match="asked"):
        FormatVerdicts(user_cache, b"another source").conforms("date", DATES[0])


def test_other_formats_and_values_are_always_asked(user_cache: Path) -> None:
    verdicts = FormatVerdicts(user_cache, b"source")
    assert verdicts.conforms("email", "a@b.c") == checked_by_jsonschema("email", "a@b.c")
    assert verdicts.conforms("date", 20260115) is True  # a format applies to strings only
    verdicts.save()
    assert not list(user_cache.glob("*")), "nothing new to keep"


def test_at_most_max_verdicts_are_kept(user_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(formats, "MAX_VERDICTS", 3)
    verdicts = FormatVerdicts(user_cache, b"source")
    for day in range(1, 10):
        verdicts.conforms("date", f"2026-01-{day:02}")
    verdicts.save()
    monkeypatch.setattr(formats, "checked_by_jsonschema", _unasked)
    again = FormatVerdicts(user_cache, b"source")
    assert [again.conforms("date", f"2026-01-{day:02}") for day in (7, 8, 9)] == [True] * 3
    with pytest.raises(AssertionError, match="asked"):
        again.conforms("date", "2026-01-06")


def test_no_verdict_is_kept_when_the_cache_is_off(
    user_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RECIPELINT_NO_CACHE", "1")
    verdicts = format_verdicts()
    assert verdicts.conforms("date", "2026-03-04") is True
    verdicts.save()
    assert not user_cache.exists() or not list(user_cache.glob("*"))
