"""One deployment's commands: arg layers, env layers, and the per-deploy-type shape.

`render_command` is the compiler's unit of work: (recipe, variant, strategy,
hardware, node count, features, PD nodes, kv deployment) -> the JSON document the
API publishes for it. It raises :class:`RenderError` where upstream's synthesis
throws (upstream then drops that rendering with a warning).
"""

from __future__ import annotations

import functools
import operator
from dataclasses import dataclass
from collections.abc import Callable
from typing import Any, NamedTuple

from recipelint.jsvalue import (
    UNDEFINED,
    coalesce,
    get,
    is_number,
    js_floor,
    js_divide,
    js_max,
    js_number,
    js_or,
    js_string,
    normalize_number,
    truthy,
)
from recipelint.resolve.docker import DockerMeta, DockerWrapper, docker_meta
from recipelint.resolve.features import JS_WHITESPACE, FeatureResolver, companions
from recipelint.resolve.formatting import RenderError, serve_command
from recipelint.resolve.hardware import generation_of, gpu_count_of, hardware_keyed_value
from recipelint.resolve.layers import (
    ARG_STEPS,
    ENV_STEPS,
    PLACEMENT_READS,
    RECIPE,
    Layer,
    Place,
    Selection,
    Step,
    generation_key,
    present,
    split_at_emitter,
)
from recipelint.resolve.strategy import pd_pool_modes

NVL4_ONLY_ENV = ("VLLM_USE_NCCL_SYMM_MEM", "NCCL_CUMEM_ENABLE", "NCCL_MNNVL_ENABLE", "NCCL_NVLS_ENABLE", "UCX_NET_DEVICES")
NVL4_HARDWARE = frozenset({"gb200", "gb300"})
PD_PORTS = {"prefill": 8001, "decode": 8002}
SERVE_PORT = 8000


@dataclass(frozen=True)
class Catalog:
    """The tree-wide inputs every rendering reads."""

    taxonomy: Any
    profiles: dict[str, Any]
    strategies: dict[str, Any]  # serving strategies and kv deployments, by name

    @functools.cached_property
    def deploy_types(self) -> dict[str, Any]:
        """Each strategy's raw `deploy_type` (undefined when its spec has none)."""
        return {name: get(spec, "deploy_type") for name, spec in self.strategies.items()}

    def deploy_type_of(self, name: Any) -> Any:
        """`strategies[name]?.deploy_type`: undefined for an unknown (or non-string) name."""
        return self.deploy_types.get(name, UNDEFINED) if type(name) is str else UNDEFINED

    @functools.cached_property
    def kv_ids(self) -> list[str]:
        return [name for name, spec in self.strategies.items() if get(spec, "deploy_type") == "kv_store_lb"]


@dataclass(frozen=True)
class Combination:
    """What to render: every choice the compiler makes before synthesis."""

    variant_key: str
    strategy: str
    hw_id: str
    node_count: int = 1
    features: tuple[str, ...] = ()
    pd_nodes: dict[str, Any] | None = None
    kv_offload: str | None = None


def spread(source: Any) -> list[Any]:
    """`...source` in an array literal: arrays as they are, strings as characters."""
    kind = type(source)
    if kind is list:
        return source
    if kind is str:
        return list(source)
    raise RenderError(f"{js_string(source)} is not iterable (expected a list of arguments)")


def assign(target: dict, source: Any) -> None:
    """`Object.assign(target, source)` for the mappings recipes provide."""
    if type(source) is dict:
        target.update(source)
    elif truthy(source):
        raise RenderError(f"expected a mapping of environment variables, got {js_string(source)}")


# The renderer walks the args and the env join orders (resolve.layers) in one pass per role:
# a step both orders hold on the same side of their emitter is one entry with both halves.
# An entry's layers are kept by the placement (it reads only the variant and the hardware),
# kept under what it reads (the compiler shares these between all renderings of a recipe),
# or worked out for each rendering (it reads the features or the kv_store, or the strategy
# and the exact hardware together, which no other rendering asks again). Entries whose
# places a recipe does not have are left out of its walk (layers.present).
_KEYED_READS = PLACEMENT_READS - {"hardware"} | {"strategy", "role"}


class _Entry(NamedTuple):
    args: tuple[Step, ...]  # a run of args steps (empty: env only)
    env: tuple[Step, ...]
    args_after: bool  # after the emitter's tokens
    env_after: bool  # after the PD device pinning
    reads: frozenset[str]


def _sides(steps: tuple[Step, ...]) -> list[tuple[Step, bool]]:
    before, after = split_at_emitter(steps)
    return [(step, False) for step in before] + [(step, True) for step in after]


