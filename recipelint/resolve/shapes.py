"""The per-deploy-type shape of a rendering: single node, multi node, PD cluster, kv store.

Each shape has a renderer that lays the document out and a checker that judges the same
parts without laying them out; tests/test_resolve_shapes.py asserts the two agree.

Upstream: docs/upstream-behaviour.md#deploy-types and #rendering-documents.
"""

from __future__ import annotations

from typing import NamedTuple, Protocol, TypedDict

from recipelint.jsvalue import (
    JS_WHITESPACE,
    UNDEFINED,
    JsonDocument,
    JsValue,
    coalesce,
    get,
    js_divide,
    js_floor,
    js_gt,
    js_max,
    js_number,
    js_or,
    js_string,
    normalize_number,
    truthy,
)
from recipelint.resolve.docker import DockerMeta, DockerWrapper
from recipelint.resolve.features import companions
from recipelint.resolve.layers import Token
from recipelint.resolve.placement import Env
from recipelint.resolve.synthesis import (
    Synthesis,
    array_length,
    first_node_of_pool,
    follower_ranks,
)

PD_PORTS = {"prefill": 8001, "decode": 8002}
SERVE_PORT = 8000


Command = tuple[str, list[Token]]


# A command's env and the `docker run` wrapper of that env and the image.
Environment = tuple[Env, DockerWrapper]


class Walker(Protocol):
    """What a shape's walk does with each command and env it reaches: lay it out, or only
    judge it.

    The walk reaches every step that can raise or add a problem in upstream's order whichever
    walker it is given; only with a laying-out walker does it build the document.
    """

    def command(
        self, synth: Synthesis, role: str | None, node_role: str | None, node_rank: int = 1
    ) -> Command | None:
        """The command line and argv, or None when the command is only judged."""

    def env(self, synth: Synthesis, meta: DockerMeta) -> Environment | None:
        """The env outside a PD role and its wrapper, or None when it is only judged."""

    def role_env(self, synth: Synthesis, role: str, meta: DockerMeta) -> Environment | None:
        """A PD role's env and its wrapper, or None when it is only judged."""


class LayOut:
    """Builds every command line and the document."""

    def command(
        self, synth: Synthesis, role: str | None, node_role: str | None, node_rank: int = 1
    ) -> Command | None:
        return synth.command(role, node_role, node_rank)

    def env(self, synth: Synthesis, meta: DockerMeta) -> Environment | None:
        return synth.env(None, meta)

    def role_env(self, synth: Synthesis, role: str, meta: DockerMeta) -> Environment | None:
        env = synth.build_env(role)
        return env, DockerWrapper(env, meta)


class Judge:
    """Works out and judges every command and env without laying any out: no env is
    assigned into one mapping or formatted for docker, which cannot raise."""

    def command(
        self, synth: Synthesis, role: str | None, node_role: str | None, node_rank: int = 1
    ) -> Command | None:
        synth.check_command(role, node_role, node_rank)
        return None

    def env(self, synth: Synthesis, meta: DockerMeta) -> Environment | None:
        synth.check_env(None)
        return None

    def role_env(self, synth: Synthesis, role: str, meta: DockerMeta) -> Environment | None:
        synth.build_env(role)  # the device pinning raises for a count beyond any deployment
        return None


def _all_laid_out(commands: list[Command | None]) -> list[Command] | None:
    laid_out = [command for command in commands if command is not None]
    return laid_out if len(laid_out) == len(commands) else None


def shape_of(synth: Synthesis) -> int:
    """Which of SHAPES walks the combination."""
    if synth.deploy == "pd_cluster":
        return 0
    if synth.kv_composing:
        return 1
    return 2 if synth.deploy == "multi_node" and synth.combo.node_count > 1 else 3


