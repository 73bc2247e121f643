"""A check imports only what runs: with the check cache warm, an unchanged file's check
imports neither the schema stage, the rendering machinery, nor a rule family whose
findings came from the cache; a `--select` leaves the other families unimported; the
language server and the compile machinery are never imported."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from treehelp import python_in

WATCHED = (
    "recipelint.rules.",
    "recipelint.schema",
    "recipelint.compile.publication",
    "recipelint.lsp",
    "recipelint.compile.compilation",
    "recipelint.compile.emit",
    "jsonschema",
)
FAMILIES_LEFT_BY_RL30 = (
    "recipelint.rules.guide",
    "recipelint.rules.versions",
    "recipelint.rules.security",
    "recipelint.rules.references",
)


@pytest.fixture
def tree(embedded_tree: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "tree"
    shutil.copytree(embedded_tree, copy)
    return copy


def _imported(tree: Path, *args: str) -> set[str]:
    """The watched modules a `recipelint check` run (in a fresh process) imported."""
    code = (
        "import json, sys\nfrom recipelint.cli import main\n"
        "try:\n"
        f"    main(['check', '-q', '-j', '1', *{list(args)!r}])\n"
        "except SystemExit:\n    pass\n"
        f"print(json.dumps(sorted(m for m in sys.modules if m.startswith({WATCHED!r}))))"
    )
    env = {k: v for k, v in os.environ.items() if k != "RECIPELINT_NO_CACHE"}
    env["XDG_CACHE_HOME"] = str(tree.parent / "user-cache")
    done = python_in(tree, ["-c", code], env)
    modules: list[str] = json.loads(done.stdout.strip().splitlines()[-1])
    return set(modules)


def _recipe(tree: Path) -> str:
    return str(sorted((tree / "models").rglob("*.yaml"))[0].relative_to(tree))


def test_a_warm_check_of_an_unchanged_file_imports_no_stage_it_takes_from_the_cache(
    tree: Path,
) -> None:
    recipe = _recipe(tree)
    cold = _imported(tree, recipe)
    assert {"recipelint.schema.check", "recipelint.compile.publication"} <= cold
    assert "recipelint.rules.guide" in cold
    warm = _imported(tree, recipe)
    assert not warm & {"recipelint.schema.check", "recipelint.compile.publication", "jsonschema"}
    # Only the family of the one check that reads other recipes (duplicate slugs) runs again.
    assert not {m for m in warm if m.startswith("recipelint.rules.")} - {
        "recipelint.rules.common",
        "recipelint.rules.context",
        "recipelint.rules.registry",
        "recipelint.rules.references",
    }


def test_a_select_leaves_the_other_families_unimported(tree: Path) -> None:
    recipe = _recipe(tree)
    _imported(tree, recipe)  # the cache learns which module reports which codes
    edited = tree / recipe
    edited.write_text(edited.read_text(encoding="utf-8") + "# an edit\n", encoding="utf-8")
    selected = _imported(tree, "--select", "RL30", recipe)
    assert "recipelint.rules.args" in selected
    assert not selected & set(FAMILIES_LEFT_BY_RL30)


def test_a_check_never_imports_the_language_server_or_the_compile(tree: Path) -> None:
    for args in ([_recipe(tree)], ["--no-cache", "."], ["."]):
        imported = _imported(tree, *args)
        assert not {
            m for m in imported if m.startswith(("recipelint.lsp", "recipelint.compile.emit"))
        }
        assert "recipelint.compile.compilation" not in imported


def test_the_schema_stage_words_errors_and_checks_dates_without_jsonschema(
    embedded_tree: Path,
) -> None:
    # The compiled validator answers "valid?", lists an invalid document's errors and
    # checks its dates: jsonschema stays unimported (recipelint.schema.errors, .formats).
    code = (
        "import sys\nfrom pathlib import Path\n"
        "from recipelint.read.load import load_document\n"
        "from recipelint.read.configfile import NO_OVERLAY\n"
        "from recipelint.schema.check import validate_document\n"
        "path = Path('strategies/single_node_tp.yaml')\n"
        "doc = load_document(path, path.as_posix(), 'strategy')\n"
        "assert validate_document(doc, NO_OVERLAY) == []\n"
        "doc.data['deploy_type'] = 7\n"
        "doc.data['unknown_key'] = True\n"
        "codes = sorted(d.code for d in validate_document(doc, NO_OVERLAY))\n"
        "recipe = sorted(Path('models').rglob('*.yaml'))[0]\n"
        "doc = load_document(recipe, recipe.as_posix(), 'recipe')\n"
        "doc.data['meta']['date_added'] = '0000-01-01'\n"
        "codes += [d.code for d in validate_document(doc, NO_OVERLAY)]\n"
        "print(sorted(set(codes)), 'jsonschema' in sys.modules)"
    )
    done = python_in(embedded_tree, ["-c", code], os.environ)
    assert done.stdout.strip().splitlines()[-1:] == ["['RL101', 'RL104', 'RL106'] False"], (
        done.stderr
    )


def test_a_warm_check_of_an_edited_valid_recipe_does_not_import_jsonschema(tree: Path) -> None:
    recipe = _recipe(tree)
    _imported(tree, ".")
    edited = tree / recipe
    edited.write_text(edited.read_text(encoding="utf-8") + "# an edit\n", encoding="utf-8")
    imported = _imported(tree, ".")
    assert "recipelint.schema.check" in imported
    assert "jsonschema" not in imported
