#!/usr/bin/env python3
"""Mutation score of the modules that reproduce upstream: do the tests notice a planted bug?

usage: python benchmarks/mutation_bench.py [MODULE ...] [--sample N] [--seed S] [--jobs J]
                                           [--examples N] [--survivors]

Opt-in (minutes per module): each mutant is one classic bug planted in one module, made with
cosmic-ray's operators (a test dependency) — a flipped comparison (`==`/`!=`, `<`/`<=`, `<`/`>=`,
`is`/`is not`, …), `and`/`or` swapped, a number constant off by one — plus a dropped `return`
(replaced by `pass`). The module's own tests (see :func:`tests_for`) then run on a scratch copy
of the checkout, one pytest process per mutant under `nice`; a mutant is killed when they fail,
survives when they pass, and hangs when they spend twice the CPU time of the unmutated run
(counted as killed, shown apart).

MODULE is a path such as recipelint/jsvalue.py; the default is every module of resolve/, argv,
jsvalue and the rule modules. `--sample N` draws N mutants per module (seeded, so two runs draw
the same ones while the module is unchanged). The score is (killed + hung) / (mutants -
equivalent), where :data:`EQUIVALENT` lists the mutants judged to behave exactly as the original
(each with why); `--survivors` prints every surviving mutant's line so it can be judged: a test,
or an entry there.
Hypothesis tests run `--examples` examples each (RECIPELINT_PROPERTY_EXAMPLES).
"""

from __future__ import annotations

import argparse
import math
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from queue import Queue
from typing import Any

try:
    import parso
    from cosmic_ray.ast import ast_nodes, get_ast
    from cosmic_ray.mutating import MutationVisitor
    from cosmic_ray.operators.operator import Example, Operator
    from cosmic_ray.plugins import get_operator
except ImportError:  # a test dependency: say how to get it rather than fail with a traceback
    sys.exit(
        "mutation_bench: cosmic-ray is missing; install the test extra: pip install -e '.[test]'"
    )

PROJECT = Path(__file__).resolve().parent.parent

# The classic mutants: a comparison flipped to its negation or its boundary twin, and/or
# swapped, a number off by one (cosmic-ray's NumberReplacer gives n+1 and n-1).
_FLIPS = (
    "Eq_NotEq",
    "NotEq_Eq",
    "Lt_LtE",
    "Lt_GtE",
    "LtE_Lt",
    "LtE_Gt",
    "Gt_GtE",
    "Gt_LtE",
    "GtE_Gt",
    "GtE_Lt",
    "Is_IsNot",
    "IsNot_Is",
)
OPERATORS = (
    *(f"core/ReplaceComparisonOperator_{flip}" for flip in _FLIPS),
    "core/ReplaceAndWithOr",
    "core/ReplaceOrWithAnd",
    "core/NumberReplacer",
)


class DropReturn(Operator):
    """A `return` statement replaced by `pass`: the function falls through (or returns None)."""

    def mutation_positions(self, node: Any) -> Iterator[tuple[Any, Any]]:
        if node.type == "return_stmt" or (node.type == "keyword" and _bare_return(node)):
            yield node.start_pos, node.end_pos

    def mutate(self, node: Any, index: int) -> Any:
        return parso.parse(node.get_first_leaf().prefix + "pass")

    @classmethod
    def examples(cls) -> tuple[Example, ...]:
        return (Example("def f():\n    return 1\n", "def f():\n    pass\n"),)


def _bare_return(node: Any) -> bool:
    """`return` alone is a keyword leaf, not a return_stmt node."""
    return bool(node.value == "return" and node.parent.type != "return_stmt")


DROP_RETURN = "drop-return"

