"""The package's own modules, imported when first needed, never quietly absent.

Commands, rule families and the schema stage are imported on demand, so that checking
one file pays only for what runs. A module of recipelint (or a dependency it declares)
that cannot be found is a broken install: :func:`import_own` raises
:class:`BrokenInstallError`, which the command line reports as an internal error with
exit status 2. Skipping it instead would report fewer findings and exit 0.
"""

from __future__ import annotations

import importlib
from types import ModuleType


class BrokenInstallError(RuntimeError):
    """A module recipelint needs is missing from the installation."""

    def __init__(self, missing: str, wanted: str) -> None:
        super().__init__(missing, wanted)  # both in args: the error survives pickling
        self.missing = missing
        self.wanted = wanted

    def __str__(self) -> str:
        needed = "" if self.missing == self.wanted else f" (needed by {self.wanted})"
        return (
            f"the module {self.missing}{needed} is missing: recipelint is not installed "
            "completely; reinstall it"
        )


def import_own(name: str) -> ModuleType:
    """``importlib.import_module(name)``; a missing module raises :class:`BrokenInstallError`."""
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        raise BrokenInstallError(exc.name or name, name) from exc
