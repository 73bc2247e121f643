"""Deterministic, compact JSON for committed catalogs (stable diffs, small files)."""

from __future__ import annotations

import json
from collections.abc import Mapping


def dump_json(data: Mapping[str, object]) -> str:
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False) + "\n"
