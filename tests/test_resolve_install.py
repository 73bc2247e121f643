"""resolve.install: the install block the API publishes (docs/upstream-behaviour.md#install-synthesis),
the NVIDIA image its docker tab pulls, and what a recipe's install block says about the build it
runs."""

from __future__ import annotations

import pytest

from recipelint.resolve.install import builds_from_checkout, install_image, synthesize_install

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


LATEST = "vllm/vllm-openai:latest"
PIP = "uv venv\nsource .venv/bin/activate\nuv pip install -U vllm --torch-backend auto"


@pytest.mark.parametrize(
    ("image", "pulled"),
    [
        (None, LATEST),  # no image
        ("", LATEST),  # an empty one
        ("acme/vllm:1", "acme/vllm:1"),
        (["acme/vllm:1"], LATEST),  # neither a name nor a mapping
        (["nvidia"], LATEST),  # a list is no brand map, whatever it holds
        (5, LATEST),
        ({"nvidia": "acme/nv:1", "amd": "acme/rocm:1"}, "acme/nv:1"),
        ({"nvidia": {"cu129": "acme/nv:129"}, "amd": "acme/rocm:1"}, "acme/nv:129"),
        ({"amd": "acme/rocm:1"}, LATEST),  # a brand map without NVIDIA's
        ({"cu129": "acme/c:129", "cu130": "acme/c:130"}, "acme/c:130"),  # the base CUDA first
        ({"cu129": "acme/c:129"}, "acme/c:129"),
        ({"cu126": "acme/c:126"}, LATEST),  # a map of neither kind
    ],
)
def test_the_docker_tab_pulls_the_nvidia_image_of_any_form(image: object, pulled: str) -> None:
    model = {} if image is None else {"docker_image": image}
    assert install_image({"model": model}) == pulled
    assert synthesize_install({"model": model})["docker"] == {"command": f"docker pull {pulled}"}


def test_without_an_install_block_pip_and_docker_take_their_defaults() -> None:
    assert synthesize_install({"model": {}}) == {
        "pip": {"command": PIP},
        "docker": {"command": f"docker pull {LATEST}"},
    }


def test_a_nightly_recipe_installs_the_pre_release_and_says_why() -> None:
    pip = synthesize_install({"model": {"min_vllm_version": "0.99.0", "nightly_required": True}})
    assert pip is not None
    assert (
        "--pre" in pip["pip"]["command"] and "wheels.vllm.ai/nightly/cu130" in pip["pip"]["command"]
    )
    assert pip["pip"]["note"] == "vLLM 0.99.0 isn't released yet — nightly required."


def test_an_install_block_s_own_commands_and_notes_are_published() -> None:
    install = {
        "pip": {"command": "uv pip install acme", "note": "n1"},
        "docker": {"command": "docker pull acme", "note": "n2"},
    }
    assert synthesize_install({"model": {"install": install}}) == install


@pytest.mark.parametrize(
    ("install", "published"),
    [
        ({"pip": False}, {"docker": {"command": f"docker pull {LATEST}"}}),
        ({"docker": False}, {"pip": {"command": PIP}}),
        ({"pip": False, "docker": False}, None),  # nothing left: no install block at all
    ],
)
def test_false_switches_a_tab_off(install: dict[str, object], published: object) -> None:
    assert synthesize_install({"model": {"install": install}}) == published


@pytest.mark.parametrize(
    ("dependencies", "extras"),
    [([{"note": "n", "command": "c"}], [{"note": "n", "command": "c"}]), ([], None), ("c", None)],
)
def test_a_non_empty_dependency_list_is_published_as_extras(
    dependencies: object, extras: object
) -> None:
    found = synthesize_install({"model": {}, "dependencies": dependencies})
    assert found is not None and found.get("extras") == extras