def _entries(arg_steps: tuple[Step, ...], env_steps: tuple[Step, ...]) -> list[_Entry]:
    """Both join orders as one sequence that keeps each order (env-only steps go where env needs them)."""
    env = _sides(env_steps)
    out: list[_Entry] = []
    at = 0
    for step, after in _sides(arg_steps):
        match = next((i for i in range(at, len(env)) if env[i][0].name == step.name and env[i][1] == after
                      and env[i][0].reads == step.reads), None)
        if match is None:
            out.append(_Entry((step,), (), after, False, step.reads))
            continue
        out += [_Entry((), (other,), False, other_after, other.reads) for other, other_after in env[at:match]]
        out.append(_Entry((step,), (env[match][0],), after, after, step.reads))
        at = match + 1
    out += [_Entry((), (other,), False, other_after, other.reads) for other, other_after in env[at:]]
    return out


_ENTRIES = _entries(ARG_STEPS, ENV_STEPS)


def _needed(entry: _Entry, places: frozenset[Place]) -> bool:
    """Whether an entry can add anything: some place of its steps is in another document, or present."""
    return any(place.document != RECIPE or place in places for step in entry.args + entry.env for place in step.places)


class _Walk(NamedTuple):
    """A recipe's entries in three phases: the placement's, the kept ones (under the union of
    what they read), the ones worked out for each rendering. Valid when, in each of the four
    orders (args and env, before and after their emitter), the phases come in that order."""

    placement: tuple[_Entry, ...]
    kept: tuple[tuple[_Entry, Callable[[dict[str, Any]], Any]], ...]  # each with what picks its reads
    each: tuple[_Entry, ...]


def _phase_of(entry: _Entry) -> int:
    if entry.reads <= PLACEMENT_READS:
        return 0
    return 1 if entry.reads <= _KEYED_READS else 2


def _phased(entries: list[_Entry]) -> bool:
    """Whether the phases keep the order of every side of both join orders."""
    for kind, side in (("args", False), ("args", True), ("env", False), ("env", True)):
        phases = [_phase_of(e) for e in entries
                  if getattr(e, kind) and (e.args_after if kind == "args" else e.env_after) == side]
        if phases != sorted(phases):
            return False
    return True


def walk_for(places: frozenset[Place], kv: bool) -> _Walk:
    """The entries a recipe with these places present needs (see layers.present), in phases."""
    entries = [entry for entry in _ENTRIES if _needed(entry, places) and (kv or "kv" not in entry.reads)]
    if not _phased(entries):
        return _Walk((), (), tuple(entries))  # every entry for each rendering: slower, still right
    kept = tuple((e, operator.itemgetter("variant", *sorted(e.reads))) for e in entries if _phase_of(e) == 1)
    return _Walk(tuple(e for e in entries if _phase_of(e) == 0), kept,
                 tuple(e for e in entries if _phase_of(e) == 2))


class _RoleLayers(NamedTuple):
    """One role's layers, split where the emitter's tokens and the device pinning go."""

    args_before: list[Layer]
    args_after: list[Layer]
    env_before: list[Layer]
    env_after: list[Layer]


