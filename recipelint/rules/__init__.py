"""Rule checks: small pure functions over a loaded tree, registered by rule code.

``registry`` holds :class:`Finding` and the ``@check`` registry, ``context`` the
:class:`CheckContext` every check reads, ``common`` the helpers several families
share; each other module is one family of rules (references, args, vllm_flags, …).
"""

from __future__ import annotations

from recipelint.rules.context import CheckContext
from recipelint.rules.registry import FAMILY_MODULES, Finding, check, registered_checks

__all__ = ["FAMILY_MODULES", "CheckContext", "Finding", "check", "registered_checks"]
