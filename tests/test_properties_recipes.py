"""Whole-recipe properties: generated schema-valid recipes compile, and their command lines are sound.

The tree is fixed and small so that one example costs a few milliseconds: the
embedded tree's strategies and kv_store specs, and its taxonomy cut down to five
hardware profiles (one per generation the overrides key on). Each example is one
generated recipe file, written as YAML and read through the real loader, then
compiled in memory with the compiler's library API.

CI runs a fixed-seed bounded profile; `RECIPELINT_PROPERTIES=long` runs a soak
(see docs/properties.md).
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from typing import Any

import pytest
import yaml
from hypothesis import Phase, event, find, given, settings
from hypothesis import strategies as st
from propertyprofile import property_profile
from treehelp import CONTEXT, context_in_memory, context_text, tree_in_memory

from recipelint.check.engine import run_checks
from recipelint.compile.compiler import Compiler, CompileResult
from recipelint.diagnostics import Diagnostic, Severity
from recipelint.jsvalue import js_or
from recipelint.read.load import Document, parse_yaml
from recipelint.read.tree import RecipeTree
from recipelint.resolve.command import RenderInputs
from recipelint.schema.check import validate_document

# Property tests over generated recipes, hundreds of examples each: the slow step
# (`pytest -m slow`) runs them.
pytestmark = pytest.mark.slow

PROFILE = property_profile(200)
# A soak can report progress (examples done, seconds) to this file every 1,000 examples.
PROGRESS = os.environ.get("RECIPELINT_PROPERTY_PROGRESS")
# Checking runs every rule over the tree, so the invalid-recipe property gets fewer examples.
CHECK_PROFILE = settings(PROFILE, max_examples=max(1, PROFILE.max_examples // 4))

HARDWARE = ("h100", "b200", "gb200", "mi300x", "xeon6")
GENERATIONS = ("hopper", "blackwell", "amd", "cpu", "nvidia")
STRATEGIES = (
    "single_node_tp",
    "single_node_tep",
    "single_node_dep",
    "multi_node_tp",
    "multi_node_tep",
    "multi_node_dep",
    "multi_node_tp_pp",
    "multi_node_tp_dp",
    "pd_cluster",
)
ORG = "acme"
NAME = "Gen-7B"
HF_ID = f"{ORG}/{NAME}"
REL = f"models/{ORG}/{NAME}.yaml"
# Compile diagnostics that mean an exception escaped synthesis (the compiler catches and reports them).
MASKED_CRASHES = {"RL703", "RL704"}


# ------------------------------------------------------------------ the fixed tree


def _small_taxonomy() -> Document:
    """The embedded taxonomy cut down to five hardware profiles."""
    taxonomy = yaml.safe_load(context_text("taxonomy.yaml"))
    taxonomy["hardware_profiles"] = {hw: taxonomy["hardware_profiles"][hw] for hw in HARDWARE}
    text = yaml.safe_dump(taxonomy, sort_keys=False, allow_unicode=True)
    doc = parse_yaml(text, CONTEXT / "taxonomy.yaml", "taxonomy", "taxonomy.yaml")
    assert doc.usable
    return doc


TAXONOMY = _small_taxonomy()
BASE_TREE = context_in_memory(TAXONOMY)
# Renderer-level properties render every hardware of a recipe: half the examples suffice.
RENDER_PROFILE = settings(PROFILE, max_examples=max(1, PROFILE.max_examples // 2))


def base_inputs() -> RenderInputs:
    """What the renderer reads of BASE_TREE's tree-wide files."""
    found = Compiler(BASE_TREE).prepare()
    assert found is not None
    return found.inputs


def with_recipe(text: str) -> tuple[RecipeTree, Document]:
    return tree_in_memory(REL, text, TAXONOMY)


class _QuotedDumper(yaml.CSafeDumper):
    """Double-quote every string: PyYAML resolves YAML 1.1, the loader 1.2 (`0o7` would turn numeric)."""


_QuotedDumper.add_representer(
    str, lambda dumper, value: dumper.represent_scalar("tag:yaml.org,2002:str", value, style='"')
)


def to_yaml(recipe: Any) -> str:
    return yaml.dump(
        recipe, Dumper=_QuotedDumper, sort_keys=False, allow_unicode=True, width=10_000
    )


# ------------------------------------------------------------------ the recipe strategy
# Strategies are built once at import and choices among runtime values go through an
# index draw: building a fresh strategy per draw costs more than compiling the recipe.

