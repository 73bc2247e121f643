"""`recipelint check --fix` / `--diff`: each fixable rule is fixed, nothing else moves, and the
corpus compiles to the same JSON except where a fix means to change it."""

from __future__ import annotations

import difflib
import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from treehelp import build_context, check_tree, write_file

from recipelint.check.engine import run_checks
from recipelint.cli import cli
from recipelint.compile.compiler import compile_tree
from recipelint.configuration.config import Config
from recipelint.diagnostics import Span
from recipelint.fix.fixers import ALL_FIXERS, FIXERS, fix_paths
from recipelint.jsvalue import js_string
from recipelint.read.tree import load_tree
from recipelint.resolve.formatting import shell_quote
from recipelint.rulebook.catalog import load_rulebook

FIXED_CODES = {"RL301", "RL303", "RL304", "RL503", "RL551"}
RECIPE = "models/acme/Demo-8B.yaml"
# The corpus test needs only the fixable rules' findings; selecting them skips the other families
# and the compile stage.
FIXABLE_ONLY = Config(select=tuple(sorted(FIXED_CODES)))

HEADER = """\
# Demo recipe: the comments, quoting and layout below must survive every fix.
meta:
  title: "Demo 8B"
  slug: "demo-8b"
  provider: "Acme"
  description: "A dense demo model."
  date_added: 2026-01-10
  date_updated: 2026-01-12
  tasks:
    - text
"""
MODEL = """\
model:
  model_id: "acme/Demo-8B"
  min_vllm_version: "0.20.0"
  architecture: dense
  parameter_count: "8B"
  active_parameters: "8B"
  context_length: 32768
"""
TAIL = """\
variants:
  default:
    precision: bf16   # original weights
    vram_minimum_gb: 20

compatible_strategies:
  - single_node_tp

guide: |
  ## Overview
  Keep `--max_model_len=8192` and `mtp: 1` in prose untouched.
"""


def recipe(body: str, tail: str = TAIL) -> str:
    return HEADER + MODEL + body + "\n" + tail


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    return build_context(tmp_path / "tree")


def check(*args: str) -> Any:
    return CliRunner().invoke(cli, ["check", *args], catch_exceptions=False)


def codes_for(root: Path, path: Path) -> list[str]:
    return [d.code for d in check_tree(root) if d.path == path.resolve() or d.path == path]


def line_ranges(text: str, spans: list[Any]) -> list[tuple[int, int]]:
    """Offsets of the whole lines each span covers (the newline included)."""
    starts = [0] + [m.end() for m in re.finditer("\n", text)] + [len(text)]
    return [
        (starts[span.line - 1], starts[min((span.end_line or span.line), len(starts) - 1)])
        for span in spans
    ]


def only_inside(before: str, after: str, ranges: list[tuple[int, int]]) -> bool:
    """Whether ``after`` is ``before`` with text replaced only inside ``ranges`` (offsets into
    ``before``): every byte outside them is still there, in order, with nothing added between."""
    segments, cursor = [], 0
    for start, end in sorted(ranges):
        if start > cursor or not segments:
            segments.append(before[cursor : max(start, cursor)])
        cursor = max(cursor, end)
    segments.append(before[cursor:])
    pattern = ".*?".join(re.escape(segment) for segment in segments)
    return re.fullmatch(pattern, after, re.DOTALL) is not None


# ------------------------------------------------------------------ catalog


def test_the_catalog_marks_exactly_the_rules_whose_fixer_runs() -> None:
    """FIXERS follows the catalog's `autofix`, so the `[*]` marks and `--fix` agree; a rule
    marked without a fixer in ALL_FIXERS would promise a fix nothing makes."""
    catalog = load_rulebook()
    marked = {code for code, info in catalog.items() if info.autofix}
    assert marked <= set(ALL_FIXERS), (
        f"catalog rules marked autofix without a fixer: {sorted(marked - set(ALL_FIXERS))}"
    )
    assert set(FIXERS) == marked
    assert marked >= FIXED_CODES  # the fixes this file exercises through the CLI


# ------------------------------------------------------------------ one rule at a time

