"""One combination's arguments and environment: `Synthesis`, the port of upstream's synthesis.

It reads the layers for a role and node rank, merges them, and lays out (or only judges)
the serve command line and the env; it raises RenderError where upstream throws.

Upstream: docs/upstream-behaviour.md#layer-order, #parallelism-flags, #env-layers, #error-handling.
"""

from __future__ import annotations

import math
from typing import TypeAlias

from recipelint.jsvalue import (
    UNDEFINED,
    JsonValue,
    JsValue,
    Undefined,
    coalesce,
    get,
    is_number,
    js_divide,
    js_floor,
    js_gt,
    js_max,
    js_number,
    js_or,
    js_string,
    normalize_number,
)
from recipelint.read.recipedata import Recipe
from recipelint.resolve.docker import DockerMeta, DockerWrapper
from recipelint.resolve.formatting import RenderError, check_serve_args, serve_command
from recipelint.resolve.inputs import (
    NVL4_HARDWARE,
    NVL4_ONLY_ENV,
    Combination,
    RenderInputs,
)
from recipelint.resolve.layers import (
    ARG_STEPS,
    ENV_STEPS,
    PLACEMENT_RUN,
    STRATEGY_RUN,
    Pointer,
    Run,
    Selection,
    Token,
    generation_key,
    runs,
    split_at_emitter,
)
from recipelint.resolve.placement import (
    Env,
    Placement,
    assign,
    assign_steps,
    spread,
    spread_steps,
)

# What renders but is invalid: where, and why.
Problem: TypeAlias = tuple[Pointer, str]

# The join orders split at the emitter's tokens, in runs.
_ARGS_BEFORE, _ARGS_AFTER = (runs(part) for part in split_at_emitter(ARG_STEPS))
_ENV_BEFORE, _ENV_AFTER = (runs(part) for part in split_at_emitter(ENV_STEPS))


