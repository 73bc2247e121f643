"""The compact history file: first/last release of each flag, value and JSON key.

Built from the committed catalogs (oldest first) so that a finding can say
"added in 0.17.0" or "removed after 0.28.0" without loading every catalog.
"""

from __future__ import annotations

from collections.abc import Iterable

from recipelint.flags.catalog import version_key
from recipelint.flags.catalogfiles import FlagCatalogFile, HistoryFile, Span

HISTORY_FORMAT = 1


def build_history(catalogs: Iterable[FlagCatalogFile]) -> HistoryFile:
    ordered = sorted(catalogs, key=lambda c: version_key(c["version"]))
    if not ordered:
        raise ValueError("no catalogs to build a history from")
    flags: dict[str, Span] = {}
    values: dict[str, dict[str, Span]] = {}
    keys: dict[str, dict[str, Span]] = {}
    for catalog in ordered:
        version = catalog["version"]
        for name, entry in catalog["flags"].items():
            _seen(flags, name, version)
            for value in entry.get("choices", []) + entry.get("values", []):
                _seen(values.setdefault(name, {}), value, version)
            for key in entry.get("json_keys", {}):
                _seen(keys.setdefault(name, {}), key, version)
    return {
        "format": HISTORY_FORMAT,
        "package": ordered[0]["package"],
        "releases": [c["version"] for c in ordered],
        "flags": flags,
        "values": values,
        "json_keys": keys,
    }


def _seen(table: dict[str, Span], name: str, version: str) -> None:
    entry = table.get(name)
    if entry is None:
        table[name] = {"first": version, "last": version}
    else:
        entry["last"] = version