CASES: dict[str, tuple[str, str, str]] = {
    # code: (original body, expected body, tail) -- the body sits between model and variants.
    "RL301": (
        """\
  base_args:
    - "--max-model-len"   # first copy
    - "8192"
    - "--enable-prefix-caching"
    - '--max-model-len'
    - "8192"
""",
        """\
  base_args:
    - "--enable-prefix-caching"
    - '--max-model-len'
    - "8192"
""",
        TAIL,
    ),
    "RL303": (
        """\
  base_args: ["--max-num-seqs=256", '--served-model-name=demo', --kv-cache-dtype=fp8]  # flow style
""",
        """\
  base_args: ["--max-num-seqs", "256", '--served-model-name', 'demo', --kv-cache-dtype, fp8]  # flow style
""",
        TAIL,
    ),
    "RL304": (
        """\
  base_args:
      - "--max_model_len"        # deeper indent than usual
      - "8192"
      - --attention_config.use_fp4_indexer_cache
      - "True"
""",
        """\
  base_args:
      - "--max-model-len"        # deeper indent than usual
      - "8192"
      - --attention-config.use_fp4_indexer_cache
      - "True"
""",
        TAIL,
    ),
    "RL551": (
        """\
  base_env:
    PYTHONHASHSEED: 0      # quoted by the fix
    VLLM_USE_V1: true
    EMPTY: ~
    KEEP: "1"
""",
        """\
  base_env:
    PYTHONHASHSEED: "0"      # quoted by the fix
    VLLM_USE_V1: "true"
    EMPTY: "null"
    KEEP: "1"
""",
        TAIL,
    ),
    "RL503": (
        """\
features:
  mtp:   # speculative decoding
    description: "Multi-token prediction"
    modes:
      mtp1:
        args: ["--speculative-config", '{"method":"mtp","num_speculative_tokens":1}']
opt_in_features: [mtp]
""",
        """\
features:
  spec_decoding:   # speculative decoding
    description: "Multi-token prediction"
    modes:
      mtp1:
        args: ["--speculative-config", '{"method":"mtp","num_speculative_tokens":1}']
opt_in_features: [spec_decoding]
""",
        TAIL.replace(
            "    vram_minimum_gb: 20\n",
            "    vram_minimum_gb: 20\n    default_modes:\n      mtp: mtp1\n",
        ),
    ),
}


@pytest.mark.parametrize("code", sorted(CASES))
def test_fix_removes_the_finding_and_changes_nothing_else(tree: Path, code: str) -> None:
    body, expected_body, tail = CASES[code]
    original = recipe(body, tail)
    path = write_file(tree / RECIPE, original)
    assert code in codes_for(tree, path)

    result = check(str(path), "--fix", "--select", code)
    fixed = path.read_text(encoding="utf-8")

    assert code not in codes_for(tree, path)
    expected_tail = (
        tail.replace("      mtp: mtp1\n", "      spec_decoding: mtp1\n")
        if code == "RL503"
        else tail
    )
    assert fixed == recipe(expected_body, expected_tail)
    assert "fixed 1 file" in result.stderr


def test_one_token_with_two_findings_gets_one_consistent_fix(tree: Path) -> None:
    """`--max_model_len=8192` is both underscored (RL304) and `=`-joined (RL303): the two
    edits overlap, so one waits for the next pass and both end up applied."""
    path = write_file(tree / RECIPE, recipe('  base_args: ["--max_model_len=8192"]\n'))
    before = codes_for(tree, path)
    assert "RL304" in before and "RL303" in before
    check(str(path), "--fix")
    after = codes_for(tree, path)
    assert "RL304" not in after and "RL303" not in after
    assert '  base_args: ["--max-model-len", "8192"]\n' in path.read_text(encoding="utf-8")


UNSAFE = {
    # A value after `--x=v` would change meaning once split (`--x v w`): leave it.
    "RL303": '  base_args: ["--x=1", "w"]\n',
    # `--x=-1` split makes `-1` a flag to upstream's dedupe.
    "RL303-dash": '  base_args: ["--offset=-1"]\n',
    # The retired key cannot be renamed onto an existing spec_decoding feature.
    "RL503": "features:\n  mtp: {description: a}\n  spec_decoding: {description: b}\n",
    # ruamel writes a flow mapping spread over lines on one line: the rename would rewrite
    # lines that name no retired key, so the structural fix is refused.
    "RL503-flow": "features: {mtp: {description: a},\n  other: {description: b}}\n",
    # A repeat with another value is the author's call (RL315, no fix).
    "RL315": '  base_args: ["--max-model-len", "8192", "--max-model-len", "4096"]\n',
}