class Placement:
    """One variant on one hardware: everything its renderings share, whatever the strategy.

    The plan renders several strategies for each (variant, hardware); these values
    depend on neither the strategy nor the node count, so they are worked out once.
    Whatever can raise is a cached_property: computed on first use, at the step that
    computed it before, and re-raised identically by every rendering that reaches it.
    """

    def walk(self, kv: bool) -> _Walk:
        """The entries this recipe's renderings walk (kept with the variant's layers)."""
        found = self._walks[kv]
        if found is not None:
            return found
        found = self.kept.get(("walk", kv))
        if found is None:
            places = self.kept.get(("present",))
            if places is None:
                places = self.kept[("present",)] = present(self.recipe)  # type: ignore[assignment]
            found = self.kept[("walk", kv)] = walk_for(places, kv)  # type: ignore[arg-type, assignment]
        self._walks[kv] = found  # type: ignore[assignment]
        return found  # type: ignore[return-value]

    def __init__(self, catalog: Catalog, recipe: dict, variant_key: str, hw_id: str,
                 kept: dict[tuple[Any, ...], tuple[list[Layer], list[Layer]]] | None = None) -> None:
        self.catalog, self.recipe, self.variant_key, self.hw_id = catalog, recipe, variant_key, hw_id
        variants = get(recipe, "variants")
        self.variant = js_or(get(variants, variant_key), get(variants, "default"), {})
        self.profile = js_or(catalog.profiles.get(hw_id, UNDEFINED), {})
        self.gen = generation_of(self.profile)
        self.nvidia = get(self.profile, "brand") == "NVIDIA"
        self.gpu_count = gpu_count_of(self.profile)
        self.model_id = js_or(get(self.variant, "model_id"), get(get(recipe, "model"), "model_id"), "unknown")
        self.strategy_overrides = get(recipe, "strategy_overrides")
        self.features = FeatureResolver(recipe, self.variant, variant_key, self.profile, hw_id)
        self.selection = Selection(recipe, variant_key, self.variant, hw_id, self.gen, self.nvidia)
        # (id(step), what it reads...) -> its layers: the plan hands every placement of a variant the same
        # one, so one strategy's layers are worked out once for all hardware of a generation (say).
        self.kept: dict[tuple[Any, ...], tuple[list[Layer], list[Layer]]] = {} if kept is None else kept
        self.placement_part: list[_RoleLayers | None] = [None, None]  # the placement phase's layers, by has_kv
        self._walks: list[_Walk | None] = [None, None]  # by has_kv
        self.reads = {"variant": variant_key, "hardware": hw_id,
                      "generation": (js_string(self.gen) if self.gen is not None and self.gen is not UNDEFINED
                                     else None, self.nvidia)}  # all generation_key reads of the profile

    def serves(self, catalog: Catalog, recipe: dict, combo: Combination) -> bool:
        return (catalog is self.catalog and recipe is self.recipe
                and combo.variant_key == self.variant_key and combo.hw_id == self.hw_id)

    @functools.cached_property
    def model_text(self) -> str:
        """String(model_id), as the command line shows it."""
        return js_string(self.model_id)

    @functools.cached_property
    def meta(self) -> DockerMeta:
        return docker_meta(self.recipe, self.variant, self.profile, self.hw_id)

    @functools.cached_property
    def tp_for_single_node_tp(self) -> Any:
        """The `single_node_tp` size: declared tp (capped at the GPU count), else what VRAM needs."""
        profile, variant, gpu_count = self.profile, self.variant, self.gpu_count
        is_cpu = get(profile, "generation") == "cpu"
        for raw in (get(variant, "tp"), get(get(get(self.recipe, "strategy_overrides"), "single_node_tp"), "tp")):
            declared = raw if is_number(raw) else hardware_keyed_value(raw, profile, self.hw_id)
            if is_number(declared) and declared > 0:
                return declared if is_cpu else min(declared, gpu_count)
        vram = get(profile, "vram_gb")
        per_gpu = js_divide(vram, gpu_count) if truthy(vram) and truthy(gpu_count) else 0
        needed = js_or(get(variant, "vram_minimum_gb"), 0)
        if not truthy(needed) or not truthy(per_gpu) or per_gpu <= 0:
            return gpu_count
        return 1 if needed <= per_gpu else gpu_count

    @functools.cached_property
    def pool_modes(self) -> list[str]:
        return pd_pool_modes(self.recipe)


