"""`recipelint schema KIND [--tree PATH]` prints the schema editors validate with; shell completion.

Without --tree the output is the shipped file byte for byte (so its $id is stable and a
copy of it in a tree is recognised as no overlay); with --tree the tree's overlays are
merged in, under an $id of its own.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from catalog_harness import build_context

from recipelint.cli import COMMANDS, main
from recipelint.schema.builtin import SCHEMA_FILES
from recipelint.schema.overlay import tree_overlay
from recipelint.schema.validators import schema_for

PROJECT_ROOT = Path(__file__).resolve().parent.parent
FIELD = {"$defs": {"model": {"properties": {"quant_recipe": {"type": "string"}}}}}


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(["schema", *args])
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "tree"
    root.mkdir()
    return build_context(root)


def test_the_command_is_registered() -> None:
    assert COMMANDS["schema"][0] == "recipelint.commands.schema:schema_command"


@pytest.mark.parametrize("kind", list(SCHEMA_FILES))
def test_each_builtin_schema_is_printed_byte_for_byte(
    kind: str, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = _run(capsys, kind)
    assert status == 0
    assert out == (PROJECT_ROOT / "schemas" / SCHEMA_FILES[kind]).read_text(encoding="utf-8")
    assert json.loads(out)["$id"] == f"https://recipelint.dev/schemas/{SCHEMA_FILES[kind]}"


def test_a_tree_without_overlays_gets_the_builtin_schema(
    tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = _run(capsys, "recipe", "--tree", str(tree / "models"))
    assert status == 0 and out == (PROJECT_ROOT / "schemas/recipe.schema.json").read_text(
        encoding="utf-8"
    )


def test_a_trees_overlay_is_merged_in_as_check_validates(
    tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tree / "schemas").mkdir()
    (tree / "schemas/recipe.schema.yaml").write_text(yaml.safe_dump(FIELD), encoding="utf-8")
    status, out, _ = _run(capsys, "recipe", "--tree", str(tree))
    printed = json.loads(out)
    assert status == 0
    assert printed["$defs"]["model"]["properties"]["quant_recipe"] == {"type": "string"}
    merged = schema_for("recipe", tree_overlay(tree).patches["recipe"])
    assert {k: v for k, v in printed.items() if k != "$id"} == {
        k: v for k, v in merged.items() if k != "$id"
    }
    assert printed["$id"].startswith("https://recipelint.dev/schemas/recipe.schema.json?overlay=")
    status, again, _ = _run(capsys, "recipe", "--tree", str(tree))
    assert again == out  # the same overlays, the same $id
    # Other kinds are untouched.
    assert json.loads(_run(capsys, "strategy", "--tree", str(tree))[1]) == schema_for("strategy")


def test_the_merged_schema_written_back_as_an_overlay_is_refused_not_silently_used(
    tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tree / "schemas").mkdir()
    (tree / "schemas/recipe.schema.yaml").write_text(yaml.safe_dump(FIELD), encoding="utf-8")
    out = _run(capsys, "recipe", "--tree", str(tree))[1]
    (tree / "schemas/recipe.schema.yaml").unlink()
    (tree / "schemas/recipe.schema.json").write_text(out, encoding="utf-8")
    assert "RL108" in {d.code for d in tree_overlay(tree).problems}


def test_the_config_overlay_and_an_explicit_config(
    tree: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    explicit = tmp_path / "c.toml"
    explicit.write_text(
        '[schema.recipe."$defs".model.properties.quant_recipe]\ntype = "string"\n', encoding="utf-8"
    )
    out = _run(capsys, "recipe", "--tree", str(tree), "--config", str(explicit))[1]
    assert "quant_recipe" in json.loads(out)["$defs"]["model"]["properties"]
    status, _, err = _run(
        capsys, "recipe", "--tree", str(tree), "--config", str(tmp_path / "nope.toml")
    )
    assert status == 2 and "nope.toml" in err
    status, _, err = _run(capsys, "recipe", "--config", str(explicit))
    assert status == 2 and "--tree" in err


def test_a_broken_overlay_is_reported_with_its_place(
    tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tree / "schemas").mkdir()
    (tree / "schemas/recipe.schema.yaml").write_text(
        "additionalProperties: true\n", encoding="utf-8"
    )
    status, out, err = _run(capsys, "recipe", "--tree", str(tree))
    assert status == 1 and out == ""
    assert "recipe.schema.yaml:1:" in err and "RL108" in err


@pytest.mark.parametrize("args", [["bogus"], [], ["recipe", "--tree", "/"]])
def test_bad_usage_exits_2(args: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = _run(capsys, *args)
    assert status == 2 and out == ""


# ----------------------------------------------------------------------------- shell completion


def _entry_point() -> list[str]:
    """The installed `recipelint` script, else the same entry point through the interpreter."""
    script = Path(sys.executable).parent / "recipelint"
    if script.is_file():
        return [str(script)]
    return [sys.executable, "-c", "from recipelint.cli import run; run()"]


def _complete(shell_mode: str, **env: str) -> subprocess.CompletedProcess[str]:
    command = _entry_point()
    environment = {**os.environ, "_RECIPELINT_COMPLETE": shell_mode, **env}
    return subprocess.run(
        command, env=environment, capture_output=True, text=True, timeout=60, check=False
    )


def test_bash_completion_script_is_a_bash_function() -> None:
    done = _complete("bash_source")
    assert done.returncode == 0, done.stderr
    assert "_recipelint_completion() {" in done.stdout
    assert "complete -o nosort -F _recipelint_completion recipelint" in done.stdout


@pytest.mark.parametrize(
    ("mode", "marker"),
    [("zsh_source", "#compdef recipelint"), ("fish_source", "function _recipelint_completion")],
)
def test_zsh_and_fish_completion_scripts(mode: str, marker: str) -> None:
    done = _complete(mode)
    assert done.returncode == 0 and marker in done.stdout


def test_completion_lists_the_lazily_loaded_commands_and_choices() -> None:
    done = _complete("bash_complete", COMP_WORDS="recipelint sch", COMP_CWORD="1")
    assert done.stdout.split() == ["plain,schema"]
    done = _complete("bash_complete", COMP_WORDS="recipelint schema k", COMP_CWORD="2")
    assert done.stdout.split() == ["plain,kv_store"]