def _base(synth: Synthesis, meta: DockerMeta, deploy_type: JsValue, env: Env) -> JsonDocument:
    combo = synth.combo
    base: JsonDocument = {
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


def _single_node(synth: Synthesis, meta: DockerMeta, walker: Walker) -> JsonDocument:
    laid_out = walker.command(synth, None, None)
    environment = walker.env(synth, meta)
    extra = _companions(synth)
    kv_companion = _kv_companion(synth)
    if laid_out is None or environment is None:
        return {}
    command, argv = laid_out
    env, docker = environment
    out = _base(synth, meta, synth.deploy, env)
    out["command"] = command
    out["argv"] = argv
    out.update(docker.wrap(command, argv))
    if kv_companion is not None:
        extra.append(kv_companion)
    if extra:
        out["companions"] = extra
    return out


def _kv_companion(synth: Synthesis) -> JsonDocument | None:
    """The kv offload option's companion command, when it has one."""
    option = synth.kv_option
    if option is None or not truthy(get(get(option, "companion"), "command")):
        return None
    # the command read above makes both mappings
    companion = option["companion"]  # type: ignore[index,call-overload]
    description = " ".join(
        js_string(part)
        for part in (
            js_or(get(companion, "description"), ""),
            f"Requires: {js_string(option['install'])}"  # type: ignore[index,call-overload]
            if truthy(get(option, "install"))
            else "",
        )
        if truthy(part)
    )
    return {
        "feature": f"kv_offload:{synth.combo.kv_offload}",
        "label": js_or(get(companion, "label"), synth.combo.kv_offload),
        "description": description,
        "command": js_string(companion["command"]).rstrip(JS_WHITESPACE),  # type: ignore[index,call-overload]
    }


def _companions(synth: Synthesis) -> list[JsonDocument]:
    """The enabled features' companion commands; which features have one is worked out once
    for the recipe's renderings (most have none)."""
    enabled = synth.combo.features
    if not enabled:
        return []
    key = ("companions", enabled)
    runs = synth.placement.strategy_runs
    having: list[str] | None = runs.get(key)
    if having is None:
        features = get(synth.recipe, "features")
        having = runs[key] = [
            name
            for name in enabled
            if truthy(get(get(get(features, name), "companion"), "command"))
        ]
    return companions(synth.recipe, having, synth.combo.strategy) if having else []


def _multi_node(synth: Synthesis, meta: DockerMeta, walker: Walker) -> JsonDocument:
    head_laid_out = walker.command(synth, None, "head")
    workers_laid_out = _all_laid_out(
        [walker.command(synth, None, "worker", r) for r in follower_ranks(synth.combo.node_count)]
    )
    # the head and every worker share the env and the image
    environment = walker.env(synth, meta)
    if head_laid_out is None or workers_laid_out is None or environment is None:
        return {}
    env, docker = environment
    head_cmd, head_argv = head_laid_out
    workers = workers_laid_out
    head = docker.wrap(head_cmd, head_argv)
    worker_dockers = [docker.wrap(cmd, argv) for cmd, argv in workers]
    out = _base(synth, meta, "multi_node", env)
    out.update(
        {
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
        }
    )
    return out


class PoolMeta(TypedDict):
    """A PD role's pool as its document reports it."""

    nodes: int | float
    parallelism: JsValue
    tp: JsValue
    dpLocal: int | float  # noqa: N815 - the document's key
    dpSize: int | float  # noqa: N815
    poolGpus: int | float  # noqa: N815
    currentNode: int | float  # noqa: N815
    startRank: int | float  # noqa: N815


def _pd_role_meta(synth: Synthesis, role: str) -> PoolMeta:
    """The role metadata upstream reports; it does not snap to `pool_modes` (unlike the args)."""
    so_role = js_or(get(synth.overrides, role), {})
    role_cfg = js_or(get(synth.spec, role), {})
    nodes = synth._pool_nodes(role)
    mode = js_or(
        synth._pd_role(role).get("parallelism"),
        get(so_role, "parallelism"),
        get(role_cfg, "parallelism"),
        "tp",
    )
    gpus = synth.gpu_count
    pool_gpus = js_floor(gpus / 2) if nodes == 0 else nodes * gpus
    tp = js_or(get(so_role, "tp"), get(role_cfg, "tp"), 1) if mode == "dep" else pool_gpus
    dp_local = js_max(1, js_floor(js_divide(gpus, js_number(tp)))) if mode == "dep" else 0
    dp_size = js_max(1, nodes) * dp_local if mode == "dep" else 1
    current_node = first_node_of_pool(nodes)
    return {
        "nodes": nodes,
        "parallelism": mode,
        "tp": tp,
        "dpLocal": normalize_number(dp_local),
        "dpSize": normalize_number(dp_size),
        "poolGpus": normalize_number(pool_gpus),
        "currentNode": current_node,
        "startRank": normalize_number(current_node * dp_local),
    }


def _pd(synth: Synthesis, meta: DockerMeta, walker: Walker) -> JsonDocument:
    roles, router_lines = _pd_router(synth)
    rendered: dict[str, JsonDocument] = {}
    for role in ("prefill", "decode"):
        laid_out = walker.command(synth, role, None)
        environment = walker.role_env(synth, role, meta)
        if laid_out is None or environment is None:
            continue
        command, argv = laid_out
        env, wrapper = environment
        # (mypy reads a TypedDict unpacked as Mapping[str, object]; PoolMeta's values are JsOut)
        doc: JsonDocument = {"command": command, "argv": argv, "env": env, **roles[role]}  # type: ignore[dict-item]
        doc.update(wrapper.wrap(command, argv, PD_PORTS[role]))
        rendered[role] = doc
    if not rendered:
        return {}
    out = _base(synth, meta, "pd_cluster", {})
    out["prefill"] = rendered["prefill"]
    out["decode"] = rendered["decode"]
    out["router"] = {"command": "\n".join(router_lines), "install": "uv pip install vllm-router"}
    out["router_config"] = js_or(get(synth.spec, "router"), {"policy": "round_robin"})
    return out


def _pd_router(synth: Synthesis) -> tuple[dict[str, PoolMeta], list[str]]:
    """Each pool's metadata and the router's command lines."""
    strategy = synth.spec
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
        endpoints += [
            f"    {flag} http://${role.upper()}_NODE_{i + 1}:{port} \\"
            for i in range(array_length(count))
        ]
    intra = coalesce(
        get(get(synth.overrides, "router"), "intra_node_data_parallel_size"),
        js_max(js_or(roles["prefill"]["dpLocal"], 0), js_or(roles["decode"]["dpLocal"], 0), 1),
    )
    router_lines = [
        f"vllm-router --policy {js_string(policy)} \\",
        "    --vllm-pd-disaggregation \\",
        *endpoints,
        "    --host $ROUTER_HOST \\",
        "    --port $ROUTER_PORT \\",
        # a non-number passes normalize_number unchanged
        f"    --intra-node-data-parallel-size {js_string(normalize_number(intra))}",  # type: ignore[arg-type]
    ]
    return roles, router_lines


def _brand_install(synth: Synthesis, raw: JsValue) -> JsValue:
    if isinstance(raw, (dict, list)):
        brand = get(synth.profile, "brand")
        key = "amd" if brand == "AMD" else "nvidia" if brand == "NVIDIA" else None
        return js_or(get(raw, key), None) if key else None
    return raw if truthy(raw) else None


def _kv_router(kv: JsValue, instances: JsValue) -> JsonDocument | None:
    """The cache-aware router in front of the instances; none for a single instance."""
    if not js_gt(instances, 1):
        return None
    router, vllm = get(kv, "router"), get(kv, "vllm")
    port = js_or(get(vllm, "port"), 8000)
    lines = [
        f"vllm-router --policy {js_string(js_or(get(router, 'policy'), 'cache_aware'))} \\",
        *[
            f"    --backend-url http://$VLLM_INSTANCE_{i + 1}:{js_string(port)} \\"
            for i in range(array_length(instances))
        ],
        "    --host $ROUTER_HOST \\",
        "    --port $ROUTER_PORT \\",
        "    --cache-threshold 0.5 \\",
        "    --balance-abs-threshold 4 \\",
        "    --balance-rel-threshold 1.1",
    ]
    return {
        "command": "\n".join(lines),
        "install": js_or(get(router, "install"), "uv pip install vllm-router"),
        "port": js_or(get(router, "port"), 30080),
    }


def _kv_services(kv: JsValue) -> JsonDocument:
    master, store = get(kv, "mooncake_master"), get(kv, "mooncake_store_config")
    return {
        "master": {
            "command": js_or(get(master, "command"), "mooncake_master"),
            "description": js_or(get(master, "description"), ""),
        },
        "store": (
            {
                "command": get(store, "command"),
                "description": js_or(get(store, "description"), ""),
                "config": js_or(get(store, "config"), None),
                "note": js_or(get(store, "note"), ""),
            }
            if truthy(store)
            else None
        ),
    }


class _KvParts(NamedTuple):
    """What a kv deployment's renderings take from its spec alone."""

    services: JsonDocument  # master and store
    router: JsonDocument | None
    min_vllm_version: JsValue
    install: JsValue  # vllm.install, by brand or not
    mooncake_config: JsValue
    mooncake_config_note: JsValue


def _kv_parts(synth: Synthesis) -> _KvParts:
    """The parts of a kv deployment that read only its spec, so the renderings of one recipe
    share them (as they share the specs' own mappings)."""
    key = ("kv-parts", synth.combo.kv_offload)
    shared = synth.placement.strategy_runs
    found: _KvParts | None = shared.get(key)
    if found is None:
        kv = synth.kv
        vllm_config = get(kv, "mooncake_vllm_config")
        found = shared[key] = _KvParts(
            _kv_services(kv),
            _kv_router(kv, synth.instances),
            js_or(get(kv, "min_vllm_version"), None),
            get(get(kv, "vllm"), "install"),
            js_or(get(vllm_config, "template"), {}),
            js_or(get(vllm_config, "note"), ""),
        )
    return found


_NO_KV_WORKERS = dict.fromkeys(
    (
        "vllm_worker_command",
        "vllm_worker_commands",
        "vllm_worker_argv",
        "vllm_worker_argvs",
        "vllm_worker_docker_command",
        "vllm_worker_docker_argv",
        "vllm_worker_docker_commands",
        "vllm_worker_docker_argvs",
    )
)


def _kv(synth: Synthesis, meta: DockerMeta, walker: Walker) -> JsonDocument:
    """A Mooncake deployment: the serving strategy's commands plus router, master and store."""
    combo = synth.combo
    multi = synth.deploy_type == "multi_node" and combo.node_count > 1
    laid_out = walker.command(synth, None, "head" if multi else None)
    workers_laid_out = _all_laid_out(
        [walker.command(synth, None, "worker", r) for r in follower_ranks(combo.node_count)]
        if multi
        else []
    )
    environment = walker.env(synth, meta)  # the instance's head and workers share them
    parts = _kv_parts(synth)
    if laid_out is None or workers_laid_out is None or environment is None:
        return {}
    env, docker = environment
    command, argv = laid_out
    workers = workers_laid_out
    worker_dockers = [docker.wrap(c, a) for c, a in workers]
    vllm_docker = docker.wrap(command, argv)
    out = _base(synth, meta, "kv_store_lb", env)
    out["strategy"] = combo.kv_offload or combo.strategy
    out["serving_strategy"] = combo.strategy
    out["kv_min_vllm_version"] = parts.min_vllm_version
    out["instances"] = synth.instances
    out["vllm_command"] = command
    out["vllm_argv"] = argv
    if workers:
        out["vllm_worker_command"] = workers[0][0]
        out["vllm_worker_commands"] = [c for c, _ in workers]
        out["vllm_worker_argv"] = workers[0][1]
        out["vllm_worker_argvs"] = [a for _, a in workers]
        out["vllm_worker_docker_command"] = worker_dockers[0]["docker_command"]
        out["vllm_worker_docker_argv"] = worker_dockers[0]["docker_argv"]
        out["vllm_worker_docker_commands"] = [w["docker_command"] for w in worker_dockers]
        out["vllm_worker_docker_argvs"] = [w["docker_argv"] for w in worker_dockers]
    else:
        out.update(_NO_KV_WORKERS)
    out["vllm_install"] = _brand_install(synth, parts.install)
    out["vllm_docker_command"] = vllm_docker["docker_command"]
    out["vllm_docker_argv"] = vllm_docker["docker_argv"]
    out.update(parts.services)
    out["router"] = parts.router
    out["mooncake_config"] = parts.mooncake_config
    out["mooncake_config_note"] = parts.mooncake_config_note
    return out


# By shape_of: the walk that judges a combination and, given LayOut, lays it out.
SHAPES = (_pd, _kv, _multi_node, _single_node)