class _Synthesis:
    """One combination being rendered: the placement's shared values plus the strategy's."""

    __slots__ = ("catalog", "recipe", "combo", "placement", "problems", "_layers", "_role_parts", "variant",
                 "strategy", "deploy_type", "profile", "gen", "nvidia", "gpu_count", "total_gpus", "model_id",
                 "kv", "kv_composing", "kv_option", "instances", "overrides", "deploy", "single_node_tp",
                 "selection")

    def __init__(self, catalog: Catalog, recipe: dict, combo: Combination, placement: Placement) -> None:
        self.catalog, self.recipe, self.combo, self.placement = catalog, recipe, combo, placement
        self.problems: list = []  # (pointer, message): renders, but is invalid
        self._layers: dict = {}  # role -> (args before the emitter's, args after them)
        self._role_parts: dict = {}  # role -> _RoleLayers
        self.variant = placement.variant
        self.strategy = js_or(catalog.strategies.get(combo.strategy, UNDEFINED), {})
        self.deploy_type = get(self.strategy, "deploy_type")  # raw: undefined when the spec has none
        self.profile = placement.profile
        self.gen = placement.gen
        self.nvidia = placement.nvidia
        self.gpu_count = placement.gpu_count
        self.total_gpus = self.gpu_count * js_max(1, combo.node_count)
        self.model_id = placement.model_id
        kv = catalog.strategies.get(combo.kv_offload, UNDEFINED) if combo.kv_offload else UNDEFINED
        self.kv = kv if get(kv, "deploy_type") == "kv_store_lb" else None
        self.kv_composing = self.kv is not None and self.deploy_type != "pd_cluster"
        self.kv_option = self._kv_option()
        self.instances = js_or(get(self.kv, "default_instances"), 2) if self.kv is not None else 2
        self.overrides = get(placement.strategy_overrides, combo.strategy)  # strategy_overrides[strategy]
        self.deploy = js_or(self.deploy_type, "single_node")
        self.single_node_tp = (placement.tp_for_single_node_tp if combo.strategy == "single_node_tp"
                               else self.gpu_count)
        feature_layers = placement.features.layers_for(combo.features, combo.strategy, self.kv_composing)
        self.selection = Selection(
            recipe, combo.variant_key, self.variant, combo.hw_id, self.gen, self.nvidia, combo.strategy,
            self.strategy, self.overrides, feature_layers, self.kv_composing,
            combo.kv_offload, self.kv_option, self.kv, shared=placement.selection.shared)

    # ------------------------------------------------------------ preamble

    def _kv_option(self) -> Any:
        """`taxonomy.kv_offload[kv]` behind its strategy, recipe and brand gates."""
        if self.combo.kv_offload is None:
            return None
        option = get(get(self.catalog.taxonomy, "kv_offload"), self.combo.kv_offload)
        if not truthy(option):
            return None
        if self.deploy_type in ("pd_cluster", "kv_store_lb"):
            return None
        allow = get(option, "strategies")
        if type(allow) is list and allow and self.combo.strategy not in allow:
            return None
        support = get(get(self.recipe, "kv_offload_support"), self.combo.kv_offload)
        if support == "unsupported":
            return None
        if truthy(get(option, "requires_opt_in")) and support != "verified":
            return None
        brands = get(option, "brands")
        if type(brands) is list and brands and get(self.profile, "brand") not in brands:
            return None
        return option

    # ------------------------------------------------------------ args

    def build_args(self, role: str | None, node_role: str | None, node_rank: int = 1) -> list[Any]:
        """The layers in upstream's order (resolve.layers), the emitter's parallelism flags among them."""
        before, after = self._role_layers(role)
        return before + self._parallel_args(role, node_role, node_rank) + after

    def _role_layers(self, role: str | None) -> tuple[list[Any], list[Any]]:
        """The args before and after the parallelism flags; they do not depend on the node rank."""
        cached = self._layers.get(role)
        if cached is None:
            found = self.role_layers(role)
            cached = self._layers[role] = (self._spread(found.args_before), self._spread(found.args_after))
        return cached

    def role_layers(self, role: str | None) -> _RoleLayers:
        """A role's args and env layers in their join orders, each kept entry worked out once per what it reads."""
        found = self._role_parts.get(role)
        if found is not None:
            return found
        placement, selection = self.placement, self.selection
        kv = selection.has_kv
        walk = placement.walk(kv)
        found = self._role_parts[role] = _RoleLayers([], [], [], [])
        if walk.placement:
            part = placement.placement_part[kv]
            if part is None:
                part = placement.placement_part[kv] = _evaluate(walk.placement, selection, role)
            _add(found, part)
        if walk.kept:
            reads = {**placement.reads, "strategy": self.combo.strategy, "role": role}
            for entry, pick in walk.kept:
                key = (id(entry), pick(reads))  # entries live as long as the module: their id is theirs
                part = placement.kept.get(key)
                if part is None:
                    part = placement.kept[key] = _evaluate((entry,), selection, role)
                _add(found, part)
        if walk.each:
            _evaluate(walk.each, selection, role, found)
        return found

    @staticmethod
    def _spread(found: list[Layer]) -> list[Any]:
        args: list[Any] = []
        for layer in found:
            args += spread(layer.items)
        return args

    def _parallel_args(self, role: str | None, node_role: str | None, node_rank: int) -> list[Any]:
        strategy, combo = self.strategy, self.combo
        deploy = self.deploy_type
        flag = js_or(get(strategy, "parallel_flag"), "--tensor-parallel-size")
        nodes = combo.node_count
        multi = deploy == "multi_node" and nodes > 1
        rank = js_max(1, node_rank) if node_role == "worker" else 0
        address = "$VLLM_INSTANCE_1" if self.kv_composing and self.instances > 1 else "$HEAD_IP"
        parallelism = get(strategy, "parallelism")
        s = js_string
        if multi and flag == "--data-parallel-size":
            dp_local = self._dep_local_override()
            out = ["--data-parallel-size", s(self.total_gpus), "--data-parallel-size-local", s(self.gpu_count),
                   "--data-parallel-address", address]
            if node_role == "worker":
                out += ["--data-parallel-start-rank", s(normalize_number(rank * dp_local))]
            return out
        if multi and parallelism == "tp_pp":
            out = ["--tensor-parallel-size", s(self.gpu_count), "--pipeline-parallel-size", s(nodes),
                   "--nnodes", s(nodes), "--node-rank", s(rank), "--master-addr", address]
            return out + ["--headless"] if rank > 0 else out
        if multi and parallelism == "tp_dp":
            out = ["--tensor-parallel-size", s(self.gpu_count), "--data-parallel-size", s(nodes),
                   "--data-parallel-size-local", "1", "--data-parallel-address", address]
            return out + ["--data-parallel-start-rank", s(rank)] if node_role == "worker" else out
        if multi:
            out = ["--tensor-parallel-size", s(self.total_gpus), "--nnodes", s(nodes), "--node-rank", s(rank),
                   "--master-addr", address]
            return out + ["--headless"] if rank > 0 else out
        if deploy == "pd_cluster":
            return self._pd_parallel_args(role or "")
        return [flag, s(self.single_node_tp)]

    def _dep_local_override(self) -> Any:
        """The last `--data-parallel-size-local` value the recipe's overrides set, as Number() reads it."""
        so = self.overrides
        so_hw = get(so, "hardware_overrides")
        sources = [get(so, "vllm_args"), get(so, "extra_args"),
                   get(generation_key(so_hw, self.gen, self.nvidia)[1], "extra_args"),
                   get(get(so_hw, self.combo.hw_id), "extra_args")]
        flat: list[Any] = []
        for source in sources:
            flat += spread(js_or(source, []))
        for index in range(len(flat) - 1, -1, -1):
            if flat[index] == "--data-parallel-size-local":
                return js_number(flat[index + 1] if index + 1 < len(flat) else UNDEFINED)
        return self.gpu_count

    def _pd_role(self, role: str) -> dict[str, Any]:
        raw = self.combo.pd_nodes.get(role) if self.combo.pd_nodes else None
        if is_number(raw):
            return {"nodes": raw}
        return raw if type(raw) is dict else {}

    def _pool_nodes(self, role: str) -> Any:
        nodes = self._pd_role(role).get("nodes", UNDEFINED)
        return nodes if is_number(nodes) else (1 if self.combo.node_count > 1 else 0)

    def _pd_parallel_args(self, role: str) -> list[Any]:
        s = js_string
        role_cfg = js_or(get(self.strategy, role), {})
        so_role = js_or(get(self.overrides, role), {})
        pd_role = self._pd_role(role)
        pool_nodes = self._pool_nodes(role)
        pool_gpus = js_floor(self.gpu_count / 2) if pool_nodes == 0 else pool_nodes * self.gpu_count
        mode = js_or(pd_role.get("parallelism"), get(so_role, "parallelism"), get(role_cfg, "parallelism"), "tp")
        allowed = self.placement.pool_modes
        if mode not in allowed:
            mode = allowed[0]
        upper = role.upper()
        if mode == "dep":
            nodes_in_pool = js_max(1, pool_nodes)
            tp_explicit = coalesce(get(so_role, "tp"), get(role_cfg, "tp"))
            tp = coalesce(tp_explicit, 1)
            if not is_number(tp) or tp <= 0:
                self.problems.append((
                    ("strategy_overrides", self.combo.strategy, role, "tp"),
                    f"PD {role} pool `tp` must be a positive number, got {js_string(tp)}: the rendered "
                    f"data-parallel size would be {js_string(js_divide(self.gpu_count, js_number(tp)))}",
                ))
            dp_local = js_max(1, js_floor(js_divide(self.gpu_count, js_number(tp))))
            out: list[Any] = []
            if tp_explicit is not UNDEFINED:
                out += ["--tensor-parallel-size", s(tp)]
            out += ["--data-parallel-size", s(normalize_number(nodes_in_pool * dp_local)),
                    "--data-parallel-size-local", s(normalize_number(dp_local)),
                    "--data-parallel-start-rank", s(normalize_number(0 * dp_local)),
                    "--data-parallel-address", f"${upper}_NODE_1",
                    "--data-parallel-rpc-port", f"${upper}_DP_RPC_PORT"]
            if nodes_in_pool > 1:
                out.append("--data-parallel-hybrid-lb")
            return out + ["--enable-expert-parallel"]
        flag = js_or(get(so_role, "parallel_flag"), get(role_cfg, "parallel_flag"),
                     get(self.strategy, "parallel_flag"), "--tensor-parallel-size")
        out = [flag, s(normalize_number(js_max(1, pool_gpus)))]
        if mode == "tep":
            out.append("--enable-expert-parallel")
        if pool_nodes > 1:
            out += ["--nnodes", s(pool_nodes), "--node-rank", "0", "--master-addr", f"${upper}_NODE_1"]
        return out

    # ------------------------------------------------------------ env

    def build_env(self, role: str | None) -> dict[str, Any]:
        """The env layers in upstream's order (resolve.layers), PD device pinning among them."""
        env: dict[str, Any] = {}
        found = self.role_layers(role)
        for layer in found.env_before:
            assign(env, layer.items)
        pd = self.deploy_type == "pd_cluster"
        if pd and role:
            self._pin_pd_devices(env, role)
        for layer in found.env_after:
            assign(env, layer.items)
        if pd and self.combo.hw_id not in NVL4_HARDWARE:
            for key in NVL4_ONLY_ENV:
                env.pop(key, None)
        return env

    def _pin_pd_devices(self, env: dict, role: str) -> None:
        pool_nodes = self._pool_nodes(role)
        gpus = self.gpu_count
        if pool_nodes >= 1:
            env["CUDA_VISIBLE_DEVICES"] = ",".join(str(i) for i in range(_length(gpus)))
            if pool_nodes >= 2:
                env["GLOO_SOCKET_IFNAME"] = "$IFACE_NAME"
                env["NCCL_SOCKET_IFNAME"] = "$IFACE_NAME"
            return
        half = js_floor(gpus / 2)
        if half > 0:
            ids = range(_length(half)) if role == "prefill" else range(half, half + _length(gpus - half))
            env["CUDA_VISIBLE_DEVICES"] = ",".join(str(i) for i in ids)

    # ------------------------------------------------------------ assembly

    def command_pair(self, args: list[Any]) -> tuple[str, list[Any]]:
        return serve_command(self.model_id, self.placement.model_text, args)


