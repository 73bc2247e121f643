"""One deployment's commands: arg layers, env layers, and the per-deploy-type shape.

`render_command` is the compiler's unit of work: (recipe, variant, strategy,
hardware, node count, features, PD nodes, kv deployment) -> the JSON document the
API publishes for it. It raises :class:`RenderError` where upstream's synthesis
throws (upstream then drops that rendering with a warning).

Upstream: docs/upstream-behaviour.md#layer-order, #parallelism-flags, #env-layers and #deploy-types;
the documents' shape: #rendering-documents; the throws: #error-handling.
"""

from __future__ import annotations

from typing import NamedTuple

from recipelint.jsvalue import (
    UNDEFINED,
    JsonDocument,
    js_max,
)
from recipelint.read.recipedata import Recipe
from recipelint.resolve.inputs import (
    NVL4_HARDWARE,
    NVL4_ONLY_ENV,
    Combination,
    HardwareFacts,
    RenderInputs,
    typed,
)
from recipelint.resolve.layers import (
    ARG_STEPS,
    ENV_STEPS,
    Layer,
    Token,
    layers,
    split_at_emitter,
)
from recipelint.resolve.placement import (
    Env,
    Placement,
    StrategyFacts,
    assign,
    spread,
)
from recipelint.resolve.shapes import (
    PD_PORTS,
    SERVE_PORT,
    SHAPES,
    Judge,
    LayOut,
    shape_of,
)
from recipelint.resolve.synthesis import (
    MAX_RENDERED_ITEMS,
    Problem,
    Synthesis,
)

__all__ = [
    "Combination",
    "Emitted",
    "HardwareFacts",
    "MAX_RENDERED_ITEMS",
    "NVL4_HARDWARE",
    "NVL4_ONLY_ENV",
    "PD_PORTS",
    "Placement",
    "RenderInputs",
    "Rendered",
    "SERVE_PORT",
    "StrategyFacts",
    "assign",
    "check_placed",
    "command_parts",
    "emitted",
    "env_parts",
    "pinned_devices",
    "placed_rendering",
    "render_command",
    "render_placed",
    "rendered_args",
    "rendered_layers",
    "spread",
    "typed",
]


def render_command(
    inputs: RenderInputs,
    recipe: Recipe,
    combo: Combination,
    problems: list[Problem] | None = None,
    placement: Placement | None = None,
) -> JsonDocument:
    """The published JSON for one combination (before `strategy_spec`/`hardware_profile`).

    Raises RenderError where upstream's synthesis throws. Input that upstream renders
    but that is nonetheless broken (a PD `tp: 0`, no image for the hardware) renders
    the same way and adds a (pointer, message) pair to ``problems``. A ``placement``
    for the combination's variant and hardware saves recomputing what it shares.
    """
    if placement is None or not placement.serves(inputs, recipe, combo):
        placement = Placement(inputs, recipe, combo.variant_key, combo.hw_id)
    return render_placed(placement, combo, problems)


def render_placed(
    placement: Placement, combo: Combination, problems: list[Problem] | None = None
) -> JsonDocument:
    """render_command for a combination of the placement's variant and hardware."""
    rendered = placed_rendering(placement, combo, True)
    if problems is not None:
        rendered.report(problems, combo.hw_id)
    return rendered.document


def check_placed(
    placement: Placement, combo: Combination, problems: list[Problem] | None = None
) -> None:
    """What render_placed raises and adds to ``problems``, without building the document:
    the args, env and parts it reads are worked out and judged the same way, in the same
    order, but no command line, docker command or JSON is laid out."""
    rendered = placed_rendering(placement, combo, False)
    if problems is not None:
        rendered.report(problems, combo.hw_id)


class Rendered(NamedTuple):
    """One rendering's outcome, told apart from the hardware it was rendered on."""

    document: JsonDocument  # {} when it was judged without being laid out
    problems: list[Problem]  # renders, but is invalid
    image_missing: bool

    def report(self, problems: list[Problem], hw_id: str) -> None:
        """Add what renders but is broken: the synthesis's own problems, then a missing image."""
        problems.extend(self.problems)
        if self.image_missing:
            problems.append(
                (
                    ("model", "docker_image"),
                    f"no container image exists for {hw_id} (nightly images are not published "
                    "for this hardware): the docker command would run `undefined`",
                )
            )


def placed_rendering(placement: Placement, combo: Combination, documents: bool) -> Rendered:
    """The combination rendered on the placement (laid out, or without ``documents`` only
    judged); raises RenderError where upstream's synthesis throws."""
    synth = Synthesis(placement.inputs, placement.recipe, combo, placement)
    meta = placement.meta
    shape = shape_of(synth)
    doc = SHAPES[shape](synth, meta, LayOut() if documents else Judge())
    return Rendered(doc, synth.problems, meta.image is UNDEFINED)