FLAGS = (
    "--max-model-len",
    "--tensor-parallel-size",
    "--enable-expert-parallel",
    "--trust-remote-code",
    "--kv-cache-dtype",
    "--foo_bar",
    "--foo-bar",
    "--attention_config.use_fp4_indexer_cache",
    "--compilation-config",
    "--max-num-seqs",
    "--x=1",
    "--x",
    "-O3",
    "--ünï",
)
VALUES = ("8192", "fp8", "True", "-1", "", "0", '{"level": 3}', "ü", "a b", "$HEAD_IP", "auto")
ENV_NAMES = ("VLLM_USE_DEEP_GEMM", "NCCL_CUMEM_ENABLE", "HF_HOME", "X_CONFIG_PATH", "A_1")
ENV_VALUES = ("1", "0", "", "/tmp/c", "$IFACE_NAME")
FEATURES = ("tool_calling", "reasoning", "spec_decoding", "long_context", "dcp")
MODE_NAMES = ("fast", "eagle", "mtp_mode", "off", "n2", "x")
EXTRA_VARIANTS = ("fp8", "nvfp4", "awq", "v2.1")
HW_KEYS = HARDWARE + GENERATIONS

BOOL = st.booleans()
INDEX = st.integers(0, 255)
COUNT = st.integers(0, 3)
POSITIVE = st.integers(1, 16)
arg_lists = st.lists(
    st.one_of(st.sampled_from(FLAGS), st.sampled_from(VALUES), st.text(max_size=4)), max_size=6
)


def pick(draw: st.DrawFn, choices: tuple | list) -> Any:
    return choices[draw(INDEX) % len(choices)]


def some(draw: st.DrawFn, choices: tuple | list, at_least: int = 0, at_most: int = 3) -> list:
    """Distinct choices, in a drawn order."""
    pool = list(choices)
    wanted = min(len(pool), at_least + draw(COUNT) % (at_most - at_least + 1))
    return [pool.pop(draw(INDEX) % len(pool)) for _ in range(wanted)]


def optional(draw: st.DrawFn, target: dict, key: str, make: Any) -> None:
    """Set ``key`` half the time; ``make`` is a strategy or a function of ``draw``."""
    if draw(BOOL):
        target[key] = draw(make) if isinstance(make, st.SearchStrategy) else make(draw)


def env_map(draw: st.DrawFn) -> dict[str, str]:
    return {name: pick(draw, ENV_VALUES) for name in some(draw, ENV_NAMES)}


