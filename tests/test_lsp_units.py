"""The language server's parts without the protocol: reading the cursor's place from text,
the loaded tree's incremental updates, the quick-fix edits, and how the command is wired."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest
from treehelp import build_tree, context_text, write_documents, write_file

from recipelint.check.checking import CheckOptions, run_check
from recipelint.lsp import actions, library
from recipelint.lsp.cursor import Role, cursor_at, role_of, split_lines
from recipelint.lsp.workspace import Workspace

PROJECT = Path(__file__).resolve().parent.parent
EMBEDDED = PROJECT / "recipes"
RECIPE = "models/Qwen/Qwen2.5-7B-Instruct.yaml"

YAML = """\
meta:
  hardware:
    h100: verified
  related_recipes: [Qwen/Qwen3-8B]
model:
  base_args:
    - "--kv-cache-dtype"
    - "fp8"  # recipelint: disable=RL301,RL302
variants:
  awq:
    hardware_overrides:
      hopper:
        extra_args: ["--max-num-seqs", "8"]
compatible_strategies:
  - single_node_tp
default_strategy: single_node_tp
features:
  spec_decoding:
    modes:
      mtp: {}
default_modes:
  spec_decoding: mtp
"""


def _at(
    needle: str, offset: int = 0, text: str = YAML, kind: str = "recipe"
) -> tuple[Role | None, str, tuple[str, ...]]:
    before = text[: text.index(needle) + offset]
    line, character = before.count("\n"), len(before) - (before.rfind("\n") + 1)
    cursor = cursor_at(split_lines(text), line, character)
    return role_of(cursor, kind), cursor.word, cursor.path


@pytest.mark.parametrize(
    ("needle", "offset", "role", "word"),
    [
        ("h100:", 2, Role.HARDWARE, "h100"),
        ("hopper:", 1, Role.HARDWARE, "hopper"),
        ("Qwen/Qwen3-8B", 3, Role.RELATED, "Qwen/Qwen3-8B"),
        ('"--kv-cache-dtype"', 4, Role.FLAG, "--kv-cache-dtype"),
        ('"fp8"', 2, Role.FLAG_VALUE, "fp8"),
        ('"--max-num-seqs"', 5, Role.FLAG, "--max-num-seqs"),
        ("awq:", 1, Role.VARIANT, "awq"),
        ("- single_node_tp", 4, Role.STRATEGY, "single_node_tp"),
        ("default_strategy: single", 20, Role.STRATEGY, "single_node_tp"),
        ("spec_decoding:\n    modes", 2, Role.FEATURE, "spec_decoding"),
        ("mtp: {}", 1, Role.MODE, "mtp"),
        ("  spec_decoding: mtp", 18, Role.MODE, "mtp"),
        ("base_args:", 2, None, "base_args"),
    ],
)
def test_the_place_under_the_cursor_is_read_from_the_text(
    needle: str, offset: int, role: Role | None, word: str
) -> None:
    found_role, found_word, _ = _at(needle, offset)
    assert (found_role, found_word) == (role, word)


def test_enclosing_keys_follow_indentation() -> None:
    assert _at('"--max-num-seqs"', 3)[2] == ("variants", "awq", "hardware_overrides", "hopper")
    assert _at("mtp: {}", 1)[2] == ("features", "spec_decoding", "modes")


# A list item under a key, then a flow list on an item's own key, each at a place the
# layers declare or not: an args list is known by its place, as the rules know it.
PLACES = """\
model:
  extra_args:
    - "--seed"
variants:
  awq:
    extra_args:
      - "--seed"
omni:
  tasks:
    - id: a
    - extra_args: ["--seed"]
      hardware_overrides:
        h100:
          extra_args: ["--seed"]