# Mutants judged equivalent: (module, function, original line, mutated line), the lines
# stripped -> why. Where a function has the line twice, the original names the line before it
# too ("previous\nline").
_JS, _LAYERS = "recipelint/jsvalue.py", "recipelint/resolve/layers.py"
_STRATEGY = "recipelint/resolve/strategy.py"
_HARDWARE = "recipelint/resolve/hardware.py"
_DOCKER = "recipelint/resolve/docker.py"
_DEPLOYMENT = "recipelint/resolve/deployment.py"
_FEATURES = "recipelint/resolve/features.py"
_PLACEMENT = "recipelint/resolve/placement.py"
_PLAN = "recipelint/resolve/plan.py"
_SHAPES = "recipelint/resolve/shapes.py"
_SYNTHESIS = "recipelint/resolve/synthesis.py"
_COMMAND = "recipelint/resolve/command.py"
_COLLATION = "recipelint/resolve/collation.py"
_ATTRIBUTION = "recipelint/resolve/attribution.py"
_FORMATTING = "recipelint/resolve/formatting.py"
_INSTALL = "recipelint/resolve/install.py"
_INPUTS = "recipelint/resolve/inputs.py"
_RULES_DEPLOYMENT = "recipelint/rules/deployment.py"
_RULES_COMMON = "recipelint/rules/common.py"
_PROFILES = "recipelint/rules/hardware_profiles.py"
_VARIANTS = "recipelint/rules/variants.py"
_REFERENCES = "recipelint/rules/references.py"
_VOCABULARY = "recipelint/rules/vocabulary.py"
_RULES_BACKENDS = "recipelint/rules/backends.py"
_RULES_COMMANDPLAN = "recipelint/rules/commandplan.py"
_RULES_GUIDE = "recipelint/rules/guide.py"
_RULES_CONTEXT = "recipelint/rules/context.py"
_RULES_GUIDE_FLAGS = "recipelint/rules/guide_flags.py"
_RULES_GUIDE_HARDWARE = "recipelint/rules/guide_hardware.py"
_RULES_GUIDE_SECTIONS = "recipelint/rules/guide_sections.py"
_RULES_GUIDE_MARKDOWN = "recipelint/rules/guide_markdown.py"
_RULES_GUIDE_PYTHON = "recipelint/rules/guide_python.py"
_RULES_GUIDE_SHELL = "recipelint/rules/guide_shell.py"
_RULES_RESOLVED = "recipelint/rules/resolved.py"
_RULES_VLLM_FLAGS = "recipelint/rules/vllm_flags.py"
_CONVENTIONS = "recipelint/rules/conventions.py"
_ENVIRONMENT = "recipelint/rules/environment.py"
_SECURITY = "recipelint/rules/security.py"
_TYPOGRAPHY = "recipelint/rules/typography.py"
_VERSIONS = "recipelint/rules/versions.py"
_RULES_ARGS = "recipelint/rules/args.py"
_ENGINE_DROPS = (
    "the engine drops what this guard saves it from: findings in files out of focus, and a "
    "rule's findings beneath a pointer the schema stage already reports"
)
_HEAD_RANK = "node_role None is no worker: _parallel_args reads no rank then (a head's is 0)"
_HEAD_TOKENS = "tokens = synth._parallel_args(role, None, "
_HEAD_ARGS = "return Synthesis(inputs, recipe, combo, placement).build_args(role, None, "
_WALKER_COMMAND = (
    "self, synth: Synthesis, role: str | None, node_role: str | None, node_rank: int = "
)
_NODE_RANK = (
    "node_rank is read for a worker only (a head's rank is 0), and every worker's call passes it"
)
_SAFE = "-MAX_SAFE_INTEGER < value < MAX_SAFE_INTEGER"
_SAFE_ITEM = "-MAX_SAFE_INTEGER < item < MAX_SAFE_INTEGER"
_SAFE_EDGE_PRINTS_ALIKE = (
    "±(2**53 - 1) is exact as a double: the plain writer and the rewrite print it alike"
)
_INT_ROUNDS_TO_ITSELF = "an int then reaches math.floor/ceil, which return it unchanged"
_OTHER_BRANDS = (
    'key=lambda hw: (_BRAND_RANK.get(js_string(get(profiles[hw], "brand")), 9), icu_root_key(hw))'
)
_UNREAD_SERVE_PORT = (
    "read nowhere: command.py re-exports it and no module or test imports it (docker.wrap and "
    "_kv_router write their own 8000)"
)
_VARIANT_LIST_POINTER = (
    "an argument list under variants is at one of resolve.layers' places, variants.<key>.extra_args "
    "or variants.<key>.hardware_overrides.<hw>.extra_args: its pointer has 3 or 5 parts, never 1 or 2"
)
_DOUBLE_TEXT = "the text of a double (repr) has at most 17 digits, so n = 21 needs k <= 21"
_KEY_POLARITY = (  # image_key's == flipped to !=
    "each part of the key still tells the same two kinds of hardware apart, only inverted: "
    "equal keys still mean equal docker_meta"
)
_DIGIT_KEY = 'primary.append((2, unicodedata.digit(char, 0), ""))'
_LETTER_KEY = "primary.append((3, 0, char.casefold()))"
_PUNCT_KEY = 'primary.append((1, ord(char), ""))'
_CASE_KEY = "tertiary.append(0 if not char.isupper() else 1)"
_CACHE_SIZE = "an lru_cache's size changes what is kept, never what is returned"
_FALLS_BACK = (
    "the TypeError it then raises is serve_command's cue to take the direct path, dedupe_tokens "
    "and format_command, which give the same command and argv"
)
_PLAIN_OR_DEDUPE = (
    "None sends the list to dedupe_tokens, which gives what _plain_tokens gives, and a scalar "
    "that is no string raises TypeError at token[:1], serve_command's cue to take that path too"
)
_RANK_CLAMP = (
    "a worker's rank is read as Math.max(1, rank), so 0 reads as 1, and no other line reads it"
)
_LINE_RANK = (
    "the synthesis reads node_rank for a worker only (any other line is rank 0 there), and "
    "nothing reads an AttributedCommand's node_rank"
)
_DIGIT_VALUE = (
    "str.isdigit and unicodedata.digit read the same Unicode data: a character that is a digit "
    "always has a digit value, so the default is never used"
)
_VERDICT_MEMO = (
    "the size of a memo of a pure function (the hardware catalog is read-only): a call evicted "
    "or kept returns the same verdict"
)
_NO_CAPABILITIES = (
    "target_of gives capabilities to cuda targets only, so a target that reaches here without "
    "them asks about no capability: runs is the empty set, never {'no'}, and the function "
    "returns None all the same"
)
_LETTERS_ONLY = (
    "only letters carry this middle value and they compare on it only with letters (their "
    "class 3 is unlike the others'), so any constant orders alike"
)
EQUIVALENT: dict[tuple[str, str, str, str], str] = {
    (_JS, "_format_decimal", "if 0 < n <= 21:", "if 0 < n <= 20:"): _DOUBLE_TEXT,
    (
        _JS,
        "js_string",
        "return value  # type: ignore[no-any-return]",
        "pass  # type: ignore[no-any-return]",
    ): "a str then takes the isinstance(value, str) branch, which returns it as well",
    (
        _JS,
        "js_string",
        f"if kind is int and {_SAFE}:",
        "if kind is int and -MAX_SAFE_INTEGER < value <= MAX_SAFE_INTEGER:",
    ): "2**53 is exact as a double, so str() and Number::toString print it alike",
    (
        _JS,
        "js_string",
        "return str(value)  # the renderer's GPU and node counts: exact as a double, printed alike",
        "pass  # the renderer's GPU and node counts: exact as a double, printed alike",
    ): "a safe integer then reaches js_number_string, which prints it alike (slower)",
    (
        _JS,
        "_integer_as_double",
        "return math.inf if number > 0 else -math.inf",
        "return math.inf if number > 1 else -math.inf",
    ): "only integers past 2**1024 overflow, so > 1 and > 0 agree",
    (
        _JS,
        "to_json_value",
        f"if kind is float or (kind is int and not {_SAFE}):",
        "if kind is float or (kind is int and not -MAX_SAFE_INTEGER <= value < MAX_SAFE_INTEGER):",
    ): "-2**53 is exact: written the same as an int or as a raw number",
    (
        _JS,
        "json_number",
        f"if type(value) is int and {_SAFE}:",
        "if type(value) is int and -MAX_SAFE_INTEGER <= value < MAX_SAFE_INTEGER:",
    ): "-2**53 is exact: written the same as an int or as a raw number",
    (
        _JS,
        "json_number",
        f"if type(value) is int and {_SAFE}:",
        "if type(value) is int and -MAX_SAFE_INTEGER < value <= MAX_SAFE_INTEGER:",
    ): "2**53 is exact: written the same as an int or as a raw number",
    (
        _JS,
        "js_number",
        "if value is UNDEFINED:\nreturn math.nan",
        "pass",
    ): "the UNDEFINED branch's: undefined then falls through to the last line, NaN too",
    (
        _JS,
        "js_number_string",
        'return "Infinity" if value > 0 else "-Infinity"',
        'return "Infinity" if value > 1 else "-Infinity"',
    ): "the value is infinite here: above 1 exactly when it is above 0",
    (
        _JS,
        "_integral",
        "if math.isfinite(value) and value.is_integer() and -MAX_SAFE_INTEGER < value < "
        "MAX_SAFE_INTEGER:",
        "if math.isfinite(value) and value.is_integer() and -MAX_SAFE_INTEGER < value <= "
        "MAX_SAFE_INTEGER:",
    ): "2**53 - 1 is exact: as an int or a float it compares and is written alike",
    (
        _JS,
        "js_divide",
        "return math.inf if (a > 0) == (math.copysign(1, b) > 0) else -math.inf",
        "return math.inf if (a > 0) == (math.copysign(1, b) >= 0) else -math.inf",
    ): "copysign(1, b) is 1 or -1, never 0",
    (
        _JS,
        "has_js_specials",
        "if key[:1].isdigit() and _is_array_index(key):",
        "if key[: 2].isdigit() and _is_array_index(key):",
    ): "an array index is all digits: its first two characters are digits when its first is",
    (
        _JS,
        "to_json_value",
        f"if kind is float or (kind is int and not {_SAFE}):",
        "if kind is float or (kind is int and not -MAX_SAFE_INTEGER < value <= MAX_SAFE_INTEGER):",
    ): "2**53 - 1 is exact: written the same as an int or as a raw number",
    (
        _JS,
        "_format_decimal",
        'exponent = ("+" if e >= 0 else "-") + str(abs(e))',
        'exponent = ("+" if e >= -1 else "-") + str(abs(e))',
    ): "the exponent form is only reached for n > 21 or n <= -6, so e = n - 1 is never -1",
    (
        _JS,
        "_integer_as_double",
        "return math.inf if number > 0 else -math.inf",
        "return math.inf if number >= 0 else -math.inf",
    ): "only integers past 2**1024 overflow: never 0",
    (_PLACEMENT, "serves", "return (", "pass"): (
        "a placement that does not serve is replaced by a fresh one of the same inputs, which "
        "renders alike (a placement only keeps what it worked out)"
    ),
    (
        _RULES_GUIDE_SECTIONS,
        "_paragraph_before",
        "while index >= 0 and not self.lines[index].strip():",
        "while index >= -1 and not self.lines[index].strip():",
    ): (
        "index -1 (a fence on the first line) only reads the last line once: the paragraph loop "
        "after it starts from 0 either way, so nothing is collected"
    ),
    (
        _VARIANTS,
        "_checkpoint",
        'return str(model_id).rsplit("/", 1)[-1].lower()',
        'return str(model_id).rsplit("/", 2)[-1].lower()',
    ): "the last part of an rsplit is what follows the last slash, whatever the split count",
    (
        _RULES_DEPLOYMENT,
        "_pin",
        "ranked = [item for item in ranked if item[0] < 9]",
        "ranked = [item for item in ranked if item[0] < 8]",
    ): "the ranks given are 0, 1, 2 and 9: below 8 exactly when below 9",
    (
        _RULES_DEPLOYMENT,
        "_pin",
        'if len(pointer) > 3 and pointer[2] == "hardware_overrides":',
        'if len(pointer) >= 3 and pointer[2] == "hardware_overrides":',
    ): "an image's pointer ends at docker_image (or a brand key under it): one whose third "
    "part is hardware_overrides goes on to the hardware and docker_image, so it is longer than 3",
    (
        _RULES_DEPLOYMENT,
        "_pin",
        "rank = 0 if pointer[3] == hw_id else 9",
        "rank = -1 if pointer[3] == hw_id else 9",
    ): "ranks are only compared with each other and with 9: -1 keeps the hardware's own pin first",
    (
        _RULES_DEPLOYMENT,
        "sized",
        "if not self.sizing:\nreturn False",
        "pass",
    ): "with no sizing scope the any() below is over nothing: False as well",
    (
        _RULES_DEPLOYMENT,
        "sharing_key",
        "if last is not None and last[0] is combo and last[1] == role:\nreturn last[2]",
        "pass",
    ): "the key is worked out again for the same combination and role, alike",
    (
        _RULES_DEPLOYMENT,
        "add",
        'if "RL380" in self.codes and recipe.sized(combo):',
        'if "RL380" in self.codes or recipe.sized(combo):',
    ): "with RL380 on, a command no list sizes finds no setter and reports nothing; with it off, "
    "the engine drops RL380 findings (checked with --select RL382,RL383)",
    (
        _RULES_COMMON,
        "__call__",
        "if found is None or found[0] is not items:  # the list is kept: its id stays its own",
        "if found is None or found[ -1] is not items:  # the list is kept: its id stays its own",
    ): "the units are never the items: every list is looked up by its repr again, with the "
    "same units",
    (
        _RULES_COMMON,
        "_expand",
        "elif not isinstance(value, dict):\nreturn",
        "pass",
    ): "the branch is one arm of an if-chain: pass ends the chain and the function, as return does",
    (
        _JS,
        "_double",
        "if type(number) is float or -MAX_SAFE_INTEGER < number < MAX_SAFE_INTEGER:",
        "if type(number) is float or -MAX_SAFE_INTEGER < number <= MAX_SAFE_INTEGER:",
    ): "2**53 - 1 is exact as a double: kept as the int or rounded, it compares alike",
    (_JS, "js_floor", "if type(value) is int:\nreturn value", "pass"): _INT_ROUNDS_TO_ITSELF,
    (_JS, "js_ceil", "if type(value) is int:\nreturn value", "pass"): _INT_ROUNDS_TO_ITSELF,
    (
        _JS,
        "has_js_specials",
        f"elif kind is float or kind is int and not {_SAFE_ITEM}:",
        "elif kind is float or kind is int and not -MAX_SAFE_INTEGER <= item < MAX_SAFE_INTEGER:",
    ): _SAFE_EDGE_PRINTS_ALIKE,
    (
        _JS,
        "has_js_specials",
        f"elif kind is float or kind is int and not {_SAFE_ITEM}:",
        "elif kind is float or kind is int and not -MAX_SAFE_INTEGER < item <= MAX_SAFE_INTEGER:",
    ): _SAFE_EDGE_PRINTS_ALIKE,
    (
        _JS,
        "json_number",
        r'if re.fullmatch(r"-?\d+", text) and abs(int(text)) < MAX_SAFE_INTEGER:',
        r'if re.fullmatch(r"-?\d+", text) and abs(int(text)) >= MAX_SAFE_INTEGER:',
    ): (
        "a text of digits is written the same as an int or as a raw literal (past 2**64, where "
        "orjson refuses the int, by the stdlib writer)"
    ),
    (
        _JS,
        "js_divide",
        "return math.inf if (a > 0) == (math.copysign(1, b) > 0) else -math.inf",
        "return math.inf if (a > 0) == (math.copysign(1, b) > -1) else -math.inf",
    ): "copysign(1, b) is 1 or -1, and -1 > -1 is false as -1 > 0 is",
    (
        _LAYERS,
        "exact_hardware_maps",
        "return []  # both are read below strategy_overrides[strategy]",
        "pass  # both are read below strategy_overrides[strategy]",
    ): "without overrides both candidates read undefined, and none is kept",
    (
        _STRATEGY,
        "min_gpus",
        "if cfg is None or cfg is UNDEFINED:",
        "if cfg is None and cfg is UNDEFINED:",
    ): "a null or absent floor then reads as a block without keys: max(0, 0), 0 as well",
    (
        _DOCKER,
        "__init__",
        "and set(map(type, env)) <= _KEY_TYPES",
        "and set(map(type, env)) < _KEY_TYPES",
    ): "_KEY_TYPES is {str}: an env with keys then skips the memo, and _env_parts formats alike",
    (
        _PLACEMENT,
        "_single_node_tp",
        "per_gpu = js_divide(vram, gpu_count) if truthy(vram) and truthy(gpu_count) else 0",
        "per_gpu = js_divide(vram, gpu_count) if truthy(vram) and truthy(gpu_count) else -1",
    ): "the next test returns gpu_count for a per_gpu that is falsy or <= 0: -1 as 0",
    (
        _PLAN,
        "__init__",
        "self._floors_only = shared.min_gpus_unset and (type(gpus) is int or type(gpus) is float)",
        "self._floors_only = shared.min_gpus_unset and (type(gpus) is not int or type(gpus) is float)",
    ): "without strategy_min_gpus nodes_for_strategy is 1 at any count, so both paths give the "
    "floor; a count that is no number raises in is_reachable first",
    (_SHAPES, "command", f"{_WALKER_COMMAND}1", f"{_WALKER_COMMAND}2"): _NODE_RANK,
    (_SHAPES, "command", f"{_WALKER_COMMAND}1", f"{_WALKER_COMMAND}0"): _NODE_RANK,
    (
        _SHAPES,
        "_pd_router",
        'js_max(js_or(roles["prefill"]["dpLocal"], 0), js_or(roles["decode"]["dpLocal"], 0), 1),',
        'js_max(js_or(roles["prefill"]["dpLocal"], 0), js_or(roles["decode"]["dpLocal"], -1), 1),',
    ): "js_max(..., 1) is at least 1, so a falsy decode dpLocal counts alike as 0 or -1",
    (
        _SYNTHESIS,
        "__init__",
        "self.instances = 2",
        "self.instances = 1",
    ): "without a kv_offload kv_composing is False, and only the kv_store shape and the "
    "kv_composing address read instances",
    (
        _SYNTHESIS,
        "array_length",
        "if length != length or length <= 0:",
        "if length != length or length < 0:",
    ): "a length 0 (or -0.0) then reaches return int(length): 0 as well",
    (_COMMAND, "emitted", f"{_HEAD_TOKENS}1)", f"{_HEAD_TOKENS}2)"): _HEAD_RANK,
    (_COMMAND, "emitted", f"{_HEAD_TOKENS}1)", f"{_HEAD_TOKENS}0)"): _HEAD_RANK,
    (_COMMAND, "rendered_args", f"{_HEAD_ARGS}1)", f"{_HEAD_ARGS}0)"): _HEAD_RANK,
    (_COMMAND, "rendered_args", f"{_HEAD_ARGS}1)", f"{_HEAD_ARGS}2)"): _HEAD_RANK,
    (
        _COMMAND,
        "emitted",
        'nodes = combo.node_count if synth.deploy == "multi_node" and combo.node_count > 1 else 1',
        'nodes = combo.node_count if synth.deploy == "multi_node" and combo.node_count >= 1 else 1',
    ): "they differ at a count of 1 only, which both give (1.0 as a float, which its callers read "
    "through _count and int alike)",
    (
        _RULES_DEPLOYMENT,
        "sharing_key",
        "if last is not None and last[0] is combo and last[1] == role:",
        "if last is not None and last[ -1] is combo and last[1] == role:",
    ): "last[-1] is the key, never the combination: the last answer is worked out again, alike",
    (
        _RULES_DEPLOYMENT,
        "_fit",
        "weights = found.weights_gb or 0.0",
        "weights = found.weights_gb or 1.0",
    ): "RL382 needs weights_gb > room, a positive number, so the `or` never falls back",
    (
        _PROFILES,
        "_same_model",
        "return bool(names[0]) and names[0] == names[1]",
        "return bool(names[ -1]) and names[0] == names[1]",
    ): "names is a pair: names[-1] is names[1], truthy alike where it equals names[0]",
    (
        _VARIANTS,
        "_mismatch",
        'return f"it was made for `{target}`, not `{checkpoint}`"\nreturn None',
        "pass",
    ): "the function's last line: it then falls off its end, returning None as well",
    (
        _REFERENCES,
        "_respelling",
        "if len(close) != 1 or _differs_in_digits(name, close[0]):",
        "if len(close) != 1 or _differs_in_digits(name, close[ -1]):",
    ): "read only when close holds one name: close[-1] is close[0]",
    (
        _REFERENCES,
        "_edits",
        "current = [beyond] * (width + 1)",
        "current = [beyond] * (width + 2)",
    ): "the extra cell at width + 1 is never read: j and the slices stay within 0..width",
    (
        _VOCABULARY,
        "listed_strategies_exist",
        "if taxonomy is None or not taxonomy.usable or not ctx.in_focus(taxonomy):",
        "if taxonomy is None or not taxonomy.usable and not ctx.in_focus(taxonomy):",
    ): _ENGINE_DROPS,
    (
        _VOCABULARY,
        "listed_strategies_exist",
        "return  # the schema stage reports a vocabulary that is no list",
        "pass  # the schema stage reports a vocabulary that is no list",
    ): _ENGINE_DROPS,
    (
        _VOCABULARY,
        "_missing_strategy_hint",
        "close = difflib.get_close_matches(name, sorted(known), n=1)",
        "close = difflib.get_close_matches(name, sorted(known), n= 2)",
    ): "only close[0], the best match, is read, and a second match never displaces it",
    (
        _VOCABULARY,
        "_missing_strategy_hint",
        'return f"did you mean `{close[0]}`?"',
        'return f"did you mean `{close[ -1]}`?"',
    ): "close holds one name (n=1): close[-1] is close[0]",
    (
        _CONVENTIONS,
        "_package_install",
        "return None  # a malformed install block is the schema stage's finding",
        "pass  # a malformed install block is the schema stage's finding",
    ): "unreachable: synthesize_install reads every shape through get/js_or/truthy/js_string, which raise no TypeError or ValueError (only RecursionError past the loader's 100-level depth bound, which the except does not catch either); with the except never taken, dropping its return changes nothing",
    (
        _CONVENTIONS,
        "_source_path_finding",
        'folder = path.removeprefix("./").split("/", 1)[0]',
        'folder = path.removeprefix("./").split("/", 2)[0]',
    ): "only [0] is read: the text before the first `/` is the same for any maxsplit >= 1",
    (
        _ENVIRONMENT,
        "minimum_release",
        'if len(pointer) > 1 and pointer[0] == "variants":',
        'if len(pointer) > 0 and pointer[0] == "variants":',
    ): 'no env mapping has the one-part pointer ("variants",): every variants place (layers.VARIANT_ENV, VARIANT_HW_ENV) is 3+ parts, and the only one-part place is a strategy file\'s ("env",), so len == 1 never meets pointer[0] == "variants"',
    (
        _ENVIRONMENT,
        "minimum_release",
        'if len(pointer) > 1 and pointer[0] == "variants":',
        'if len(pointer) >= 1 and pointer[0] == "variants":',
    ): 'same as > 0: a one-part pointer is only ever ("env",) (layers.FILE_ENV), never ("variants",)',
    (
        _SECURITY,
        "",
        "_declared_list = functools.lru_cache(maxsize=8192)(is_list_place)",
        "_declared_list = functools.lru_cache(maxsize= 8191)(is_list_place)",
    ): "a cache's size changes only how often is_list_place (a pure function) is asked again, never its answer",
    (
        _TYPOGRAPHY,
        "ascii_spelling",
        "if lead == 0 or text[:lead].isascii():",
        "if lead == -1 or text[:lead].isascii():",
    ): "lead is never negative, and at lead 0 text[:0] is '', which isascii() alike",
    (
        _TYPOGRAPHY,
        "ascii_spelling",
        'name = rest.split("=", 1)[0].split(" ", 1)[0]',
        'name = rest.split("=", 1)[0].split(" ", 2)[0]',
    ): "only [0] is read: the text before the first space, whatever the split's maxsplit",
    (
        _VERSIONS,
        "_mentioned_version",
        "return (parts + [0, 0])[0], (parts + [0, 0])[1], (parts + [0, 0, 0])[2]",
        "return (parts + [ -1, 0])[0], (parts + [0, 0])[1], (parts + [0, 0, 0])[2]",
    ): "text is group 1 or 2 of GUIDE_MINIMUM, `\\d+\\.\\d+(?:\\.\\d+)?` or `\\d+\\.\\d+\\.\\d+`: parts has 2 or 3 numbers, so index 0 is always parts[0] and the padding is never read",
    (
        _VERSIONS,
        "_mentioned_version",
        "return (parts + [0, 0])[0], (parts + [0, 0])[1], (parts + [0, 0, 0])[2]",
        "return (parts + [0, 0])[0], (parts + [0, 0])[1], (parts + [ -1, 0, 0])[2]",
    ): "the padding reaches index 2 only for a two-part text (`0.22`), whose precise is False: guide_minimum_version then reads mentioned[:2] alone, never mentioned[2]",
    (
        _RULES_BACKENDS,
        "_selections",
        "if cached is None or cached[0] is not units:",
        "if cached is None or cached[ 1] is not units:",
    ): "cached[1] is the list of selections made for the memo, never the units list itself: the memo always misses, and _unit_selections reads the very same units again, giving the same selections in the same order",
    (
        _RULES_BACKENDS,
        "",
        "@functools.lru_cache(maxsize=4096)",
        "@functools.lru_cache(maxsize= 4097)",
    ): _VERDICT_MEMO,
    (
        _RULES_BACKENDS,
        "_moe_verdict",
        'if target.platform != "cuda" or not target.capabilities:',
        'if target.platform != "cuda" and not target.capabilities:',
    ): 'target_of gives capabilities to cuda targets only, so the two differ only for a cuda target without capabilities: there the mutant goes on, runs is the empty set (no capability to ask about), never {"no"}, and it returns None as well',
    (
        _RULES_BACKENDS,
        "refusing",
        "return frozenset()",
        "pass",
    ): "a shortcut: with no selection the frozenset built below is empty as well (any() over no selection is False), and what it reads on the way (_release_of, every_target) cannot fail or change anything",
    (
        _RULES_COMMANDPLAN,
        "_mentioned",
        "elif isinstance(value, str) and value in profiles:",
        "elif isinstance(value, str) or value in profiles:",
    ): "the mutant adds every string, profile id or not, to the found set; only hardware ids are ever looked up in it (command_choices asks `hw_id in mentioned` of variant_hardware's ids, taxonomy profiles), and a string that is no profile is asked about only for a default hardware no profile describes, which is the one hardware of its class either way (its class, str or tuple, is its own within the variant)",
    (
        _RULES_COMMANDPLAN,
        "_layer_class",
        'brand == "NVIDIA",',
        'brand != "NVIDIA",',
    ): "the flag is negated for every hardware alike: a bijection of the class labels, which are only compared with each other (dict keys, `type(...) is str`), so the same hardware share a class and get the same layers",
    (
        _RULES_COMMANDPLAN,
        "reads",
        "filtered = self._features(combo.variant, combo.hw_id, hw_class)[2]",
        "filtered = self._features(combo.variant, combo.hw_id, hw_class)[ 1]",
    ): "[1] is the FeatureResolver, always truthy: the features part is then kept per strategy as well, a finer key for the same content (a feature's args never depend on the strategy unless it has a strategies allow-list, which the original keys by strategy too)",
    (
        _RULES_COMMANDPLAN,
        "_strategy_limited",
        "if type(allow) is list and allow:",
        "if type(allow) is list or allow:",
    ): "a truthy allow that is no list is ignored by the resolver (allowed_for_strategy: `type(allow) is not list or ...`): the mutant only keys the features part by strategy too, a finer key for the same layers",
    (
        _RULES_COMMANDPLAN,
        "_strategy_limited",
        "return False",
        "pass",
    ): "the answer is only read as a truth value (`combo.strategy if filtered else None`): None and False alike",
    (
        _RULES_COMMANDPLAN,
        "",
        'if step is not EMITTER and "kv" not in step.reads',
        'if step is not EMITTER or "kv" not in step.reads',
    ): "the mutant adds the emitter's step and the kv steps to RULE_STEPS: the emitter's step yields no layer (layers._nothing), and the kv steps yield none for a Selection without a kv_store (Assembler.selection sets none: kv_option None, kv None, kv_composing False), so every command's layers are the same",
    (
        _RULES_GUIDE,
        "",
        "@functools.lru_cache(maxsize=8)",
        "@functools.lru_cache(maxsize= 7)",
    ): "the cache's capacity: a guide missing from it is read again into equal facts, so only the time differs (a tree's check reads each guide once, never from the cache)",
    (
        _RULES_GUIDE,
        "_serve_flag_verdicts",
        "else (0, 0, finding.code)",
        "else ( -1, 0, finding.code)",
    ): "the key of a finding without a span: any constant pair dedups those findings alike by code, and no span has line 0 or -1 to collide with",
    (
        _RULES_GUIDE,
        "_serve_flag_verdicts",
        "else (0, 0, finding.code)",
        "else (0, 1, finding.code)",
    ): "the key of a finding without a span: any constant pair dedups those findings alike by code, and no span has line 0 to collide with",
    (
        _RULES_GUIDE,
        "_serve_flag_verdicts",
        "else (0, 0, finding.code)",
        "else (0, -1, finding.code)",
    ): "the key of a finding without a span: any constant pair dedups those findings alike by code, and no span has line 0 to collide with",
    (
        _RULES_GUIDE_FLAGS,
        "",
        "\n@functools.lru_cache(maxsize=16384)",
        "@functools.lru_cache(maxsize= 16383)",
    ): "the cache's capacity: an option evicted from it is judged again to an equal reading (a pure function of its arguments), so only the time differs",
    (
        _RULES_GUIDE_FLAGS,
        "",
        "@functools.lru_cache(maxsize=512)",
        "@functools.lru_cache(maxsize= 511)",
    ): "the cache's capacity: a name evicted from it is looked up again in the same catalogs to the same releases, so only the time differs",
    (
        _RULES_GUIDE_SECTIONS,
        "_paragraph_before",
        "while index >= 0 and not self.lines[index].strip():",
        "while index >= 1 and not self.lines[index].strip():",
    ): "stopping the skip of blank lines at index 0 instead of -1 changes nothing: the paragraph loop that follows reads lines[0] and breaks on it when blank, which leaves the same empty paragraph as starting at -1",
    (
        _RULES_GUIDE_HARDWARE,
        "_in",
        "return bool(command.lines) and command.lines[0][0] in lines",
        "return bool(command.lines) and command.lines[ -1][0] in lines",
    ): "a command's lines are lines of one block (or its one prose line), and blocks do not overlap: its first and last lines are in the skipped set alike",
    (
        _RULES_GUIDE_MARKDOWN,
        "dedented",
        "return code",
        "pass",
    ): "with no line of the code starting with a space or a tab, the later branches return the code unchanged too: BLANK_LINE needs a line of spaces or tabs, and textwrap.dedent finds an empty margin (the shortcut only skips their work)",
    (
        _RULES_GUIDE_MARKDOWN,
        "dedented",
        'if code[:1] not in ("", "\\n"):',
        'if code[: 0] not in ("", "\\n"):',
    ): "code[:0] is always '' so the text goes to textwrap.dedent, which the BLANK_LINE branch only anticipates: with a first line starting with other text the common margin is empty and dedent empties the blank lines alone, as BLANK_LINE.sub does",
    (
        _RULES_GUIDE_MARKDOWN,
        "dedented",
        'return BLANK_LINE.sub("", code)',
        "pass",
    ): "falling through returns textwrap.dedent(code), which BLANK_LINE.sub only anticipates: the first line starts with other text, so the common margin is empty and dedent empties the blank lines alone",
    (
        _RULES_GUIDE_PYTHON,
        "_model_arguments",
        "return ()",
        "pass",
    ): "lines == [] only for ASCII code without a carriage return in which no line spells 'model': no call can pass a model= keyword, so the walk that follows finds none and returns () as well",
    (
        _RULES_GUIDE_PYTHON,
        "_model_lines",
        'return [number for number, line in enumerate(code.split("\\n"), start=1) if "model" in line]',
        "pass",
    ): "None means every node may hold a model= keyword: _calls then leaves none out, and the full walk finds the same arguments (the shortcut's own property, tested against ast.walk)",
    (
        _RULES_GUIDE_PYTHON,
        "syntax_verdict",
        "return error.message.splitlines()[0], error.raw_line\nreturn None",
        "pass",
    ): "the last statement of the function: falling off its end returns None as well",
    (
        _RULES_GUIDE_PYTHON,
        "_too_deep",
        "return deepest > MAX_NESTING or max(indents, default=0) > 4 * MAX_NESTING",
        "return deepest > MAX_NESTING or max(indents, default= 1) > 4 * MAX_NESTING",
    ): "the default is read only for code with no lines (empty), where 1 > 400 is as false as 0 > 400; CPython accepts empty code anyway",
    (
        _RULES_GUIDE_PYTHON,
        "notebook_style",
        "return False  # no line can start with a mark the code does not hold",
        "pass  # no line can start with a mark the code does not hold",
    ): "with no mark in the code, no line can start with one: the any() that follows returns False as well",
    (
        _RULES_GUIDE_SHELL,
        "_open_quote",
        "counted = line.count(\"'\") % 2 == 0 and line.count('\"') % 2 == 0",
        "counted = line.count(\"'\") % 2 == -1 and line.count('\"') % 2 == 0",
    ): "x % 2 is never -1 in Python: counted is always False and the shell's reading (shellwords.split) decides every line, which the paired-count shortcut only anticipates where it is exact (no backslash, one kind of quote)",
    (
        _RULES_GUIDE_SHELL,
        "_open_quote",
        "return False",
        "pass",
    ): "the last statement of the function, and its caller reads the result only as a condition: None is as false as False",
    (
        _RULES_GUIDE_SHELL,
        "_image_arguments",
        "return None\nreturn None",
        "pass",
    ): "the last statement of the function: falling off its end returns None as well",
    (
        _RULES_GUIDE_SHELL,
        "_serve_arguments",
        'if word == "-m" and after[:1] and after[0] in SERVER_MODULES:',
        'if word == "-m" and after[: 2] and after[0] in SERVER_MODULES:',
    ): "after[:2] is truthy exactly when after[:1] is (after is non-empty); after[0] is what is compared",
    (
        _RULES_RESOLVED,
        "may_shadow",
        "others = (*found[1:], *strategy_values.get(flag, ()))",
        "others = (*found[ 0:], *strategy_values.get(flag, ()))",
    ): "the mutant also compares the first value with itself (different only for a NaN), and may_shadow is only a pre-filter: a True where the original says False plans the recipe, and the full walk finds what it finds",
    (
        _RULES_RESOLVED,
        "may_shadow",
        "return False",
        "pass",
    ): "the answer is only read as a truth value (`shadowed and may_shadow(...)`, then `if shadows`): None and False alike",
    (
        _RULES_RESOLVED,
        "_replacement_finding",
        "source_key = source[-2] if len(source) >= 2 else None",
        "source_key = source[-2] if len(source) > 2 else None",
    ): "source is the pointer of a replaced generation layer, from layers.recipe_generation_maps: hardware_overrides.<key>.extra_args or variants.<v>.hardware_overrides.<key>.extra_args, 3 or 5 parts, never 2",
    (
        _RULES_RESOLVED,
        "_rendered_strategies",
        "fallbacks = {recommend_strategy(self.recipe, nodes) for nodes in (1, 2)}",
        "fallbacks = {recommend_strategy(self.recipe, nodes) for nodes in (1, 3)}",
    ): "recommend_strategy reads the node count only as `node_count > 1`: 2 and 3 give the same strategy",
    (
        _RULES_RESOLVED,
        "_unread_key",
        "if space is None or type(key) is not str:\nreturn None",
        "pass",
    ): "every hardware key of a place RL342 judges is in self.spaces (hardware_refs walks the recipe, variant, strategy, PD role, feature and mode hardware_overrides tables, every key of each), and parsed keys are strings; were one not, key_kinds gives no kind, accepts(space, key, set()) is False (a non-str key is not `nvidia`), and the next line returns None as well",
    (
        _RULES_VLLM_FLAGS,
        "_option",
        "assert hit.canonical is not None and catalog is not None",
        "assert hit.canonical is not None or catalog is not None",
    ): "both operands always hold there: hit is a Lookup whose known (canonical is not None) was just tested, and catalog is minimum (not None, since at_min came from it) or newest; the assert only narrows types for mypy, so neither form ever raises",
    (
        _STRATEGY,
        "_floor_from_block",
        "if block is None or block is UNDEFINED:",
        "if block is None and block is UNDEFINED:",
    ): "a null or absent block is no number and no mapping: the next lines return "
    "coalesce(UNDEFINED, 0), 0 as well",
    (
        _STRATEGY,
        "pick_pd_nodes",
        "node_vram = node_vram if is_number(node_vram) else 0",
        "node_vram = node_vram if is_number(node_vram) else -1",
    ): "the next line returns None for any node_vram <= 0, -1 as 0, and node_vram is read "
    "nowhere else",
    (
        _HARDWARE,
        "",
        '_BRAND_RANK = {"NVIDIA": 0, "AMD": 1}',
        '_BRAND_RANK = {"NVIDIA": -1, "AMD": 1}',
    ): "the ranks are only compared with each other and default_among's 9: -1 < 1 < 9 orders "
    "the brands as 0 < 1 < 9 does",
    (
        _HARDWARE,
        "",
        '_BRAND_RANK = {"NVIDIA": 0, "AMD": 1}',
        '_BRAND_RANK = {"NVIDIA": 0, "AMD": 2}',
    ): "the ranks are only compared with each other and default_among's 9: 0 < 2 < 9 orders "
    "the brands as 0 < 1 < 9 does",
    (
        _HARDWARE,
        "default_among",
        _OTHER_BRANDS,
        _OTHER_BRANDS.replace(", 9)", ", 10)"),
    ): "any rank above AMD's 1 sorts the other brands after NVIDIA and AMD alike",
    (
        _HARDWARE,
        "default_among",
        _OTHER_BRANDS,
        _OTHER_BRANDS.replace(", 9)", ", 8)"),
    ): "any rank above AMD's 1 sorts the other brands after NVIDIA and AMD alike",
    (
        _HARDWARE,
        "pd_fits_single_node",
        "gpus = gpu_count_of(profile, 0)",
        "gpus = gpu_count_of(profile, 1)",
    ): "the fallback is only compared with 2 on the next line: 1 < 2 refuses as 0 < 2 does",
    (
        _HARDWARE,
        "pd_fits_single_node",
        "gpus = gpu_count_of(profile, 0)",
        "gpus = gpu_count_of(profile, -1)",
    ): "the fallback is only compared with 2 on the next line: -1 < 2 refuses as 0 < 2 does",
    (
        _HARDWARE,
        "fits_single_node",
        "node_vram = node_vram if is_number(node_vram) else 0",
        "node_vram = node_vram if is_number(node_vram) else -1",
    ): "the next test returns True for any node_vram <= 0, -1 as 0; the last line reads it only "
    "when it is above 0",
    (
        _HARDWARE,
        "fits_single_node",
        'model_vram = js_or(get(variant, "vram_minimum_gb"), 0)',
        'model_vram = js_or(get(variant, "vram_minimum_gb"), -1)',
    ): "the fallback is read by js_le(model_vram, 0) first, which returns True for -1 as for 0",
    (
        _HARDWARE,
        "hardware_key",
        "return key\nreturn None",
        "pass",
    ): "the last statement of the function: falling off its end returns None as well",
    (
        _HARDWARE,
        "of",
        "return None",
        "pass",
    ): "a falsy constraint then gives _Wanted(UNDEFINED, UNDEFINED) (get reads no key of a "
    "non-mapping), whose matches() tests neither falsy field and returns True, as None does for "
    "both callers",
    # resolve/deployment.py, resolve/docker.py, resolve/features.py
    (
        _DEPLOYMENT,
        "rank_problem",
        ")\nreturn None",
        "pass",
    ): "the function's last line: it then falls off its end, returning None as well",
    (
        _DOCKER,
        "image_key",
        "return (",
        "pass",
    ): "the key only lets Placement share docker_meta between hardware: None computes it for each, alike",
    (_DOCKER, "image_key", 'brand == "AMD",', 'brand != "AMD",'): _KEY_POLARITY,
    (_DOCKER, "image_key", 'brand == "Intel",', 'brand != "Intel",'): _KEY_POLARITY,
    (_DOCKER, "image_key", 'generation == "tpu",', 'generation != "tpu",'): _KEY_POLARITY,
    (_DOCKER, "image_key", 'generation == "xpu",', 'generation != "xpu",'): _KEY_POLARITY,
    (_DOCKER, "image_key", 'generation == "cpu",', 'generation != "cpu",'): _KEY_POLARITY,
    (
        _FEATURES,
        "_resolve",
        "if not truthy(mode):\nreturn None",
        "pass",
    ): "a falsy mode is no mapping: it reads no hardware_overrides and no args, so the last line "
    "returns None as well",
    (
        _FEATURES,
        "args_for",
        "if not any(self._gate_of(name)[1] for name in enabled):",
        "if not any(self._gate_of(name)[ 0] for name in enabled):",
    ): "[0] is the feature: the list is then kept only when every feature is falsy (no args on any "
    "strategy), a narrower cache that gives the same lists",
    # resolve/ collation, attribution, command, formatting, install, inputs
    (
        _COLLATION,
        "icu_root_key",
        _DIGIT_KEY,
        'primary.append((2, unicodedata.digit(char, 1), ""))',
    ): _DIGIT_VALUE,
    (
        _COLLATION,
        "icu_root_key",
        _DIGIT_KEY,
        'primary.append((2, unicodedata.digit(char, -1), ""))',
    ): _DIGIT_VALUE,
    (_COLLATION, "icu_root_key", _LETTER_KEY, "primary.append((3, 1, char.casefold()))"): (
        _LETTERS_ONLY
    ),
    (_COLLATION, "icu_root_key", _LETTER_KEY, "primary.append((3, -1, char.casefold()))"): (
        _LETTERS_ONLY
    ),
    (_COLLATION, "icu_root_key", _LETTER_KEY, "primary.append(( 4, 0, char.casefold()))"): (
        "letters stay the highest class (punctuation 1 < digits 2 < letters)"
    ),
    (_COLLATION, "icu_root_key", _PUNCT_KEY, 'primary.append(( 0, ord(char), ""))'): (
        "punctuation stays the lowest class (punctuation < digits 2 < letters 3)"
    ),
    (_COLLATION, "icu_root_key", _CASE_KEY, "tertiary.append( -1 if not char.isupper() else 1)"): (
        "lower case still weighs less than upper case (-1 < 1), and only the order is read"
    ),
    (_COLLATION, "icu_root_key", _CASE_KEY, "tertiary.append(0 if not char.isupper() else 2)"): (
        "upper case still weighs more than lower case (0 < 2), and only the order is read"
    ),
    (
        _ATTRIBUTION,
        "_lines",
        'yield _Line(role, role, None, 1, cast("JsonDocument", doc[role]), "", None)',
        'yield _Line(role, role, None, 2, cast("JsonDocument", doc[role]), "", None)',
    ): _LINE_RANK,
    (
        _ATTRIBUTION,
        "_lines",
        'yield _Line(role, role, None, 1, cast("JsonDocument", doc[role]), "", None)',
        'yield _Line(role, role, None, 0, cast("JsonDocument", doc[role]), "", None)',
    ): _LINE_RANK,
    (
        _ATTRIBUTION,
        "_lines",
        'yield _Line("serve", None, "head" if workers else None, 1, doc, "vllm_", None)',
        'yield _Line("serve", None, "head" if workers else None, 2, doc, "vllm_", None)',
    ): _LINE_RANK,
    (
        _ATTRIBUTION,
        "_lines",
        'yield _Line("serve", None, "head" if workers else None, 1, doc, "vllm_", None)',
        'yield _Line("serve", None, "head" if workers else None, 0, doc, "vllm_", None)',
    ): _LINE_RANK,
    (
        _ATTRIBUTION,
        "_lines",
        'yield _Line("head", None, "head", 1, doc, "head_", None)',
        'yield _Line("head", None, "head", 2, doc, "head_", None)',
    ): _LINE_RANK,
    (
        _ATTRIBUTION,
        "_lines",
        'yield _Line("head", None, "head", 1, doc, "head_", None)',
        'yield _Line("head", None, "head", 0, doc, "head_", None)',
    ): _LINE_RANK,
    (
        _ATTRIBUTION,
        "_lines",
        'yield _Line("serve", None, None, 1, doc, "", None)',
        'yield _Line("serve", None, None, 2, doc, "", None)',
    ): _LINE_RANK,
    (
        _ATTRIBUTION,
        "_lines",
        'yield _Line("serve", None, None, 1, doc, "", None)',
        'yield _Line("serve", None, None, 0, doc, "", None)',
    ): _LINE_RANK,
    (
        _FORMATTING,
        "",
        "@functools.lru_cache(maxsize=4096)",
        "@functools.lru_cache(maxsize= 4097)",
    ): _CACHE_SIZE,
    (
        _FORMATTING,
        "",
        "@functools.lru_cache(maxsize=4096)",
        "@functools.lru_cache(maxsize= 4095)",
    ): _CACHE_SIZE,
    (
        _FORMATTING,
        "check_serve_args",
        "require_strings(dedupe_tokens(args))\nreturn",
        "pass",
    ): "the loop then judges the same deduped list again for each later token, alike",
    (
        _FORMATTING,
        "_serve_tokens",
        'return "vllm serve " + model_text + CONTINUATION + lines, deduped',
        "pass",
    ): _FALLS_BACK,
    (
        _FORMATTING,
        "_serve_lines",
        'return (_format_lines(deduped) if deduped else ""), deduped',
        "pass",
    ): _FALLS_BACK,
    (_FORMATTING, "_plain_tokens", "if type(token) is not str:", "if type(token) is str:"): (
        _PLAIN_OR_DEDUPE
    ),
    (_FORMATTING, "_plain_tokens", "if type(token) is not str:\nreturn None", "pass"): (
        _PLAIN_OR_DEDUPE
    ),
    (
        _FORMATTING,
        "_plain_tokens",
        "return tuple(token for token in args if token)  # type: ignore[misc]  # (strings, above)",
        "pass  # type: ignore[misc]  # (strings, above)",
    ): _PLAIN_OR_DEDUPE,
    (
        _INSTALL,
        "builds_from_checkout",
        "return False  # a malformed install block is the schema stage's finding",
        "pass  # a malformed install block is the schema stage's finding",
    ): "synthesize_install raises neither on any loaded value (its reads are get, js_or, "
    "js_string and type tests, and a loaded timestamp is text), so the handler never runs",
    (_COMMAND, "rendered_layers", "node_rank: int = 1,", "node_rank: int = 0,"): _RANK_CLAMP,
    (_COMMAND, "command_parts", "node_rank: int = 1,", "node_rank: int = 0,"): _RANK_CLAMP,
    (_ATTRIBUTION, "unit_at", "return None", "pass"): (
        "the function's last statement: falling off its end returns None as well"
    ),
    # resolve/plan, resolve/shapes, resolve/synthesis, argv
    (
        _PLAN,
        "__init__",
        "self._floors_only = shared.min_gpus_unset and (type(gpus) is int or type(gpus) is float)",
        "self._floors_only = shared.min_gpus_unset and (type(gpus) is int or type(gpus) is not float)",
    ): "without strategy_min_gpus nodes_for_strategy is 1 at any gpu_count (0 over any Number() "
    "is 0, -0 or NaN, each read as 1), so the full path gives js_max(floor, 1), the floor too",
    (_SHAPES, "", "SERVE_PORT = 8000", "SERVE_PORT = 8001"): _UNREAD_SERVE_PORT,
    (_SHAPES, "", "SERVE_PORT = 8000", "SERVE_PORT = 7999"): _UNREAD_SERVE_PORT,
    (
        _SYNTHESIS,
        "check_env",
        "return",
        "pass",
    ): "only Judge.env calls it, for the shapes shape_of gives a deploy other than pd_cluster "
    "(a pd_cluster deploy_type is its deploy too); were it reached, falling through works out "
    "the same layers' pieces again, which raise only what build_env just did not",
    (
        _SYNTHESIS,
        "array_length",
        "return 0",
        "return -1",
    ): "every caller ranges up to it: range(n), range(1, n + 1), and in _pin_pd_devices only "
    "after half > 0, where gpus - half >= gpus / 2 > 0; a stop of -1 is as empty as 0",
    # rules/args.py, rules/hardware_profiles.py
    (
        _RULES_ARGS,
        "_replaced_for",
        'if strategy is None or scope.hardware is None or scope.layer not in ("recipe-hw", "variant-hw"):',
        'if strategy is None and scope.hardware is None or scope.layer not in ("recipe-hw", "variant-hw"):',
    ): "mapping keys are strings (js-yaml reads a null key as 'null'), so a None strategy or "
    "hardware finds no override block either: False either way",
    (
        _RULES_ARGS,
        "_report_conflicts",
        "if len({o.unit.flag for o in occurrences}) < 2:",
        "if len({o.unit.flag for o in occurrences}) < 1:",
    ): "with one spelling every pair has a.flag == b.flag, for which _conflict gives None: "
    "nothing is reported either way (the return only skips the pairing)",
    (
        _PROFILES,
        "vram",
        "return float(value)\nreturn None",
        "pass",
    ): "the property's last line: it then falls off its end, returning None as well",
    (_VERSIONS, "claims", "return True", "pass"): (
        "a fenced line outside unclaimed_lines then goes to _claimed_in_section, where that line "
        "is in its own section's range and holds the image (GUIDE_IMAGE matches no newline), so "
        "it is written and claimed: True either way (the return only skips splitting the guide)"
    ),
    (
        _RULES_BACKENDS,
        "",
        "@functools.lru_cache(maxsize=4096)",
        "@functools.lru_cache(maxsize= 4095)",
    ): _VERDICT_MEMO,
    (
        _RULES_BACKENDS,
        "_moe_verdict",
        'if target.platform != "cuda" or not target.capabilities:\nreturn None',
        "pass",
    ): _NO_CAPABILITIES,
    (
        _RULES_BACKENDS,
        "_verdict",
        'if target.platform != "cuda" or not target.capabilities:\nreturn None',
        "pass",
    ): _NO_CAPABILITIES,
    (
        _RULES_COMMANDPLAN,
        "command_choices",
        "hw_id = group[0]",
        "hw_id = group[ -1]",
    ): "the hardware of a tuple class are profile ids the recipe never names, with equal string "
    "generation and brand, gpu_count and scalability (any other is a class of its own), and "
    "strategies_on reads nothing else of a hardware: its id finds nothing in the recipe's tables, "
    "so the last is offered the strategies the first is",
    (
        _RULES_GUIDE_HARDWARE,
        "_short_q",
        'at = text.find("-q", at + 1)',
        'at = text.find("-q", at + 2)',
    ): 'text[at + 1] is the "q" just found, so no "-q" starts there: the next is found alike',
    (
        _RULES_GUIDE_FLAGS,
        "_list_release",
        'if len(pointer) >= 2 and pointer[0] == "variants":',
        'if len(pointer) >= 1 and pointer[0] == "variants":',
    ): _VARIANT_LIST_POINTER,
    (
        _RULES_GUIDE_FLAGS,
        "_list_release",
        'if len(pointer) >= 2 and pointer[0] == "variants":',
        'if len(pointer) > 2 and pointer[0] == "variants":',
    ): _VARIANT_LIST_POINTER,
    (
        _RULES_CONTEXT,
        "_by_name",
        'name = doc.data.get("name") if doc.usable and isinstance(doc.data, dict) else None',
        'name = doc.data.get("name") if doc.usable or isinstance(doc.data, dict) else None',
    ): "a document is usable exactly when its data is a mapping (the loader marks only a mapping "
    "usable and clears the data of any other), so either condition alone says the same",
    (
        _RULES_GUIDE,
        "_serve_flag_verdicts",
        "else (0, 0, finding.code)",
        "else ( 1, 0, finding.code)",
    ): "a span's columns count from 1, so (0, 0, code) and (1, 0, code) both differ from every "
    "placed finding's key and stand alike for the findings without a span",
    (
        _RULES_RESOLVED,
        "_scoped",
        "return len(pointer) > 2 and (",
        "return len(pointer) > 2 or (",
    ): "a list outside strategy_overrides and hardware_overrides binds no strategy and no "
    "hardware, for which _Judge.dead returns None; the variant hardware it reads on the way were "
    "worked out by recipe_hardware already, and pick_fitting_variant reads parsed data through "
    "get, js_or and js_le, which raise on none: the same lists are reported",
    (
        _RULES_VLLM_FLAGS,
        "_release_runs",
        'return last.join([", ".join(texts[:-1]), texts[-1]] if len(texts) > 1 else texts)',
        'return last.join([", ".join(texts[:-1]), texts[-1]] if len(texts) > 2 else texts)',
    ): "for two runs the first branch joins [texts[0], texts[1]] with last, as the second does",
}


