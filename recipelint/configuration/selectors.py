"""Rule selectors as ``--select``/``--ignore`` and the configuration write them: parsing,
and the code a mistyped selector probably meant.

Below both the configuration (recipelint.configuration.config) and its file model
(recipelint.configuration.configmodel), which read selectors; it reads the rule catalog only.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable


class SelectorError(ValueError):
    """A rule selector (``--select``, ``ignore = [...]``) that names no rule of the catalog."""


def parse_code_selectors(values: Iterable[str]) -> tuple[str, ...]:
    """Rule codes and prefixes as ``--select``/``--ignore`` and the configuration give them.

    Each value may hold a comma-separated list (``"RL1,RL5"``, as ruff takes it); parts are
    trimmed and upper-cased, empty parts skipped, duplicates dropped, and ``ALL`` stands
    for every rule (returned as the prefix ``RL``). A part that no catalog code starts
    with raises SelectorError (a ValueError) naming it, with a did-you-mean where a code
    is close: a typo must not turn the check into one that silently runs nothing.
    """
    from recipelint.rulebook.catalog import load_rulebook

    codes = sorted(load_rulebook())
    selected: list[str] = []
    given = False
    for value in values:
        given = True
        for part in str(value).split(","):
            code = part.strip().upper()
            if not code:
                continue
            code = "RL" if code == "ALL" else code
            if not any(known.startswith(code) for known in codes):
                raise SelectorError(_unknown_selector(part.strip(), code, codes))
            if code not in selected:
                selected.append(code)
    if given and not selected:
        raise SelectorError(
            "no rule code given: name codes or prefixes such as RL101 or RL1, or ALL"
        )
    return tuple(selected)


def _unknown_selector(written: str, code: str, codes: list[str]) -> str:
    message = f"'{written}' matches no rule: no rule code starts with '{code}'"
    suggestion = closest_code(written, codes)
    if suggestion:
        message += f" (did you mean '{suggestion}'?)"
    return message + "; `recipelint rules` lists the codes (e.g. RL101, or the prefix RL1)"


def closest_code(written: str, codes: list[str]) -> str | None:
    """The code a mistyped selector probably meant: a rule's name, a letter O for a zero, one slip."""
    from recipelint.rulebook.catalog import load_rulebook

    by_name = {info.name: known for known, info in load_rulebook().items()}
    if written.strip().lower() in by_name:
        return by_name[written.strip().lower()]
    code = written.strip().upper()
    repaired = code.replace("O", "0")
    repaired = repaired if repaired.startswith("RL") else "RL" + repaired.lstrip("RL")
    if len(repaired) > 2 and any(known.startswith(repaired) for known in codes):
        return repaired
    close = difflib.get_close_matches(code, codes, n=1, cutoff=0.75)
    return close[0] if close else None
