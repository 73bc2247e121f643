"""The deployment one rendered command makes, as one frozen value: nodes, GPUs, ranks, platform,
host architecture, memory and image.

For a combination the compiler renders (variant x hardware x strategy x PD role) the
:class:`Deployment` says how many nodes and GPUs the strategy allots the command, how many
ranks vLLM starts for its argv (:class:`Ranks`, read the way vLLM's ``ParallelConfig`` sizes its
world), what the hardware is (accelerator platform, host CPU architecture, VRAM), what the
weights need and which image runs it. Rules read it; none re-derives any of it.

Pure: the flag catalog that says how a release spells its options is handed in, and nothing
here reads a file.

It is long because the one value holds every part of a deployment (weights, ranks, host,
image) and what is wrong with its ranks, which rules and `recipelint show` read alike.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

from recipelint import argv as argvs
from recipelint.flags.catalog import Catalog
from recipelint.jsvalue import JsValue, get, is_number, js_or
from recipelint.read.recipedata import Recipe
from recipelint.resolve.command import Combination, Emitted, Placement, RenderInputs, emitted
from recipelint.resolve.docker import Version, parse_version, split_image
from recipelint.resolve.hardware import generation_of, is_scalable

# --- weights ---------------------------------------------------------------------------------

# Bytes one parameter takes in a checkpoint of each precision (the documented VRAM formula's).
BYTES_PER_PARAM = {
    "bf16": 2.0,
    "fp16": 2.0,
    "fp8": 1.0,
    "mxfp8": 1.0,
    "int8": 1.0,
    "awq": 1.0,
    "gptq": 1.0,
    "int4": 0.5,
    "nvfp4": 0.5,
    "fp4": 0.5,
    "mxfp4": 0.5,
}
# The headroom the documented formula adds to the weights: ceil(params x bytes x 1.2).
VRAM_HEADROOM = 1.2
_PARAMS = re.compile(r"^\s*~?(\d+(?:\.\d+)?)\s*([KMBT])\s*$", re.IGNORECASE)
_SCALE = {"K": 1e-6, "M": 1e-3, "B": 1.0, "T": 1e3}


def parameter_billions(text: object) -> float | None:
    """A parameter_count such as "671B", "1.2T" or "350M", in billions."""
    return _billions(text) if isinstance(text, str) else None


@functools.lru_cache(maxsize=1024)  # every command of a recipe asks for the same figure
def _billions(text: str) -> float | None:
    match = _PARAMS.match(text)
    return float(match.group(1)) * _SCALE[match.group(2).upper()] if match else None


def bytes_per_param(precision: object) -> float | None:
    return BYTES_PER_PARAM.get(precision.lower()) if isinstance(precision, str) else None


# A description or label that says the checkpoint mixes precisions: its precision field then
# speaks for part of the weights only.
MIXED_PRECISION = re.compile(r"mixed|\+|w4a16|w4a8|modelopt", re.IGNORECASE)
# What says so of a whole recipe, whose prose joins other things with "+" too ("linear + MLA
# attention"): two precisions joined by "+" ("FP4+FP8"), or "mixed precision" itself.
_PRECISION_WORD = r"(?:nv|mx)?(?:fp|int|bf|w)\d+\w*"
RECIPE_MIXED_PRECISION = re.compile(
    rf"(?<!\w){_PRECISION_WORD}\s*\+\s*{_PRECISION_WORD}|mixed[- ]precision", re.IGNORECASE
)


def mixed_precision(recipe: object, variant: JsValue) -> bool:
    """Whether the variant's description or label says the checkpoint mixes precisions, or
    the recipe's own description or headline says the model's weights mix the variant's
    precision with another ("native FP4+FP8 weights" of an fp8 variant)."""
    if any(
        isinstance(text, str) and _mixed(text)
        for text in (get(variant, "description"), get(variant, "label"))
    ):
        return True
    precision = get(variant, "precision")
    if not isinstance(precision, str) or not precision:
        return False
    meta = get(recipe, "meta")
    return any(
        isinstance(text, str)
        and RECIPE_MIXED_PRECISION.search(text) is not None
        and _names_precision(text, precision)
        for text in (
            get(meta, "description"),
            get(meta, "performance_headline"),
            get(get(recipe, "model"), "description"),
        )
    )


@functools.lru_cache(maxsize=1024)
def _names_precision(text: str, precision: str) -> bool:
    """Whether ``text`` names ``precision`` as a word of its own (`FP8` in `FP4+FP8`)."""
    return re.search(rf"(?<![\w]){re.escape(precision)}(?![\w])", text, re.IGNORECASE) is not None


@functools.lru_cache(maxsize=1024)
def _mixed(text: str) -> bool:
    return bool(MIXED_PRECISION.search(text))


def weights_gb(billions: float | None, precision: object) -> float | None:
    """What the checkpoint's weights take in memory, without headroom."""
    per_param = bytes_per_param(precision)
    return billions * per_param if billions is not None and per_param else None


