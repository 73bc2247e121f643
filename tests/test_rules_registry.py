"""recipelint/rules/registry.py: checks registered by the module that defines them, found again
by their id (the check cache's key) and listed by family."""

from __future__ import annotations

import pytest

from recipelint.rules import deployment
from recipelint.rules.registry import (
    RegisteredCheck,
    check,
    check_id,
    family_codes,
    registered_check,
)


def test_registering_a_check_leaves_the_function_itself() -> None:
    def probe(ctx: object) -> list[object]:
        return []

    assert check("RL999")(probe) is probe


def test_a_check_is_found_again_by_its_id() -> None:
    name = check_id(deployment.deployments)
    assert name == "recipelint.rules.deployment:deployments"
    assert registered_check(name) == RegisteredCheck(deployment.deployments, deployment.CODES)
    with pytest.raises(KeyError):
        registered_check("recipelint.rules.deployment:no_such_check")


def test_family_codes_list_every_family_in_module_order() -> None:
    families = family_codes()
    assert list(families) == sorted(families)
    assert families["recipelint.rules.deployment"] == deployment.CODES
