"""Autofix over generated argument lists and env maps written in many YAML styles.

For every generated recipe: fixing converges; re-reading the result finds no
exact repeat (RL301), underscore spelling (RL304) or non-string env value
(RL551) left, and any RL303 left is one of the documented unsafe cases; every line the fixes did
not target is byte-identical; and the compiled JSON differs from the original's
only by the intended token and env changes.
"""

from __future__ import annotations

import difflib
from typing import Any

import pytest
from hypothesis import event, example, given
from hypothesis import strategies as st
from propertyprofile import property_profile
from test_fix import _planned_changes, line_ranges, only_inside
from treehelp import tree_in_memory

from recipelint.argv import dedupe_tokens
from recipelint.check.engine import run_checks
from recipelint.compile.compiler import Compiler
from recipelint.configuration.config import Config
from recipelint.diagnostics import Span
from recipelint.fix.fixers import ALL_FIXERS, MAX_PASSES, plan_document
from recipelint.fix.structural_fix import Allowed, rewrite
from recipelint.jsvalue import js_string
from recipelint.read.load import Document, parse_yaml
from recipelint.read.tree import RecipeTree

# Property tests over generated recipe texts, hundreds of examples each: the slow step
# (`pytest -m slow`) runs them.
pytestmark = pytest.mark.slow

PROFILE = property_profile(40)

REL = "models/acme/Fix-8B.yaml"
FIXABLE = {"RL301", "RL303", "RL304", "RL503", "RL551"}
FIXABLE_ONLY = Config(
    select=tuple(sorted(FIXABLE))
)  # the other rules and the compile stage are not needed

HEAD = """\
meta:
  title: "Fix 8B"
  slug: "fix-8b"
  provider: "Acme"
  description: "Generated."
  date_added: 2026-01-10
  date_updated: 2026-01-12
  tasks: [text]
model:
  model_id: "acme/Fix-8B"
  min_vllm_version: "0.20.0"
  architecture: dense
  parameter_count: "8B"
  active_parameters: "8B"
  context_length: 32768
"""
TAIL = """\
variants:
  default:
    precision: bf16
    vram_minimum_gb: 20
compatible_strategies: [single_node_tp]
guide: |
  ## Overview
  Generated.
"""

FLAGS = (
    "--max-model-len",
    "--max_model_len",
    "--trust-remote-code",
    "--enforce_eager",
    "--kv-cache-dtype",
    "--attention_config.backend",
    "--attention_config.use_fp4_indexer_cache",
    "--max-num-seqs=256",
    "--block_size=16",
    "--offset=-1",
    "--x=",
    "-1",
)
VALUES = ("8192", "4096", "fp8", "FLASHINFER", "-1", "auto", "ü", "a b")
ENV_VALUES = ("0", "1", "true", "~", "1.5", "'text'", '"2"', "", "0x10", ".inf")


def scalar(token: str, style: str) -> str:
    if style == "single":
        return "'" + token.replace("'", "''") + "'"
    if (
        style == "plain"
        and token
        and token[0].isalnum()
        or style == "plain"
        and token.startswith("--")
    ):
        probe = parse_yaml(f"k: {token}\n")
        if probe.usable and probe.data == {"k": token}:
            return token
    return '"' + token + '"'


@st.composite
def arg_tokens(draw: st.DrawFn) -> list[str]:
    """Flags, each with an optional value; `=` flags never get one, so every fix decision
    depends on the token alone, not on its position (see docs/autofix.md for the rest)."""
    tokens: list[str] = []
    for _ in range(draw(st.integers(1, 6))):
        flag = draw(st.sampled_from(FLAGS))
        tokens.append(flag)
        if "=" not in flag and draw(st.booleans()):
            tokens.append(draw(st.sampled_from(VALUES)))
    return tokens


@st.composite
def arg_block(draw: st.DrawFn) -> str:
    tokens = draw(arg_tokens())
    styles = [draw(st.sampled_from(["double", "single", "plain"])) for _ in tokens]
    if draw(st.booleans()):
        items = ", ".join(scalar(t, s) for t, s in zip(tokens, styles, strict=False))
        return f"  base_args: [{items}]" + draw(st.sampled_from(["", "  # flow"])) + "\n"
    indent = " " * draw(st.sampled_from([2, 4, 6]))
    lines = ["  base_args:"]
    for token, style in zip(tokens, styles, strict=False):
        comment = draw(st.sampled_from(["", "", "  # note", "   #x"]))
        lines.append(f"{indent}- {scalar(token, style)}{comment}")
        if draw(st.integers(0, 5)) == 0:
            lines.append(f"{indent}# a comment line")
    return "\n".join(lines) + "\n"


