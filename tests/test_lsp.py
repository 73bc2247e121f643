"""`recipelint lsp` end to end: the real server over stdio, driven as an editor drives it.

One server serves the whole module (starting it and loading a tree is most of the
cost); each test opens its own recipe in a copy of the embedded tree and edits it
through the protocol, so tests do not see each other's buffers.
"""

from __future__ import annotations

import asyncio
import re
import sys
from pathlib import Path

import pytest
import pytest_asyncio
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities
from treehelp import build_tree, context_text, write_file

from recipelint.check.checking import CheckOptions, run_check
from recipelint.compile.compiler import render_combination
from recipelint.flags.catalog import flag_span
from recipelint.lsp.convert import Lines, path_uri, to_protocol

RECIPE = "models/Qwen/Qwen2.5-7B-Instruct.yaml"
OMNI = "models/Qwen/Qwen-Image-Edit.yaml"
SCRIPT = Path(sys.executable).with_name("recipelint")
SERVER = (
    [str(SCRIPT), "lsp"]
    if SCRIPT.exists()
    else [sys.executable, "-c", "from recipelint.cli import run; run()", "lsp"]
)
WAIT_SECONDS = 20.0

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The embedded context with the two embedded Qwen recipes: a text and an omni one."""
    recipes = {rel: context_text(rel) for rel in (RECIPE, OMNI)}
    return build_tree(tmp_path_factory.mktemp("lsp") / "recipes", recipes).resolve()


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER), scope="module")
async def client(lsp_client: LanguageClient):  # type: ignore[no-untyped-def]
    @lsp_client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register(params: types.RegistrationParams) -> None:
        """The server asks to be told of file changes; an editor would start watching."""
        lsp_client.registrations = list(params.registrations)

    params = types.InitializeParams(capabilities=client_capabilities("visual-studio-code"))
    await lsp_client.initialize_session(params)
    yield
    await lsp_client.shutdown_session()


# Documents the running test opened: closed after it, so that later tests' edits do not
# re-check them.
OPENED: list[Path] = []


@pytest_asyncio.fixture(loop_scope="module", autouse=True)
async def closes_what_it_opens(client: LanguageClient):  # type: ignore[no-untyped-def]
    yield
    for path in dict.fromkeys(OPENED):
        client.text_document_did_close(
            types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(path_uri(path)))
        )
    OPENED.clear()


# ---------------------------------------------------------------- helpers


def _recipe_copy(tree: Path, name: str, text: str | None = None) -> Path:
    """A recipe of its own for one test: the embedded Qwen recipe (or ``text``) under a new id,
    title and slug, so that it is not a duplicate of the recipe it copies."""
    if text is None:
        original = context_text(RECIPE)
        text = original.replace("Qwen2.5-7B-Instruct", name).replace("qwen2.5-7b-instruct", name)
    return write_file(tree / "models" / "Qwen" / f"{name}.yaml", text)


async def _published(client: LanguageClient, uri: str) -> list[types.Diagnostic]:
    """The next diagnostics published for ``uri`` (the caller popped the previous ones)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + WAIT_SECONDS
    while uri not in client.diagnostics:
        assert loop.time() < deadline, f"no diagnostics for {uri}"
        await asyncio.sleep(0.02)
    return list(client.diagnostics[uri])


async def _open(client: LanguageClient, path: Path, text: str) -> list[types.Diagnostic]:
    uri = path_uri(path)
    OPENED.append(path)
    client.diagnostics.pop(uri, None)
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            types.TextDocumentItem(uri=uri, language_id="yaml", version=1, text=text)
        )
    )
    return await _published(client, uri)


async def _replace(
    client: LanguageClient, path: Path, text: str, version: int
) -> list[types.Diagnostic]:
    uri = path_uri(path)
    client.diagnostics.pop(uri, None)
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(version=version, uri=uri),
            [types.TextDocumentContentChangeWholeDocument(text)],
        )
    )
    return await _published(client, uri)


def _position(text: str, needle: str, offset: int = 0) -> types.Position:
    """Where ``needle`` (its first occurrence) starts, plus ``offset`` characters."""
    before = text[: text.index(needle) + offset]
    return types.Position(before.count("\n"), len(before) - (before.rfind("\n") + 1))