@pytest.mark.parametrize("case", sorted(UNSAFE))
def test_unsafe_fixes_are_not_applied(tree: Path, case: str) -> None:
    code = case.split("-")[0]
    original = recipe(UNSAFE[case])
    path = write_file(tree / RECIPE, original)
    assert code in codes_for(tree, path)
    check(str(path), "--fix", "--select", code)
    assert path.read_text(encoding="utf-8") == original
    assert code in codes_for(tree, path)


def test_a_duplicate_inside_an_anchored_list_is_left_alone(tree: Path) -> None:
    """Editing an anchor's list would change every alias too: the data check refuses it."""
    body = '  base_args: &common ["--trust-remote-code", "--trust-remote-code"]\n  base_env: {}\n'
    tail = TAIL.replace(
        "    vram_minimum_gb: 20\n", "    vram_minimum_gb: 20\n    extra_args: *common\n"
    )
    original = recipe(body, tail)
    path = write_file(tree / RECIPE, original)
    check(str(path), "--fix", "--select", "RL301")
    assert path.read_text(encoding="utf-8") == original


# ------------------------------------------------------------------ all rules together


ALL_AT_ONCE = """\
  base_args:
    - "--max_model_len=8192"     # underscore and equals on one token
    - "--trust-remote-code"
    - "--trust-remote-code"
  base_env:
    PYTHONHASHSEED: 0
features:
  mtp:
    description: "MTP"
    args: ["--speculative_config", '{"method":"mtp"}']
"""


def test_overlapping_fixes_converge_and_a_second_fix_changes_nothing(tree: Path) -> None:
    original = recipe(ALL_AT_ONCE)
    path = write_file(tree / "models/acme/Crlf-8B.yaml", original)
    crlf = write_file(  # BOM + CRLF
        path.with_name("Demo-8B.yaml"),
        b"\xef\xbb\xbf" + original.replace("\n", "\r\n").encode("utf-8"),
    )
    for p in (path, crlf):
        assert set(codes_for(tree, p)) >= FIXED_CODES

    check(str(path), str(crlf), "--fix")
    first = {p: p.read_bytes() for p in (path, crlf)}
    for p in (path, crlf):
        assert not FIXED_CODES & set(codes_for(tree, p)), codes_for(tree, p)
    assert first[crlf].startswith(b"\xef\xbb\xbf")
    assert first[crlf].decode("utf-8-sig").replace("\r\n", "\n") == first[path].decode("utf-8")
    assert b"\n" not in first[crlf].replace(b"\r\n", b"")

    again = check(str(path), str(crlf), "--fix")
    assert {p: p.read_bytes() for p in (path, crlf)} == first
    assert "fixed 0 files" in again.stderr
    diff = check(str(path), str(crlf), "--diff")
    assert diff.exit_code == 0 and diff.stdout == ""

    text = first[path].decode("utf-8")
    # The split inserts the value right after the flag, so a trailing comment ends the value's line.
    assert (
        '    - "--max-model-len"\n    - "8192"     # underscore and equals on one token\n' in text
    )
    assert text.count('"--trust-remote-code"') == 1
    assert '    PYTHONHASHSEED: "0"\n' in text
    assert "  spec_decoding:\n" in text and '["--speculative-config", ' in text
    assert "Keep `--max_model_len=8192` and `mtp: 1` in prose untouched." in text


def test_diff_shows_the_fix_and_writes_nothing(tree: Path) -> None:
    original = recipe(ALL_AT_ONCE)
    path = write_file(tree / RECIPE, original)
    shown = check(str(path), "--diff")
    assert shown.exit_code == 1
    assert path.read_text(encoding="utf-8") == original
    check(str(path), "--fix")
    fixed = path.read_text(encoding="utf-8")
    patch = shown.stdout.splitlines(keepends=True)
    assert patch[0].startswith("--- a/") and patch[1].startswith("+++ b/")
    assert "".join(difflib.restore(_ndiff_from_unified(original, patch), 2)) == fixed


