"""Format verdicts: whether a value is of a schema format, as jsonschema's format checker
says (its `date` rejects year 0000, the compiled validator's does not).

Asking jsonschema means importing it (~80 ms), on every check of a file with a date, though
a tree's dates rarely change. Its verdicts on dates are kept between runs as one entry of
the user's cache (recipelint.checkcache.user_values), under recipelint's version, Python's
and the source of jsonschema's format checks: a valid document whose dates were seen
before is validated without importing jsonschema. The entry holds at most MAX_VERDICTS.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import sys
from pathlib import Path
from typing import Any

from recipelint.checkcache import user_values

# Only formats whose checks need no optional dependency: their verdict is a function of
# jsonschema's source and Python's alone.
KEPT_FORMATS = frozenset({"date"})
MAX_VERDICTS = 4096
_ENTRY = b"format-verdicts"
Verdicts = dict[tuple[str, str], bool]


def checked_by_jsonschema(name: str, value: Any) -> bool:
    # Imported when a value is first checked: a schema naming a format need not import it.
    from jsonschema import Draft202012Validator

    return bool(Draft202012Validator.FORMAT_CHECKER.conforms(value, name))


class FormatVerdicts:
    """jsonschema's verdicts on the values of the kept formats, remembered; ``save`` keeps
    the new ones in the user's cache."""

    def __init__(self, folder: Path | None, source: bytes) -> None:
        self._store = user_values() if folder is not None else None
        self._source = source
        kept = self._store.value(_ENTRY, source) if self._store is not None else None
        self._verdicts: Verdicts = kept if _are_verdicts(kept) else {}  # type: ignore[assignment]
        self._new = False

    def conforms(self, name: str, value: Any) -> bool:
        if name not in KEPT_FORMATS or type(value) is not str:
            return checked_by_jsonschema(name, value)
        found = self._verdicts.get((name, value))
        if found is None:
            found = checked_by_jsonschema(name, value)
            if len(self._verdicts) >= MAX_VERDICTS:
                del self._verdicts[next(iter(self._verdicts))]  # the oldest goes
            self._verdicts[(name, value)] = found
            self._new = True
        return found

    def save(self) -> None:
        """Keep the verdicts in the user's cache when some are new (once per stage, not per value)."""
        if self._new and self._store is not None:
            self._store.keep_value(_ENTRY, self._source, self._verdicts)
        self._new = False


def _are_verdicts(kept: object) -> bool:
    return isinstance(kept, dict) and all(
        type(key) is tuple
        and len(key) == 2
        and all(type(part) is str for part in key)
        and type(verdict) is bool
        for key, verdict in kept.items()
    )


def format_verdicts() -> FormatVerdicts:
    """This process's verdicts, kept in the user's cache unless it is off (RECIPELINT_NO_CACHE)."""
    store = user_values()
    return _verdicts_in(None if store is None else store.folder)


# One per user cache folder (None: the cache is off), a bounded cache as the validators' are.
@functools.lru_cache(maxsize=4)
def _verdicts_in(folder: Path | None) -> FormatVerdicts:
    return FormatVerdicts(folder, _checker_source() if folder is not None else b"")


def _checker_source() -> bytes:
    """What a verdict is a function of: the versions, and jsonschema's format checks, read
    from its source without importing it."""
    digest = hashlib.sha256(f"{sys.version}\0".encode())
    spec = importlib.util.find_spec("jsonschema")
    for folder in (spec.submodule_search_locations or []) if spec is not None else []:
        try:
            digest.update((Path(folder) / "_format.py").read_bytes())
        except OSError:
            digest.update(b"-")
    return digest.digest()