def _apply(text: str, edits: list[types.TextEdit]) -> str:
    lines = Lines(text)
    starts = [0]
    for line in lines.lines:
        starts.append(starts[-1] + len(line) + 1)
    for edit in sorted(
        edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True
    ):
        start = starts[edit.range.start.line] + edit.range.start.character
        end = starts[edit.range.end.line] + edit.range.end.character
        text = text[:start] + edit.new_text + text[end:]
    return text


def _summary(diagnostics: list[types.Diagnostic]) -> list[tuple]:
    return sorted(
        (
            d.code,
            d.range.start.line,
            d.range.start.character,
            d.range.end.line,
            d.range.end.character,
            d.message,
            d.severity,
            tuple(
                (r.location.uri, r.location.range.start.line, r.message)
                for r in d.related_information or ()
            ),
        )
        for d in diagnostics
    )


async def _hover(client: LanguageClient, path: Path, position: types.Position) -> str:
    found = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(path_uri(path)), position)
    )
    assert found is not None and isinstance(found.contents, types.MarkupContent)
    return found.contents.value


# ---------------------------------------------------------------- diagnostics


async def test_a_planted_typo_is_reported_at_its_key_and_cleared_when_fixed(
    client: LanguageClient, tree: Path
) -> None:
    path = _recipe_copy(tree, "typo")
    good = path.read_text(encoding="utf-8")
    bad = good.replace("    h100: verified", "    h1000: verified")
    found = await _open(client, path, bad)
    typo = [d for d in found if d.code == "RL201"]
    assert len(typo) == 1
    start = _position(bad, "h1000: verified")
    assert typo[0].range.start == start
    assert typo[0].range.end == types.Position(start.line, start.character + len("h1000"))
    assert "did you mean `h100`?" in typo[0].message
    assert await _replace(client, path, good, 2) == []


async def test_a_missing_colon_is_underlined_on_its_own_line_not_on_the_next(
    client: LanguageClient, tree: Path
) -> None:
    path = _recipe_copy(tree, "nocolon")
    bad = path.read_text(encoding="utf-8").replace(
        '  provider: "Qwen"\n', '  provider "Qwen"\n  # who publishes it\n'
    )
    [syntax] = await _open(client, path, bad)
    start = _position(bad, 'provider "Qwen"')
    assert syntax.code == "RL001" and syntax.range.start == start
    assert syntax.range.end == types.Position(start.line, start.character + len('provider "Qwen"'))
    assert syntax.message.startswith('YAML syntax error: `provider "Qwen"` has no `:`')


async def test_a_burst_of_edits_is_checked_once_for_its_last_text(
    client: LanguageClient, tree: Path
) -> None:
    path = _recipe_copy(tree, "burst")
    good = path.read_text(encoding="utf-8")
    assert await _open(client, path, good) == []
    uri = path_uri(path)
    client.diagnostics.pop(uri, None)
    for version, typed in enumerate(("h1", "h10", "h100", "h1000"), start=2):
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                types.VersionedTextDocumentIdentifier(version=version, uri=uri),
                [types.TextDocumentContentChangeWholeDocument(good.replace("h100:", typed + ":"))],
            )
        )
    found = await _published(client, uri)
    assert [d.code for d in found] == ["RL201"] and "`h1000`" in found[0].message
    client.diagnostics.pop(uri, None)
    await asyncio.sleep(0.5)  # three times the quiet time: no check of an intermediate text
    assert uri not in client.diagnostics


async def test_diagnostics_are_those_of_check_for_the_same_buffer(
    client: LanguageClient, tree: Path
) -> None:
    path = _recipe_copy(tree, "same")
    text = (
        path.read_text(encoding="utf-8")
        .replace("    h100: verified", "    h1000: verified")
        .replace('"--tool-call-parser"', '"--tool_call_parser"')
        .replace('"--enable-auto-tool-choice"', '"--enable-auto-tool-choise"')
    )
    found = await _open(client, path, text)
    expected = run_check([], CheckOptions(stdin_filename=path, stdin_text=text)).diagnostics
    lines = Lines(text)
    assert len(expected) >= 3
    assert _summary(found) == _summary(
        [to_protocol(d, lines, lambda p: Lines(p.read_text(encoding="utf-8"))) for d in expected]
    )