# --- ranks -----------------------------------------------------------------------------------

# The sizes vLLM's ParallelConfig multiplies into the ranks it starts: its world is
# tensor x pipeline x prefill-context parallel (decode context parallelism reuses the tensor
# ranks), and data parallelism runs that many worlds. Keyed by each size's canonical option;
# a release whose catalog lacks an option has no such size.
RANK_OPTIONS = {
    "--tensor-parallel-size": "tensor",
    "--pipeline-parallel-size": "pipeline",
    "--prefill-context-parallel-size": "prefill_context",
    "--data-parallel-size": "data",
    "--data-parallel-size-local": "data_local",
}
EXPERT_PARALLEL = "--enable-expert-parallel"
_SIZE_NAMES = {"tensor": "TP", "pipeline": "PP", "prefill_context": "PCP", "data": "DP"}


class RankFlag(NamedTuple):
    """The argv token that set one size: its position, its spelling and the value it gave."""

    position: int
    spelled: str
    value: JsValue


@dataclass(frozen=True, slots=True)
class Ranks:
    """The parallel sizes vLLM reads from one argv (1 where the argv sets none)."""

    tensor: int = 1
    pipeline: int = 1
    prefill_context: int = 1
    data: int = 1
    data_local: int | None = None
    expert_parallel: bool = False
    # canonical option -> the token that set it, for the options the argv sets
    set_by: tuple[tuple[str, RankFlag], ...] = ()
    unreadable: tuple[str, ...] = ()  # options set to what is no positive integer

    @property
    def known(self) -> bool:
        return not self.unreadable

    @property
    def world_size(self) -> int:
        """One data-parallel rank's world: tensor x pipeline x prefill-context parallel."""
        return self.tensor * self.pipeline * self.prefill_context

    @property
    def total(self) -> int:
        """Every rank the command's deployment starts: the world, times data parallelism."""
        return self.world_size * self.data

    @property
    def per_node(self) -> int | None:
        """Ranks one node starts when the argv says how many data-parallel ranks are local."""
        return None if self.data_local is None else self.world_size * self.data_local

    @property
    def weight_shards(self) -> int:
        """How many GPUs one copy of the weights is spread over: the world, and with expert
        parallelism every rank (the experts, most of an MoE's weights, are split over all)."""
        return self.total if self.expert_parallel else self.world_size

    def setter(self, option: str) -> RankFlag | None:
        return dict(self.set_by).get(option)

    def formula(self) -> str:
        """`TP 8 x PP 2` — the sizes other than 1 (TP always)."""
        parts = [
            f"{label} {getattr(self, name)}"
            for name, label in _SIZE_NAMES.items()
            if name == "tensor" or getattr(self, name) != 1
        ]
        return " × ".join(parts)