"""


@pytest.mark.parametrize(
    ("needle", "role"),
    [
        ('  extra_args:\n    - "--seed"', None),  # model.extra_args: no layer lives there
        ('    extra_args:\n      - "--seed"', Role.FLAG),  # a variant's extra_args
        ('- extra_args: ["--seed"]', Role.FLAG),  # omni.tasks[1].extra_args
        ('      extra_args: ["--seed"]', None),  # a task's hardware override: not rendered
    ],
)
def test_an_args_list_is_known_by_its_declared_place_not_its_key(
    needle: str, role: Role | None
) -> None:
    found_role, word, _ = _at(needle, needle.index("--seed") + 2, PLACES)
    assert (found_role, word) == (role, "--seed")


def test_the_cursor_pointer_holds_the_index_of_each_list_item() -> None:
    text = PLACES
    before = text[: text.index('      extra_args: ["--seed"]') + 22]
    cursor = cursor_at(split_lines(text), before.count("\n"), 22)
    assert cursor.pointer == ("omni", "tasks", 1, "hardware_overrides", "h100")
    assert cursor.holder == ("omni", "tasks", 1, "hardware_overrides", "h100", "extra_args")


@pytest.mark.parametrize(
    ("kind", "text", "role"),
    [
        ("strategy", 'vllm_args: ["--seed"]\n', Role.FLAG),
        ("strategy", 'prefill:\n  vllm_args: ["--seed"]\n', Role.FLAG),
        ("strategy", 'router:\n  vllm_args: ["--seed"]\n', None),
        ("kv_store", 'vllm:\n  vllm_args: ["--seed"]\n', Role.FLAG),
        ("kv_store", 'pd:\n  decode:\n    args: ["--seed"]\n', Role.FLAG),
        ("recipe", 'vllm_args: ["--seed"]\n', None),  # a strategy file's place, not a recipe's
        ("taxonomy", 'kv_offload:\n  lmcache:\n    args: ["--seed"]\n', Role.FLAG),
        ("platforms", 'args: ["--seed"]\n', None),
    ],
)
def test_the_places_depend_on_the_kind_of_document(kind: str, text: str, role: Role | None) -> None:
    assert _at("--seed", 2, text, kind)[0] is role


def test_a_rule_code_in_a_comment_is_not_a_flag_value() -> None:
    role, _, _ = _at("RL302", 2)
    assert role is None


def test_a_buffer_that_does_not_parse_still_has_places() -> None:
    """A key being typed (no colon yet) under `hardware:` is completed with hardware ids."""
    from recipelint.lsp.completion import completion_role

    text = YAML.replace("    h100: verified\n", "    h10\n  :: [\n")
    before = text[: text.index("h10\n") + 3]
    cursor = cursor_at(split_lines(text), before.count("\n"), 7)
    assert (cursor.word, cursor.path) == ("h10", ("meta", "hardware"))
    assert completion_role(cursor, "recipe") is Role.HARDWARE


def test_positions_beyond_the_text_are_clamped() -> None:
    lines = split_lines("a: 1\n")
    assert cursor_at(lines, 99, 99).word == ""
    assert cursor_at(lines, 0, 99).key == "a"


# ---------------------------------------------------------------- the loaded tree


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """The embedded context with the embedded Qwen recipe."""
    return build_tree(tmp_path / "recipes", {RECIPE: context_text(RECIPE)}).resolve()


def test_an_edit_replaces_only_its_document(tree: Path) -> None:
    path = tree / RECIPE
    loaded = Workspace().tree_of(path)
    assert loaded is not None
    before = {doc.path: doc for doc in loaded.tree.documents()}
    loaded.set_text(path, path.read_text(encoding="utf-8").replace("h100: verified", "h1000: x"))
    edited = loaded.document(path)
    assert edited is not None and "h1000" in edited.text
    after = {doc.path: doc for doc in loaded.tree.documents()}
    assert after.keys() == before.keys()
    assert [p for p in after if after[p] is not before[p]] == [path]


def test_closing_a_buffer_restores_the_saved_file_alone(tree: Path) -> None:
    path = tree / RECIPE
    saved = path.read_text(encoding="utf-8")
    loaded = Workspace().tree_of(path)
    assert loaded is not None
    loaded.set_text(path, saved.replace("h100: verified", "h1000: x"))
    others = {doc.path: doc for doc in loaded.tree.documents() if doc.path != path}
    loaded.forget(path)
    restored = loaded.document(path)
    assert restored is not None and restored.text == saved
    assert all(others[doc.path] is doc for doc in loaded.tree.documents() if doc.path != path)


def test_a_new_file_joins_the_tree_and_closing_it_leaves(tree: Path) -> None:
    original = tree / RECIPE
    new = tree / "models" / "acme" / "demo.yaml"
    loaded = Workspace().tree_of(new)
    assert loaded is not None
    loaded.set_text(new, original.read_text(encoding="utf-8"))
    assert loaded.document(new) is not None
    codes = {d.code for d in loaded.check(new)}
    expected = run_check([], CheckOptions(stdin_filename=new, stdin_text=original.read_text()))
    assert codes == {d.code for d in expected.diagnostics} and codes
    loaded.forget(new)
    assert loaded.document(new) is None


def test_a_new_file_is_placed_even_when_other_buffers_are_open(tree: Path) -> None:
    existing, new = tree / RECIPE, tree / "models" / "acme" / "demo.yaml"
    loaded = Workspace().tree_of(existing)
    assert loaded is not None
    loaded.set_text(existing, existing.read_text(encoding="utf-8"))
    loaded.set_text(new, existing.read_text(encoding="utf-8"))
    assert loaded.document(new) is not None and loaded.document(existing) is not None
    tree_object = loaded.tree
    loaded.set_text(new, existing.read_text(encoding="utf-8") + "# edited\n")
    assert loaded.document(new) is not None and loaded.tree is tree_object  # no reload


def test_only_files_of_the_tree_are_served(tree: Path) -> None:
    loaded = Workspace().tree_of(tree / RECIPE)
    assert loaded is not None
    assert loaded.holds(tree / RECIPE) and loaded.holds(tree / "taxonomy.yaml")
    assert not loaded.holds(tree / "notes" / "todo.yaml")
    assert not loaded.holds(tree / "models" / "loose.yaml")


def test_the_check_of_a_buffer_is_the_stdin_check(tree: Path) -> None:
    path = tree / RECIPE
    text = path.read_text(encoding="utf-8").replace('"--tool-call-parser"', '"--tool_call_parser"')
    loaded = Workspace().tree_of(path)
    assert loaded is not None
    loaded.set_text(path, text)
    expected = run_check([], CheckOptions(stdin_filename=path, stdin_text=text)).diagnostics
    assert loaded.check(path) == expected and expected


def test_a_broken_configuration_is_reported_not_raised(tree: Path) -> None:
    write_documents(tree, {".recipelint.toml": "select = 3\n"})
    path = tree / RECIPE
    loaded = Workspace().tree_of(path)
    assert loaded is not None
    assert {d.code for d in loaded.check(path)} == {"RL016"}


# ---------------------------------------------------------------- quick-fix edits


def _document(text: str) -> library.Document:
    root = EMBEDDED.resolve()
    return library.parse_document(root, root / RECIPE, "recipe", text, library.LoadLimits())


def test_suppressing_appends_to_an_existing_comment() -> None:
    text = "a:\n  - x  # recipelint: disable=RL301\n"
    doc = _document(text)
    finding = library.Diagnostic(doc.path, library.Span(2, 5), "RL302", library.Severity.ERROR, "m")
    from recipelint.lsp.convert import Lines

    assert actions.suppressed_text(doc, Lines(text), finding) == (
        "a:\n  - x  # recipelint: disable=RL301,RL302\n"
    )


def test_suppressing_inside_a_block_string_comments_its_key() -> None:
    text = "guide: |\n  ## Overview\n  bad line\n"
    doc = _document(text)
    finding = library.Diagnostic(
        doc.path, library.Span(3, 3), "RL601", library.Severity.WARNING, "m", pointer=("guide",)
    )
    from recipelint.lsp.convert import Lines

    assert actions.suppressed_text(doc, Lines(text), finding) == (
        "guide: |  # recipelint: disable=RL601\n  ## Overview\n  bad line\n"
    )


# ---------------------------------------------------------------- wiring


PACKAGE = PROJECT / "recipelint" / "lsp"


def test_only_the_adapter_imports_the_rest_of_recipelint() -> None:
    """A rename elsewhere in recipelint costs one edit: recipelint/lsp/library.py."""
    offenders = []
    for path in sorted(PACKAGE.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            else:
                continue
            outside = [
                n
                for n in names
                if n.startswith("recipelint")
                and not n.startswith("recipelint.lsp")
                and n != "recipelint"
            ]
            if outside and path.name != "library.py":
                offenders.append(f"{path.name}: {outside}")
    assert offenders == []


def test_other_commands_do_not_import_the_language_server() -> None:
    code = (
        "import json, sys\nfrom recipelint.cli import main\n"
        f"main(['check', '--quiet', {str(EMBEDDED / RECIPE)!r}])\n"
        "print(json.dumps(sorted(sys.modules)))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=True
    )
    loaded = set(json.loads(done.stdout.strip().splitlines()[-1]))
    assert not {m for m in loaded if m.split(".")[0] in ("pygls", "lsprotocol")}
    assert not {m for m in loaded if m.startswith("recipelint.lsp")}


def test_columns_are_converted_to_the_clients_code_units() -> None:
    from recipelint.lsp.convert import Lines

    text = 'title: "\U0001f680 é x"\n'
    utf16, utf8, utf32 = Lines(text), Lines(text, "utf-8"), Lines(text, "utf-32")
    x = text.index("x")
    assert (utf16.to_units(0, x), utf8.to_units(0, x), utf32.to_units(0, x)) == (x + 1, x + 4, x)
    assert utf16.from_units(0, x + 1) == utf8.from_units(0, x + 4) == utf32.from_units(0, x) == x
    span = utf16.span_range(library.Span(1, x + 1, 1, x + 2))
    assert (span.start.character, span.end.character) == (x + 1, x + 2)


@pytest.mark.parametrize(
    ("before", "typed", "expected"),
    [
        ("  tasks:\n    - text\n", "  tasks:\n    - text\n    - \n", "tasks"),
        ("  platforms:\n    - modal\n", "  platforms:\n    - modal\n    - \n", "platforms"),
    ],
)
def test_completion_offers_the_ids_the_tree_wide_files_define(
    tree: Path, before: str, typed: str, expected: str
) -> None:
    import yaml

    from recipelint.lsp.completion import complete
    from recipelint.lsp.convert import Lines

    path = tree / RECIPE
    text = path.read_text(encoding="utf-8")
    assert before in text
    text = text.replace(before, typed, 1)
    loaded = Workspace().tree_of(path)
    assert loaded is not None
    loaded.set_text(path, text)
    doc = loaded.document(path)
    assert doc is not None
    line = text[: text.index(typed) + len(typed) - 1].count("\n")
    items = complete(loaded.tree, doc, cursor_at(split_lines(text), line, 6), Lines(text))
    source = "platforms.yaml" if expected == "platforms" else "taxonomy.yaml"
    defined = yaml.safe_load((tree / source).read_text(encoding="utf-8"))[expected]
    assert [item.label for item in items] == [entry["id"] for entry in defined]


def test_fix_all_gives_the_text_check_fix_writes(tree: Path) -> None:
    from recipelint.fix.fixers import fix_tree
    from recipelint.lsp.convert import Lines, to_protocol

    path = tree / RECIPE
    text = (
        path.read_text(encoding="utf-8")
        .replace('"--tool-call-parser"', '"--tool_call_parser"')
        .replace('"--enable-auto-tool-choice"', '"--enable_auto_tool_choice"')
    )
    write_file(path, text)
    loaded = Workspace().tree_of(path)
    assert loaded is not None
    loaded.set_text(path, text)
    doc = loaded.document(path)
    assert doc is not None
    lines = Lines(text)
    findings = [
        actions.SentFinding(d, to_protocol(d, lines, lambda _: lines))
        for d in loaded.check(path)
        if d.path == path
    ]
    fix_all = [
        a
        for a in actions.code_actions(doc, "file:///x", findings, "utf-16")
        if a.kind == actions.FIX_ALL
    ]
    assert len(fix_all) == 1 and fix_all[0].edit is not None and fix_all[0].edit.changes
    (edit,) = fix_all[0].edit.changes["file:///x"]
    starts = [0]
    for line in lines.lines:
        starts.append(starts[-1] + len(line) + 1)
    start = starts[edit.range.start.line] + edit.range.start.character
    end = starts[edit.range.end.line] + edit.range.end.character
    fixed = text[:start] + edit.new_text + text[end:]
    assert fixed == fix_tree(tree, lambda p: p == path).fixed[path]
    assert "--tool-call-parser" in fixed and "--enable-auto-tool-choice" in fixed