@st.composite
def env_block(draw: st.DrawFn) -> str:
    names = draw(
        st.lists(st.sampled_from(["A", "B_1", "PYTHONHASHSEED", "VLLM_X"]), max_size=3, unique=True)
    )
    if not names:
        return ""
    pairs = [(name, draw(st.sampled_from(ENV_VALUES))) for name in names]
    if draw(st.booleans()):
        return "  base_env: {" + ", ".join(f"{n}: {v}" for n, v in pairs) + "}\n"
    return "  base_env:\n" + "".join(f"    {n}: {v}\n" if v else f"    {n}:\n" for n, v in pairs)


@st.composite
def recipe_texts(draw: st.DrawFn) -> str:
    text = HEAD + draw(arg_block()) + draw(env_block()) + TAIL
    return text.replace("\n", "\r\n") if draw(st.integers(0, 4)) == 0 else text


def findings(tree: RecipeTree, doc: Document) -> list[Any]:
    return [d for d in run_checks(tree, FIXABLE_ONLY) if d.path == doc.path]


def fix_in_memory(text: str) -> str:
    for _ in range(MAX_PASSES):
        tree, doc = tree_in_memory(REL, text)
        fixed = plan_document(doc, findings(tree, doc))
        if fixed is None or fixed == text:
            return text
        text = fixed
    raise AssertionError("fixing did not converge")


def item(doc: Document, pointer: tuple) -> Any:
    value: Any = doc.data
    for part in pointer:
        value = value[part]
    return value


def acceptable_leftover(doc: Document, diag: Any) -> bool:
    """The documented cases the RL303 fix declines (docs/autofix.md)."""
    items = item(doc, diag.pointer[:-1])
    index = diag.pointer[-1]
    following = items[index + 1] if index + 1 < len(items) else None
    value = items[index].split("=", 1)[1]
    return (
        not value
        or value.startswith("-")
        or (isinstance(following, str) and not following.startswith("-"))
    )


# Found by the 10,000-example soak: a removed `- "--max-model-len"` and a renamed twin between
# identical comment lines, which a line diff misattributes (the measurement now uses offsets).
TWIN_LINES = (
    HEAD.replace("\n", "\r\n")
    + (
        '  base_args:\r\n  - "--max-model-len"\r\n  # a comment line\r\n'
        '  - "--max_model_len"\r\n  # a comment line\r\n'
    )
    + TAIL.replace("\n", "\r\n")
)


@PROFILE
@given(recipe_texts())
@example(TWIN_LINES)
def test_fixes_converge_touch_only_their_lines_and_change_json_only_as_intended(text: str) -> None:
    tree, doc = tree_in_memory(REL, text)
    before = findings(tree, doc)
    fixed = fix_in_memory(text)
    for code in sorted({d.code for d in before}):
        event(f"finding {code}")
    after_tree, after_doc = tree_in_memory(REL, fixed)
    assert after_doc.usable
    left = findings(after_tree, after_doc)
    # Every value here follows its flag (no positionals), so an exact repeat can always go.
    assert not [d for d in left if d.code in ("RL301", "RL304", "RL551")], left
    assert all(acceptable_leftover(after_doc, d) for d in left if d.code == "RL303"), left

    # Every byte outside the lines of the findings' own lists and env maps is unchanged.
    containers = [doc.span(diag.pointer[:-1]) for diag in before]
    assert only_inside(text, fixed, line_ranges(text, containers))

    # The compiled JSON changes only as the fixes intend: every argv is the original's with the
    # renamed/split tokens mapped and deduplicated again (a renamed `--max_model_len` now merges
    # with `--max-model-len`), env values quoted, and everything else identical. Dropping an
    # earlier exact duplicate changes nothing: the compiler's dedupe dropped it already.
    fixed_findings = [
        d for d in before if d.code != "RL301" and not _still_reported(d, doc, left, after_doc)
    ]
    renames, splits, env_values = _planned_changes(tree, fixed_findings)
    old = Compiler(tree).run().files
    new = Compiler(after_tree).run().files
    assert old.paths() == new.paths()
    for path in old.paths():
        expected = _canonical(old.document(path), renames, splits, env_values)
        assert expected == _canonical(new.document(path), {}, {}, {}), path