async def test_editing_the_taxonomy_rechecks_the_open_recipes(
    client: LanguageClient, tree: Path
) -> None:
    path = _recipe_copy(tree, "dependent")
    assert not [d for d in await _open(client, path, path.read_text()) if d.code == "RL201"]
    taxonomy = tree / "taxonomy.yaml"
    original = taxonomy.read_text(encoding="utf-8")
    await _open(client, taxonomy, original)
    uri = path_uri(path)
    client.diagnostics.pop(uri, None)
    try:
        await _replace(client, taxonomy, original.replace("  h100:\n", "  h100x:\n", 1), 2)
        assert "RL201" in {d.code for d in await _published(client, uri)}
    finally:
        client.diagnostics.pop(uri, None)
        await _replace(client, taxonomy, original, 3)
    assert "RL201" not in {d.code for d in await _published(client, uri)}


async def test_a_file_changed_on_disk_is_read_again(client: LanguageClient, tree: Path) -> None:
    watched = [r.method for r in getattr(client, "registrations", [])]
    assert watched == [types.WORKSPACE_DID_CHANGE_WATCHED_FILES]
    path = _recipe_copy(tree, "ondisk")
    assert await _open(client, path, path.read_text(encoding="utf-8")) == []
    strategy = tree / "strategies" / "single_node_tp.yaml"
    saved = strategy.read_text(encoding="utf-8")
    uri = path_uri(path)

    async def save(text: str) -> list[types.Diagnostic]:
        write_file(strategy, text)
        client.diagnostics.pop(uri, None)
        client.workspace_did_change_watched_files(
            types.DidChangeWatchedFilesParams(
                [types.FileEvent(path_uri(strategy), types.FileChangeType.Changed)]
            )
        )
        return await _published(client, uri)

    try:
        renamed = await save(saved.replace("name: single_node_tp", "name: single_node_tx", 1))
        assert {d.code for d in renamed} == {"RL203"}
        assert all("`single_node_tp` names no strategy file" in d.message for d in renamed)
    finally:
        restored = await save(saved)
    assert restored == []


async def test_an_edit_that_changes_another_open_recipe_rechecks_it(
    client: LanguageClient, tree: Path
) -> None:
    """Slugs are unique across the tree: taking a later recipe's slug is a finding of both."""
    first, later = _recipe_copy(tree, "aa-first"), _recipe_copy(tree, "zz-later")
    first_text = first.read_text(encoding="utf-8")
    await _open(client, first, first_text)
    assert await _open(client, later, later.read_text(encoding="utf-8")) == []
    uri = path_uri(later)
    client.diagnostics.pop(uri, None)
    taken = first_text.replace('slug: "aa-first"', 'slug: "zz-later"')
    assert taken != first_text
    [own] = await _replace(client, first, taken, 2)
    assert own.code == "RL210" and "models/Qwen/zz-later.yaml" in own.message
    clash = await _published(client, uri)
    assert [d.code for d in clash] == ["RL210"]
    assert "models/Qwen/aa-first.yaml" in clash[0].message


# ---------------------------------------------------------------- hover


async def test_hover_on_a_flag_tells_the_releases_at_the_minimum_version(
    client: LanguageClient, tree: Path
) -> None:
    path = _recipe_copy(tree, "hoverflag")
    text = path.read_text(encoding="utf-8")
    await _open(client, path, text)
    shown = await _hover(client, path, _position(text, "--tool-call-parser", 4))
    assert "**`--tool-call-parser`**" in shown
    assert "accepted by vllm 0.8.5 (min_vllm_version 0.8.5)" in shown
    span = flag_span("--tool-call-parser")
    assert span is not None and f"accepted by releases {span[0]} to {span[1]}" in shown
    value = await _hover(client, path, _position(text, '"hermes"', 2))
    assert value.startswith("`hermes` for `--tool-call-parser`: accepted by vllm 0.8.5")