def positive_int(value: object) -> int | None:
    """A size as vLLM's argparse reads it: a positive integer, or its digits as text."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if value > 0 else None
    if isinstance(value, str) and value.strip().isdigit():
        number = int(value.strip())
        return number if number > 0 else None
    return None


def ranks_of(tokens: Sequence[JsValue], flags: Catalog) -> Ranks:
    """The parallel sizes of a rendered argv as the release of ``flags`` parses it.

    Any spelling the release accepts counts (`-tp 4`, `--tensor-parallel-size=4`,
    `--tensor_parallel_size 4`, a unique prefix); of two spellings of one option the later
    wins, as in argparse. ``tokens`` may be the command before or after upstream's dedupe,
    which keeps the last occurrence of every spelling: the last setting is the same.
    """
    found: dict[str, RankFlag] = {}
    expert = False
    for position, spelled, value in argvs.flag_values(tokens):
        hit = flags.lookup(spelled)
        canonical = hit.canonical
        if canonical == EXPERT_PARALLEL:
            expert = not hit.negated
        elif canonical in RANK_OPTIONS and not hit.json_path:
            given = hit.inline_value if hit.inline_value is not None else value
            found[canonical] = RankFlag(position, spelled, given)
    sizes: dict[str, int] = {}
    unreadable = []
    for canonical, setting in found.items():
        number = positive_int(setting.value)
        if number is None:
            unreadable.append(canonical)
        else:
            sizes[RANK_OPTIONS[canonical]] = number
    return Ranks(
        **sizes,
        expert_parallel=expert,
        set_by=tuple(sorted(found.items())),
        unreadable=tuple(sorted(unreadable)),
    )


# --- the hardware ------------------------------------------------------------------------------

PLATFORMS = ("cuda", "rocm", "xpu", "tpu", "cpu", "npu")
ARCHES = ("x86_64", "aarch64")
# Words that name a platform in a profile's generation or brand.
_PLATFORM_GENERATIONS = {"tpu": "tpu", "xpu": "xpu", "cpu": "cpu", "npu": "npu"}
_PLATFORM_BRANDS = {"nvidia": "cuda", "amd": "rocm", "google": "tpu", "huawei": "npu"}
# recipelint's own table of host CPUs: a word of the profile's brand, generation, name or
# description that says which CPU architecture hosts its accelerators. Grace (GH200, GB200,
# GB300, the GB10 of DGX Spark, the GB300 of DGX Station) is Arm; so are Kunpeng (Ascend
# servers) and Axion hosts.
HOST_WORDS = {
    "grace": "aarch64",
    "gh200": "aarch64",
    "gb10": "aarch64",
    "gb200": "aarch64",
    "gb300": "aarch64",
    "kunpeng": "aarch64",
    "axion": "aarch64",
    "arm64": "aarch64",
    "aarch64": "aarch64",
    "xeon": "x86_64",
    "epyc": "x86_64",
    "x86": "x86_64",
    "x86_64": "x86_64",
}
# Without a word that says otherwise, these platforms' servers are x86_64 hosts.
_X86_PLATFORMS = frozenset({"cuda", "rocm", "xpu", "tpu", "cpu"})
_WORD = re.compile(r"[a-z0-9_]+")


def platform_of(profile: JsValue) -> str | None:
    """The accelerator platform of a hardware profile, None when nothing says."""
    gen = generation_of(profile)
    if isinstance(gen, str) and gen.lower() in _PLATFORM_GENERATIONS:
        return _PLATFORM_GENERATIONS[gen.lower()]
    brand = get(profile, "brand")
    if isinstance(brand, str):
        return _PLATFORM_BRANDS.get(brand.lower())
    return None


def _profile_words(profile: JsValue) -> frozenset[str]:
    gen = js_or(get(profile, "generation"), get(profile, "gpu_generation"))
    texts = [get(profile, name) for name in ("brand", "display_name", "description")]
    texts += gen if isinstance(gen, list) else [gen]
    return _words(tuple(text for text in texts if isinstance(text, str)))


@functools.lru_cache(maxsize=256)  # a tree has a few dozen profiles, asked for every command
def _words(texts: tuple[str, ...]) -> frozenset[str]:
    return frozenset(_WORD.findall(" ".join(texts).lower()))


def arch_of(profile: JsValue) -> str | None:
    """The host CPU architecture: the profile's own `arch`, else what its words say, else the
    platform's usual host; None when nothing says."""
    declared = get(profile, "arch")
    if declared in ARCHES:
        return str(declared)
    return _arch_from_words(_profile_words(profile), platform_of(profile))