# Far beyond any real deployment; upstream would build arrays this long (or throw).
MAX_RENDERED_ITEMS = 4096


def _length(value: Any) -> int:
    """`Array.from({length: v})`: how many GPUs, nodes or endpoints to list."""
    if not is_number(value) or value != value or value <= 0:
        return 0
    if value > MAX_RENDERED_ITEMS:
        raise RenderError(f"{js_string(value)} nodes, GPUs or instances is beyond any real deployment")
    return int(value)


def _add(into: _RoleLayers, part: _RoleLayers) -> None:
    args_before, args_after, env_before, env_after = part
    if args_before:
        into.args_before.extend(args_before)
    if args_after:
        into.args_after.extend(args_after)
    if env_before:
        into.env_before.extend(env_before)
    if env_after:
        into.env_after.extend(env_after)


def _evaluate(entries: tuple[_Entry, ...], selection: Selection, role: str | None,
              out: _RoleLayers | None = None) -> _RoleLayers:
    """The entries' layers, split by kind and side of the emitter (added to ``out`` when given)."""
    out = _RoleLayers([], [], [], []) if out is None else out
    for entry in entries:
        for step in entry.args:
            (out.args_after if entry.args_after else out.args_before).extend(step.layers(selection, role))
        for step in entry.env:
            (out.env_after if entry.env_after else out.env_before).extend(step.layers(selection, role))
    return out