def _still_reported(diag: Any, doc: Document, left: list[Any], after_doc: Document) -> bool:
    token = item(doc, diag.pointer)
    return any(d.code == diag.code and item(after_doc, d.pointer) == token for d in left)


def _canonical(
    node: Any,
    renames: dict[str, str],
    splits: dict[str, tuple[str, str]],
    env_values: dict[str, Any],
    key: str = "",
) -> Any:
    """Argv lists re-deduplicated after the token mapping; command text and docker forms (derived
    from argv; the corpus test and the recipe properties pin them) and the raw edited lists left
    out; env values quoted."""
    if isinstance(node, dict):
        out = {}
        for k, v in node.items():
            if (
                k.endswith(("command", "commands"))
                or "docker" in k
                or k in ("base_args", "base_env")
            ):
                continue
            if k in env_values and v == env_values[k] and not isinstance(v, str):
                out[k] = js_string(v)
            else:
                out[k] = _canonical(v, renames, splits, env_values, k)
        return out
    if isinstance(node, list) and key.endswith("argvs"):
        return [_canonical(v, renames, splits, env_values, "argv") for v in node]
    if isinstance(node, list) and key.endswith("argv"):
        head_size = node.index("serve") + 2 if "serve" in node else 0
        mapped: list[Any] = []
        for token in node[head_size:]:
            mapped += list(splits[token]) if token in splits else [renames.get(token, token)]
        return node[:head_size] + dedupe_tokens(mapped)
    if isinstance(node, list):
        return [_canonical(v, renames, splits, env_values) for v in node]
    return node


Cut = tuple[int, int, str]


def cuts(inserts: list[str]) -> st.SearchStrategy[list[Cut]]:
    """Up to four edits, each at an offset: drop up to three characters, insert one of
    ``inserts``."""
    return st.lists(
        st.tuples(st.integers(0, 2000), st.integers(0, 3), st.sampled_from(inserts)), max_size=4
    )


def mangled(text: str, edits: list[Cut]) -> str:
    for at_, length, insert in edits:
        at_ %= len(text) + 1
        text = text[:at_] + insert + text[at_ + length :]
    return text


def assert_loads_as_before(fixed: str | None, doc: Document) -> None:
    """A fix either declined (None) or gave a file that loads with the problems it had."""
    if fixed is not None:
        again = parse_yaml(fixed, doc.path, doc.kind, doc.rel)
        assert again.usable
        assert [p.code for p in again.problems] == [p.code for p in doc.problems]


@PROFILE
@given(
    recipe_texts(),
    cuts(["", "-", ":", "'", '"', "[", "]", ",", "\n", " ", "#", "&a", "*a", "!!int ", "_", "="]),
)
def test_fixing_mangled_files_never_raises_and_never_breaks_them(
    text: str, edits: list[Cut]
) -> None:
    """Damaged YAML around the fixable findings: fixing either declines or yields a file that
    still loads with the same problems."""
    text = mangled(text, edits)
    tree, doc = tree_in_memory(REL, text)
    fixed = plan_document(doc, findings(tree, doc)) if doc.usable else None
    assert_loads_as_before(fixed, doc)


# ------------------------------------------------------------------ structural fixes (RL503)
#
# The retired `mtp` feature renamed through ruamel's round trip, in documents indented
# with 2 or 4 spaces, sequences at either dash offset, keys and references in every
# quoting style, comments at any distance, and bait that a whole-document dump re-flows
# (trailing spaces, whitespace-only lines, a list indented unlike the rest).


def quoted(name: str, style: str) -> str:
    return {"plain": name, "single": f"'{name}'", "double": f'"{name}"'}[style]