class Synthesis(Selection):
    """One combination being rendered: the bare Selection its layers read, plus what the emitter needs."""

    __slots__ = (
        "inputs",
        "combo",
        "placement",
        "problems",
        "_layers",
        "deploy_type",
        "profile",
        "gpu_count",
        "total_gpus",
        "model_id",
        "instances",
        "deploy",
        "single_node_tp",
        "presence",
        "facts",
        "dp_local",
    )

    def __init__(
        self,
        inputs: RenderInputs,
        recipe: Recipe,
        combo: Combination,
        placement: Placement,
    ) -> None:
        self.inputs, self.recipe, self.combo, self.placement = inputs, recipe, combo, placement
        self.problems: list[Problem] = []  # renders, but is invalid
        # role -> (args before, args after the emitter)
        self._layers: dict[str | None, tuple[list[Token], list[Token]]] = {}
        self.variant_key, self.hw_id, self.strategy = combo.variant_key, combo.hw_id, combo.strategy
        self.variant = placement.variant
        facts = placement.strategy_facts(combo.strategy)
        self.facts = facts
        self.spec = facts.spec
        deploy_type = self.deploy_type = facts.deploy_type
        self.profile = placement.profile
        self.gen = placement.gen
        self.nvidia = placement.nvidia
        gpu_count = self.gpu_count = placement.gpu_count
        nodes = combo.node_count
        # gpu_count * Math.max(1, nodes)
        self.total_gpus = gpu_count * (nodes if nodes != nodes or nodes > 1 else 1)
        self.model_id = placement.model_id
        kv_offload = combo.kv_offload
        self.kv_option_id = kv_offload
        if kv_offload is None:
            self.kv = self.kv_option = None
            self.kv_composing = False
            self.instances: JsValue = 2
        else:
            self.kv, self.instances = placement.kv_facts(kv_offload)
            self.kv_composing = self.kv is not None and deploy_type != "pd_cluster"
            self.kv_option = placement.kv_option(kv_offload, combo.strategy, deploy_type)
        overrides = self.overrides = facts.overrides
        self.deploy = facts.deploy
        self.single_node_tp = (
            placement.tp_for_single_node_tp if combo.strategy == "single_node_tp" else gpu_count
        )
        features = self.features = (
            placement.features.args_for(combo.features, combo.strategy, self.kv_composing)
            if combo.features
            else []
        )
        self.memo = None
        self.shared = placement.shared
        self.bare = True
        self.dp_local: int | float | Undefined = UNDEFINED  # _dep_local_override(), once asked
        # Selection.present(), inlined: every rendering asks it once
        self.presence = (
            (type(overrides) is dict)
            | (bool(features) << 1)
            | ((self.kv_option is not None or self.kv is not None) << 2)
        )

    # ------------------------------------------------------------ args

    def build_args(
        self, role: str | None, node_role: str | None, node_rank: int = 1
    ) -> list[Token]:
        """The layers before the emitter (resolve.layers.ARG_STEPS), its tokens, the layers after."""
        before, after = self._role_layers(role)
        return before + self._parallel_args(role, node_role, node_rank) + after

    def _role_layers(self, role: str | None) -> tuple[list[Token], list[Token]]:
        """The args before and after the parallelism flags; they do not depend on the node rank."""
        cached = self._layers.get(role)
        if cached is None:
            cached = self._layers[role] = (
                self._joined_args(_ARGS_BEFORE, role),
                self._joined_args(_ARGS_AFTER, role),
            )
        return cached

    def _joined_args(self, parts: tuple[Run, ...], role: str | None) -> list[Token]:
        args: list[Token] = []
        placement = self.placement
        for run in parts:
            kind = run.kind
            if kind is PLACEMENT_RUN:
                found = placement._joined_args.get(run.number)  # Placement.run_args, inlined
                args += found if found is not None else placement.run_args(run, self)
            elif kind is STRATEGY_RUN:
                args += placement.strategy_args(run, self, role)
            else:
                steps = run.by_presence[self.presence]
                if steps:
                    spread_steps(args, steps, self, role)
        return args

    def _parallel_args(
        self, role: str | None, node_role: str | None, node_rank: int
    ) -> list[Token]:
        facts, combo = self.facts, self.combo
        deploy = facts.deploy_type
        flag = facts.parallel_flag
        nodes = combo.node_count
        multi = deploy == "multi_node" and nodes > 1
        # Math.max(1, rank): the plan's ranks are ints
        rank = (node_rank if node_rank > 1 else 1) if node_role == "worker" else 0
        address = (
            "$VLLM_INSTANCE_1" if self.kv_composing and js_gt(self.instances, 1) else "$HEAD_IP"
        )
        s = js_string
        if not multi and deploy != "pd_cluster":
            return [flag, s(self.single_node_tp)]
        parallelism = facts.parallelism
        if multi and flag == "--data-parallel-size":
            dp_local = self.dp_local
            if dp_local is UNDEFINED:  # the head and every worker read it
                dp_local = self.dp_local = self._dep_local_override()
            out: list[Token] = [
                "--data-parallel-size",
                s(self.total_gpus),
                "--data-parallel-size-local",
                s(self.gpu_count),
                "--data-parallel-address",
                address,
            ]
            if node_role == "worker":
                # (a number: `is UNDEFINED` does not narrow for mypy)
                start = rank * dp_local  # type: ignore[operator]
                out += ["--data-parallel-start-rank", s(normalize_number(start))]
            return out
        if multi and parallelism == "tp_pp":
            sizes: list[Token] = [
                "--tensor-parallel-size",
                s(self.gpu_count),
                "--pipeline-parallel-size",
                s(nodes),
            ]
            return _ranked_nodes(sizes, nodes, rank, address)
        if multi and parallelism == "tp_dp":
            out = [
                "--tensor-parallel-size",
                s(self.gpu_count),
                "--data-parallel-size",
                s(nodes),
                "--data-parallel-size-local",
                "1",
                "--data-parallel-address",
                address,
            ]
            return out + ["--data-parallel-start-rank", s(rank)] if node_role == "worker" else out
        if multi:
            return _ranked_nodes(
                ["--tensor-parallel-size", s(self.total_gpus)], nodes, rank, address
            )
        if deploy == "pd_cluster":
            return self._pd_parallel_args(role or "")
        return [flag, s(self.single_node_tp)]

    def _dep_local_override(self) -> int | float:
        """The last `--data-parallel-size-local` value the recipe's overrides set, as Number() reads it."""
        so = self.overrides
        so_hw = get(so, "hardware_overrides")
        sources = [
            get(so, "vllm_args"),
            get(so, "extra_args"),
            get(generation_key(so_hw, self.gen, self.nvidia)[1], "extra_args"),
            get(get(so_hw, self.combo.hw_id), "extra_args"),
        ]
        flat: list[JsonValue] = []
        for source in sources:
            flat += spread(js_or(source, []))
        for index in range(len(flat) - 1, -1, -1):
            if flat[index] == "--data-parallel-size-local":
                return js_number(flat[index + 1] if index + 1 < len(flat) else UNDEFINED)
        return self.gpu_count

    def _pd_role(self, role: str) -> dict[str, JsonValue]:
        raw = self.combo.pd_nodes.get(role) if self.combo.pd_nodes else None
        if is_number(raw):
            return {"nodes": raw}
        return raw if type(raw) is dict else {}

    def _pool_nodes(self, role: str) -> int | float:
        nodes = self._pd_role(role).get("nodes", UNDEFINED)
        return nodes if is_number(nodes) else (1 if self.combo.node_count > 1 else 0)

    def pool_gpus(self, role: str) -> int | float:
        """The GPUs a PD role's pool holds: its nodes' GPUs, or half of one shared node."""
        pool_nodes = self._pool_nodes(role)
        return js_floor(self.gpu_count / 2) if pool_nodes == 0 else pool_nodes * self.gpu_count

    def _pd_parallel_args(self, role: str) -> list[Token]:
        s = js_string
        role_cfg = js_or(get(self.spec, role), {})
        so_role = js_or(get(self.overrides, role), {})
        pd_role = self._pd_role(role)
        pool_nodes = self._pool_nodes(role)
        pool_gpus = self.pool_gpus(role)
        mode = js_or(
            pd_role.get("parallelism"),
            get(so_role, "parallelism"),
            get(role_cfg, "parallelism"),
            "tp",
        )
        allowed = self.placement.pool_modes
        if mode not in allowed:
            mode = allowed[0]
        upper = role.upper()
        if mode == "dep":
            nodes_in_pool = js_max(1, pool_nodes)
            tp_explicit = coalesce(get(so_role, "tp"), get(role_cfg, "tp"))
            tp = coalesce(tp_explicit, 1)
            if not is_number(tp) or tp <= 0:
                self.problems.append(
                    (
                        ("strategy_overrides", self.combo.strategy, role, "tp"),
                        f"PD {role} pool `tp` must be a positive number, got {js_string(tp)}: the rendered "
                        f"data-parallel size would be {js_string(js_divide(self.gpu_count, js_number(tp)))}",
                    )
                )
            dp_local = js_max(1, js_floor(js_divide(self.gpu_count, js_number(tp))))
            out: list[Token] = []
            if tp_explicit is not UNDEFINED:
                out += ["--tensor-parallel-size", s(tp)]
            out += [
                "--data-parallel-size",
                s(normalize_number(nodes_in_pool * dp_local)),
                "--data-parallel-size-local",
                s(normalize_number(dp_local)),
                "--data-parallel-start-rank",
                s(normalize_number(first_node_of_pool(nodes_in_pool) * dp_local)),
                "--data-parallel-address",
                f"${upper}_NODE_1",
                "--data-parallel-rpc-port",
                f"${upper}_DP_RPC_PORT",
            ]
            if nodes_in_pool > 1:
                out.append("--data-parallel-hybrid-lb")
            return out + ["--enable-expert-parallel"]
        flag = js_or(
            get(so_role, "parallel_flag"),
            get(role_cfg, "parallel_flag"),
            get(self.spec, "parallel_flag"),
            "--tensor-parallel-size",
        )
        out = [flag, s(normalize_number(js_max(1, pool_gpus)))]
        if mode == "tep":
            out.append("--enable-expert-parallel")
        if pool_nodes > 1:
            out += [
                "--nnodes",
                s(pool_nodes),
                "--node-rank",
                "0",
                "--master-addr",
                f"${upper}_NODE_1",
            ]
        return out

    # ------------------------------------------------------------ env

    def build_env(self, role: str | None) -> Env:
        """The env layers (resolve.layers.ENV_STEPS) assigned in order, PD device pinning at the emitter's place."""
        env: Env = {}
        self._assign_runs(env, _ENV_BEFORE, role)
        pd = self.deploy_type == "pd_cluster"
        if pd and role:
            self._pin_pd_devices(env, role)
        self._assign_runs(env, _ENV_AFTER, role)
        if pd and self.hw_id not in NVL4_HARDWARE:
            for key in NVL4_ONLY_ENV:
                env.pop(key, None)
        return env

    def env(self, role: str | None, meta: DockerMeta) -> tuple[Env, DockerWrapper]:
        """build_env(role), and the `docker run` wrapper of that env and image.

        Outside a PD cluster the env is its mappings assigned in turn; the recipe's renderings
        that assign the same mappings (Placement interns them) with the same image share the
        wrapper (formatting the env for docker is most of a wrapper's cost), and each gets a
        copy of the env.
        """
        if self.deploy_type == "pd_cluster":
            env = self.build_env(role)
            return env, DockerWrapper(env, meta)
        pieces: list[Env] = []
        self._env_pieces(pieces, _ENV_BEFORE, role)
        self._env_pieces(pieces, _ENV_AFTER, role)
        key = ("docker-env", role, id(meta), *map(id, pieces))
        cached = self.placement.strategy_runs
        found = cached.get(key)
        if found is None:
            env = {}
            for piece in pieces:
                env.update(piece)
            # the entry holds the pieces and the image: no other object takes their ids meanwhile
            found = cached[key] = (env, DockerWrapper(env, meta), pieces, meta)
        return dict(found[0]), found[1]

    def check_env(self, role: str | None) -> None:
        """Raise what env(role, ...) raises: its mappings are worked out, not assigned into
        one nor formatted for docker (which raise nothing)."""
        if self.deploy_type == "pd_cluster":
            self.build_env(role)
            return
        pieces: list[Env] = []
        self._env_pieces(pieces, _ENV_BEFORE, role)
        self._env_pieces(pieces, _ENV_AFTER, role)

    def _env_pieces(self, pieces: list[Env], parts: tuple[Run, ...], role: str | None) -> None:
        """The mappings _assign_runs would assign, in order (falsy ones left out)."""
        placement = self.placement
        for run in parts:
            kind = run.kind
            if kind is PLACEMENT_RUN:
                found = placement._joined_env.get(run.number)
                pieces.append(found if found is not None else placement.run_env(run, self))
            elif kind is STRATEGY_RUN:
                pieces.append(placement.strategy_env(run, self, role))
            else:
                for step in run.by_presence[self.presence]:
                    for items in step.layers(self, role):
                        if type(items) is dict:
                            pieces.append(items)
                        else:
                            assign({}, items)  # raises for what Object.assign would not take

    def _assign_runs(self, env: Env, parts: tuple[Run, ...], role: str | None) -> None:
        placement = self.placement
        for run in parts:
            kind = run.kind
            if kind is PLACEMENT_RUN:
                found = placement._joined_env.get(run.number)  # Placement.run_env, inlined
                env.update(found if found is not None else placement.run_env(run, self))
            elif kind is STRATEGY_RUN:
                env.update(placement.strategy_env(run, self, role))
            else:
                steps = run.by_presence[self.presence]
                if steps:
                    assign_steps(env, steps, self, role)

    def _pin_pd_devices(self, env: Env, role: str) -> None:
        pool_nodes = self._pool_nodes(role)
        gpus = self.gpu_count
        if pool_nodes >= 1:
            env["CUDA_VISIBLE_DEVICES"] = ",".join(str(i) for i in range(array_length(gpus)))
            if pool_nodes >= 2:
                env["GLOO_SOCKET_IFNAME"] = "$IFACE_NAME"
                env["NCCL_SOCKET_IFNAME"] = "$IFACE_NAME"
            return
        half = js_floor(gpus / 2)
        if half > 0:
            ids = (
                range(array_length(half))
                if role == "prefill"
                # array_length(half) is half itself here, bounded like every other rendered count
                else range(array_length(half), array_length(half) + array_length(gpus - half))
            )
            env["CUDA_VISIBLE_DEVICES"] = ",".join(str(i) for i in ids)

    # ------------------------------------------------------------ assembly

    def command(
        self, role: str | None, node_role: str | None, node_rank: int = 1
    ) -> tuple[str, list[Token]]:
        """The `vllm serve` line and argv of build_args(role, node_role, node_rank)."""
        args = self.build_args(role, node_role, node_rank)
        return serve_command(self.model_id, self.placement.model_text, args)

    def check_command(self, role: str | None, node_role: str | None, node_rank: int = 1) -> None:
        """Raise what command() raises, without laying out the command line."""
        args = self.build_args(role, node_role, node_rank)
        self.placement.model_text  # noqa: B018 - String(model_id) is part of every command
        check_serve_args(args)


