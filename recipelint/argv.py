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
* :func:`dedupe_tokens` is the same dedupe, token list in, token list out, and the
  one the renderer calls for every command: it shares parse's tokeniser and
  dedupe's last-wins rule but builds no :class:`Unit` objects.
* :func:`unit_fates` is that dedupe told unit by unit: which unit replaces each dropped one
  (what `recipelint show` reports).
* :func:`merge_tokens` is what the compiler computes: one dedupe over the
  concatenated *tokens* of all layers. It differs from unit-level merging only
  where a layer (or a deduped result) ends with a bare flag and the next token
  is a non-flag: parsing then glues that token to the flag as its value.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
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
    return [_unit(kept, name, start, stop) for name, start, stop in _spans(kept)]


def _spans(kept: Sequence[Any]) -> Iterator[tuple[str | None, int, int]]:
    """The one tokeniser: (flag, or None for a positional; start; stop) over JS-truthy tokens.

    A flag takes the next token as its value unless that one is a flag too.
    """
    index, count = 0, len(kept)
    while index < count:
        token = kept[index]
        if not is_flag_token(token):
            yield None, index, index + 1
            index += 1
        elif index + 1 < count and not is_flag_token(kept[index + 1]):
            yield token, index, index + 2
            index += 2
        else:
            yield token, index, index + 1
            index += 1


def flag_values(tokens: Sequence[Any]) -> Iterator[tuple[int, str, Any]]:
    """(position in ``tokens``, flag, value or NO_VALUE) of every flag parse reads, without
    building units: for readers that look for a few flags in many commands."""
    positions = [index for index, token in enumerate(tokens) if truthy(token)]
    kept = [tokens[index] for index in positions]
    for name, start, stop in _spans(kept):
        if name is not None:
            yield positions[start], name, kept[start + 1] if stop - start == 2 else NO_VALUE


def _unit(kept: Sequence[Any], name: str | None, start: int, stop: int) -> Unit:
    if name is None:
        return Unit(None, kept[start])
    return Unit(name, kept[start + 1]) if stop - start == 2 else Unit(name)


def _survivors(names: Sequence[str | None]) -> list[int]:
    """Indices a last-wins dedupe keeps: every positional (None) and each flag's last occurrence."""
    seen: set[str] = set()
    kept: list[int] = []
    for index in range(len(names) - 1, -1, -1):
        name = names[index]
        if name is not None:
            if name in seen:
                continue
            seen.add(name)
        kept.append(index)
    kept.reverse()
    return kept


def dedupe(units: Sequence[Unit]) -> list[Unit]:
    """Positionals all kept; each flag kept only at its last occurrence; order preserved."""
    return [units[index] for index in _survivors([unit.flag for unit in units])]


def merge(*layers: Sequence[Unit]) -> list[Unit]:
    """Later layers override earlier ones flag by flag; positionals accumulate."""
    return dedupe([unit for layer in layers for unit in layer])


def tokens(units: Iterable[Unit]) -> list[Any]:
    """The units laid end to end as a token list (what :meth:`Unit.tokens` gives, joined)."""
    out: list[Any] = []
    for unit in units:  # Unit.tokens inlined: a list per unit would cost more than the join
        if unit.flag is None:
            out.append(unit.value)
        elif unit.value is NO_VALUE:
            out.append(unit.flag)
        else:
            out += (unit.flag, unit.value)
    return out


def dedupe_tokens(args: Iterable[Any]) -> list[Any]:
    """Upstream's `dedupeArgs(args.filter(Boolean))`, token list in, token list out.

    Equal to ``tokens(dedupe(parse(args)))`` and built from the same tokeniser and
    last-wins rule, but without :class:`Unit` objects, which cost more than the rest
    of the dedupe: the renderer calls this for thousands of lists per compile.
    """
    kept: list[Any] = []
    seen: set[str] = set()
    repeated = False
    for token in args:
        if type(token) is str:  # nearly every token: skip the generic truthy() for them
            if not token:
                continue
            if token[0] == "-":
                if token in seen:
                    repeated = True
                seen.add(token)
        elif not truthy(token):
            continue
        kept.append(token)
    if not repeated:
        return kept  # dedupe keeps every unit when no flag repeats
    spans = list(_spans(kept))
    out: list[Any] = []
    for index in _survivors([name for name, _, _ in spans]):
        _, start, stop = spans[index]
        out += kept[start:stop]
    return out


def unit_fates(kept: Sequence[Any]) -> list[tuple[int, int, int | None]]:
    """Each unit of ``kept`` (tokens that are all JS-truthy) as ``(start, stop, replacer)``:
    its tokens are ``kept[start:stop]``, and ``replacer`` is the position in this list of the
    unit that replaces it in the last-wins dedupe (None when the dedupe keeps it).

    The survivors' tokens, laid end to end, are :func:`dedupe_tokens` of ``kept``; this says
    which unit of a later layer dropped each of the others.
    """
    spans = list(_spans(kept))
    survivors = _survivors([name for name, _, _ in spans])
    winner = {spans[index][0]: index for index in survivors}
    kept_units = set(survivors)
    return [
        (start, stop, None if index in kept_units or name is None else winner[name])
        for index, (name, start, stop) in enumerate(spans)
    ]


def merge_tokens(*layers: Sequence[Any]) -> list[Any]:
    """What the compiler does with its argument layers: concatenate, then dedupe once."""
    return dedupe_tokens([token for layer in layers for token in layer])


def flags(units: Iterable[Unit]) -> list[str]:
    """The flag names of ``units``, in order, repeats included."""
    return [unit.flag for unit in units if unit.flag is not None]