def _follower_ranks(nodes: Any) -> list[int]:
    count = js_or(nodes, 1)
    return list(range(1, _length(count - 1) + 1)) if is_number(count) else []


def render_command(
    catalog: Catalog, recipe: dict, combo: Combination, problems: list | None = None,
    placement: Placement | None = None,
) -> dict[str, Any]:
    """The published JSON for one combination (before `strategy_spec`/`hardware_profile`).

    Raises RenderError where upstream's synthesis throws. Input that upstream renders
    but that is nonetheless broken (a PD `tp: 0`, no image for the hardware) renders
    the same way and adds a (pointer, message) pair to ``problems``. A ``placement``
    for the combination's variant and hardware saves recomputing what it shares.
    """
    if placement is None or not placement.serves(catalog, recipe, combo):
        placement = Placement(catalog, recipe, combo.variant_key, combo.hw_id)
    synth = _Synthesis(catalog, recipe, combo, placement)
    meta = placement.meta
    if synth.deploy == "pd_cluster":
        doc = _render_pd(synth, meta)
    elif synth.kv_composing:
        doc = _render_kv(synth, meta)
    elif synth.deploy == "multi_node" and combo.node_count > 1:
        doc = _render_multi_node(synth, meta)
    else:
        doc = _render_single_node(synth, meta)
    if problems is not None:
        problems.extend(synth.problems)
        if meta.image is UNDEFINED:
            problems.append((("model", "docker_image"),
                             f"no container image exists for {combo.hw_id} (nightly images are not published "
                             "for this hardware): the docker command would run `undefined`"))
    return doc


def command_parts(catalog: Catalog, recipe: dict, combo: Combination, role: str | None = None,
                  node_role: str | None = None, node_rank: int = 1) -> tuple[list[Layer], list[Any], list[Layer]]:
    """(layers before the emitter's tokens, the emitter's tokens, layers after them): what one argv joins.

    The rendered args are these spread in order, then deduplicated (resolve.formatting).
    """
    synth = _Synthesis(catalog, recipe, combo, Placement(catalog, recipe, combo.variant_key, combo.hw_id))
    found = synth.role_layers(role)
    before, after = found.args_before, found.args_after
    return before, synth._parallel_args(role, node_role, node_rank), after


def _base(synth: _Synthesis, meta: DockerMeta, deploy_type: str, env: dict) -> dict[str, Any]:
    combo = synth.combo
    base = {
        "hardware": combo.hw_id,
        "strategy": combo.strategy,
        "variant": combo.variant_key,
        "node_count": combo.node_count,
        "deploy_type": deploy_type,
        "env": env,
    }
    if meta.image is not UNDEFINED:
        base["docker_image"] = meta.image
    return base


