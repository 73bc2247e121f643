"""The container image for a (recipe, variant, hardware) and the `docker run` wrappers.

Upstream: docs/upstream-behaviour.md#docker-image, #docker-run and #docker-env-unquoted.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeGuard

from recipelint.jsvalue import (
    UNDEFINED,
    JsonDocument,
    JsonValue,
    JsValue,
    get,
    js_string,
    nullish,
    truthy,
)
from recipelint.read.recipedata import Recipe

_DEFAULT_IMAGES = {
    "nvidia": "vllm/vllm-openai:latest",
    "amd": "vllm/vllm-openai-rocm:latest",
    "tpu": "vllm/vllm-tpu:latest",
    "intel": "vllm/vllm-openai-cpu:latest-x86_64",
}
# Upstream publishes no nightly CPU image, so nightly Intel CPU has no image at all.
_NIGHTLY_IMAGES = {
    "nvidia": "vllm/vllm-openai:nightly",
    "amd": "vllm/vllm-openai-rocm:nightly",
    "tpu": "vllm/vllm-tpu:nightly",
}
XPU_IMAGE = "vllm/vllm-openai-xpu:latest"
VLLM_IMAGES = "vllm/"  # the project's own images: vllm-openai, -rocm, -tpu, …
_BRAND_KEYS = ("nvidia", "amd", "tpu", "intel")

_GPU_FLAGS = {
    "tpu": (
        "--privileged --network host \\\n  -v /dev/shm:/dev/shm",
        ("--privileged", "--network", "host", "-v", "/dev/shm:/dev/shm"),
    ),
    "amd": (
        "--device=/dev/kfd --device=/dev/dri \\\n  --security-opt seccomp=unconfined --group-add video",
        (
            "--device=/dev/kfd",
            "--device=/dev/dri",
            "--security-opt",
            "seccomp=unconfined",
            "--group-add",
            "video",
        ),
    ),
    "xpu": (
        "--device /dev/dri \\\n  -v /dev/dri/by-path:/dev/dri/by-path --shm-size=16g",
        ("--device", "/dev/dri", "-v", "/dev/dri/by-path:/dev/dri/by-path", "--shm-size", "16g"),
    ),
    "intel": ("--shm-size=16g", ("--shm-size", "16g")),
    "nvidia": ("--gpus all", ("--gpus", "all")),
}


# --- image references ---------------------------------------------------------------------

VERSION = re.compile(r"^v?(\d+)\.(\d+)\.(\d+)(?:rc(\d+))?(?:\.post(\d+))?(?:\.dev(\d+))?")
# distribution/reference grammar: [domain[:port]/]path[:tag][@digest]
_COMPONENT = r"[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*"
_DOMAIN = r"(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)*(?::[0-9]+)?"
IMAGE_REFERENCE = re.compile(
    rf"^(?:(?P<domain>{_DOMAIN})/)?(?P<path>{_COMPONENT}(?:/{_COMPONENT})*)"
    r"(?::(?P<tag>[\w][\w.-]{0,127}))?(?:@(?P<digest>[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9A-Fa-f]{32,}))?$"
)


@dataclass(frozen=True, order=True)
class Version:
    major: int
    minor: int
    patch: int
    final: int  # 1 for a release, 0 for rc/dev pre-releases
    rc: int
    post: int
    text: str = ""

    @property
    def released(self) -> bool:
        return bool(self.final)


def parse_version(text: object) -> Version | None:
    if not isinstance(text, str):
        return None
    match = VERSION.match(text)
    if not match:
        return None
    major, minor, patch, rc, post, dev = match.groups()
    final = 0 if rc is not None or dev is not None else 1
    return Version(int(major), int(minor), int(patch), final, int(rc or 0), int(post or 0), text)


def split_image(reference: str) -> tuple[str, str | None]:
    """(repository, tag) of a reference; the tag is None when only a digest or nothing pins it."""
    match = IMAGE_REFERENCE.match(reference)
    if not match:
        return reference, None
    repo = (match["domain"] + "/" if match["domain"] else "") + match["path"]
    return repo, match["tag"]


# An env's (name, value) pairs, as the docker parts are worked out (and cached) from them.
EnvItems = tuple[tuple[str, JsonValue], ...]


@dataclass(frozen=True)
class DockerMeta:
    image: JsValue  # a string, or UNDEFINED when no image exists for this hardware
    gpu_flags: str
    gpu_argv: tuple[str, ...]


def is_cuda_map(value: object) -> TypeGuard[dict[str, JsonValue]]:
    return type(value) is dict and ("cu129" in value or "cu130" in value)


def image_key(variant: JsValue, profile: JsValue, hw_id: str | None) -> tuple[bool, ...] | None:
    """What docker_meta reads of the hardware, when the variant pins no image for its id:
    equal keys give equal results for one recipe and variant. None when it pins one."""
    if hw_id and type(get(get(get(variant, "hardware_overrides"), hw_id), "docker_image")) is str:
        return None
    brand = get(profile, "brand")
    generation = get(profile, "generation")
    return (
        brand == "AMD",
        brand == "Intel",
        generation == "tpu",
        generation == "xpu",
        generation == "cpu",
    )


def docker_meta(
    recipe: Recipe, variant: JsValue, profile: JsValue, hw_id: str | None
) -> DockerMeta:
    """Image precedence: exact-hardware variant pin, variant image, model image, brand default.

    docs/upstream-behaviour.md#docker-image.
    """
    model = recipe.get("model", UNDEFINED)
    nightly = get(model, "nightly_required") is True
    defaults = _NIGHTLY_IMAGES if nightly else _DEFAULT_IMAGES
    brand = get(profile, "brand")
    generation = get(profile, "generation")
    is_amd, is_tpu, is_xpu = brand == "AMD", generation == "tpu", generation == "xpu"
    is_intel = generation == "cpu" or is_xpu or brand == "Intel"
    brand_key = "tpu" if is_tpu else "amd" if is_amd else "intel" if is_intel else "nvidia"

    exact = get(get(get(variant, "hardware_overrides"), hw_id), "docker_image") if hw_id else None
    pinned: JsValue = exact if type(exact) is str else None
    cuda_map: dict[str, JsonValue] | None = None
    for layer in (get(variant, "docker_image"), get(model, "docker_image")):
        if not truthy(layer) or truthy(pinned) or cuda_map is not None:
            continue
        if type(layer) is str:
            if brand_key == "nvidia":
                pinned = layer
        elif isinstance(layer, dict):
            if any(k in layer for k in _BRAND_KEYS):
                value = layer.get(brand_key, UNDEFINED)
                if type(value) is str:
                    pinned = value
                elif brand_key == "nvidia" and is_cuda_map(value):
                    cuda_map = value
            elif brand_key == "nvidia" and is_cuda_map(layer):
                cuda_map = layer

    if is_xpu and not truthy(pinned):
        image: JsValue = XPU_IMAGE
    else:
        image = pinned
        if not truthy(image):
            picked = (
                _js_or2(cuda_map.get("cu130"), cuda_map.get("cu129"))
                if cuda_map is not None
                else None
            )
            image = picked if truthy(picked) else defaults.get(brand_key, UNDEFINED)
    flags_key = (
        "tpu"
        if is_tpu
        else "amd"
        if is_amd
        else "xpu"
        if is_xpu
        else "intel"
        if is_intel
        else "nvidia"
    )
    flags, argv = _GPU_FLAGS[flags_key]
    return DockerMeta(image, flags, argv)


def _js_or2(a: JsValue, b: JsValue) -> JsValue:
    return a if truthy(a) else b


# `vllm serve MODEL` and the line break after it: the model is group 1, the serve args follow.
_SERVE_PREFIX = re.compile(r"^vllm serve (\S+)\s*\\?\n?\s*")


def _config_mounts(env_items: EnvItems) -> list[str]:
    return [f"{js_string(v)}:{js_string(v)}:ro" for k, v in env_items if k.endswith("_CONFIG_PATH")]


_EnvParts = tuple[str, str, tuple[str, ...], tuple[JsonValue, ...]]


def _env_parts(items: EnvItems, image: JsValue) -> _EnvParts:
    """The config mount and env/image pieces of both forms: (lines, lines, argv words, argv words)."""
    assignments = [f"{key}={js_string(value)}" for key, value in items]  # -e KEY=value
    config_mounts = _config_mounts(items)
    image_arg = None if nullish(image) else image  # JSON.stringify writes undefined as null
    # Both forms list the (model and) config mounts, then the env, then the image.
    config_lines = "".join(f"\n  -v {mount} \\" for mount in config_mounts)
    env_lines = "".join(f"\n  -e {assignment} \\" for assignment in assignments)
    config_argv = tuple(word for mount in config_mounts for word in ("-v", mount))
    env_and_image_argv = tuple(
        word for assignment in assignments for word in ("-e", assignment)
    ) + (image_arg,)
    return (
        config_lines,
        env_lines + "\n  " + js_string(image) + " ",
        config_argv,
        env_and_image_argv,
    )


# The corpus has ~400 distinct (env, image) pairs among ~13,000 renderings.
_shared_env_parts = functools.lru_cache(maxsize=1024)(_env_parts)
_KEY_TYPES = frozenset({str})
_VALUE_TYPES = frozenset({str, int})


class DockerWrapper:
    """Wraps serve commands that share one env and image (a head and its workers) in `docker run`.

    What comes from the env and the image is the same for every command, so it is formatted once.
    """

    def __init__(self, env: dict[str, JsonValue], meta: DockerMeta) -> None:
        self.meta = meta
        items = tuple(env.items())
        image = meta.image
        # Whether inputs equal to these always format the same, so their parts can be shared:
        # not so for every type (`True == 1`, but they print as `true` and `1`).
        alike = (
            (type(image) is str or image is UNDEFINED)
            and set(map(type, env)) <= _KEY_TYPES
            and set(map(type, env.values())) <= _VALUE_TYPES
        )
        # (shared only when alike: the image is then a string or undefined, both hashable)
        parts = (_shared_env_parts if alike else _env_parts)(items, image)  # type: ignore[arg-type]
        (
            self._config_lines,
            self._env_and_image_line,
            self._config_argv,
            self._env_and_image_argv,
        ) = parts
        self._argv_tail = self._config_argv + self._env_and_image_argv

    def wrap(self, command: str, argv: list[JsValue], port: int = 8000) -> JsonDocument:
        """Both forms (run and argv, inlined: a rendering wraps every command it has)."""
        meta = self.meta
        served = argv[2:] if len(argv) >= 2 and argv[0] == "vllm" and argv[1] == "serve" else argv
        model_id = served[0] if served else UNDEFINED
        docker_argv: list[JsValue] = list(_argv_head(meta.gpu_argv, port))
        if type(model_id) is str and model_id.startswith("/"):
            docker_argv += ("-v", f"{model_id}:{model_id}:ro")  # a local model folder
        docker_argv += self._argv_tail
        docker_argv += served
        return {
            "docker_command": _docker_command(
                command, port, meta.gpu_flags, self._config_lines, self._env_and_image_line
            ),
            "docker_argv": docker_argv,
        }

    def run(self, command: str, port: int) -> str:
        """The shell form: `docker run <gpu flags> ... <image> <model> <serve args>`."""
        return _docker_command(
            command, port, self.meta.gpu_flags, self._config_lines, self._env_and_image_line
        )

    def argv(self, argv: list[JsValue], port: int) -> list[JsValue]:
        """The argv form; an image that does not exist becomes null, as JSON.stringify writes it."""
        served = argv[2:] if len(argv) >= 2 and argv[0] == "vllm" and argv[1] == "serve" else argv
        model_id = served[0] if served else UNDEFINED
        # a local model folder: bind-mount it
        mount = (
            ("-v", f"{model_id}:{model_id}:ro")
            if type(model_id) is str and model_id.startswith("/")
            else ()
        )
        return [
            *_argv_head(self.meta.gpu_argv, port),
            *mount,
            *self._config_argv,
            *self._env_and_image_argv,
            *served,
        ]


@functools.lru_cache(maxsize=64)
def _argv_head(gpu_argv: tuple[str, ...], port: int) -> tuple[str, ...]:
    """What every `docker run` argv on this hardware and port starts with."""
    return (
        "docker",
        "run",
        *gpu_argv,
        "--privileged",
        "--ipc=host",
        "-p",
        f"{port}:{port}",
        "-v",
        "~/.cache/huggingface:/root/.cache/huggingface",
    )


# Strings in, a string out; the same command recurs with the same env (~6,300 distinct among ~17,500).
@functools.lru_cache(maxsize=4096)
def _docker_command(
    command: str, port: int, gpu_flags: str, config_lines: str, env_and_image_line: str
) -> str:
    found = _SERVE_PREFIX.match(command)
    model_id = found.group(1) if found else "MODEL"
    body = command[found.end() :] if found else command
    text = (
        f"docker run {gpu_flags} \\\n  --privileged --ipc=host -p {port}:{port} \\\n"
        "  -v ~/.cache/huggingface:/root/.cache/huggingface \\"
    )
    if model_id.startswith("/"):  # a local model folder: bind-mount it (read-only)
        text = (
            f"# {model_id} must already exist on the host — bind-mounted read-only below.\n{text}"
            f"\n  -v {model_id}:{model_id}:ro \\"
        )
    text += config_lines + env_and_image_line + model_id
    return text + " \\\n  " + body if body else text


def docker_run(command: str, env: dict[str, JsonValue], meta: DockerMeta, port: int) -> str:
    return DockerWrapper(env, meta).run(command, port)


def docker_argv(
    argv: list[JsValue], env: dict[str, JsonValue], meta: DockerMeta, port: int
) -> list[JsValue]:
    return DockerWrapper(env, meta).argv(argv, port)


def dockerize(
    command: str,
    argv: list[JsValue],
    env: dict[str, JsonValue],
    meta: DockerMeta,
    port: int = 8000,
) -> JsonDocument:
    return DockerWrapper(env, meta).wrap(command, argv, port)


# What an image runs when it is no release a vLLM catalog describes.
OTHER_BUILD = "an image that is not the vLLM project's, a build of its own"
NIGHTLY_BUILD = "the vLLM project's nightly image, a build past every release"
_NIGHTLY_TAG = re.compile(r"^nightly(?:$|[-_.])")


def is_other_build(image: object) -> bool:
    """Whether an image reference is not one of the vLLM project's images."""
    return isinstance(image, str) and not image.startswith(VLLM_IMAGES)


def unreleased_build(image: object) -> str | None:
    """What an image runs when it is no vLLM release: OTHER_BUILD or NIGHTLY_BUILD. None for
    a release image (a version tag, or `latest`: the newest release) and for no image."""
    if is_other_build(image):
        return OTHER_BUILD
    if not isinstance(image, str):
        return None
    tag = split_image(image)[1]
    return NIGHTLY_BUILD if tag is not None and _NIGHTLY_TAG.match(tag.lower()) else None


def runs_other_build(data: object, pointer: Sequence[str | int]) -> bool:
    """Whether the image nearest a place of a recipe (its args or env, at ``pointer``) is not
    the vLLM project's: a build of its own, whose flags and variables and release no vLLM
    catalog describes (a community image pinned for one hardware)."""
    model = data.get("model") if isinstance(data, dict) else None
    image = model.get("docker_image") if isinstance(model, dict) else None
    node = data
    for part in pointer[:-1]:
        node = node.get(part) if isinstance(node, dict) else None
        if isinstance(node, dict) and "docker_image" in node:
            image = node["docker_image"]
    images = image.values() if isinstance(image, dict) else [image]
    return any(is_other_build(i) for i in images)
