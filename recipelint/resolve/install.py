"""The `model.install` block the API publishes: pip, docker and extras commands.

Upstream: docs/upstream-behaviour.md#install-synthesis.
"""

from __future__ import annotations

import re

from recipelint.jsvalue import (
    UNDEFINED,
    JsonDocument,
    JsonValue,
    JsValue,
    get,
    js_or,
    js_string,
    truthy,
)
from recipelint.read.recipedata import Recipe
from recipelint.resolve.docker import is_cuda_map

LATEST_IMAGE = "vllm/vllm-openai:latest"
BASE_CUDA = "cu130"
_PIP_DEFAULT = "uv venv\nsource .venv/bin/activate\nuv pip install -U vllm --torch-backend auto"
_PIP_NIGHTLY = (
    "uv venv\nsource .venv/bin/activate\nuv pip install -U vllm --pre \\\n"
    f"  --extra-index-url https://wheels.vllm.ai/nightly/{BASE_CUDA} \\\n"
    f"  --extra-index-url https://download.pytorch.org/whl/{BASE_CUDA} \\\n"
    "  --index-strategy unsafe-best-match"
)


def _from_cuda_map(table: dict[str, JsonValue]) -> JsValue:
    return js_or(table.get(BASE_CUDA), table.get("cu129"), table.get("cu130"), LATEST_IMAGE)


def install_image(recipe: Recipe) -> JsValue:
    """The NVIDIA image the install tab pulls (nightly_required is not consulted upstream)."""
    image = get(recipe.get("model", UNDEFINED), "docker_image")
    if not truthy(image):
        return LATEST_IMAGE
    if type(image) is str:
        return image
    if not isinstance(image, dict):
        return LATEST_IMAGE
    if any(k in image for k in ("nvidia", "amd", "tpu", "intel")):
        nvidia = image.get("nvidia", UNDEFINED)
        if type(nvidia) is str:
            return nvidia
        return _from_cuda_map(nvidia) if is_cuda_map(nvidia) else LATEST_IMAGE
    return _from_cuda_map(image) if is_cuda_map(image) else LATEST_IMAGE


def synthesize_install(recipe: Recipe) -> JsonDocument | None:
    """pip, then docker, then extras (= `dependencies`); None when all are switched off."""
    model = recipe.get("model", UNDEFINED)
    config = js_or(get(model, "install"), {})
    pip, docker = get(config, "pip"), get(config, "docker")
    version = js_or(get(model, "min_vllm_version"), "")
    nightly = get(model, "nightly_required") is True
    out: JsonDocument = {}
    if pip is not False:
        command = js_or(
            get(pip, "command") if truthy(pip) else pip, _PIP_NIGHTLY if nightly else _PIP_DEFAULT
        )
        default_note = (
            f"vLLM {js_string(version)} isn't released yet — nightly required."
            if nightly
            else UNDEFINED
        )
        note = js_or(get(pip, "note") if truthy(pip) else pip, default_note)
        out["pip"] = {"command": command, "note": note} if truthy(note) else {"command": command}
    if docker is not False:
        command = js_or(
            get(docker, "command") if truthy(docker) else docker,
            "docker pull " + js_string(install_image(recipe)),
        )
        note = get(docker, "note") if truthy(docker) else docker
        out["docker"] = {"command": command, "note": note} if truthy(note) else {"command": command}
    dependencies = recipe.get("dependencies", UNDEFINED)
    if type(dependencies) is list and dependencies:
        out["extras"] = dependencies
    return out or None


# `git clone --depth 1 https://github.com/vllm-project/vllm-omni.git`: the package built from
# its main branch, not a release. The name ends the repository path (`vllm` is not
# `vllm-omni`); options may come first, within the one command.
_CLONE = "git clone\\b[^\\n;&|]*?/{name}(?:\\.git)?(?![\\w.-])"


def builds_from_checkout(recipe: Recipe, package: str) -> bool:
    """Whether the recipe's install (its pip command or a dependency step) builds ``package``
    from a clone of its repository: the main branch, newer than every release."""
    try:
        install = synthesize_install(recipe)
    except (TypeError, ValueError):
        return False  # a malformed install block is the schema stage's finding
    steps = [get(get(install, "pip"), "command")]
    extras = get(install, "extras")
    steps += [get(step, "command") for step in (extras if isinstance(extras, list) else [])]
    clone = re.compile(_CLONE.format(name=re.escape(package)), re.IGNORECASE)
    return any(isinstance(step, str) and clone.search(step) for step in steps)
