"""RL411–RL413: what the upstream contributor docs tie to a release or an install method.

The recipes repository's CONTRIBUTING.md, CLAUDE.md and add-recipe skill say when some
fields belong: `omni.serve_binary` only for recipes pinned below vLLM 0.20.0 (RL411),
`nightly_required` only while `min_vllm_version` has not shipped (RL413). The install
block they describe installs vLLM from a wheel (`uv pip install -U vllm`), which holds
no source checkout, so an argument naming a file of one cannot be opened (RL412).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from recipelint.flags.catalog import NIGHTLY, available_versions, version_key, written_release
from recipelint.flags.env_catalog import env_releases
from recipelint.jsvalue import JsonValue
from recipelint.read.load import Document
from recipelint.resolve.install import synthesize_install
from recipelint.resolve.layers import is_omni
from recipelint.rules.common import Pointer, as_dict
from recipelint.rules.context import CheckContext
from recipelint.rules.registry import Finding, check

SERVE_BINARY, SOURCE_PATH, NIGHTLY_SHIPPED = "RL411", "RL412", "RL413"
# The release whose `vllm` console script hands `--omni` to vllm-omni (CLAUDE.md, `omni`).
OMNI_DELEGATES = "0.20.0"
# Top-level folders of the vLLM repository that a wheel does not install: a relative path
# into one only exists in a source checkout. `vllm/` is the package itself, which a wheel
# installs into site-packages, never below the working directory.
CHECKOUT_PATH = re.compile(
    r"^(?:\./)?(?:(?:examples|benchmarks|tools|tests)/[^\s=]+\.\w+|vllm/[^\s=]+\.py)$"
)
# An install command that builds from a clone leaves the checkout in the working directory.
CLONES_VLLM = re.compile(r"git clone\s+\S*vllm", re.IGNORECASE)


# -- RL411 omni.serve_binary ------------------------------------------------------------------


@check(SERVE_BINARY)
def serve_binary_past_its_release(ctx: CheckContext) -> Iterator[Finding]:
    for doc in ctx.recipes:
        data = as_dict(doc.data)
        if "serve_binary" not in as_dict(data.get("omni")):
            continue
        minimum = written_release(as_dict(data.get("model")).get("min_vllm_version"))
        if minimum is None or (
            minimum != NIGHTLY and version_key(minimum) < version_key(OMNI_DELEGATES)
        ):
            continue
        yield Finding(
            doc,
            ("omni", "serve_binary"),
            f"omni.serve_binary is set, but min_vllm_version is {minimum}: from vLLM "
            f"{OMNI_DELEGATES} on, `vllm serve --omni` hands the model to vllm-omni itself",
            "remove serve_binary (the contributor docs keep it for recipes pinned below "
            f"{OMNI_DELEGATES})",
            at_key=True,
        )


# -- RL412 paths of a source checkout -----------------------------------------------------------


@check(SOURCE_PATH)
def source_checkout_paths(ctx: CheckContext) -> Iterator[Finding]:
    for doc in ctx.recipes:
        data = as_dict(doc.data)
        if is_omni(data):
            continue  # upstream renders no command for an omni recipe
        package = _package_install(data)
        if package is None:
            continue
        for arg_list in ctx.arg_lists_of(doc):
            for index, item in enumerate(arg_list.items):
                path = _checkout_path(item)
                if path is not None:
                    yield _source_path_finding(doc, arg_list.at(index), path, package)


def _package_install(data: dict[str, JsonValue]) -> str | None:
    """The pip command when it installs vLLM from a package (not from a clone), else None."""
    try:
        install = synthesize_install(data)
    except (TypeError, ValueError):
        return None  # a malformed install block is the schema stage's finding
    command = as_dict(as_dict(install).get("pip")).get("command")
    if not isinstance(command, str) or CLONES_VLLM.search(command):
        return None
    return command


def _checkout_path(item: object) -> str | None:
    if not isinstance(item, str):
        return None
    value = item.split("=", 1)[1] if item.startswith("-") and "=" in item else item
    return value if CHECKOUT_PATH.match(value) else None


def _source_path_finding(doc: Document, pointer: Pointer, path: str, command: str) -> Finding:
    folder = path.removeprefix("./").split("/", 1)[0]
    installs = command.strip().splitlines()[-1].strip().rstrip("\\").strip()
    return Finding(
        doc,
        pointer,
        f"`{path}` is a path inside a vLLM source checkout, but the recipe installs vLLM from "
        f"a package (`{installs}`), which puts no {folder}/ folder in the working directory: "
        "vLLM cannot open the file",
        "add a `dependencies` step that downloads the file and point the argument at it, "
        "or use what the package ships",
        code=SOURCE_PATH,
    )


# -- RL413 nightly_required after the release ------------------------------------------------


def _shipped(version: str) -> bool:
    """Whether a catalogued vLLM release carries exactly this version."""
    key = version_key(version)
    releases = {*env_releases(), *available_versions()}
    return any(version_key(release) == key for release in releases)


@check(NIGHTLY_SHIPPED)
def nightly_after_release(ctx: CheckContext) -> Iterator[Finding]:
    for doc in ctx.recipes:
        data = as_dict(doc.data)
        model = as_dict(data.get("model"))
        places: list[tuple[Pointer, dict[str, JsonValue]]] = [(("model",), model)]
        places += [
            (("variants", name), as_dict(variant))
            for name, variant in as_dict(data.get("variants")).items()
        ]
        for pointer, holder in places:
            if holder.get("nightly_required") is not True:
                continue
            version = written_release(holder.get("min_vllm_version", model.get("min_vllm_version")))
            if version is not None and version != NIGHTLY and _shipped(version):
                yield Finding(
                    doc,
                    (*pointer, "nightly_required"),
                    f"nightly_required is set, but vLLM {version} (min_vllm_version) has been "
                    "released: the install block still sends readers to nightly wheels and "
                    f"says {version} isn't released yet",
                    "remove nightly_required, or raise min_vllm_version to the release that "
                    "brings what the recipe needs (the contributor docs set it only while "
                    "min_vllm_version has not shipped)",
                    at_key=True,
                    code=NIGHTLY_SHIPPED,
                )