async def test_hover_on_a_flag_names_each_default_of_the_recipe_s_range(
    client: LanguageClient, tree: Path
) -> None:
    # --gpu-memory-utilization defaults to 0.9 in 0.8.5, 0.92 later, and None (chosen at
    # start-up) in the newest releases: each change is named with its releases.
    original = context_text(RECIPE).replace("Qwen2.5-7B-Instruct", "hoverdefault")
    text = original.replace("base_args: []", 'base_args: ["--gpu-memory-utilization", "0.9"]')
    path = _recipe_copy(tree, "hoverdefault", text.replace("qwen2.5-7b-instruct", "hoverdefault"))
    await _open(client, path, path.read_text(encoding="utf-8"))
    shown = await _hover(client, path, _position(text, "--gpu-memory-utilization", 4))
    line = next(x for x in shown.split("\n\n") if x.startswith("default"))
    assert line.startswith("default changes in the recipe's range: `0.9` (0.8.5")
    assert ", then `0.92` (" in line and ", then `null` (" in line and line.endswith("0.34.0)")


async def test_hover_on_a_variant_shows_the_command_of_the_unsaved_buffer(
    client: LanguageClient, tree: Path
) -> None:
    path = _recipe_copy(tree, "hovervariant")
    saved = path.read_text(encoding="utf-8")
    await _open(client, path, saved)
    hf_id = "Qwen/hovervariant"  # the file name, as upstream derives it
    shown = await _hover(client, path, _position(saved, "  awq:", 3))
    named = re.search(r"rendered for variant `(\w+)` on `(\w+)` with `(\w+)`", shown)
    assert named is not None and named.group(1) == "awq"
    published = render_combination(tree, hf_id, "awq", named.group(2), named.group(3))
    assert f"```sh\n{published['command']}\n```" in shown
    assert f"```sh\n{published['docker_command']}\n```" in shown
    # An override the author has not saved shows at once.
    edited = saved.replace(
        '    label: "AWQ"\n', '    label: "AWQ"\n    extra_args: ["--max-num-seqs", "64"]\n'
    )
    await _replace(client, path, edited, 2)
    shown = await _hover(client, path, _position(edited, "  awq:", 3))
    assert "--max-num-seqs 64" in shown and "--max-num-seqs" not in published["command"]


async def test_hover_on_an_omni_variant_says_no_command_is_published(
    client: LanguageClient, tree: Path
) -> None:
    path = tree / OMNI
    text = path.read_text(encoding="utf-8")
    await _open(client, path, text)
    variant = re.search(r"^variants:\n  (\w+):", text, re.MULTILINE)
    assert variant is not None
    shown = await _hover(client, path, _position(text, f"  {variant.group(1)}:", 3))
    assert "publishes no command" in shown and "vllm serve" not in shown


async def test_hover_on_a_hardware_id_and_on_a_suppressed_rule(
    client: LanguageClient, tree: Path
) -> None:
    path = _recipe_copy(tree, "hoverhw")
    text = path.read_text(encoding="utf-8").replace(
        "  base_args: []", "  base_args: []  # recipelint: disable=RL301"
    )
    await _open(client, path, text)
    shown = await _hover(client, path, _position(text, "h100: verified", 1))
    assert "**hardware `h100`**" in shown and "gpu_count: 8" in shown and "brand: NVIDIA" in shown
    shown = await _hover(client, path, _position(text, "RL301", 2))
    assert shown.startswith("**RL301 ")


# ---------------------------------------------------------------- completion and navigation


async def test_completion_offers_the_taxonomy_hardware_ids(
    client: LanguageClient, tree: Path
) -> None:
    import yaml

    path = _recipe_copy(tree, "complete")
    text = path.read_text(encoding="utf-8").replace(
        "    xeon6: verified\n", "    xeon6: verified\n    h2\n"
    )
    await _open(client, path, text)
    found = await client.text_document_completion_async(
        types.CompletionParams(
            types.TextDocumentIdentifier(path_uri(path)), _position(text, "    h2\n", 6)
        )
    )
    assert isinstance(found, types.CompletionList)
    profiles = yaml.safe_load((tree / "taxonomy.yaml").read_text())["hardware_profiles"]
    assert {item.label for item in found.items} == set(profiles)
    assert "h200" in profiles