@dataclass(frozen=True)
class Mutant:
    module: str  # relative to the project
    operator: str
    occurrence: int
    line: int
    before: str  # the mutated line, as it was
    after: str  # and as the mutant has it
    function: str  # the innermost def around it ("" at module level)
    previous: str  # the line before it

    @property
    def equivalent(self) -> str | None:
        before, after = self.before.strip(), self.after.strip()
        return EQUIVALENT.get(
            (self.module, self.function, f"{self.previous.strip()}\n{before}", after)
        ) or EQUIVALENT.get((self.module, self.function, before, after))


def _function_at(lines: list[str], line: int) -> str:
    """The name of the innermost `def` whose body holds line ``line`` (1-based)."""
    indent = len(lines[line - 1]) - len(lines[line - 1].lstrip())
    for text in reversed(lines[: line - 1]):
        found = re.match(r"(\s*)(?:async\s+)?def\s+(\w+)", text)
        if found and len(found.group(1)) < indent:
            return found.group(2)
        if text.strip() and len(text) - len(text.lstrip()) == 0 and not text.startswith(")"):
            return ""  # a top-level statement: module level
    return ""


def _operator(name: str) -> Any:
    return DropReturn() if name == DROP_RETURN else get_operator(name)()


def mutants(module: str) -> list[Mutant]:
    """Every mutant of one module, in source order within each operator."""
    source = (PROJECT / module).read_text(encoding="utf-8")
    lines = source.splitlines()
    found = []
    for name in (*OPERATORS, DROP_RETURN):
        operator = _operator(name)
        positions = [
            start
            for node in ast_nodes(get_ast(source))
            for start, _end in operator.mutation_positions(node)
        ]
        for occurrence, (line, _column) in enumerate(positions):
            mutated = MutationVisitor.mutate_code(source, operator, occurrence)
            if mutated is None or mutated == source:
                continue
            found.append(
                Mutant(
                    module,
                    name,
                    occurrence,
                    line,
                    lines[line - 1],
                    mutated.splitlines()[line - 1],
                    _function_at(lines, line),
                    lines[line - 2] if line > 1 else "",
                )
            )
    return found