@functools.lru_cache(maxsize=256)  # a tree has a few dozen profiles, asked for every command
def _arch_from_words(words: frozenset[str], platform: str | None) -> str | None:
    named = {HOST_WORDS[word] for word in words if word in HOST_WORDS}
    if len(named) == 1:
        return named.pop()
    if "aarch64" in named:
        return "aarch64"  # a Grace superchip's description may also name the x86 it replaces
    return "x86_64" if platform in _X86_PLATFORMS else None


# --- the image ---------------------------------------------------------------------------------

# Words of an image's name or tag that say which CPU architecture or platform it is built for.
_IMAGE_ARCH_WORDS = {
    "aarch64": "aarch64",
    "arm64": "aarch64",
    "arm": "aarch64",
    "x86_64": "x86_64",
    "amd64": "x86_64",
    "x86": "x86_64",
}
_IMAGE_PLATFORM_WORDS = {
    "cuda": "cuda",
    "rocm": "rocm",
    "xpu": "xpu",
    "tpu": "tpu",
    "cpu": "cpu",
    "npu": "npu",
    "ascend": "npu",
}
_CUDA_TAG = re.compile(r"^cu\d{2,3}$")
_IMAGE_WORD = re.compile(r"[a-z0-9]+(?:_64)?")


@dataclass(frozen=True, slots=True)
class ImageFacts:
    """A container image reference and what its name and tag say."""

    reference: str
    repository: str
    tag: str | None
    vllm_release: str | None  # the vLLM release a version tag names (`v0.20.2` -> 0.20.2)
    arch: str | None  # the CPU architecture its name or tag names
    platform: str | None  # the accelerator platform its name or tag names


@functools.lru_cache(maxsize=1024)  # a tree pins a few dozen images, read for every command
def image_facts(reference: str) -> ImageFacts:
    repository, tag = split_image(reference)
    version = parse_version(tag)
    words = _IMAGE_WORD.findall(repository.rsplit("/", 2)[-1].lower() if repository else "")
    words += _IMAGE_WORD.findall(repository.lower().split("/")[-2] if "/" in repository else "")
    words += _IMAGE_WORD.findall(tag.lower()) if tag else []
    arches = {_IMAGE_ARCH_WORDS[word] for word in words if word in _IMAGE_ARCH_WORDS}
    platforms = {
        "cuda" if _CUDA_TAG.match(word) else _IMAGE_PLATFORM_WORDS.get(word) for word in words
    } - {None}
    return ImageFacts(
        reference,
        repository,
        tag,
        _release(version),
        arches.pop() if len(arches) == 1 else None,
        str(platforms.pop()) if len(platforms) == 1 else None,
    )


def _release(version: Version | None) -> str | None:
    if version is None or not version.released:
        return None
    post = f".post{version.post}" if version.post else ""
    return f"{version.major}.{version.minor}.{version.patch}{post}"


