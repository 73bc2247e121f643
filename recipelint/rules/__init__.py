"""Rule checks: small pure functions over a loaded tree, registered by rule code.

A family module (references, args, versions, …) decorates each check with
``@check("RL201")``.  A check yields :class:`Finding` objects; the engine turns
them into diagnostics with the catalog's default severity and the document's spans.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from recipelint.diagnostics import Related, Span
from recipelint.lazy import import_own
from recipelint.load import Document

# Imported on demand so that `recipelint check` of one file pays only for what runs.
FAMILY_MODULES: tuple[str, ...] = (
    "recipelint.rules.references",
    "recipelint.rules.args",
    "recipelint.rules.flags_catalog",
    "recipelint.rules.resolved",
    "recipelint.rules.versions",
    "recipelint.rules.variants",
    "recipelint.rules.values",
    "recipelint.rules.guide",
    "recipelint.rules.security",
)


@dataclass(frozen=True)
class Finding:
    doc: Document
    pointer: tuple[str | int, ...]
    message: str
    hint: str | None = None
    at_key: bool = False
    # A check registered for several codes names the one it reports.
    code: str | None = None
    # An exact place inside the node at ``pointer`` (a line of a block scalar), when known.
    span: Span | None = None
    related: tuple[Related, ...] = ()


CheckFunction = Callable[["CheckContext"], Iterable[Finding]]  # noqa: F821 (defined in engine)

_REGISTRY: dict[str, list[CheckFunction]] = {}


def check(*codes: str) -> Callable[[CheckFunction], CheckFunction]:
    def register(function: CheckFunction) -> CheckFunction:
        for code in codes:
            _REGISTRY.setdefault(code, []).append(function)
        return function

    return register


def registered_checks() -> dict[str, list[CheckFunction]]:
    """Every family's checks by code; a family module that is missing is a broken
    install (:class:`recipelint.lazy.BrokenInstallError`), never a family left out."""
    for module in FAMILY_MODULES:
        import_own(module)
    return _REGISTRY
