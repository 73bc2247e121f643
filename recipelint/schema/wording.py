"""The words of schema messages: a value's JSON type and short rendering, quoting on one
line, and the did-you-mean for a misspelt key or value."""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from typing import Any

# A compiled validator answers "valid?" ~30x faster; the messages still come from jsonschema.


def json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return "unknown"


def shown_value(value: Any) -> str:
    """A short, YAML-like rendering of a value for messages."""
    kind = json_type(value)
    if kind == "string":
        text = value if len(value) <= 40 else value[:37] + "..."
        return f"the string '{text}'"
    if kind in ("integer", "number"):
        return f"the number {value}"
    if kind == "boolean":
        return "true" if value else "false"
    if kind == "null":
        return "null (an empty value)"
    return "a mapping" if kind == "object" else "a list"


_CONTROL_CHARACTERS = re.compile(r"[\x00-\x1f\x7f]")
_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def one_line(text: str) -> str:
    """Keys and values quoted from the document, with line breaks and control characters escaped,
    so every schema message is one printable line whatever the document holds."""
    return _CONTROL_CHARACTERS.sub(
        lambda m: _ESCAPES.get(m.group(), f"\\x{ord(m.group()):02x}"), text
    )


def suggest(word: str, choices: Sequence[Any]) -> str | None:
    texts = [str(choice) for choice in choices if isinstance(choice, str)]
    lowered = {text.lower(): text for text in texts}
    if word.lower() in lowered and lowered[word.lower()] != word:
        return lowered[word.lower()]
    close = difflib.get_close_matches(word, texts, n=1, cutoff=0.7)
    return close[0] if close else None


def _normal_key(key: str) -> str:
    return key.lower().replace("-", "_")


def _edits(a: str, b: str) -> int:
    """Optimal string alignment distance: insertions, deletions, substitutions, adjacent swaps."""
    previous2: list[int] = []
    previous = list(range(len(b) + 1))
    for i, x in enumerate(a, start=1):
        current = [i] + [0] * len(b)
        for j, y in enumerate(b, start=1):
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (x != y))
            if i > 1 and j > 1 and x == b[j - 2] and a[i - 2] == y:
                current[j] = min(current[j], previous2[j - 2] + 1)
        previous2, previous = previous, current
    return previous[-1]


def suggest_key(key: str, allowed: Sequence[str]) -> str | None:
    """A known key the unknown one is a misspelling of: same up to case and -/_, or one slip
    (two on a key of 8+ characters). Anything further may be a new field with its own
    meaning, and naming a different key would send the author the wrong way."""
    wanted = _normal_key(key)
    budget = 0 if len(wanted) < 4 else 1 if len(wanted) < 8 else 2
    best: tuple[int, str] | None = None
    for name in allowed:
        distance = _edits(wanted, _normal_key(name))
        if distance <= budget and (best is None or distance < best[0]):
            best = (distance, name)
    return best[1] if best else None