# --- the deployment ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Deployment:
    """What one rendered command deploys on one hardware."""

    variant: str
    hardware: str
    strategy: str
    role: str | None  # the PD role, None outside a PD cluster
    deploy_type: str
    nodes: int  # the nodes the strategy allots the command (a PD role: its pool's)
    gpus_per_node: int
    gpus_allotted: int  # GPUs the strategy allots the command (a co-located PD role: half a node)
    ranks: Ranks
    platform: str | None
    arch: str | None
    scalable: bool
    vram_per_node_gb: float | None
    # parameter_count x bytes per parameter of the variant's precision; None for a checkpoint
    # described as mixed precision, whose precision speaks for part of the weights only
    weights_gb: float | None
    vram_minimum_gb: float | None
    image: ImageFacts | None

    @property
    def vram_per_gpu_gb(self) -> float | None:
        if self.vram_per_node_gb is None or self.gpus_per_node <= 0:
            return None
        return self.vram_per_node_gb / self.gpus_per_node

    @property
    def gpus_used(self) -> int:
        return self.ranks.total

    @property
    def multi_node(self) -> bool:
        return self.nodes > 1

    @property
    def weights_room_gb(self) -> float | None:
        """The VRAM one copy of the weights is spread over: the GPUs it is sharded across, and on
        hardware that cannot scale out the whole box."""
        if not self.scalable:
            return self.vram_per_node_gb
        per_gpu = self.vram_per_gpu_gb
        if per_gpu is None:
            return None
        return per_gpu * min(self.ranks.weight_shards, max(self.gpus_allotted, 1))

    def describe(self) -> list[str]:
        """Summary lines: nodes and GPUs, ranks, platform, memory, image."""
        role = f" ({self.role})" if self.role else ""
        lines = [
            f"{self.strategy}{role} on {self.hardware}: {self.nodes} node"
            f"{'s' if self.nodes != 1 else ''} × {self.gpus_per_node} GPUs",
            f"GPUs: {self.gpus_used if self.ranks.known else '?'} used of "
            f"{self.gpus_allotted} allotted ({self.ranks.formula() if self.ranks.known else 'unreadable sizes'})",
            f"platform: {self.platform or 'unknown'}, host {self.arch or 'unknown'}",
        ]
        memory = []
        if self.weights_gb is not None:
            memory.append(f"weights {_gb(self.weights_gb)}")
        if self.vram_minimum_gb is not None:
            memory.append(f"vram_minimum_gb {_gb(self.vram_minimum_gb)}")
        room = self.weights_room_gb
        if room is not None:
            memory.append(f"room for them {_gb(room)}")
        if memory:
            lines.append("memory: " + ", ".join(memory))
        if self.image is not None:
            carried = f" (vLLM {self.image.vllm_release})" if self.image.vllm_release else ""
            lines.append(f"image: {self.image.reference}{carried}")
        return lines


def _gb(value: float) -> str:
    return f"{value:.0f} GB" if value >= 10 else f"{value:.1f} GB"


def _number(value: object) -> float | None:
    return float(value) if is_number(value) and value == value and value > 0 else None


def _count(value: object) -> int:
    return int(value) if is_number(value) and value == value and value >= 1 else 1


def deployment_of(
    inputs: RenderInputs,
    recipe: Recipe,
    combo: Combination,
    role: str | None,
    ranks: Ranks,
    placement: Placement | None = None,
    allotted: Emitted | None = None,
) -> Deployment:
    """The deployment of one command of ``combo`` (a PD role's, with ``role``) whose rendered
    argv starts ``ranks`` (:func:`ranks_of`, or :func:`deployment_of_argv` for the argv itself).

    ``allotted`` is what :func:`recipelint.resolve.command.emitted` gives the command, when the
    caller has it. Raises what rendering the combination's parallelism raises.
    """
    if placement is None or not placement.serves(inputs, recipe, combo):
        placement = Placement(inputs, recipe, combo.variant_key, combo.hw_id)
    if allotted is None:
        allotted = emitted(inputs, recipe, combo, role, placement)
    # _Placed's fields are Deployment's last, in its order: given by position, not by name.
    return Deployment(
        combo.variant_key,
        combo.hw_id,
        combo.strategy,
        role,
        str(js_or(inputs.deploy_type_of(combo.strategy), "single_node")),
        _count(allotted.nodes),
        _count(placement.gpu_count),
        int(allotted.gpus) if is_number(allotted.gpus) else 0,
        ranks,
        *_placed(recipe, placement),
    )


