"""YAML dates: a date written unquoted is parsed by YAML into a date, not the string the
schema asks for; RL106 reads the source to tell the author (and the validators never see it)."""

from __future__ import annotations

import functools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

# A compiled validator answers "valid?" ~30x faster; the messages still come from jsonschema.
from recipelint.schema.builtin import INVALID_DATE, YAML_DATE
from recipelint.schema.messages import ErrorContext, SchemaFinding, resolve_ref
from recipelint.schema.validators import schema_for

# ----------------------------------------------------------------------------- dates in the source


@dataclass(frozen=True)
class _DatePlan:
    """Where a date can sit at or under one schema: the children the walk steps into
    (None for a child under which none can)."""

    is_date: bool
    named: dict[str, Any]  # every property, whether or not a date can sit under it
    extra: Any  # additionalProperties
    items: Any


class _DateSchema:
    """Where dates can sit in one kind's schema, worked out once per subschema.

    Subschemas are keyed by id and kept beside their answer, so an id stays their own.
    """

    def __init__(self, root: dict[str, Any]) -> None:
        self.root = root
        self._holds: dict[int, tuple[Any, bool]] = {}
        self._plans: dict[int, tuple[Any, _DatePlan | None]] = {}

    def may_hold(self, schema: Any) -> bool:
        """Whether a date can sit at or under ``schema`` (False prunes the walk)."""
        cached = self._holds.get(id(schema))
        if cached is not None and cached[0] is schema:
            return cached[1]
        # A $ref cycle in progress: assume it can (never prunes wrongly).
        self._holds[id(schema)] = (schema, True)
        resolved = resolve_ref(self.root, schema)
        holds = False
        if isinstance(resolved, dict):
            extra = resolved.get("additionalProperties")
            properties = resolved.get("properties", {})
            children = list(properties.values()) if isinstance(properties, dict) else []
            children += [sub for sub in (extra, resolved.get("items")) if isinstance(sub, dict)]
            holds = resolved.get("format") == "date" or any(map(self.may_hold, children))
        self._holds[id(schema)] = (schema, holds)
        return holds

    def plan(self, schema: Any) -> _DatePlan | None:
        cached = self._plans.get(id(schema))
        if cached is not None and cached[0] is schema:
            return cached[1]
        resolved = resolve_ref(self.root, schema) if self.may_hold(schema) else None
        plan = None
        if isinstance(resolved, dict):
            properties = resolved.get("properties", {})
            named = properties if isinstance(properties, dict) else {}
            plan = _DatePlan(
                resolved.get("format") == "date",
                {key: self._holding(sub) for key, sub in named.items()},
                self._holding(resolved.get("additionalProperties")),
                self._holding(resolved.get("items")),
            )
        self._plans[id(schema)] = (schema, plan)
        return plan

    def _holding(self, schema: Any) -> Any:
        return schema if isinstance(schema, dict) and self.may_hold(schema) else None

    def pointers(
        self, schema: Any, value: Any, pointer: tuple[Any, ...]
    ) -> Iterator[tuple[Any, ...]]:
        """Pointers of the values whose schema is a date (fixed keys and map values only)."""
        plan = self.plan(schema)
        if plan is None:
            return
        if plan.is_date and isinstance(value, str):
            yield pointer
        if isinstance(value, dict):
            for key, child in value.items():
                sub = plan.named.get(key, plan.extra)
                if sub is not None:
                    yield from self.pointers(sub, child, pointer + (key,))
        elif isinstance(value, list) and plan.items is not None:
            for index, child in enumerate(value):
                yield from self.pointers(plan.items, child, pointer + (index,))


@functools.lru_cache(maxsize=64)  # as schema_for's: one per kind and overlay
def _date_schema(kind: str, overlay: str = "") -> _DateSchema:
    return _DateSchema(schema_for(kind, overlay))


def written_dates(ctx: ErrorContext) -> Iterator[SchemaFinding]:
    """Dates js-yaml silently changes: 2026-02-30 rolls over, a timestamp shifts to UTC."""
    dates = _date_schema(ctx.doc.kind, ctx.overlay)
    for pointer in dates.pointers(dates.root, ctx.doc.data, ()):
        value = _get(ctx.doc.data, pointer)
        if not isinstance(value, str):
            continue
        written = ctx.doc.one_line_source(pointer).strip().strip("'\"")
        if not written or written == value:
            continue
        span = ctx.doc.span(pointer)
        if YAML_DATE.match(written):
            message = f"'{pointer[-1]}' is {written}, which is not a calendar day (the compiler reads it as {value})"
        else:
            message = f"'{pointer[-1]}' is the timestamp {written}; the compiler keeps only its UTC day, {value}"
        yield ctx.diagnostic(INVALID_DATE, span, message, "write a real day as YYYY-MM-DD", pointer)


def _get(data: Any, pointer: Sequence[str | int]) -> Any:
    for part in pointer:
        data = data[part]
    return data
