"""The `vllm serve` argument list as an algebra of units, with upstream's dedupe semantics.

Upstream builds a command line by concatenating argument layers (base args,
variant args, strategy flags, overrides, features) and then deduplicating
last-wins (docs/upstream-behaviour.md#layer-order and #last-wins-dedupe). This module models that:

* :func:`parse` turns tokens into :class:`Unit` values. Falsy tokens (``""``,
  ``0``, ``False``, ``None``, NaN) are dropped first, as JS ``filter(Boolean)``
  does. A string starting with ``-`` is a flag; the next token is its value
  unless it is a flag too. Anything else is a positional.
* :func:`dedupe` keeps every positional and, for each flag (identity is the
  exact flag text, so ``--x=1``/``--x``/``--foo_bar``/``--foo-bar`` are all
  distinct), only its last occurrence, at that occurrence's position.
* :func:`merge` is dedupe over concatenated unit lists. On units it is
  associative and idempotent (a left-regular band): see docs/properties.md.
* :func:`merge_tokens` is what the compiler computes: one dedupe over the
  concatenated *tokens* of all layers. It differs from unit-level merging only
  where a layer (or a deduped result) ends with a bare flag and the next token
  is a non-flag: parsing then glues that token to the flag as its value.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Final

from recipelint.jsvalue import truthy


class _NoValue:
    """Marks a bare flag; distinct from every token (None is a token upstream drops)."""

    _instance: _NoValue | None = None

    def __new__(cls) -> _NoValue:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "NO_VALUE"


NO_VALUE: Final = _NoValue()


@dataclass(frozen=True, slots=True)
class Unit:
    """A flag with a value, a bare flag (value NO_VALUE) or a positional (flag None)."""

    flag: str | None
    value: Any = NO_VALUE

    @property
    def is_positional(self) -> bool:
        return self.flag is None

    @property
    def is_bare(self) -> bool:
        return self.flag is not None and self.value is NO_VALUE

    def tokens(self) -> list[Any]:
        if self.flag is None:
            return [self.value]
        return [self.flag] if self.value is NO_VALUE else [self.flag, self.value]


def flag(name: str, value: Any = NO_VALUE) -> Unit:
    return Unit(name, value)


def positional(value: Any) -> Unit:
    return Unit(None, value)


def is_flag_token(token: Any) -> bool:
    """Upstream's test: only a *string* starting with `-` is a flag (so `-1` is one too)."""
    return type(token) is str and token.startswith("-")


def parse(tokens: Iterable[Any]) -> list[Unit]:
    """Tokens -> units, left to right, after dropping JS-falsy tokens."""
    kept = [token for token in tokens if truthy(token)]
    units: list[Unit] = []
    index = 0
    while index < len(kept):
        token = kept[index]
        following = kept[index + 1] if index + 1 < len(kept) else NO_VALUE
        if not is_flag_token(token):
            units.append(positional(token))
            index += 1
        elif following is not NO_VALUE and not is_flag_token(following):
            units.append(flag(token, following))
            index += 2
        else:
            units.append(flag(token))
            index += 1
    return units


def dedupe(units: Sequence[Unit]) -> list[Unit]:
    """Positionals all kept; each flag kept only at its last occurrence; order preserved."""
    seen: set[str] = set()
    keep: list[bool] = []
    for unit in reversed(units):
        # A positional is always kept; a flag only the first time it is met from the right.
        keep.append(unit.flag is None or unit.flag not in seen)
        if unit.flag is not None:
            seen.add(unit.flag)
    keep.reverse()
    return [unit for unit, kept in zip(units, keep, strict=False) if kept]


def merge(*layers: Sequence[Unit]) -> list[Unit]:
    """Later layers override earlier ones flag by flag; positionals accumulate."""
    return dedupe([unit for layer in layers for unit in layer])


def tokens(units: Iterable[Unit]) -> list[Any]:
    return [token for unit in units for token in unit.tokens()]


def dedupe_tokens(args: Iterable[Any]) -> list[Any]:
    """Upstream's `dedupeArgs(args.filter(Boolean))`, token list in, token list out."""
    return tokens(dedupe(parse(args)))


def merge_tokens(*layers: Sequence[Any]) -> list[Any]:
    """What the compiler does with its argument layers: concatenate, then dedupe once."""
    return dedupe_tokens([token for layer in layers for token in layer])


def flags(units: Iterable[Unit]) -> list[str]:
    """The flag names of ``units``, in order, repeats included."""
    return [unit.flag for unit in units if unit.flag is not None]