async def test_completion_offers_flags_of_the_minimum_release_and_their_choices(
    client: LanguageClient, tree: Path
) -> None:
    from recipelint.flags.catalog import catalog_for

    path = _recipe_copy(tree, "completeflag")
    text = path.read_text(encoding="utf-8").replace(
        '      - "hermes"\n', '      - "hermes"\n      - "--kv-cache-dtype"\n      - ""\n'
    )
    await _open(client, path, text)
    uri = types.TextDocumentIdentifier(path_uri(path))
    flags = await client.text_document_completion_async(
        types.CompletionParams(uri, _position(text, '"--tool-call-parser"', 4))
    )
    assert isinstance(flags, types.CompletionList)
    catalog = catalog_for("0.8.5")
    assert catalog is not None
    assert {item.label for item in flags.items} == set(catalog.flags)
    values = await client.text_document_completion_async(
        types.CompletionParams(uri, _position(text, '      - ""\n', 9))
    )
    assert isinstance(values, types.CompletionList)
    spec = catalog.flags["--kv-cache-dtype"]
    assert [item.label for item in values.items] == list(spec.choices or spec.values)


async def test_completion_with_a_quote_left_open_offers_the_flags_of_the_minimum_release(
    client: LanguageClient, tree: Path
) -> None:
    """A half-typed `- "--max-mo` does not parse; the recipe still claims vLLM 0.8.5."""
    from recipelint.flags.catalog import catalog_for, newest_catalog

    path = _recipe_copy(tree, "openquote")
    saved = path.read_text(encoding="utf-8")
    await _open(client, path, saved)
    typing = saved.replace("  base_args: []\n", '  base_args:\n    - "--max-mo\n')
    assert typing != saved
    await _replace(client, path, typing, 2)
    flags = await client.text_document_completion_async(
        types.CompletionParams(
            types.TextDocumentIdentifier(path_uri(path)), _position(typing, '"--max-mo', 9)
        )
    )
    assert isinstance(flags, types.CompletionList)
    minimum = catalog_for("0.8.5")
    assert minimum is not None and len(minimum.flags) < len(newest_catalog().flags)
    assert {item.label for item in flags.items} == set(minimum.flags)


async def test_hover_on_a_misspelt_flag_suggests_what_its_finding_suggests(
    client: LanguageClient, tree: Path
) -> None:
    path = _recipe_copy(tree, "hovertypo")
    text = path.read_text(encoding="utf-8").replace('"--tool-call-parser"', '"--tool-call-parsr"')
    found = await _open(client, path, text)
    (unknown,) = [d for d in found if d.code == "RL350"]
    hint = re.search(r"did you mean `([^`]+)`\?", unknown.message)
    assert hint is not None and hint.group(1) == "--tool-call-parser"
    shown = await _hover(client, path, _position(text, "--tool-call-parsr", 4))
    assert "is not a `vllm serve` flag in vllm 0.8.5" in shown
    assert f"did you mean `{hint.group(1)}`?" in shown


async def test_go_to_a_strategy_file_and_a_hardware_profile(
    client: LanguageClient, tree: Path
) -> None:
    path = _recipe_copy(tree, "definition")
    text = path.read_text(encoding="utf-8")
    await _open(client, path, text)
    found = await client.text_document_definition_async(
        types.DefinitionParams(
            types.TextDocumentIdentifier(path_uri(path)),
            _position(text, "  - single_node_tp", 6),
        )
    )
    assert isinstance(found, types.Location)
    assert found.uri == path_uri(tree / "strategies" / "single_node_tp.yaml")
    target = (tree / "strategies" / "single_node_tp.yaml").read_text().splitlines()
    assert target[found.range.start.line].startswith("name: single_node_tp")
    profile = await client.text_document_definition_async(
        types.DefinitionParams(
            types.TextDocumentIdentifier(path_uri(path)), _position(text, "h100: verified", 1)
        )
    )
    assert isinstance(profile, types.Location)
    assert profile.uri == path_uri(tree / "taxonomy.yaml")
    taxonomy = (tree / "taxonomy.yaml").read_text().splitlines()
    assert taxonomy[profile.range.start.line].strip() == "h100:"