# Test files that speak for a module besides those its name finds: the rules that read a
# resolve/ module's values test them where no test_resolve_<stem> file does; what `recipelint
# show` prints is attribution.py's join; the fallback default hardware is sorted by
# collation.py's key.
ALSO_TESTED_BY = {
    "recipelint/resolve/deployment.py": ("test_rules_deployment.py",),
    "recipelint/resolve/attribution.py": ("test_show.py", "test_show_properties.py"),
    "recipelint/resolve/collation.py": ("test_resolve_hardware.py",),
}


def tests_for(module: str, root: Path = PROJECT) -> list[str]:
    """The test files that speak for a module: its own, named after it, and the shared ones."""
    path = Path(module)
    tests = root / "tests"
    if path.parts[1] == "rules":
        named = sorted(tests.glob(f"test_rules_{path.stem}*.py")) + [tests / "test_catalog.py"]
    elif path.parts[1] == "resolve":
        named = [
            tests / name
            for name in (  # the quick ones first: -x stops at the first failure
                "test_layers_steps.py",
                "test_layers_kv.py",
                "test_resolve.py",
                "test_layers.py",
                "test_deployment.py",
                "test_resolve_plan_only.py",
                "test_resolve_sharing.py",
            )
        ]
        named += [  # and the module's own, named after it (tests/test_resolve_shapes.py)
            test
            for test in sorted(tests.glob(f"test_resolve_{path.stem}*.py"))
            if test not in named
        ]
    elif path.stem == "argv":
        named = [
            tests / "test_argv.py",
            tests / "test_resolve.py",
            tests / "test_properties_argv.py",
        ]
    else:
        named = sorted(tests.glob(f"test_{path.stem}*.py"))
    named += [tests / name for name in ALSO_TESTED_BY.get(path.as_posix(), ())]
    return [str(test.relative_to(root)) for test in named if test.is_file()]


