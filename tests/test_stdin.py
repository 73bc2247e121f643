"""One document from memory checked as a file of its tree (`check --stdin-filename PATH`).

An editor sends its unsaved buffer: the rest of the tree is read from disk, the buffer
replaces the file at PATH (which may not exist yet), and findings name PATH.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from treehelp import BlockYaml, base_recipe, build_tree, stdin_check, write_documents

from recipelint.check.checking import CheckOptions, run_check
from recipelint.cli import cli
from recipelint.diagnostics import display_path
from recipelint.read.tree import load_tree
from recipelint.report.formats import format_text

RECIPE = "models/acme/demo.yaml"


def _text(**model: object) -> str:
    recipe = base_recipe()
    recipe["model"].update(model)
    return BlockYaml(recipe).text


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    return build_tree(tmp_path / "tree", {RECIPE: _text()})


def test_a_new_recipe_is_checked_where_it_will_be_written(tree: Path) -> None:
    path = tree / "models/acme/new-model.yaml"
    result = stdin_check(path, _text(quant="x"))
    assert not path.exists()  # nothing is written
    assert result.files == 1
    assert [(d.path, d.code) for d in result.diagnostics if d.code == "RL101"] == [
        (path.resolve(), "RL101")
    ]
    assert {d.path for d in result.diagnostics} == {path.resolve()}


def test_the_buffer_replaces_the_file_on_disk(tree: Path) -> None:
    path = tree / RECIPE
    assert not [
        d for d in run_check([path], CheckOptions()).diagnostics if d.code.startswith("RL1")
    ]
    result = stdin_check(path, _text(context_length="long"))
    assert [d.code for d in result.diagnostics if d.code.startswith("RL1")] == ["RL102"]
    assert result.sources[path.resolve()] == _text(context_length="long")
    assert path.read_text(encoding="utf-8") == _text()


def test_the_rest_of_the_tree_is_context_from_disk(tree: Path) -> None:
    recipe = base_recipe()
    recipe["compatible_strategies"] = ["no_such_strategy"]
    result = stdin_check(tree / "models/acme/other.yaml", BlockYaml(recipe).text)
    assert any(
        d.code.startswith("RL2") for d in result.diagnostics
    )  # a reference checked against strategies/
    # The recipe on disk is context only: its findings, if any, are not reported.
    assert {d.path.name for d in result.diagnostics} == {"other.yaml"}


def test_the_named_paths_are_ignored_with_stdin(tree: Path) -> None:
    result = stdin_check(tree / "models/acme/new.yaml", "meta: [\n", paths=[tree])
    assert [(d.path.name, d.code) for d in result.diagnostics] == [("new.yaml", "RL001")]


def test_findings_print_with_the_path_as_given(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tree)
    result = stdin_check(Path("models/acme/new.yaml"), "meta: [\n")
    [diag] = result.diagnostics
    assert display_path(diag.path) == "models/acme/new.yaml"
    assert format_text(result.diagnostics).startswith("models/acme/new.yaml:")


def test_bytes_are_decoded_as_a_file_is(tree: Path) -> None:
    path = tree / "models/acme/new.yaml"
    [diag] = stdin_check(path, b"meta:\n  title: \xff\n").diagnostics
    assert (diag.code, diag.path) == ("RL004", path.resolve())
    assert [d.code for d in stdin_check(path, b"\x00").diagnostics] == ["RL004"]
    # A byte-order mark is dropped, as from a file.
    assert not stdin_check(tree / RECIPE, ("\ufeff" + _text()).encode("utf-8")).diagnostics
    assert not stdin_check(tree / RECIPE, "\ufeff" + _text()).diagnostics


def test_the_size_limit_applies_to_the_buffer(tree: Path) -> None:
    write_documents(tree, {".recipelint.toml": "[limits]\nmax-file-bytes = 64\n"})
    path = tree / "models/acme/new.yaml"
    result = stdin_check(path, _text())
    # (The context files are over the limit too, and a context that cannot load is reported.)
    assert [d.code for d in result.diagnostics if d.path == path.resolve()] == ["RL003"]


def test_other_kinds_of_file(tree: Path) -> None:
    strategy = tree / "strategies" / "zz_new.yaml"
    result = stdin_check(strategy, "name: [\n")
    assert [(d.path, d.code) for d in result.diagnostics] == [(strategy.resolve(), "RL001")]
    taxonomy = tree / "taxonomy.yaml"
    result = stdin_check(taxonomy, "hardware_profiles: 3\n")
    assert result.diagnostics and {d.path for d in result.diagnostics} == {taxonomy.resolve()}


def test_a_recipe_directly_under_models_is_rl014_as_on_disk(tree: Path) -> None:
    path = tree / "models" / "loose.yaml"
    assert [d.code for d in stdin_check(path, _text()).diagnostics] == ["RL014"]


def test_a_path_outside_any_tree_is_reported_as_outside(tmp_path: Path) -> None:
    result = stdin_check(tmp_path / "nowhere" / "x.yaml", _text())
    assert result.outside == [tmp_path / "nowhere" / "x.yaml"] and not result.diagnostics


def test_a_new_document_takes_its_place_in_reading_order(tree: Path, tmp_path: Path) -> None:
    """Compile order is upstream's readdir order: a file from memory goes where it would on disk."""
    more = (
        "models/zeta/b.yaml",
        "models/acme/a.yaml",
        "models/acme/z.yaml",
        "models/acme/sub/k.yaml",
    )
    write_documents(tree, dict.fromkeys(more, _text()))
    for rel in (
        "models/acme/m.yaml",
        "models/acme/sub.yaml",
        "models/b/x.yml",
        "models/zzz/q.yaml",
        "models/acme/sub/a.yaml",
        "strategies/a_first.yaml",
        "kv_store/zz.yaml",
    ):
        on_disk = tmp_path / "copy"
        shutil.rmtree(on_disk, ignore_errors=True)
        shutil.copytree(tree, on_disk)
        write_documents(on_disk, {rel: "meta: {}\n"})
        expected = load_tree(on_disk)
        got = load_tree(tree, override=(tree / rel, "meta: {}\n"))
        for attribute in ("recipes", "strategies", "kv_stores"):
            assert [d.rel for d in getattr(got, attribute)] == [
                d.rel for d in getattr(expected, attribute)
            ], rel
        [doc] = [d for d in got.documents() if d.rel == rel]
        assert doc.text == "meta: {}\n" and doc.path == tree / rel


