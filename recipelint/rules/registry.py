"""What a check reports (:class:`Finding`) and which rule codes each check function reports.

A family module (references, args, versions, …) decorates each check with
``@check("RL201")``, or with every code it reports when one pass over the data finds
problems of several rules (``@check("RL201", "RL202")``; each finding then names its
code). The engine calls every registered function once and routes each finding by its
code, so a family computes what its rules share once, inside one function.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from recipelint.diagnostics import Related, Span
from recipelint.lazy import import_own
from recipelint.read.load import Document
from recipelint.rules.common import Pointer

if TYPE_CHECKING:
    from recipelint.rules.context import CheckContext

# Imported on demand so that `recipelint check` of one file pays only for what runs. Only
# modules that register a check belong here: helpers (backends, commandplan, guide_*) are
# imported by the families that use them.
FAMILY_MODULES: tuple[str, ...] = (
    "recipelint.rules.references",
    "recipelint.rules.args",
    "recipelint.rules.vllm_flags",
    "recipelint.rules.resolved",
    "recipelint.rules.versions",
    "recipelint.rules.variants",
    "recipelint.rules.values",
    "recipelint.rules.guide",
    "recipelint.rules.guide_hardware",
    "recipelint.rules.security",
    "recipelint.rules.environment",
    "recipelint.rules.typography",
    "recipelint.rules.vocabulary",
    "recipelint.rules.conventions",
    "recipelint.rules.hardware_profiles",
    "recipelint.rules.deployment",
)


@dataclass(frozen=True)
class Finding:
    """One problem a check found: the document, the pointer to the value, what and how to fix it."""

    doc: Document
    pointer: Pointer
    message: str
    hint: str | None = None
    at_key: bool = False
    # The rule this is a finding of; a check registered for one code may leave it unset.
    code: str | None = None
    # An exact place inside the node at ``pointer`` (a line of a block scalar), when known.
    span: Span | None = None
    related: tuple[Related, ...] = ()


CheckFunction = Callable[["CheckContext"], Iterable[Finding]]


@dataclass(frozen=True)
class RegisteredCheck:
    """A check function and the rule codes its findings belong to."""

    function: CheckFunction
    codes: tuple[str, ...]

    def codes_of(self, finding: Finding) -> tuple[str, ...]:
        """The codes a finding is reported under: its own, else every code of the check."""
        if finding.code is None:
            return self.codes
        return (finding.code,) if finding.code in self.codes else ()


_REGISTRY: dict[CheckFunction, tuple[str, ...]] = {}


def check(*codes: str) -> Callable[[CheckFunction], CheckFunction]:
    """Registers a check function as the source of findings of ``codes``."""

    def register(function: CheckFunction) -> CheckFunction:
        known = _REGISTRY.get(function, ())
        _REGISTRY[function] = known + tuple(code for code in codes if code not in known)
        return function

    return register


def check_id(function: CheckFunction) -> str:
    """A check's name across runs (the check cache keeps findings under it)."""
    return f"{function.__module__}:{function.__qualname__}"


def registered_check(name: str) -> RegisteredCheck:
    """The check named ``name`` (:func:`check_id`), importing its family alone."""
    import_own(name.partition(":")[0])
    for function, codes in _REGISTRY.items():
        if check_id(function) == name:
            return RegisteredCheck(function, codes)
    raise KeyError(name)


def registered_checks(modules: Iterable[str] | None = None) -> list[RegisteredCheck]:
    """Every family's checks, in family order (with ``modules``, only the checks defined
    there, the other families left unimported); a family module that is missing is a broken
    install (:class:`recipelint.lazy.BrokenInstallError`), never a family left out."""
    wanted = None if modules is None else set(modules)
    for module in FAMILY_MODULES if wanted is None else sorted(wanted):
        import_own(module)
    return [
        RegisteredCheck(function, codes)
        for function, codes in _REGISTRY.items()
        if wanted is None or function.__module__ in wanted
    ]


def family_codes() -> dict[str, tuple[str, ...]]:
    """The rule codes the checks of each module report (every family imported to find out)."""
    found: dict[str, tuple[str, ...]] = {}
    for registered in registered_checks():
        module = registered.function.__module__
        found[module] = found.get(module, ()) + registered.codes
    return dict(sorted(found.items()))