@st.composite
def retired_feature_texts(draw: st.DrawFn) -> str:
    step = draw(st.sampled_from([2, 4]))
    dash = draw(st.sampled_from([0, step]))
    one, two = " " * step, " " * 2 * step
    style = st.sampled_from(["plain", "single", "double"])
    trail = st.sampled_from(["", "", "   "])

    def block_list(indent: str, items: list[str]) -> str:
        return "".join(f"{indent}{' ' * dash}- {item}{draw(trail)}\n" for item in items)

    comment = draw(st.sampled_from(["", " # spec", "      # spec"]))
    lines = [
        "meta:\n",
        f'{one}title: "Retired"{draw(trail)}\n',
        f"{one}tasks:\n" + block_list(one, ["text"]),
        "model:\n",
        f'{one}model_id: "acme/Fix-8B"\n',
        f"{one}base_args:\n" + block_list(one + " " * draw(st.sampled_from([0, 3])), ['"-x"']),
        draw(st.sampled_from(["", f"{one}\n", "\n"])),
        "features:\n",
    ]
    if draw(st.booleans()):
        lines.append(f"{one}other: {{description: b}}\n")
    lines.append(f"{one}{quoted('mtp', draw(style))}:{comment}\n")
    lines.append(f'{two}description: "MTP"{draw(trail)}\n')
    if draw(st.booleans()):
        lines.append(f'{two}args: ["--speculative-config", \'{{"method":"mtp"}}\']\n')
    else:
        lines.append(f"{two}args:\n" + block_list(two, ['"--speculative-config"', "'{}'"]))
    references = draw(st.sampled_from(["none", "flow", "block"]))
    names = [quoted("mtp", draw(style))] + (["other"] if draw(st.booleans()) else [])
    if references == "flow":
        lines.append(f"opt_in_features: [{', '.join(names)}]\n")
    elif references == "block":
        lines.append("opt_in_features:\n" + block_list("", names))
    if draw(st.booleans()):
        lines.append(f"hardware_opt_in_features:\n{one}h100: [{quoted('mtp', draw(style))}]\n")
    lines.append(f"variants:\n{one}default:\n{two}precision: bf16{draw(trail)}\n")
    modes = draw(st.sampled_from(["none", "flow", "block"]))
    if modes == "flow":
        lines.append(f"{two}default_modes: {{{quoted('mtp', draw(style))}: on}}\n")
    elif modes == "block":
        lines.append(f"{two}default_modes:\n{two}{one}{quoted('mtp', draw(style))}: on\n")
    lines.append("guide: |\n" + f"{one}`mtp: 1` in prose stays.\n")
    text = "".join(lines)
    return text.replace("\n", "\r\n") if draw(st.integers(0, 4)) == 0 else text


def feature_places(doc: Document, feature: str) -> list[Span]:
    """The spans of every key and list item that names ``feature``, from the data: what RL503's
    fix renames when ``feature`` is a retired name."""
    data = doc.data
    spans = [doc.key_span(("features", feature))]
    spans += [
        doc.span(("opt_in_features", index))
        for index, name in enumerate(data.get("opt_in_features") or [])
        if name == feature
    ]
    for hardware, names in (data.get("hardware_opt_in_features") or {}).items():
        spans += [
            doc.span(("hardware_opt_in_features", hardware, index))
            for index, name in enumerate(names)
            if name == feature
        ]
    for key, variant in (data.get("variants") or {}).items():
        if feature in (variant.get("default_modes") or {}):
            spans.append(doc.key_span(("variants", key, "default_modes", feature)))
    return spans


def renamed(node: Any) -> Any:
    """The data with the retired feature's name replaced wherever the fix renames it."""
    if isinstance(node, dict):
        return {("spec_decoding" if k == "mtp" else k): renamed(v) for k, v in node.items()}
    if isinstance(node, list):
        return ["spec_decoding" if item == "mtp" else renamed(item) for item in node]
    return node


@PROFILE
@given(retired_feature_texts())
def test_a_structural_fix_changes_only_the_lines_of_the_renamed_keys(text: str) -> None:
    tree, doc = tree_in_memory(REL, text)
    assert doc.usable, doc.problems
    found = [d for d in run_checks(tree, Config(select=("RL503",))) if d.path == doc.path]
    assert [d.code for d in found] == ["RL503"]
    every_line = Allowed(lines=frozenset(range(1, text.count("\n") + 2)))
    if rewrite(text, lambda data: True, every_line):
        event("a whole-document round trip would re-flow other lines")
    fixed = plan_document(doc, found)
    assert fixed is not None
    assert only_inside(text, fixed, line_ranges(text, feature_places(doc, "mtp")))
    again = parse_yaml(fixed, doc.path, doc.kind, doc.rel)
    expected = renamed({k: v for k, v in doc.data.items() if k != "guide"})
    assert {k: v for k, v in again.data.items() if k != "guide"} == expected
    assert again.data["guide"] == doc.data["guide"]
    assert list(again.data["features"]) == [
        "spec_decoding" if key == "mtp" else key for key in doc.data["features"]
    ]