def test_a_file_of_no_kind_the_tree_reads_is_not_added(tree: Path) -> None:
    for rel in ("strategies/sub/x.yaml", "strategies/x.yml", "README.yaml", "models/acme/x.txt"):
        loaded = load_tree(tree, override=(tree / rel, "meta: {}\n"))
        assert rel not in [d.rel for d in loaded.documents()]


def test_without_an_override_the_tree_is_unchanged(tree: Path) -> None:
    plain, overridden = load_tree(tree), load_tree(tree, override=None)
    assert [(d.rel, d.text) for d in plain.documents()] == [
        (d.rel, d.text) for d in overridden.documents()
    ]


# ---------------------------------------------------------------- through the command line


def _cli(*args: str, stdin: str = "") -> Result:
    return CliRunner().invoke(cli, list(args), input=stdin, catch_exceptions=False)


def test_dash_beside_stdin_filename_reads_standard_input(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tree)
    done = _cli("check", "--stdin-filename", RECIPE, "-", stdin=_text(context_length="long"))
    assert done.exit_code == 1, done.output
    assert done.stdout.startswith(f"{RECIPE}:") and "RL102" in done.stdout
    assert "warning" not in done.stderr


def test_dash_alone_places_a_recipe_where_its_model_id_says(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tree)
    done = _cli("check", "-", stdin=_text(model_id="acme/other-8B", context_length="long"))
    assert done.exit_code == 1, done.output
    assert done.stdout.startswith("models/acme/other-8B.yaml:") and "RL102" in done.stdout
    assert not (tree / "models/acme/other-8B.yaml").exists()  # nothing is written


def test_dash_alone_places_a_strategy_by_its_name_and_deploy_type(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tree / "models")  # the tree is found from the current folder up
    strategy = (tree / "strategies/single_node_tp.yaml").read_text()
    done = _cli(
        "check",
        "-",
        stdin=strategy.replace("deploy_type:", "deploy_typ:", 1) + "deploy_type: single_node\n",
    )
    assert "strategies/single_node_tp.yaml:" in done.stdout, done.output


def test_dash_alone_without_a_place_asks_where_the_document_belongs(
    tree: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tree)
    done = _cli("check", "-", stdin="meta: {title: x}\n")
    assert done.exit_code == 2
    assert "names no place" in done.stderr and "--stdin-filename" in done.stderr
    monkeypatch.chdir(tmp_path)  # outside every tree
    done = _cli("check", "-", stdin=_text())
    assert done.exit_code == 2 and "no recipe tree holds the current folder" in done.stderr


def test_other_paths_beside_stdin_filename_are_ignored_with_a_warning(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tree)
    done = _cli("check", "--stdin-filename", RECIPE, "models", "-", stdin="meta: [\n")
    assert done.exit_code == 1
    assert [line.split(" ")[1] for line in done.stdout.splitlines()] == ["RL001"]
    assert "ignoring models in favour of standard input" in done.stderr
    assert "ignoring -" not in done.stderr
