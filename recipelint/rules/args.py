"""RL300–RL339: vLLM flags and arguments, per list and across the layers of one command.

It is long because RL300-RL339 read the same per-list and per-command views of the tokens.

Upstream joins every layer's list into one flat argv and then runs a last-wins
dedupe keyed on the exact flag text (docs/upstream-behaviour.md#last-wins-dedupe).  Anything that dedupe cannot see as
"the same flag" — `--x=v` against `--x v`, `--max_model_len` against
`--max-model-len` — survives twice; anything it wrongly sees as a flag (a
value starting with `-`) can be deduplicated away.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache

from recipelint.flags.catalog import options_of_type
from recipelint.jsvalue import JsonValue, JsValue, is_number, js_string
from recipelint.read.load import Document
from recipelint.resolve import layers
from recipelint.resolve.command import Combination, RenderInputs, emitted
from recipelint.resolve.deployment import positive_int
from recipelint.resolve.layers import PD_ROLES, Scope, is_omni
from recipelint.resolve.plan import SYNTHESIS_ERRORS, planned_combinations
from recipelint.rules.common import (
    ArgList,
    ArgUnit,
    Pointer,
    as_dict,
    as_list,
    offered_strategies,
    taxonomy_arg_lists,
)
from recipelint.rules.context import CheckContext
from recipelint.rules.registry import Finding, check

# The parallel flags that size a world.
SIZE_FLAGS = frozenset(
    {
        "--tensor-parallel-size",
        "-tp",
        "--pipeline-parallel-size",
        "-pp",
        "--data-parallel-size",
        "-dp",
        "--data-parallel-size-local",
        "-dpl",
    }
)
# Strings the strategy emitter owns (docs/upstream-behaviour.md#parallelism-flags); elsewhere
# they multiply ranks: the sizes, and the flags that place ranks (start rank, address, nodes).
PARALLEL_FLAGS = SIZE_FLAGS | {
    "--data-parallel-start-rank",
    "-dpr",
    "--data-parallel-address",
    "-dpa",
    "--nnodes",
    "--node-rank",
}
JSON_TYPES = ("json", "json_or_str")
FLAG_NAME = re.compile(r"^--?[A-Za-z]")


# --- per-list checks -----------------------------------------------------------------------


def every_arg_list(ctx: CheckContext) -> list[ArgList]:
    """The lists in focus of recipes, strategy and kv_store files, and the taxonomy's kv_offload
    options: each of them reaches a `vllm serve` command."""
    taxonomy = ctx.tree.taxonomy
    if taxonomy is None or not ctx.in_focus(taxonomy):
        return ctx.arg_lists
    return [*ctx.arg_lists, *taxonomy_arg_lists(taxonomy, ctx.units)]


@check("RL301", "RL315")
def duplicate_flags(ctx: CheckContext) -> Iterator[Finding]:
    """RL301: an exact repeat (removable as is); RL315: a repeat with another value (a choice to make)."""
    for arg_list in every_arg_list(ctx):
        seen: dict[str, ArgUnit] = {}
        for unit in arg_list.units:
            first = seen.get(unit.flag)
            seen[unit.flag] = unit
            if first is None:
                continue
            pointer = arg_list.at(unit.index)
            if first.value == unit.value:
                yield Finding(
                    arg_list.doc,
                    pointer,
                    f"`{unit.flag}` appears twice in this list with the same value",
                    "delete the repeated flag",
                    code="RL301",
                )
            else:
                yield Finding(
                    arg_list.doc,
                    pointer,
                    f"`{unit.flag}` appears twice in this list ({_show(first)} at "
                    f"`{'.'.join(map(str, arg_list.pointer))}[{first.index}]`, "
                    f"then {_show(unit)}): last-wins dedupe silently drops the first",
                    "keep the value you mean and delete the other",
                    code="RL315",
                )


def _show(unit: ArgUnit) -> str:
    return f"`{unit.flag} {unit.text_value}`" if unit.value is not None else f"`{unit.flag}`"


@check("RL303")
def equals_form(ctx: CheckContext) -> Iterator[Finding]:
    for arg_list in every_arg_list(ctx):
        for unit in arg_list.units:
            if unit.flag.startswith("--") and unit.inline_value is not None:
                yield Finding(
                    arg_list.doc,
                    arg_list.at(unit.index),
                    f"`{unit.flag}` carries its value after `=`: dedupe keys flags by their whole text, so "
                    f"it never replaces (or is replaced by) `{unit.name}` in another layer",
                    f'split it into two items: "{unit.name}", "{unit.inline_value}"',
                )


@check("RL304")
def underscore_spelling(ctx: CheckContext) -> Iterator[Finding]:
    for arg_list in every_arg_list(ctx):
        for unit in arg_list.units:
            if unit.flag.startswith("--") and "_" in unit.base:
                fixed = unit.base.replace("_", "-") + unit.flag[len(unit.base) :]
                yield Finding(
                    arg_list.doc,
                    arg_list.at(unit.index),
                    f"`{unit.base}` is spelled with underscores: vLLM accepts it, but dedupe treats it as "
                    f"a different flag from `{unit.base.replace('_', '-')}`",
                    f"write `{fixed}`",
                )


@check("RL305")
def dotted_without_value(ctx: CheckContext) -> Iterator[Finding]:
    for arg_list in every_arg_list(ctx):
        for unit in arg_list.units:
            if re.search(r"\s", unit.flag):
                continue  # flag and value in one item ("--x 0.97"): RL306 names that problem
            if (
                "." in unit.name
                and unit.inline_value is None
                and unit.value is None
                and FLAG_NAME.match(unit.flag)
            ):
                yield Finding(
                    arg_list.doc,
                    arg_list.at(unit.index),
                    f"dotted sub-flag `{unit.flag}` has no value: vLLM takes the next argument of the "
                    "assembled command as its value",
                    f"add the value after `{unit.flag}`",
                )


@check("RL306")
def flag_and_value_in_one_item(ctx: CheckContext) -> Iterator[Finding]:
    for arg_list in every_arg_list(ctx):
        for index, item in enumerate(arg_list.items):
            if (
                isinstance(item, str)
                and FLAG_NAME.match(item)
                and re.search(r"\s", item.split("=", 1)[0])
            ):
                parts = item.split(None, 1)
                # Only trailing whitespace ("-A "): nothing to split off, the spaces are the defect.
                hint = (
                    f'split it into two items: "{parts[0]}", "{parts[1]}"'
                    if len(parts) == 2
                    else f'remove the trailing whitespace: "{parts[0]}"'
                )
                yield Finding(
                    arg_list.doc,
                    arg_list.at(index),
                    f"`{item}` is one argv item: vLLM receives a single unknown option "
                    f"`{item}` in argv and docker_argv, and dedupe cannot match `{parts[0]}`",
                    hint,
                )


@check("RL307")
def dash_values(ctx: CheckContext) -> Iterator[Finding]:
    for arg_list in every_arg_list(ctx):
        items = arg_list.items
        for index, item in enumerate(items):
            if not (isinstance(item, str) and item.startswith("-") and not FLAG_NAME.match(item)):
                continue
            before = items[index - 1] if index else None
            if not (isinstance(before, str) and before.startswith("-")):
                continue
            yield Finding(
                arg_list.doc,
                arg_list.at(index),
                f"value `{item}` of `{items[index - 1]}` starts with `-`: upstream dedupe parses it as a "
                "flag, so the option loses its value and a repeated value is deduplicated away",
                f'write it inline: "{items[index - 1]}={item}"',
            )


def _json_values(ctx: CheckContext) -> Iterator[tuple[ArgList, ArgUnit, str, int]]:
    for arg_list in every_arg_list(ctx):
        for unit in arg_list.units:
            value = unit.inline_value if unit.inline_value is not None else unit.value
            index = unit.index if unit.inline_value is not None else unit.value_index
            if not isinstance(value, str) or index is None:
                continue  # a number or a mapping is no JSON text
            if (
                value.lstrip()[:1] in "{["
                and value.strip()
                or unit.base in json_flags()
                and "." not in unit.name
            ):
                yield arg_list, unit, value, index


@cache
def json_flags() -> frozenset[str]:
    """Option strings (aliases too) whose value some catalogued vLLM or vllm-omni release
    parses as JSON: read from the flag catalogs, never listed by hand."""
    kinds = frozenset(JSON_TYPES)
    return options_of_type(kinds, "vllm") | options_of_type(kinds, "vllm-omni")


@check("RL308")
def invalid_json(ctx: CheckContext) -> Iterator[Finding]:
    for arg_list, unit, value, index in _json_values(ctx):
        if value.lstrip()[:1] not in "{[":
            if unit.base.replace("_", "-") in (
                "--speculative-config",
                "--kv-transfer-config",
                "--hf-overrides",
            ):
                yield Finding(
                    arg_list.doc,
                    arg_list.at(index),
                    f"`{unit.base}` takes a JSON object, but its value `{value}` is not one",
                )
            continue
        try:
            json.loads(value)
        except RecursionError:  # thousands of nested brackets: no real config looks like that
            yield Finding(
                arg_list.doc,
                arg_list.at(index),
                f"value of `{unit.flag}` nests too deeply to be read as JSON",
                "flatten the value",
            )
        except json.JSONDecodeError as exc:
            yield Finding(
                arg_list.doc,
                arg_list.at(index),
                f"value of `{unit.flag}` is not valid JSON ({exc.msg} at column {exc.colno}): vLLM "
                "refuses to start",
                "quote keys and strings with double quotes; no trailing commas",
            )
        except ValueError as exc:  # a number longer than Python converts, say
            yield Finding(
                arg_list.doc,
                arg_list.at(index),
                f"value of `{unit.flag}` cannot be read as JSON ({exc}): vLLM refuses to start",
                "write the value as valid JSON of a reasonable size",
            )


def _string_booleans(value: object) -> Iterator[str]:
    """Paths of "true"/"false" strings in parsed JSON, walked without recursion (values nest arbitrarily)."""
    stack: list[tuple[object, str]] = [(value, "")]
    while stack:
        node, path = stack.pop()
        if isinstance(node, dict):
            stack.extend(
                (item, f"{path}.{key}" if path else str(key))
                for key, item in reversed(node.items())
            )
        elif isinstance(node, list):
            stack.extend(
                (item, f"{path}[{index}]") for index, item in reversed(list(enumerate(node)))
            )
        elif isinstance(node, str) and node.lower() in ("true", "false"):
            yield path


@check("RL309")
def json_boolean_strings(ctx: CheckContext) -> Iterator[Finding]:
    for arg_list, unit, value, index in _json_values(ctx):
        try:
            parsed = json.loads(value)
        except (ValueError, RecursionError):
            continue
        for path in _string_booleans(parsed):
            yield Finding(
                arg_list.doc,
                arg_list.at(index),
                f'`{unit.flag}` sets `{path}` to a string "true"/"false": a non-empty string is truthy, '
                'so "false" turns the option on',
                "write a JSON boolean: true or false, unquoted",
            )


# --- flags in the wrong layer --------------------------------------------------------------


def emitted_flags(strategy: object) -> set[str]:
    """Parallel flags the strategy emitter writes for a strategy file (docs/upstream-behaviour.md#parallelism-flags)."""
    data = as_dict(strategy)
    deploy, parallelism = data.get("deploy_type"), data.get("parallelism")
    chosen = data.get("parallel_flag")
    flag = chosen if isinstance(chosen, str) else "--tensor-parallel-size"
    if deploy == "pd_cluster":
        return {
            "--tensor-parallel-size",
            "--data-parallel-size",
            "--data-parallel-size-local",
            "--data-parallel-start-rank",
            "--data-parallel-address",
            "--nnodes",
            "--node-rank",
            flag,
        }
    if deploy != "multi_node":
        return {flag}
    if flag == "--data-parallel-size":
        return {
            flag,
            "--data-parallel-size-local",
            "--data-parallel-address",
            "--data-parallel-start-rank",
        }
    if parallelism == "tp_pp":
        return {"--tensor-parallel-size", "--pipeline-parallel-size", "--nnodes", "--node-rank"}
    if parallelism == "tp_dp":
        return {
            "--tensor-parallel-size",
            "--data-parallel-size",
            "--data-parallel-size-local",
            "--data-parallel-address",
            "--data-parallel-start-rank",
        }
    return {"--tensor-parallel-size", "--nnodes", "--node-rank"}


def _before_emitter(scope: Scope, ctx: CheckContext) -> bool:
    # docs/upstream-behaviour.md#layer-order: resolve.layers' join order; a variant's exact-id
    # override joins before the emitter, its generation-keyed one after
    return scope.layer in layers.BEFORE_EMITTER or (
        scope.layer in layers.EITHER_SIDE_OF_EMITTER and scope.hardware in ctx.profiles
    )


def _pd_pools_use_dep(data: dict[str, JsonValue], offered: list[str]) -> bool:
    """PD pool modes (docs/upstream-behaviour.md#pd-pools): DEP pools exist when a *dep strategy is offered and pool_modes allows it."""
    pd = as_dict(as_dict(data.get("strategy_overrides")).get("pd_cluster"))
    pool_modes = pd.get("pool_modes")
    allowed = not isinstance(pool_modes, list) or not pool_modes or "dep" in pool_modes
    roles = any(as_dict(pd.get(role)).get("parallelism") == "dep" for role in PD_ROLES)
    return allowed and (
        roles or any(s != "pd_cluster" and re.search(r"(^|_)dep$", s) for s in offered)
    )


def _effects(
    flag: str, scope: Scope, data: dict[str, JsonValue], offered: list[str], ctx: CheckContext
) -> dict[str, str]:
    """Per offered strategy, what a parallel flag outside the emitter does: `multiplies` or `overridden`."""
    names = [scope.strategy] if scope.strategy is not None else offered
    effects: dict[str, str] = {}
    for name in names:
        spec = ctx.strategies.get(name)
        if spec is None:
            continue
        spec_data = as_dict(spec.data)
        emits = flag in emitted_flags(spec_data)
        if (
            name == "pd_cluster"
            and _pd_pools_use_dep(data, offered)
            and flag == "--tensor-parallel-size"
        ):
            emits = False  # DEP pools emit no TP flag unless the role sets tp
        if not emits:
            effects[name] = "multiplies"
        elif scope.strategy is None and (
            _before_emitter(scope, ctx) or spec_data.get("deploy_type") not in (None, "single_node")
        ):
            # Before the emitter it loses; after it, it replaces a multi-node world size.
            effects[name] = "overridden" if _before_emitter(scope, ctx) else "multiplies"
    return effects


def multiplies_ranks(
    ctx: CheckContext, data: dict[str, JsonValue], scope: Scope, spelled: str
) -> bool:
    """Whether RL310 reports this spelling of a flag in a recipe list of this scope (RL380,
    which judges each rendered command, then leaves the item to it)."""
    flag = spelled.split("=", 1)[0].replace("_", "-")
    if flag not in PARALLEL_FLAGS:
        return False
    offered = [s for s in offered_strategies(data) if s in ctx.strategies]
    return "multiplies" in _effects(flag, scope, data, offered, ctx).values()


@check("RL310", "RL314")
def parallel_flags(ctx: CheckContext) -> Iterator[Finding]:
    """RL310: a parallel flag that multiplies the emitter's ranks; RL314: one the emitter overrides."""
    for doc in ctx.recipes:
        data = as_dict(doc.data)
        offered = [s for s in offered_strategies(data) if s in ctx.strategies]
        if not offered:
            continue
        for arg_list in ctx.arg_lists_of(doc):
            if arg_list.scope.layer == "omni":
                continue
            for unit in arg_list.units:
                flag = unit.name.replace("_", "-")
                if flag in PARALLEL_FLAGS:
                    effects = _effects(flag, arg_list.scope, data, offered, ctx)
                    effects = {
                        name: effect
                        for name, effect in effects.items()
                        if not _harmless(ctx, data, arg_list.scope, name, unit, effect)
                    }
                    yield from _parallel_findings(arg_list, unit, effects)


def _harmless(
    ctx: CheckContext,
    data: dict[str, JsonValue],
    scope: Scope,
    strategy: str,
    unit: ArgUnit,
    effect: str,
) -> bool:
    """Whether dropping the flag changes nothing: the emitter writes the value itself (PR 413's
    base_args TP 4 beside single_node_tp `tp: 4`). A flag that multiplies or resizes the ranks
    always matters: even one that fills the plan's GPUs exactly (PR 655's TP 8 x DP 2 on two
    8-GPU nodes) breaks at the other node counts the site's Nodes row offers (PR 712's copy)."""
    if effect != "overridden":
        return False
    try:
        return _every_command(ctx, data, scope, strategy, _emitter_value(unit))
    except SYNTHESIS_ERRORS:
        return False


CommandTest = Callable[[RenderInputs, dict[str, JsonValue], Combination, "str | None"], bool]


def _every_command(
    ctx: CheckContext, data: dict[str, JsonValue], scope: Scope, strategy: str, test: CommandTest
) -> bool:
    """Whether ``test`` holds for every command of ``strategy`` the scope's list joins (and
    there is one). Raises what rendering raises."""
    inputs = ctx.render_inputs
    members = ctx.hardware_members(scope.hardware)
    variants = [scope.variant] if scope.variant is not None else list(as_dict(data.get("variants")))
    roles = PD_ROLES if inputs.deploy_type_of(strategy) == "pd_cluster" else (None,)
    judged = False
    for variant in variants:
        for combo, _ in planned_combinations(
            inputs,
            data,
            variant,
            hardware=None if members is None else members.__contains__,
            hardware_of=ctx.variant_hardware,
        ):
            if combo.strategy != strategy:
                continue
            for role in roles:
                if not test(inputs, data, combo, role):
                    return False
                judged = True
    return judged


def _emitter_value(unit: ArgUnit) -> CommandTest:
    """The emitter writes the value itself, or the value asks for more GPUs than the command
    has: the emitter's own size is then the one that can run (PR 464's TP 8 on 4-GPU trays)."""
    value = unit.inline_value if unit.inline_value is not None else unit.value
    wanted = positive_int(value) if unit.name.replace("_", "-") in SIZE_FLAGS else None

    def same(
        inputs: RenderInputs, data: dict[str, JsonValue], combo: Combination, role: str | None
    ) -> bool:
        written = emitted(inputs, data, combo, role)
        if wanted is not None and is_number(written.gpus) and wanted > written.gpus:
            return True
        return value is not None and _value_after(written.tokens, unit.name) == js_string(value)

    return same


def _value_after(tokens: list[JsValue], flag: str) -> str | None:
    """The value the emitter's tokens give ``flag`` (its last occurrence), None without one."""
    found = None
    for at, token in enumerate(tokens[:-1]):
        if token == flag:
            found = js_string(tokens[at + 1])
    return found


def _parallel_findings(
    arg_list: ArgList, unit: ArgUnit, effects: dict[str, str]
) -> Iterator[Finding]:
    # What multiplies the ranks is the graver problem: RL314 stays silent where RL310 speaks.
    multiplies = any(what == "multiplies" for what in effects.values())
    for code, effect in (("RL310", "multiplies"), ("RL314", "overridden")):
        hit = [name for name, what in effects.items() if what == effect]
        if hit and not (code == "RL314" and multiplies):
            yield Finding(
                arg_list.doc,
                arg_list.at(unit.index),
                PARALLEL_MESSAGES[effect].format(flag=unit.name, strategies=", ".join(hit)),
                "size tensor parallelism with the variant's `tp` (or strategy_overrides."
                "single_node_tp.tp) and leave parallel flags to the strategies",
                code=code,
            )


PARALLEL_MESSAGES = {
    "multiplies": "`{flag}` outside the strategy emitter survives next to the emitter's own parallel flags and "
    "multiplies (or resizes) the ranks on: {strategies}",
    "overridden": "`{flag}` comes before the strategy emitter, which writes its own value last: this one is "
    "silently dropped on: {strategies}",
}


@check("RL311")
def speculative_config_in_variant(ctx: CheckContext) -> Iterator[Finding]:
    for doc in ctx.recipes:
        for arg_list in ctx.arg_lists_of(doc):
            if arg_list.scope.layer not in ("variant", "variant-hw"):
                continue
            for unit in arg_list.units:
                if unit.base == "--speculative-config":
                    yield Finding(
                        arg_list.doc,
                        arg_list.at(unit.index),
                        "`--speculative-config` in a variant's args: a spec_decoding feature or mode "
                        "emitting the same flag later silently replaces it, and users cannot turn it off",
                        "move it into a spec_decoding mode and select it with the variant's default_modes",
                    )


@check("RL312")
def omni_in_base_args(ctx: CheckContext) -> Iterator[Finding]:
    for doc in ctx.recipes:
        data = as_dict(doc.data)
        base = as_dict(data.get("model")).get("base_args")
        omni = is_omni(data)
        effect = (
            "is redundant: the omni command path injects it itself"
            if omni
            else "hands every strategy's command to vllm-omni (vLLM 0.20+), though the recipe is not omni"
        )
        for index, item in enumerate(as_list(base)):
            if item == "--omni":
                yield Finding(
                    doc,
                    ("model", "base_args", index),
                    f"`--omni` in base_args {effect}",
                    "remove it; list `omni` in meta.tasks to serve through vLLM-Omni",
                )


@check("RL313")
def empty_args(ctx: CheckContext) -> Iterator[Finding]:
    for arg_list in every_arg_list(ctx):
        for index, item in enumerate(arg_list.items):
            if isinstance(item, str) and not item.strip():
                yield Finding(
                    arg_list.doc,
                    arg_list.at(index),
                    "empty argument: upstream drops falsy items before dedupe, leaving the flag before "
                    "it without a value",
                    "remove the item or write the value",
                )


# --- spellings across the layers of one command ----------------------------------------------


@dataclass
class _Occurrence:
    arg_list: ArgList
    unit: ArgUnit


def _is_generation_layer(scope: Scope, ctx: CheckContext) -> bool:
    return scope.layer in layers.GENERATION_LAYERS and scope.hardware not in ctx.profiles


def co_occur(a: Scope, b: Scope, ctx: CheckContext, data: dict[str, JsonValue]) -> bool:
    """Whether two lists of the recipe ``data`` can both land in one rendered command
    (docs/upstream-behaviour.md#layer-order)."""
    for left, right in ((a.variant, b.variant), (a.strategy, b.strategy), (a.role, b.role)):
        if left is not None and right is not None and left != right:
            return False
    if (
        a.feature is not None
        and a.feature == b.feature
        and (a.mode, a.hardware) != (b.mode, b.hardware)
    ):
        return False  # modes, and a feature's overrides, replace each other
    if (
        a.layer == b.layer
        and (a.variant, a.strategy, a.role) == (b.variant, b.strategy, b.role)
        and a.hardware != b.hardware
        and _is_generation_layer(a, ctx)
        and _is_generation_layer(b, ctx)
    ):
        return False  # `gen || nvidia` picks one key of the same map
    gens = {_is_generation_layer(a, ctx) and a.layer, _is_generation_layer(b, ctx) and b.layer}
    if "strategy-hw" in gens and gens & {"recipe-hw", "variant-hw"}:
        return False  # a strategy generation override replaces the recipe and variant ones
    if _replaced_for(a, b.strategy, ctx, data) or _replaced_for(b, a.strategy, ctx, data):
        return False
    left_hw, right_hw = ctx.hardware_members(a.hardware), ctx.hardware_members(b.hardware)
    return left_hw is None or right_hw is None or bool(left_hw & right_hw)


def _replaced_for(
    scope: Scope, strategy: str | None, ctx: CheckContext, data: dict[str, JsonValue]
) -> bool:
    """Whether a recipe or variant generation list never joins the commands of ``strategy``:
    the strategy's own override of that generation key replaces it there, whatever the
    override holds (Kimi-K3's pd_cluster `blackwell` block of env alone)."""
    if strategy is None or scope.hardware is None or scope.layer not in ("recipe-hw", "variant-hw"):
        return False
    if not _is_generation_layer(scope, ctx):
        return False
    own = as_dict(
        as_dict(as_dict(data.get("strategy_overrides")).get(strategy)).get("hardware_overrides")
    )
    return isinstance(own.get(scope.hardware), dict)


def _conflict(a: ArgUnit, b: ArgUnit) -> str | None:
    if a.flag == b.flag:
        return None
    if a.name == b.name:
        return "`--x=v` and `--x v` spellings"
    if a.base != b.base and a.base.replace("_", "-") == b.base.replace("_", "-"):
        return "underscore and dash spellings"
    if a.base.replace("_", "-") != b.base.replace("_", "-"):
        return "a negated and a plain spelling"
    if ("." in a.name) != ("." in b.name):
        return "a dotted sub-flag and the whole JSON flag"
    return None


@check("RL302")
def spelling_conflicts(ctx: CheckContext) -> Iterator[Finding]:
    shared = [a for a in ctx.shared_arg_lists if a.scope.layer == "strategy-file"]
    for doc in ctx.recipes:
        offered = set(offered_strategies(as_dict(doc.data)))
        lists = [*ctx.arg_lists_of(doc), *(a for a in shared if a.scope.strategy in offered)]
        by_option: dict[str, list[_Occurrence]] = defaultdict(list)
        for arg_list in lists:
            # one occurrence per spelling per list keeps the pairing linear in lists
            spelled: set[str] = set()
            for unit in arg_list.units:
                if FLAG_NAME.match(unit.flag) and unit.flag not in spelled:
                    spelled.add(unit.flag)
                    by_option[unit.canonical].append(_Occurrence(arg_list, unit))
        for occurrences in by_option.values():
            yield from _report_conflicts(doc, occurrences, ctx)


def _candidates(occurrences: list[_Occurrence]) -> Iterator[tuple[_Occurrence, _Occurrence]]:
    """(earlier, later) pairs that may share a command: lists of two different variants never do."""
    seen: dict[str | None, list[_Occurrence]] = defaultdict(list)
    everything: list[_Occurrence] = []
    for later in occurrences:
        variant = later.arg_list.scope.variant
        pool = everything if variant is None else seen[variant] + seen[None]
        for earlier in pool:
            yield earlier, later
        seen[variant].append(later)
        everything.append(later)


def _report_conflicts(
    doc: Document, occurrences: list[_Occurrence], ctx: CheckContext
) -> Iterator[Finding]:
    reported: set[tuple[Pointer, int]] = set()
    if len({o.unit.flag for o in occurrences}) < 2:
        return  # one spelling only: nothing to reconcile
    for earlier, later in _candidates(occurrences):
        kind = _conflict(earlier.unit, later.unit)
        scopes = earlier.arg_list.scope, later.arg_list.scope
        if kind is None or not co_occur(*scopes, ctx, as_dict(doc.data)):
            continue
        # Report in the recipe: a strategy file is shared by every recipe that offers it.
        here, there = (later, earlier) if later.arg_list.doc is doc else (earlier, later)
        key = (here.arg_list.pointer, here.unit.index)
        if here.arg_list.doc is not doc or key in reported:
            continue
        reported.add(key)
        yield Finding(
            doc,
            here.arg_list.pointer + (here.unit.index,),
            f"`{here.unit.flag}` and `{there.unit.flag}` ({_place(there.arg_list)}"
            f"{'.'.join(str(p) for p in there.arg_list.pointer)}[{there.unit.index}]) are {kind} of one "
            "option: last-wins dedupe keeps both, so the command carries two values",
            'spell the option the same way in every layer: "--name", "value"',
        )


def _place(arg_list: ArgList) -> str:
    """The file of a list outside the recipe (a strategy file), as a prefix."""
    return f"{arg_list.doc.rel}: " if arg_list.scope.layer == "strategy-file" else ""