def _render_single_node(synth: _Synthesis, meta: DockerMeta) -> dict[str, Any]:
    command, argv = synth.command_pair(synth.build_args(None, None))
    env = synth.build_env(None)
    out = _base(synth, meta, synth.deploy, env)
    out["command"] = command
    out["argv"] = argv
    out.update(DockerWrapper(env, meta).wrap(command, argv))
    extra = companions(synth.recipe, list(synth.combo.features), synth.combo.strategy)
    option = synth.kv_option
    if option is not None and truthy(get(get(option, "companion"), "command")):
        companion = option["companion"]
        description = " ".join(
            part for part in (js_or(get(companion, "description"), ""),
                              f"Requires: {js_string(option['install'])}" if truthy(get(option, "install")) else "")
            if truthy(part)
        )
        extra.append({"feature": f"kv_offload:{synth.combo.kv_offload}",
                      "label": js_or(get(companion, "label"), synth.combo.kv_offload),
                      "description": description,
                      "command": js_string(companion["command"]).rstrip(JS_WHITESPACE)})
    if extra:
        out["companions"] = extra
    return out


def _render_multi_node(synth: _Synthesis, meta: DockerMeta) -> dict[str, Any]:
    head_cmd, head_argv = synth.command_pair(synth.build_args(None, "head"))
    workers = [synth.command_pair(synth.build_args(None, "worker", r)) for r in _follower_ranks(synth.combo.node_count)]
    env = synth.build_env(None)
    docker = DockerWrapper(env, meta)  # the head and every worker share the env and the image
    head = docker.wrap(head_cmd, head_argv)
    worker_dockers = [docker.wrap(cmd, argv) for cmd, argv in workers]
    out = _base(synth, meta, "multi_node", env)
    out.update({
        "head_command": head_cmd,
        "worker_command": workers[0][0],
        "worker_commands": [cmd for cmd, _ in workers],
        "head_argv": head_argv,
        "worker_argv": workers[0][1],
        "worker_argvs": [argv for _, argv in workers],
        "head_docker_command": head["docker_command"],
        "worker_docker_command": worker_dockers[0]["docker_command"],
        "worker_docker_commands": [w["docker_command"] for w in worker_dockers],
        "head_docker_argv": head["docker_argv"],
        "worker_docker_argv": worker_dockers[0]["docker_argv"],
        "worker_docker_argvs": [w["docker_argv"] for w in worker_dockers],
    })
    return out


def _pd_role_meta(synth: _Synthesis, role: str) -> dict[str, Any]:
    """The role metadata upstream reports; it does not snap to `pool_modes` (unlike the args)."""
    so_role = js_or(get(synth.overrides, role), {})
    role_cfg = js_or(get(synth.strategy, role), {})
    nodes = synth._pool_nodes(role)
    mode = js_or(synth._pd_role(role).get("parallelism"), get(so_role, "parallelism"),
                 get(role_cfg, "parallelism"), "tp")
    gpus = synth.gpu_count
    pool_gpus = js_floor(gpus / 2) if nodes == 0 else nodes * gpus
    tp = js_or(get(so_role, "tp"), get(role_cfg, "tp"), 1) if mode == "dep" else pool_gpus
    dp_local = js_max(1, js_floor(js_divide(gpus, js_number(tp)))) if mode == "dep" else 0
    dp_size = js_max(1, nodes) * dp_local if mode == "dep" else 1
    return {"nodes": nodes, "parallelism": mode, "tp": tp, "dpLocal": normalize_number(dp_local),
            "dpSize": normalize_number(dp_size), "poolGpus": normalize_number(pool_gpus),
            "currentNode": 0, "startRank": 0}


def _render_pd(synth: _Synthesis, meta: DockerMeta) -> dict[str, Any]:
    strategy = synth.strategy
    policy = js_or(get(get(strategy, "router"), "policy"), "round_robin")
    roles = {}
    for role in ("prefill", "decode"):
        role_meta = _pd_role_meta(synth, role)
        roles[role] = role_meta
    endpoints = []
    for role, flag in (("prefill", "--prefill"), ("decode", "--decode")):
        role_meta = roles[role]
        count = js_max(1, js_or(role_meta["nodes"], 1)) if role_meta["parallelism"] == "dep" else 1
        port = PD_PORTS[role]
        endpoints += [f"    {flag} http://${role.upper()}_NODE_{i + 1}:{port} \\" for i in range(_length(count))]
    intra = coalesce(
        get(get(synth.overrides, "router"), "intra_node_data_parallel_size"),
        js_max(js_or(roles["prefill"]["dpLocal"], 0), js_or(roles["decode"]["dpLocal"], 0), 1),
    )
    router_lines = [f"vllm-router --policy {js_string(policy)} \\", "    --vllm-pd-disaggregation \\", *endpoints,
                    "    --host $ROUTER_HOST \\", "    --port $ROUTER_PORT \\",
                    f"    --intra-node-data-parallel-size {js_string(normalize_number(intra))}"]
    rendered = {}
    for role in ("prefill", "decode"):
        command, argv = synth.command_pair(synth.build_args(role, None))
        env = synth.build_env(role)
        doc = {"command": command, "argv": argv, "env": env, **roles[role]}
        doc.update(DockerWrapper(env, meta).wrap(command, argv, PD_PORTS[role]))
        rendered[role] = doc
    out = _base(synth, meta, "pd_cluster", {})
    out["prefill"] = rendered["prefill"]
    out["decode"] = rendered["decode"]
    out["router"] = {"command": "\n".join(router_lines), "install": "uv pip install vllm-router"}
    out["router_config"] = js_or(get(strategy, "router"), {"policy": "round_robin"})
    return out