def args_env(
    draw: st.DrawFn, args_key: str = "extra_args", env_key: str = "extra_env"
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    optional(draw, out, args_key, arg_lists)
    optional(draw, out, env_key, env_map)
    return out


def keyed(draw: st.DrawFn, keys: tuple, make: Any, at_most: int = 2) -> dict[str, Any]:
    return {key: make(draw) for key in some(draw, keys, 0, at_most)}


def args_only(draw: st.DrawFn) -> dict[str, Any]:
    return {"args": draw(arg_lists)} if draw(BOOL) else {}


def hardware_keyed(draw: st.DrawFn) -> Any:
    """An integer, or a map of hardware id to integer (`tp`, `nodes`)."""
    if draw(BOOL):
        return draw(POSITIVE)
    return {hw: draw(POSITIVE) for hw in some(draw, HARDWARE, 1, 3)}


def modes(draw: st.DrawFn, variant_keys: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for index, name in enumerate(some(draw, MODE_NAMES, 1, 3)):
        mode: dict[str, Any] = {"args": draw(arg_lists)}
        # The first mode stays open to every variant, so each variant has one (upstream requires it).
        if index and draw(BOOL):
            mode["variants"] = some(draw, variant_keys, 1, 2)
        optional(draw, mode, "hardware_overrides", lambda d: keyed(d, HW_KEYS, args_only))
        optional(
            draw,
            mode,
            "hardware",
            lambda d: keyed(d, HW_KEYS, lambda d2: pick(d2, ("supported", "unsupported"))),
        )
        out[name] = mode
    return out


def features(draw: st.DrawFn, variant_keys: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in some(draw, FEATURES):
        feature: dict[str, Any] = {"description": f"{name} feature"}
        if draw(BOOL):
            feature["modes"] = modes(draw, variant_keys)
            optional(
                draw,
                feature,
                "default_mode",
                lambda d, feature=feature: pick(d, list(feature["modes"])),
            )
        else:
            optional(draw, feature, "args", arg_lists)
        optional(draw, feature, "env", env_map)
        optional(draw, feature, "strategies", lambda d: some(d, STRATEGIES, 1, 3))
        optional(draw, feature, "hardware_overrides", lambda d: keyed(d, HW_KEYS, args_only))
        out[name] = feature
    return out


def default_modes(draw: st.DrawFn, feature_map: dict[str, Any], variant_key: str) -> dict[str, str]:
    """Pick, per modal feature, a mode this variant may use (an invalid pick aborts upstream)."""
    chosen = {}
    for name, feature in feature_map.items():
        allowed = [
            m
            for m, mode in feature.get("modes", {}).items()
            if not mode.get("variants") or variant_key in mode["variants"]
        ]
        if allowed and draw(BOOL):
            chosen[name] = pick(draw, allowed)
    return chosen


def variants(draw: st.DrawFn, keys: list[str], feature_map: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key in keys:
        variant: dict[str, Any] = {
            "precision": pick(draw, ("bf16", "fp8", "nvfp4", "awq")),
            "vram_minimum_gb": pick(draw, (10, 80, 400, 2000)),
        }
        if key != "default" and draw(BOOL):
            variant["model_id"] = f"{ORG}/{NAME}-{key}"
        variant.update(args_env(draw))
        chosen = default_modes(draw, feature_map, key)
        if chosen:
            variant["default_modes"] = chosen
        optional(draw, variant, "tp", hardware_keyed)
        optional(draw, variant, "nightly_required", BOOL)
        optional(draw, variant, "hardware_overrides", lambda d: keyed(d, HW_KEYS, args_env))
        out[key] = variant
    return out


def pd_role(draw: st.DrawFn) -> dict[str, Any]:
    role = args_env(draw, "vllm_args", "env")
    optional(draw, role, "extra_args", arg_lists)
    optional(draw, role, "parallelism", lambda d: pick(d, ("tp", "tep", "dep")))
    optional(draw, role, "tp", lambda d: pick(d, (1, 2, 4, 8)))
    optional(draw, role, "nodes", hardware_keyed)
    optional(draw, role, "hardware_overrides", lambda d: keyed(d, HARDWARE, args_env))
    return role


def strategy_overrides(draw: st.DrawFn) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in some(draw, STRATEGIES):
        override = args_env(draw)
        optional(draw, override, "vllm_args", arg_lists)
        optional(draw, override, "env", env_map)
        if name == "single_node_tp":
            optional(draw, override, "tp", hardware_keyed)
        optional(draw, override, "hardware_overrides", lambda d: keyed(d, HW_KEYS, args_env, 3))
        if name == "pd_cluster":
            optional(draw, override, "prefill", pd_role)
            optional(draw, override, "decode", pd_role)
            optional(draw, override, "pool_modes", lambda d: some(d, ("tp", "tep", "dep"), 1, 3))
        out[name] = override
    return out


@st.composite
def recipes(draw: st.DrawFn) -> dict[str, Any]:
    """A schema-valid recipe with overrides at every level the compiler layers."""
    variant_keys = ["default", *some(draw, EXTRA_VARIANTS, 0, 2)]
    feature_map = features(draw, variant_keys)
    model: dict[str, Any] = {
        "model_id": HF_ID,
        "min_vllm_version": "0.11.0",
        "architecture": pick(draw, ("dense", "moe")),
        "parameter_count": "7B",
        "active_parameters": "7B",
        "context_length": 32768,
    }
    optional(draw, model, "base_args", arg_lists)
    optional(draw, model, "base_env", env_map)
    optional(draw, model, "nightly_required", BOOL)
    meta: dict[str, Any] = {
        "title": NAME,
        "slug": "gen-7b",
        "provider": "Acme",
        "description": "generated",
        "date_added": "2026-01-01",
        "date_updated": "2026-01-02",
        "tasks": pick(draw, (["text"], ["multimodal"], ["text", "multimodal"])),
    }
    optional(
        draw,
        meta,
        "hardware",
        lambda d: keyed(d, HARDWARE, lambda d2: pick(d2, ("verified", "unsupported")), 3),
    )
    recipe: dict[str, Any] = {"meta": meta, "model": model}
    if feature_map:
        recipe["features"] = feature_map
        optional(draw, recipe, "opt_in_features", lambda d: some(d, list(feature_map), 0, 2))
    recipe["variants"] = variants(draw, variant_keys, feature_map)
    compatible = some(draw, STRATEGIES, 1, 4)
    recipe["compatible_strategies"] = compatible
    optional(draw, recipe, "default_strategy", lambda d: pick(d, compatible))
    optional(draw, recipe, "hardware_overrides", lambda d: keyed(d, GENERATIONS, args_env, 3))
    optional(draw, recipe, "strategy_overrides", strategy_overrides)
    recipe["guide"] = "## Overview\n\nGenerated.\n"
    return recipe


# ------------------------------------------------------------------ renderings


def renderings(node: Any, variant: Any = None) -> Iterator[tuple[dict[str, Any], Any]]:
    """(mapping, variant key) for every mapping in a compiled document that carries an argv key;
    PD roles inherit the variant key of the rendering that holds them."""
    if isinstance(node, dict):
        variant = node.get("variant", variant) if isinstance(node.get("variant"), str) else variant
        if any(key.endswith(("argv", "argvs")) for key in node):
            yield node, variant
        for value in node.values():
            yield from renderings(value, variant)
    elif isinstance(node, list):
        for item in node:
            yield from renderings(item, variant)


def argv_pairs(rendering: dict[str, Any]) -> Iterator[tuple[list[Any], list[Any]]]:
    """(argv, docker_argv) pairs: `head_argv` goes with `head_docker_argv`, lists element-wise."""
    for key, value in rendering.items():
        if "docker" in key or value is None:
            continue
        if key.endswith("argvs"):
            docker = rendering[key[: -len("argvs")] + "docker_argvs"]
            assert len(docker) == len(value)
            yield from zip(value, docker, strict=False)
        elif key.endswith("argv"):
            yield value, rendering[key[: -len("argv")] + "docker_argv"]


def served_model(recipe: dict[str, Any], variant_key: str) -> Any:
    variant = recipe["variants"].get(variant_key, {})
    return js_or(variant.get("model_id"), recipe["model"]["model_id"])


def flag_tokens(tokens: list[Any]) -> list[str]:
    return [t for t in tokens if isinstance(t, str) and t.startswith("-")]


def compile_recipe(text: str) -> tuple[CompileResult, Document]:
    tree, doc = with_recipe(text)
    return Compiler(tree).run(), doc


def own(diagnostics: list[Diagnostic], doc: Document) -> list[Diagnostic]:
    return [d for d in diagnostics if d.path == doc.path]


# ------------------------------------------------------------------ properties


@PROFILE
@given(recipes())
def test_generated_recipes_compile_into_sound_command_lines(recipe: dict[str, Any]) -> None:
    text = to_yaml(recipe)
    result, doc = compile_recipe(text)
    assert doc.usable and validate_document(doc) == [], (
        "the generator must produce schema-valid recipes"
    )
    masked = [d for d in own(result.diagnostics, doc) if d.code in MASKED_CRASHES]
    assert not masked, masked
    checked = 0
    for path in result.files.paths():
        document = result.files.document(path)
        for rendering, variant in renderings(document):
            expected_model = served_model(recipe, variant)
            for argv, docker_argv in argv_pairs(rendering):
                assert argv[:3] == ["vllm", "serve", expected_model], (path, argv[:3])
                served = flag_tokens(argv[3:])
                assert len(served) == len(set(served)), (path, argv)
                # The container runs exactly the serve arguments: they end the docker argv, in order.
                assert docker_argv[len(docker_argv) - len(argv) + 2 :] == argv[2:], path
                checked += 1
    event("argv pairs checked: " + ("none" if not checked else f"{min(checked, 50) // 10 * 10}+"))
    _progress()


_DONE = [0, time.monotonic()]


def _progress() -> None:
    _DONE[0] += 1
    if PROGRESS and _DONE[0] % 1000 == 0:
        with open(PROGRESS, "a", encoding="utf-8") as log:
            log.write(
                f"{_DONE[0]} {time.monotonic() - _DONE[1]:.0f}s {time.process_time():.0f}s-cpu\n"
            )


def deploy_types(recipe: dict[str, Any]) -> set[str]:
    """The deploy types of the renderings (mappings naming their variant) a recipe compiles to."""
    result, _ = compile_recipe(to_yaml(recipe))
    found: set[str] = set()
    for path in result.files.paths():
        for _, node in _paths(result.files.document(path)):
            if (
                isinstance(node, dict)
                and "variant" in node
                and isinstance(node.get("deploy_type"), str)
            ):
                found.add(node["deploy_type"])
    return found


@pytest.mark.parametrize("deploy_type", ["single_node", "multi_node", "pd_cluster", "kv_store_lb"])
def test_the_generator_reaches_every_deploy_type(deploy_type: str) -> None:
    """The properties above are not vacuous: generated recipes render every deployment shape."""
    found = find(
        recipes(),
        lambda recipe: deploy_type in deploy_types(recipe),
        settings=settings(
            max_examples=500, derandomize=True, database=None, phases=[Phase.generate]
        ),
    )
    assert deploy_type in deploy_types(found)


# ------------------------------------------------------------------ schema-invalid recipes

NOT_A_STRING = st.sampled_from([7, 0, 1.5, True, None, {"k": "v"}, ["--x"]])


def _paths(node: Any, pointer: tuple = ()) -> Iterator[tuple[tuple, Any]]:
    yield pointer, node
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _paths(value, (*pointer, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _paths(value, (*pointer, index))


def _set(root: Any, pointer: tuple, value: Any) -> None:
    for part in pointer[:-1]:
        root = root[part]
    root[pointer[-1]] = value


ARG_LIST_KEYS = ("base_args", "extra_args", "vllm_args", "args")
REQUIRED = {
    ("meta",): "title",
    ("model",): "model_id",
    (): "guide",
    ("variants", "default"): "precision",
}


@st.composite
def broken_recipes(draw: st.DrawFn) -> tuple[dict[str, Any], tuple]:
    """A valid recipe with one schema violation; returns it and the pointer of the violation."""
    recipe = draw(recipes())
    lists = [
        (p, v) for p, v in _paths(recipe) if p and p[-1] in ARG_LIST_KEYS and isinstance(v, list)
    ]
    envs = [
        (p, v) for p, v in _paths(recipe) if p and p[-1] in ("base_env", "extra_env", "env") and v
    ]
    kinds = ["unknown_key", "missing_required", "args_as_string"]
    kinds += ["non_string_arg"] if any(v for _, v in lists) else []
    kinds += ["non_string_env"] if envs else []
    kind = pick(draw, kinds)
    if kind == "unknown_key":
        recipe["mtp_settings"] = {"enabled": True}
        return recipe, ("mtp_settings",)
    if kind == "missing_required":
        parent, key = pick(draw, sorted(REQUIRED.items()))
        _parent = recipe
        for part in parent:
            _parent = _parent[part]
        del _parent[key]
        return recipe, parent
    if kind == "args_as_string":
        recipe["model"]["base_args"] = "--trust-remote-code"
        return recipe, ("model", "base_args")
    if kind == "non_string_arg":
        pointer, values = pick(draw, [(p, v) for p, v in lists if v])
        index = draw(INDEX) % len(values)
        _set(recipe, (*pointer, index), draw(NOT_A_STRING))
        return recipe, (*pointer, index)
    pointer, env = pick(draw, envs)
    name = pick(draw, sorted(env))
    _set(recipe, (*pointer, name), draw(NOT_A_STRING))
    return recipe, (*pointer, name)


@CHECK_PROFILE
@given(broken_recipes())
def test_schema_invalid_recipes_are_reported_and_never_crash_the_compiler(
    case: tuple[dict, tuple],
) -> None:
    recipe, pointer = case
    tree, doc = with_recipe(to_yaml(recipe))
    Compiler(tree).run()  # must not raise, whatever the recipe holds
    found = own(run_checks(tree), doc)
    # On an env value RL551 stands in for the schema's RL102: the same finding, precise and fixable.
    schema = [
        d
        for d in found
        if d.code == "RL551" or (d.severity is Severity.ERROR and d.code.startswith(("RL0", "RL1")))
    ]
    assert schema, (pointer, [d.code for d in found])
    # The report points into the broken part (or an ancestor of it), not somewhere unrelated.
    assert any(
        d.pointer == pointer[: len(d.pointer)] or pointer == d.pointer[: len(pointer)]
        for d in schema
    ), (pointer, [(d.code, d.pointer, d.message) for d in schema])


@pytest.mark.parametrize(
    "text",
    [
        "meta: [1, 2]\nmodel: {}\nvariants: {}\nguide: x\n",
        "meta: {title: T}\nvariants: {default: {extra_args: '--x'}}\nguide: x\n",
        "- a\n- b\n",
        "meta:\n  title: [\n",
    ],
)
def test_hand_written_broken_recipes_never_crash(text: str) -> None:
    tree, doc = with_recipe(text)
    Compiler(tree).run()
    assert any(d.severity is Severity.ERROR for d in own(run_checks(tree), doc))