@PROFILE
@given(
    retired_feature_texts(),
    cuts(["", ":", "'", '"', "{", "}", "\n", " ", "#", "&a ", "*a", "- ", "<<: "]),
)
def test_structural_fixes_on_mangled_files_never_raise_and_never_break_them(
    text: str, edits: list[Cut]
) -> None:
    text = mangled(text, edits)
    tree, doc = tree_in_memory(REL, text)
    if not doc.usable:
        return
    found = [d for d in run_checks(tree, Config(select=("RL503",))) if d.path == doc.path]
    assert_loads_as_before(plan_document(doc, found, ALL_FIXERS), doc)


# ------------------------------------------------------------------ structural fixes (RL502)
#
# A variant serving a fused-draft checkpoint gets `default_modes` inserted: the only change
# to the file is new lines inside the variant's block (or its own line, for a flow mapping).


@st.composite
def fused_draft_texts(draw: st.DrawFn) -> str:
    step = draw(st.sampled_from([2, 4]))
    one, two, three = (" " * step * n for n in (1, 2, 3))
    lines = [
        HEAD.replace("  ", one),
        f"features:\n{one}spec_decoding:\n{two}description: s\n{two}modes:\n",
        f'{three}mtp:\n{three}{one}args: ["--speculative-config", \'{{"method":"mtp"}}\']\n',
        f"{three}dspark:\n{three}{one}variants: [dspark]\n",
        f'{three}{one}args: ["--speculative-config", \'{{"method":"dspark"}}\']\n',
        f"variants:\n{one}default:\n{two}precision: bf16\n{two}vram_minimum_gb: 20\n",
    ]
    existing = draw(st.sampled_from(["", f"{two}default_modes:\n{three}other: x\n"]))
    tail = draw(st.sampled_from(["", "   # fused", "  # fused\n" + two + "# after"]))
    if draw(st.booleans()):
        lines.append(
            f'{one}dspark: {{model_id: "acme/Fix-8B-DSpark", precision: bf16, vram_minimum_gb: 22}}\n'
        )
    else:
        lines.append(f'{one}dspark:\n{existing}{two}model_id: "acme/Fix-8B-DSpark"\n')
        lines.append(f"{two}vram_minimum_gb: 22{tail}\n")
    lines.append(draw(st.sampled_from(["", "\n", f"{one}# next\n"])))
    lines.append(TAIL.split("variants:\n", 1)[0] + "compatible_strategies: [single_node_tp]\n")
    lines.append("guide: |\n" + f"{one}Generated.\n")
    return "".join(lines)


@PROFILE
@given(fused_draft_texts())
def test_an_inserted_key_adds_lines_inside_its_mapping_and_nothing_else(text: str) -> None:
    tree, doc = tree_in_memory(REL, text)
    found = [d for d in run_checks(tree, Config(select=("RL502",))) if d.path == doc.path]
    assert [d.code for d in found] == ["RL502"], (found, doc.problems)
    fixed = plan_document(doc, found, ALL_FIXERS)
    assert fixed is not None
    key_line = doc.key_span(("variants", "dspark")).line
    before, after = text.splitlines(keepends=True), fixed.splitlines(keepends=True)
    key_indent = len(before[key_line - 1]) - len(before[key_line - 1].lstrip())
    # The variant's block ends before the next line of content indented no deeper than its key.
    block_end = next(
        number
        for number, line in enumerate(before[key_line:], start=key_line + 1)
        if line.strip()
        and not line.lstrip().startswith("#")
        and len(line) - len(line.lstrip()) <= key_indent
    )
    changes = [
        op
        for op in difflib.SequenceMatcher(None, before, after, autojunk=False).get_opcodes()
        if op[0] != "equal"
    ]
    assert len(changes) == 1, changes
    tag, i1, i2, _, _ = changes[0]
    if tag == "insert":  # after line i1: inside the block, after the variant's own key line
        assert key_line <= i1 < block_end
    else:  # a flow mapping is written on its own line, which takes the new key
        assert tag == "replace" and i2 - i1 == 1 and i1 + 1 == key_line
    again = parse_yaml(fixed, doc.path, doc.kind, doc.rel)
    variant = again.data["variants"]["dspark"]
    assert variant["default_modes"] == {
        **doc.data["variants"]["dspark"].get("default_modes", {}),
        "spec_decoding": "dspark",
    }
    expected = dict(doc.data["variants"]["dspark"])
    expected["default_modes"] = variant["default_modes"]
    assert variant == expected
    assert {k: v for k, v in again.data.items() if k != "variants"} == {
        k: v for k, v in doc.data.items() if k != "variants"
    }