def _host(placement: Placement) -> tuple[str | None, str | None]:
    """(platform, host architecture) of the placement's hardware, kept with the shared work."""
    key = ("host", placement.hw_id)
    found: tuple[str | None, str | None] | None = placement.strategy_runs.get(key)
    if found is None:
        profile = placement.profile
        found = placement.strategy_runs[key] = (platform_of(profile), arch_of(profile))
    return found


class _Placed(NamedTuple):
    """What a deployment reads of its variant and hardware alone."""

    platform: str | None
    arch: str | None
    scalable: bool
    vram_per_node_gb: float | None
    weights_gb: float | None
    vram_minimum_gb: float | None
    image: ImageFacts | None


def _placed(recipe: Recipe, placement: Placement) -> _Placed:
    """_Placed of a placement, kept with the work its recipe's placements share."""
    key = ("deployment", placement.variant_key, placement.hw_id)
    found: _Placed | None = placement.strategy_runs.get(key)
    if found is None:
        profile, image = placement.profile, placement.meta.image
        platform, arch = _host(placement)
        found = placement.strategy_runs[key] = _Placed(
            platform,
            arch,
            is_scalable(profile),
            _number(get(profile, "vram_gb")),
            *_variant_memory(recipe, placement),
            image_facts(image) if isinstance(image, str) else None,
        )
    return found


def _variant_memory(recipe: Recipe, placement: Placement) -> tuple[float | None, float | None]:
    """(weights, vram_minimum_gb) of the placement's variant, read once per variant: every
    hardware it is placed on reads the same."""
    key = ("variant-memory", placement.variant_key)
    found: tuple[float | None, float | None] | None = placement.strategy_runs.get(key)
    if found is None:
        variant = placement.variant
        found = placement.strategy_runs[key] = (
            variant_weights_gb(recipe, variant),
            _number(get(variant, "vram_minimum_gb")),
        )
    return found


def rank_problem(found: Deployment) -> str | None:
    """What is wrong with the ranks a command starts on the GPUs it is allotted, if anything."""
    ranks = found.ranks
    if not ranks.known or found.gpus_allotted <= 0:
        return None
    allotted = _allotment(found)
    if ranks.total > found.gpus_allotted:
        return f"the strategy allots {allotted}"
    per_node = ranks.per_node
    if per_node is not None and per_node > found.gpus_per_node:
        return f"{per_node} of them on each node of {found.gpus_per_node} GPUs"
    if found.multi_node and ranks.total < found.gpus_allotted:
        return (
            f"the strategy allots {allotted}: a multi-node world leaves "
            f"{found.gpus_allotted - ranks.total} of them idle"
        )
    return None


def _allotment(found: Deployment) -> str:
    if found.role is not None and found.gpus_allotted < found.gpus_per_node:
        return f"{found.gpus_allotted} GPUs (half a node of {found.gpus_per_node})"
    if found.nodes > 1:
        return f"{found.nodes} nodes × {found.gpus_per_node} GPUs = {found.gpus_allotted} GPUs"
    return f"{found.gpus_allotted} GPU{'s' if found.gpus_allotted != 1 else ''}"


def deployment_of_argv(
    inputs: RenderInputs,
    recipe: Recipe,
    combo: Combination,
    role: str | None,
    tokens: Sequence[JsValue],
    flags: Catalog,
) -> Deployment:
    """deployment_of for a rendered argv (before or after dedupe), read with ``flags``: the
    catalog of the release the recipe's range starts at."""
    return deployment_of(inputs, recipe, combo, role, ranks_of(tokens, flags))


def variant_weights_gb(recipe: object, variant: JsValue) -> float | None:
    """parameter_count x bytes per parameter of the variant's precision; None for a checkpoint
    described as mixed precision."""
    if mixed_precision(recipe, variant):
        return None
    billions = parameter_billions(get(get(recipe, "model"), "parameter_count"))
    return weights_gb(billions, get(variant, "precision"))