PASSED, FAILED, TIMEOUT = "passed", "failed", "timeout"


class Workspace:
    """A scratch copy of the checkout that one mutant at a time is written into."""

    def __init__(self, root: Path, examples: int) -> None:
        self.root = root / "checkout"
        shutil.copytree(
            PROJECT,
            self.root,
            ignore=shutil.ignore_patterns(
                ".git", ".venv", "__pycache__", ".*_cache", ".hypothesis", "*.egg-info"
            ),
        )
        self.pycache = root / "pycache"
        self.env = {
            **os.environ,
            "PYTHONPYCACHEPREFIX": str(self.pycache),
            "RECIPELINT_PROPERTY_EXAMPLES": str(examples),
        }

    def run_tests(self, tests: list[str], cpu_limit: float) -> tuple[str, float]:
        """(PASSED, FAILED or TIMEOUT, CPU seconds): the copy's package first on sys.path.

        A hang is told by the CPU time the run spends (RLIMIT_CPU), not by the clock: on a
        machine shared with other work a slow run is load, a spinning one is a hang.
        """
        # util-linux's prlimit and coreutils' nice, not a preexec_fn: the runs are started
        # from threads
        command = ["prlimit", f"--cpu={math.ceil(cpu_limit)}", "nice", "-n", "10"]
        command += [sys.executable, "-m", "pytest", "-x", "-q", "-o", "addopts="]
        command += ["-p", "no:cacheprovider", "-W", "ignore", *tests]
        process = subprocess.Popen(
            command,
            cwd=self.root,
            env=self.env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        _, status, usage = os.wait4(process.pid, 0)
        cpu = usage.ru_utime + usage.ru_stime
        if os.WIFSIGNALED(status) and os.WTERMSIG(status) in (signal.SIGXCPU, signal.SIGKILL):
            return TIMEOUT, cpu
        return PASSED if os.waitstatus_to_exitcode(status) == 0 else FAILED, cpu

    def run_mutant(self, mutant: Mutant, tests: list[str], cpu_limit: float) -> str:
        """How the tests end on the mutant."""
        target = self.root / mutant.module
        original = target.read_text(encoding="utf-8")
        mutated = MutationVisitor.mutate_code(
            original, _operator(mutant.operator), mutant.occurrence
        )
        try:
            target.write_text(mutated, encoding="utf-8")
            self._forget(mutant.module)
            outcome, _ = self.run_tests(tests, cpu_limit)
        finally:
            target.write_text(original, encoding="utf-8")
            self._forget(mutant.module)  # a same-size mutant could leave a stale .pyc behind
        return outcome

    def _forget(self, module: str) -> None:
        # PYTHONPYCACHEPREFIX mirrors the source folder's absolute path, without __pycache__
        folder = self.pycache / (self.root / module).parent.relative_to("/")
        for stale in folder.glob(f"{Path(module).stem}.*.pyc"):
            stale.unlink()


@dataclass
class Score:
    module: str
    total: int = 0
    killed: int = 0  # the tests failed
    timeouts: int = 0  # the tests hung, twice: counted as killed, shown apart
    equivalent: int = 0
    survivors: list[Mutant] | None = None

    @property
    def percent(self) -> float:
        judged = self.total - self.equivalent
        return 100.0 * (self.killed + self.timeouts) / judged if judged else 100.0


def score_module(
    module: str, pool: Queue[Workspace], args: argparse.Namespace, lock: threading.Lock
) -> Score:
    found = mutants(module)
    if args.sample and len(found) > args.sample:
        found = sorted(
            random.Random(f"{args.seed}:{module}").sample(found, args.sample),
            key=lambda m: (m.line, m.operator, m.occurrence),
        )
    workspace = pool.get()
    try:
        tests = tests_for(module, workspace.root)
        outcome, seconds = workspace.run_tests(tests, cpu_limit=1200)
    finally:
        pool.put(workspace)
    if outcome != PASSED:
        sys.exit(f"mutation_bench: the tests of {module} fail before any mutation: {tests}")
    cpu_limit = 2 * seconds + 10
    score = Score(module, survivors=[])

    def judge(mutant: Mutant) -> None:
        if mutant.equivalent:
            with lock:
                score.total += 1
                score.equivalent += 1
            return
        workspace = pool.get()
        try:
            outcome = workspace.run_mutant(mutant, tests, cpu_limit)
        finally:
            pool.put(workspace)
        with lock:
            score.total += 1
            if outcome == FAILED:
                score.killed += 1
            elif outcome == TIMEOUT:
                score.timeouts += 1
            else:
                assert score.survivors is not None
                score.survivors.append(mutant)

    with ThreadPoolExecutor(args.jobs) as executor:
        list(executor.map(judge, found))
    assert score.survivors is not None
    score.survivors.sort(key=lambda m: m.line)
    return score


DEFAULT_MODULES = (
    "recipelint/argv.py",
    "recipelint/jsvalue.py",
    "recipelint/resolve",
    "recipelint/rules",
)


def expand(modules: list[str]) -> list[str]:
    out = []
    for name in modules:
        path = PROJECT / name
        if path.is_dir():
            out += [
                str(p.relative_to(PROJECT))
                for p in sorted(path.glob("*.py"))
                if p.name != "__init__.py"
            ]
        elif path.is_file():
            out.append(name)
        else:
            sys.exit(f"mutation_bench: no module {name}")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("modules", nargs="*", default=list(DEFAULT_MODULES))
    parser.add_argument("--sample", type=int, default=0, help="mutants per module (0: all)")
    parser.add_argument("--seed", default="0")
    parser.add_argument("--jobs", type=int, default=1, help="mutants tested at once")
    parser.add_argument("--examples", type=int, default=50, help="examples per property test")
    parser.add_argument("--survivors", action="store_true", help="print each surviving mutant")
    args = parser.parse_args()
    modules = expand(args.modules)
    lock = threading.Lock()
    with tempfile.TemporaryDirectory(prefix="mutation-bench-") as scratch:
        pool: Queue[Workspace] = Queue()
        for index in range(args.jobs):
            pool.put(Workspace(Path(scratch) / str(index), args.examples))
        header = f"{'module':42} {'mutants':>7} {'equiv':>5} {'killed':>6} {'hung':>4} {'score':>6}"
        print(header + "  seconds")
        for module in modules:
            start = time.perf_counter()
            score = score_module(module, pool, args, lock)
            seconds = time.perf_counter() - start
            print(
                f"{module:42} {score.total:7} {score.equivalent:5} {score.killed:6}"
                f" {score.timeouts:4} {score.percent:5.1f}%  {seconds:.0f}",
                flush=True,
            )
            for mutant in (score.survivors or []) if args.survivors else []:
                print(f"    survived {module}:{mutant.line} [{mutant.operator}]")
                print(
                    f"      - {mutant.before.strip()}\n      + {mutant.after.strip()}", flush=True
                )


if __name__ == "__main__":
    main()