def _ndiff_from_unified(original: str, patch: list[str]) -> list[str]:
    """Apply a unified diff to ``original`` and return it as ndiff lines (for difflib.restore)."""
    source = original.splitlines(keepends=True)
    out: list[str] = []
    cursor = 0
    for line in patch[2:]:
        hunk = re.match(r"@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@", line)
        if hunk:
            start = int(hunk.group(1)) - (0 if hunk.group(2) == "0" else 1)
            out += ["  " + s for s in source[cursor:start]]
            cursor = start
        elif line.startswith("-"):
            assert source[cursor] == line[1:]
            out.append("- " + line[1:])
            cursor += 1
        elif line.startswith("+"):
            out.append("+ " + line[1:])
        elif line.startswith(" "):
            assert source[cursor] == line[1:]
            out.append("  " + line[1:])
            cursor += 1
    out += ["  " + s for s in source[cursor:]]
    return out


def test_fix_respects_ignore_and_inline_suppressions(tree: Path) -> None:
    body = (
        '  base_args:\n    - "--max_model_len"  # recipelint: disable=RL304\n    - "8192"\n'
        '    - "--block-size=64"\n'
    )
    original = recipe(body)
    path = write_file(tree / RECIPE, original)
    check(str(path), "--fix", "--ignore", "RL303")
    assert path.read_text(encoding="utf-8") == original


# ------------------------------------------------------------------ the corpus


def _intended(
    before: Any,
    renames: dict[str, str],
    splits: dict[str, tuple[str, str]],
    env_values: dict[str, Any],
) -> Any:
    """The compiled JSON as the fixes mean to change it: renamed and split tokens in argument
    lists and command text, quoted env values; nothing else."""

    def tokens(items: list[Any]) -> list[Any]:
        out: list[Any] = []
        for item in items:
            if isinstance(item, str) and item in splits:
                out += list(splits[item])
            else:
                out.append(renames.get(item, item) if isinstance(item, str) else walk(item))
        return out

    def command(text: str) -> str:
        for old, (name, value) in splits.items():
            text = re.sub(rf"(?<=\s){re.escape(old)}(?=\s|$)", f"{name} {shell_quote(value)}", text)
        for old, new in renames.items():
            text = re.sub(rf"(?<=\s){re.escape(old)}(?=\s|$)", new, text)
        return text

    def walk(node: Any, key: str = "") -> Any:
        if isinstance(node, dict):
            return {
                k: (
                    js_string(v)
                    if k in env_values and v == env_values[k] and not isinstance(v, str)
                    else walk(v, k)
                )
                for k, v in node.items()
            }
        if isinstance(node, list):
            if key.endswith("commands"):
                return [command(t) if isinstance(t, str) else walk(t) for t in node]
            return tokens(node)
        if isinstance(node, str) and key.endswith("command"):
            return command(node)
        return node

    return walk(before)


def _planned_changes(
    tree: Any, findings: list[Any]
) -> tuple[dict[str, str], dict[str, tuple[str, str]], dict[str, Any]]:
    """What the fixable findings ask for, read from the findings and the data (not from the fixer)."""
    docs = {doc.path: doc for doc in tree.documents()}
    renames: dict[str, str] = {}
    splits: dict[str, tuple[str, str]] = {}
    env_values: dict[str, Any] = {}
    # A finding collapsed over several items of one list names the others in `related`.
    places = [(d, d.pointer) for d in findings] + [
        (d, r.pointer) for d in findings for r in d.related
    ]
    for diag, pointer in places:
        value: Any = docs[diag.path].data
        for part in pointer:
            value = value[part]
        if diag.code == "RL304":
            head, equals, rest = value.partition("=")
            option, dot, keys = head.partition(".")
            renames[value] = option.replace("_", "-") + dot + keys + equals + rest
        elif diag.code == "RL303":
            splits[value] = tuple(value.split("=", 1))
        elif diag.code == "RL551":
            env_values[pointer[-1]] = value
        else:
            raise AssertionError(
                f"the corpus gained a {diag.code} finding; explain its intended change here"
            )
    # A token both underscored and `=`-joined ends up split into the dashed name and the value.
    for old, (_, value) in list(splits.items()):
        splits[old] = (renames.pop(old, old).split("=", 1)[0], value)
    return renames, splits, env_values


