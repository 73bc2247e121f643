"""resolve.install: what a recipe's install block says about the build it runs."""

from __future__ import annotations

import pytest

from recipelint.resolve.install import builds_from_checkout

CLONE_OMNI = "git clone --depth 1 https://github.com/vllm-project/vllm-omni.git /path/to/vllm-omni"


@pytest.mark.parametrize(
    ("command", "package", "builds"),
    [
        (CLONE_OMNI, "vllm-omni", True),  # options before the URL (the replay's PR 742)
        (CLONE_OMNI, "vllm", False),  # vllm-project/ and vllm-omni are not vllm
        ("git clone -b main https://github.com/vllm-project/vllm && cd vllm", "vllm", True),
        ("git clone https://github.com/vllm-project/vllm.git", "vllm", True),
        ("git clone https://github.com/acme/tools && uv pip install vllm", "vllm", False),
        ("uv pip install vllm==0.26.0", "vllm", False),
    ],
)
def test_a_dependency_that_clones_the_package_builds_its_main_branch(
    command: str, package: str, builds: bool
) -> None:
    recipe = {"dependencies": [{"note": "n", "command": command}]}
    assert builds_from_checkout(recipe, package) is builds


def test_the_pip_command_counts_too_and_a_malformed_block_builds_nothing() -> None:
    clone = "git clone https://github.com/vllm-project/vllm\ncd vllm\nuv pip install -e ."
    assert builds_from_checkout({"model": {"install": {"pip": {"command": clone}}}}, "vllm")
    assert not builds_from_checkout({"model": {"install": "pip"}}, "vllm")
    assert not builds_from_checkout({"dependencies": "git clone x/vllm"}, "vllm")
