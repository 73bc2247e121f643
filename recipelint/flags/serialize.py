"""Deterministic, compact JSON for committed catalogs (stable diffs, small files)."""

from __future__ import annotations

import json
from typing import Any


def dump_json(data: dict[str, Any]) -> str:
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False) + "\n"