@pytest.mark.slow
def test_fixing_the_corpus_changes_only_what_the_fixes_intend(
    corpus_tree: Path, tmp_path: Path
) -> None:
    """Three guarantees on a temporary copy of the corpus: the fixable findings are gone, only
    their own lines changed, and the compiled JSON differs exactly by the intended changes:
    renamed (`--foo_bar` -> `--foo-bar`) and split (`--x=v` -> `--x`, `v`) tokens in argument
    lists, argv and command text, and env values quoted to the text docker `-e` already printed."""
    root = tmp_path / "tree"
    shutil.copytree(corpus_tree, root)
    tree = load_tree(root)
    originals = {doc.path: doc.text for doc in tree.documents()}
    findings = run_checks(tree, FIXABLE_ONLY)
    renames, splits, env_values = _planned_changes(tree, findings)
    assert renames and splits and env_values  # the corpus exercises three of the fixers
    before = compile_tree(root)

    changes = fix_paths({root: [root]})
    assert changes.files

    assert not run_checks(load_tree(root), FIXABLE_ONLY)
    spans: dict[Path, list[Any]] = {}
    for diag in findings:
        spans.setdefault(diag.path, []).append(diag.span)
        for other in diag.related:  # the same finding on more items of one list, collapsed
            spans.setdefault(other.path, []).append(other.span)
    for path, text in originals.items():
        edited = line_ranges(text, spans.get(path, []))
        assert only_inside(text, path.read_text(encoding="utf-8"), edited), path

    after = compile_tree(root)
    assert before.files.paths() == after.files.paths()
    unexplained = [
        path
        for path in before.files.paths()
        if _intended(before.files.document(path), renames, splits, env_values)
        != after.files.document(path)
    ]
    assert not unexplained, unexplained[:5]
    assert any(before.files.serialize(p) != after.files.serialize(p) for p in before.files.paths())


def test_fix_on_hostile_files_reports_them_and_writes_nothing(tmp_path: Path) -> None:
    """Every hostile file of the check tests at once, through the real command with its memory
    cap: `--fix` must not raise and must leave files it cannot read exactly as they were."""
    from test_check_hostile import HOSTILE, run_check

    build_context(tmp_path)
    folder = tmp_path / "models" / "acme"
    for name, (content, _) in HOSTILE.items():
        write_file(folder / f"{name}.yaml", content)
    result = run_check(str(folder), "--fix", "--format", "json", cwd=tmp_path)
    assert "Traceback" not in result.stderr
    assert result.returncode == 1, result.stderr
    reported = {Path(d["path"]).stem for d in json.loads(result.stdout)}
    assert set(HOSTILE) <= reported
    for name, (content, _) in HOSTILE.items():
        assert (folder / f"{name}.yaml").read_bytes() == content


def test_fix_through_a_link_rewrites_the_target_and_keeps_the_link(tree: Path) -> None:
    target = write_file(
        tree / "models/acme/real/Demo-8B.yaml", recipe('  base_args: ["--max_model_len", "8192"]\n')
    )
    link = tree / RECIPE
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(target)
    check(str(link), "--fix", "--select", "RL304")
    assert link.is_symlink()
    assert '["--max-model-len", "8192"]' in target.read_text(encoding="utf-8")


def test_only_inside_measures_edits_by_position_not_by_line_matching() -> None:
    """Repeated lines fool a line diff (it may align a removed line with its twin); offsets do not."""
    before = "k:\n- a\n# c\n- b\n# c\nz: 1\n"
    after = "k:\n# c\n- a\n# c\nz: 1\n"  # `- a` removed, `- b` renamed to `- a`
    item_lines = line_ranges(before, [Span(2, 1, 5, 1)])
    assert only_inside(before, after, item_lines)
    assert not only_inside(before, after.replace("z: 1", "z: 2"), item_lines)
    assert not only_inside(before, "x" + after, item_lines)
    assert only_inside(before, before, [])
    assert not only_inside(before, before + "\n", [])