# Far beyond any real deployment; upstream would build arrays this long (or throw).
MAX_RENDERED_ITEMS = 4096


def array_length(value: object) -> int:
    """`Array.from({length: v})`: how many GPUs, nodes or endpoints to list (a quoted count
    is read as its number)."""
    length = value if type(value) is int else js_number(value)
    if length != length or length <= 0:
        return 0
    if length > MAX_RENDERED_ITEMS:
        raise RenderError(
            f"{js_string(value)} nodes, GPUs or instances is beyond any real deployment"
        )
    return int(length)


def first_node_of_pool(nodes: int | float) -> int | float:
    """The node a PD pool's command is for, max(0, min(max(1, nodes) - 1, 0)): the first, or
    NaN for a pool of NaN nodes (sized from a vram_minimum_gb that is no number)."""
    return 0 if nodes == nodes else math.nan


def follower_ranks(nodes: JsValue) -> list[int]:
    count = js_or(nodes, 1)
    return list(range(1, array_length(count - 1) + 1)) if is_number(count) else []


def _ranked_nodes(sizes: list[Token], nodes: JsValue, rank: int, address: str) -> list[Token]:
    """The parallel sizes, then the torch-style node flags; every node but the first is headless."""
    out = [
        *sizes,
        "--nnodes",
        js_string(nodes),
        "--node-rank",
        js_string(rank),
        "--master-addr",
        address,
    ]
    return out + ["--headless"] if rank > 0 else out