async def test_the_outline_lists_variants_features_and_overrides(
    client: LanguageClient, tree: Path
) -> None:
    path = _recipe_copy(tree, "outline")
    await _open(client, path, path.read_text(encoding="utf-8"))
    found = await client.text_document_document_symbol_async(
        types.DocumentSymbolParams(types.TextDocumentIdentifier(path_uri(path)))
    )
    assert found is not None
    sections = {
        symbol.name: [child.name for child in symbol.children or ()]
        for symbol in found
        if isinstance(symbol, types.DocumentSymbol)
    }
    assert sections == {
        "variants": ["default", "awq"],
        "features": ["tool_calling", "long_context"],
        "hardware_overrides": ["amd", "cpu"],
        "strategy_overrides": ["single_node_tp"],
    }


# ---------------------------------------------------------------- code actions


async def _actions(
    client: LanguageClient, path: Path, diagnostic: types.Diagnostic
) -> list[types.CodeAction]:
    found = await client.text_document_code_action_async(
        types.CodeActionParams(
            types.TextDocumentIdentifier(path_uri(path)),
            diagnostic.range,
            types.CodeActionContext([diagnostic]),
        )
    )
    return [action for action in found or () if isinstance(action, types.CodeAction)]


def _edited(text: str, action: types.CodeAction, path: Path) -> str:
    assert action.edit is not None and action.edit.changes is not None
    return _apply(text, list(action.edit.changes[path_uri(path)]))


async def test_code_actions_fix_respell_and_suppress(client: LanguageClient, tree: Path) -> None:
    path = _recipe_copy(tree, "actions")
    text = (
        path.read_text(encoding="utf-8")
        .replace('"--tool-call-parser"', '"--tool_call_parser"')
        .replace("    h100: verified", "    h1000: verified")
    )
    found = await _open(client, path, text)
    underscore = next(d for d in found if d.code == "RL304")
    fixes = await _actions(client, path, underscore)
    fix = next(a for a in fixes if a.title.startswith("Fix RL304"))
    fixed = _edited(text, fix, path)
    assert fixed == text.replace('"--tool_call_parser"', '"--tool-call-parser"')
    after = await _replace(client, path, fixed, 2)
    assert "RL304" not in {d.code for d in after}

    typo = next(d for d in after if d.code == "RL201")
    respell = next(a for a in await _actions(client, path, typo) if a.title.startswith("Replace"))
    assert respell.title == "Replace `h1000` with `h100`"
    assert _edited(fixed, respell, path) == fixed.replace("h1000:", "h100:")

    suppress = next(
        a for a in await _actions(client, path, typo) if a.title.startswith("Suppress RL201")
    )
    quiet = _edited(fixed, suppress, path)
    assert "    h1000: verified  # recipelint: disable=RL201\n" in quiet
    assert "RL201" not in {d.code for d in await _replace(client, path, quiet, 3)}


# ---------------------------------------------------------------- robustness


HOSTILE = {
    "nesting": "a: " + "[" * 5000 + "]" * 5000 + "\n",
    "aliases": "a: &a [x, x, x, x, x, x, x, x, x]\n"
    + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join(['*' + chr(97 + i)] * 9)}]\n" for i in range(8)
    ),
    "binary": "\x00\x01\x02 garbage: [\n\t\t- :\n",
    "long line": "meta:\n  title: " + "x" * 500_000 + "\n",
    "oversized": "meta:\n" + "  # padding\n" * 120_000,
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
async def test_a_hostile_buffer_is_a_finding_and_the_server_keeps_answering(
    client: LanguageClient, tree: Path, name: str
) -> None:
    path = _recipe_copy(tree, "hostile-" + name.replace(" ", "-"))
    text = HOSTILE[name]
    found = await _open(client, path, text)
    assert found, "a hostile buffer gets a finding"
    for line in range(min(text.count("\n") + 1, 3)):
        await client.text_document_hover_async(
            types.HoverParams(types.TextDocumentIdentifier(path_uri(path)), types.Position(line, 3))
        )
        await client.text_document_completion_async(
            types.CompletionParams(
                types.TextDocumentIdentifier(path_uri(path)), types.Position(line, 3)
            )
        )
    # Still alive and still right about an ordinary recipe.
    good = _recipe_copy(tree, "after-" + name.replace(" ", "-"))
    assert await _open(client, good, good.read_text(encoding="utf-8")) == []