def _brand_install(synth: _Synthesis, raw: Any) -> Any:
    if isinstance(raw, (dict, list)):
        brand = get(synth.profile, "brand")
        key = "amd" if brand == "AMD" else "nvidia" if brand == "NVIDIA" else None
        return js_or(get(raw, key), None) if key else None
    return raw if truthy(raw) else None


def _kv_router(kv: Any, instances: Any) -> dict[str, Any] | None:
    """The cache-aware router in front of the instances; none for a single instance."""
    if not instances > 1:
        return None
    router, vllm = get(kv, "router"), get(kv, "vllm")
    port = js_or(get(vllm, "port"), 8000)
    lines = [f"vllm-router --policy {js_string(js_or(get(router, 'policy'), 'cache_aware'))} \\",
             *[f"    --backend-url http://$VLLM_INSTANCE_{i + 1}:{js_string(port)} \\"
               for i in range(_length(instances))],
             "    --host $ROUTER_HOST \\", "    --port $ROUTER_PORT \\", "    --cache-threshold 0.5 \\",
             "    --balance-abs-threshold 4 \\", "    --balance-rel-threshold 1.1"]
    return {"command": "\n".join(lines),
            "install": js_or(get(router, "install"), "uv pip install vllm-router"),
            "port": js_or(get(router, "port"), 30080)}


def _kv_services(kv: Any) -> dict[str, Any]:
    master, store = get(kv, "mooncake_master"), get(kv, "mooncake_store_config")
    return {
        "master": {"command": js_or(get(master, "command"), "mooncake_master"),
                   "description": js_or(get(master, "description"), "")},
        "store": ({"command": get(store, "command"), "description": js_or(get(store, "description"), ""),
                   "config": js_or(get(store, "config"), None), "note": js_or(get(store, "note"), "")}
                  if truthy(store) else None),
    }


def _render_kv(synth: _Synthesis, meta: DockerMeta) -> dict[str, Any]:
    """A Mooncake deployment: the serving strategy's commands plus router, master and store."""
    kv, combo = synth.kv, synth.combo
    multi = synth.deploy_type == "multi_node" and combo.node_count > 1
    command, argv = synth.command_pair(synth.build_args(None, "head" if multi else None))
    workers = ([synth.command_pair(synth.build_args(None, "worker", r)) for r in _follower_ranks(combo.node_count)]
               if multi else [])
    env = synth.build_env(None)
    docker = DockerWrapper(env, meta)  # the instance's head and workers share the env and the image
    worker_dockers = [docker.wrap(c, a) for c, a in workers]
    vllm_docker = docker.wrap(command, argv)
    vllm_config = get(kv, "mooncake_vllm_config")
    out = _base(synth, meta, "kv_store_lb", env)
    out["strategy"] = combo.kv_offload or combo.strategy
    out.update({
        "serving_strategy": combo.strategy,
        "kv_min_vllm_version": js_or(get(kv, "min_vllm_version"), None),
        "instances": synth.instances,
        "vllm_command": command,
        "vllm_argv": argv,
        "vllm_worker_command": workers[0][0] if workers else None,
        "vllm_worker_commands": [c for c, _ in workers] if workers else None,
        "vllm_worker_argv": workers[0][1] if workers else None,
        "vllm_worker_argvs": [a for _, a in workers] if workers else None,
        "vllm_worker_docker_command": worker_dockers[0]["docker_command"] if workers else None,
        "vllm_worker_docker_argv": worker_dockers[0]["docker_argv"] if workers else None,
        "vllm_worker_docker_commands": [w["docker_command"] for w in worker_dockers] if workers else None,
        "vllm_worker_docker_argvs": [w["docker_argv"] for w in worker_dockers] if workers else None,
        "vllm_install": _brand_install(synth, get(get(kv, "vllm"), "install")),
        "vllm_docker_command": vllm_docker["docker_command"],
        "vllm_docker_argv": vllm_docker["docker_argv"],
        **_kv_services(kv),
        "router": _kv_router(kv, synth.instances),
        "mooncake_config": js_or(get(vllm_config, "template"), {}),
        "mooncake_config_note": js_or(get(vllm_config, "note"), ""),
    })
    return out