def rendered_layers(
    inputs: RenderInputs,
    recipe: Recipe,
    combo: Combination,
    role: str | None = None,
    node_role: str | None = None,
    node_rank: int = 1,
    placement: Placement | None = None,
) -> tuple[list[Token], Env]:
    """(the args before dedupe, the env) the renderer builds for one command of a combination.

    Raises what rendering raises; a ``placement`` shares what it joined with the renderings
    that used it, as in render_command.
    """
    if placement is None or not placement.serves(inputs, recipe, combo):
        placement = Placement(inputs, recipe, combo.variant_key, combo.hw_id)
    synth = Synthesis(inputs, recipe, combo, placement)
    return synth.build_args(role, node_role, node_rank), synth.build_env(role)


class Emitted(NamedTuple):
    """The strategy emitter's part of one command: its parallelism tokens (as the head node gets
    them), and the nodes and GPUs the strategy allots that command (a PD role: its pool's)."""

    tokens: list[Token]
    nodes: int | float
    gpus: int | float


def emitted(
    inputs: RenderInputs,
    recipe: Recipe,
    combo: Combination,
    role: str | None = None,
    placement: Placement | None = None,
) -> Emitted:
    """What the emitter writes for one command of a combination, and what it allots it.

    Raises what rendering the parallelism tokens raises. A single-node deploy type runs on one
    node whatever node count the plan gave it (its tokens never span nodes).
    """
    if placement is None or not placement.serves(inputs, recipe, combo):
        placement = Placement(inputs, recipe, combo.variant_key, combo.hw_id)
    # The tokens read no feature: the features' layers are not joined
    synth = Synthesis(inputs, recipe, combo._replace(features=()), placement)
    tokens = synth._parallel_args(role, None, 1)
    if synth.deploy == "pd_cluster" and role:
        pool_nodes = synth._pool_nodes(role)
        return Emitted(tokens, js_max(1, pool_nodes), synth.pool_gpus(role))
    nodes = combo.node_count if synth.deploy == "multi_node" and combo.node_count > 1 else 1
    return Emitted(tokens, nodes, synth.gpu_count * nodes)


def rendered_args(
    inputs: RenderInputs,
    recipe: Recipe,
    combo: Combination,
    role: str | None = None,
    placement: Placement | None = None,
) -> list[Token]:
    """The head node's args before dedupe, as rendered_layers gives them, without the env."""
    if placement is None or not placement.serves(inputs, recipe, combo):
        placement = Placement(inputs, recipe, combo.variant_key, combo.hw_id)
    return Synthesis(inputs, recipe, combo, placement).build_args(role, None, 1)


def _layered_synthesis(inputs: RenderInputs, recipe: Recipe, combo: Combination) -> Synthesis:
    """A fresh synthesis of the combination that yields the rules' view: a Layer for each list."""
    synth = Synthesis(
        inputs, recipe, combo, Placement(inputs, recipe, combo.variant_key, combo.hw_id)
    )
    synth.bare = False
    return synth


def command_parts(
    inputs: RenderInputs,
    recipe: Recipe,
    combo: Combination,
    role: str | None = None,
    node_role: str | None = None,
    node_rank: int = 1,
) -> tuple[list[Layer], list[Token], list[Layer]]:
    """(layers before the emitter's tokens, the emitter's tokens, layers after them), per resolve.layers.

    The rendered args are these spread in order, then deduplicated (resolve.formatting).
    """
    synth = _layered_synthesis(inputs, recipe, combo)
    synth.features = synth.placement.features.layers_for(
        combo.features, combo.strategy, synth.kv_composing
    )
    before, after = split_at_emitter(ARG_STEPS)
    return (
        layers(synth, role, before),
        synth._parallel_args(role, node_role, node_rank),
        layers(synth, role, after),
    )


def env_parts(
    inputs: RenderInputs, recipe: Recipe, combo: Combination, role: str | None = None
) -> tuple[list[Layer], list[Layer]]:
    """(env layers before the PD device pinning, env layers after it), per resolve.layers."""
    synth = _layered_synthesis(inputs, recipe, combo)
    before, after = split_at_emitter(ENV_STEPS)
    return layers(synth, role, before), layers(synth, role, after)


def pinned_devices(
    inputs: RenderInputs, recipe: Recipe, combo: Combination, role: str | None
) -> Env:
    """The variables PD device pinning sets for a role (none outside a PD cluster's roles)."""
    placement = Placement(inputs, recipe, combo.variant_key, combo.hw_id)
    synth = Synthesis(inputs, recipe, combo, placement)
    env: Env = {}
    if synth.deploy_type == "pd_cluster" and role:
        synth._pin_pd_devices(env, role)
    return env
