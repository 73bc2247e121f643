"""Configuration discovery (ruff's rule), --config FILE, and where each setting came from.

A recipe tree is often a folder (recipes/) of a repository whose pyproject.toml holds
[tool.recipelint]: the nearest configuration from the tree root up to the repository
root applies, with its paths still relative to the tree root.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
import yaml
from treehelp import BlockYaml, base_recipe, build_tree, write_documents, write_file

from recipelint.check.checking import (
    CheckError,
    CheckOptions,
    run_check,
    show_settings,
    tree_config,
)
from recipelint.configuration.config import Config, describe_settings, load_config, settings
from recipelint.read.configfile import ConfigError, ConfigFileError, discover_config_file

RECIPE = "models/acme/demo.yaml"
LEGACY = "models/legacy/old.yaml"
BAD_DATES = {
    "date_added": "2026-01-12",
    "date_updated": "2026-01-10",
}  # RL553: updated before added


def _recipe(meta: dict[str, str] | None = None, **model: object) -> BlockYaml:
    """The base recipe with ``meta`` and ``model`` fields changed."""
    recipe = base_recipe()
    recipe["meta"].update(meta or {})
    recipe["model"].update(model)
    return BlockYaml(recipe)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository (a .git folder) holding a recipe tree in recipes/."""
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    build_tree(tmp_path / "repo" / "recipes", {RECIPE: _recipe()})
    return tmp_path / "repo"


def _codes(root: Path, options: CheckOptions = CheckOptions()) -> list[tuple[str, str]]:
    return [
        (d.path.relative_to(root).as_posix(), d.code)
        for d in run_check([root], options).diagnostics
    ]


# ----------------------------------------------------------------------------- discovery


def test_the_repository_pyproject_configures_a_tree_in_a_subfolder(repo: Path) -> None:
    pyproject = write_file(
        repo / "pyproject.toml", '[project]\nname = "x"\n\n[tool.recipelint]\nignore = ["RL6"]\n'
    )
    config = load_config(repo / "recipes")
    assert config.ignore == ("RL6",) and config.source == pyproject
    assert config.origin("ignore") == str(pyproject) and config.origin("select") == "default"


def test_a_pyproject_without_a_recipelint_table_is_passed_over(repo: Path) -> None:
    write_file(repo / "recipes" / "pyproject.toml", "[tool.ruff]\nline-length = 100\n")
    write_file(repo / "pyproject.toml", '[tool.recipelint]\nignore = ["RL4"]\n')
    assert load_config(repo / "recipes").ignore == ("RL4",)


def test_the_nearest_configuration_wins_and_recipelint_toml_before_pyproject(repo: Path) -> None:
    write_file(repo / "pyproject.toml", '[tool.recipelint]\nignore = ["RL4"]\n')
    write_file(repo / "recipes" / "pyproject.toml", '[tool.recipelint]\nignore = ["RL5"]\n')
    assert load_config(repo / "recipes").ignore == ("RL5",)
    write_file(repo / "recipes" / ".recipelint.toml", 'ignore = ["RL6"]\n')
    assert load_config(repo / "recipes").ignore == ("RL6",)


def test_discovery_stops_at_the_repository_root(tmp_path: Path, repo: Path) -> None:
    write_file(
        tmp_path / "pyproject.toml", '[tool.recipelint]\nignore = ["RL4"]\n'
    )  # outside the repository
    assert discover_config_file(repo / "recipes") is None
    assert load_config(repo / "recipes") == Config()
    (repo / ".git").rmdir()  # no repository: the walk goes on up
    assert load_config(repo / "recipes").ignore == ("RL4",)


def test_a_worktree_git_file_marks_the_repository_root_too(tmp_path: Path, repo: Path) -> None:
    (repo / ".git").rmdir()
    write_file(repo / ".git", "gitdir: /elsewhere/.git/worktrees/repo\n")
    write_file(tmp_path / "pyproject.toml", '[tool.recipelint]\nignore = ["RL4"]\n')
    assert load_config(repo / "recipes") == Config()


def test_paths_in_a_repository_config_stay_relative_to_the_tree_root(repo: Path) -> None:
    tree = repo / "recipes"
    write_documents(tree, {LEGACY: _recipe(BAD_DATES)})
    write_file(
        repo / "pyproject.toml",
        '[tool.recipelint.per-file-ignores]\n"models/legacy/*.yaml" = ["RL553"]\n',
    )
    assert ("models/legacy/old.yaml", "RL553") not in _codes(tree)
    # A schema overlay file named there is read from the tree root too.
    write_documents(tree, {RECIPE: _recipe(quant_recipe="nvfp4")})
    assert (RECIPE, "RL101") in _codes(tree)
    overlay = {"$defs": {"model": {"properties": {"quant_recipe": {"type": "string"}}}}}
    write_file(tree / "extra" / "recipe.yaml", yaml.safe_dump(overlay))
    write_file(repo / "pyproject.toml", '[tool.recipelint.schema]\nrecipe = "extra/recipe.yaml"\n')
    assert (RECIPE, "RL101") not in _codes(tree)


def test_a_problem_in_a_repository_config_is_rl016_at_its_line(repo: Path) -> None:
    pyproject = write_file(
        repo / "pyproject.toml", '[project]\nname = "x"\n[tool.recipelint]\nselect = ["RL1O1"]\n'
    )
    [diag] = run_check([repo / "recipes"], CheckOptions()).diagnostics
    assert (diag.code, diag.path, diag.span.line) == ("RL016", pyproject, 4)
    write_file(pyproject, "[tool.recipelint\n")
    [diag] = run_check([repo / "recipes"], CheckOptions()).diagnostics
    assert diag.code == "RL016" and "cannot read the configuration" in diag.message


def test_the_embedded_tree_is_not_configured_by_this_projects_pyproject(
    embedded_tree: Path,
) -> None:
    # pyproject.toml above recipes/ is recipelint's own packaging file, without a recipelint table.
    assert load_config(embedded_tree).source is None


# ----------------------------------------------------------------------------- --config FILE


def test_an_explicit_file_replaces_discovery(repo: Path, tmp_path: Path) -> None:
    write_file(repo / "pyproject.toml", '[tool.recipelint]\nignore = ["RL4"]\n')
    explicit = write_file(
        tmp_path / "ci" / "strict.toml", 'ignore = ["RL6"]\n[severity]\nRL553 = "warning"\n'
    )
    config = load_config(repo / "recipes", explicit)
    assert config.ignore == ("RL6",) and config.source == explicit and config.explicit
    assert config.origin("severity") == str(explicit)
    nested = write_file(tmp_path / "ci" / "pyproject.toml", '[tool.recipelint]\nignore = ["RL5"]\n')
    assert tree_config(repo / "recipes", CheckOptions(config_file=nested)).ignore == ("RL5",)


@pytest.mark.parametrize(
    ("name", "text", "fragment"),
    [
        ("missing.toml", None, "does not exist"),
        ("broken.toml", "ignore = [\n", "cannot read the configuration"),
        ("pyproject.toml", "[tool.ruff]\nline-length = 1\n", "has no [tool.recipelint] table"),
        ("shape.toml", "[tool]\nrecipelint = 3\n", "must be a table"),
    ],
)
def test_an_unusable_explicit_file_is_a_usage_error_naming_it(
    repo: Path, tmp_path: Path, name: str, text: str | None, fragment: str
) -> None:
    path = tmp_path / name
    if text is not None:
        write_file(path, text)
    with pytest.raises(CheckError) as caught:
        run_check([repo / "recipes"], CheckOptions(config_file=path))
    assert str(path) in str(caught.value) and fragment in str(caught.value)
    assert str(caught.value).startswith("--config: ")
    with pytest.raises(ConfigFileError):
        load_config(repo / "recipes", path)


def test_a_folder_given_as_the_config_file_is_a_usage_error(repo: Path) -> None:
    with pytest.raises(CheckError, match="is a folder, not a file"):
        run_check([repo / "recipes"], CheckOptions(config_file=repo))


def test_a_bad_setting_in_an_explicit_file_is_rl016_at_its_line(repo: Path, tmp_path: Path) -> None:
    explicit = write_file(tmp_path / "c.toml", '# strict\nignore = ["foo"]\n')
    [diag] = run_check([repo / "recipes"], CheckOptions(config_file=explicit)).diagnostics
    assert (diag.code, diag.path, diag.span.line) == ("RL016", explicit, 2)


def test_the_explicit_files_schema_overlays_apply_and_only_while_it_is_given(
    repo: Path, tmp_path: Path
) -> None:
    tree = repo / "recipes"
    write_documents(tree, {RECIPE: _recipe(quant_recipe="nvfp4")})
    explicit = write_file(
        tmp_path / "overlay.toml",
        '[schema.recipe."$defs".model.properties.quant_recipe]\ntype = "string"\n',
    )
    assert (RECIPE, "RL101") in _codes(tree)
    assert (RECIPE, "RL101") not in _codes(tree, CheckOptions(config_file=explicit))
    assert (RECIPE, "RL101") in _codes(tree)  # discovery again: the explicit file is forgotten


def test_new_from_rev_lends_a_configuration_from_above_the_tree_to_the_base(tmp_path: Path) -> None:
    """The base tree is extracted alone; the overlay in the repository's pyproject must apply
    there too, or a finding already in the base (RL102 on the declared field) would be an
    RL101 at the base and look new in the pull request."""
    repo = tmp_path / "repo"
    tree = repo / "recipes"
    recipe = _recipe(quant_recipe=4)  # the declared field with the wrong type: RL102
    build_tree(tree, {RECIPE: recipe})
    write_file(
        repo / "pyproject.toml",
        '[tool.recipelint.schema.recipe."$defs".model.properties.quant_recipe]\ntype = "string"\n',
    )
    git = [
        "git",
        "-c",
        "user.name=t",
        "-c",
        "user.email=t@example.invalid",
        "-c",
        "commit.gpgsign=false",
    ]
    subprocess.run([*git, "init", "-q", str(repo)], check=True, timeout=60)
    subprocess.run([*git, "add", "-A"], cwd=repo, check=True, timeout=60)
    subprocess.run([*git, "commit", "-q", "-m", "base"], cwd=repo, check=True, timeout=60)
    write_documents(tree, {RECIPE: "# an unrelated edit\n" + recipe.text})
    assert "RL102" in [d.code for d in run_check([tree], CheckOptions()).diagnostics]
    result = run_check([tree], CheckOptions(new_from_rev="HEAD"))
    assert [d.code for d in result.diagnostics if d.code.startswith("RL1")] == []
    assert result.known >= 1


# ----------------------------------------------------------------------------- --show-settings


def test_every_setting_has_a_value_and_an_origin(repo: Path) -> None:
    pyproject = write_file(
        repo / "pyproject.toml",
        '[tool.recipelint]\nignore = ["RL6"]\n[tool.recipelint.limits]\nmax-depth = 50\n'
        '[tool.recipelint.schema.recipe."$defs".model.properties.x]\ntype = "string"\n',
    )
    config = tree_config(repo / "recipes", CheckOptions(select=("RL1",), ignore=("RL301",)))
    found = {s.name: (s.value, s.origin) for s in settings(config)}
    assert found["select"] == (["RL1"], "command line (--select)")
    assert found["ignore"] == (["RL6", "RL301"], f"{pyproject} + command line (--ignore)")
    assert found["limits.max-depth"] == (50, str(pyproject))
    assert found["limits.max-nodes"] == (200000, "default")
    assert found["severity"] == ({}, "default")
    assert found["schema.recipe"][1] == str(pyproject)


def test_describe_settings_prints_the_file_then_each_setting(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(repo)
    write_file(
        repo / "pyproject.toml",
        '[tool.recipelint]\nignore = ["RL6"]\n'
        '[tool.recipelint.per-file-ignores]\n"models/legacy/*.yaml" = ["RL4"]\n',
    )
    text = describe_settings(load_config(repo / "recipes"), repo / "recipes")
    lines = text.splitlines()
    assert lines[:2] == ["Tree root: recipes", "Settings path: pyproject.toml"]
    assert any(
        line.startswith('ignore = ["RL6"]') and line.endswith("# pyproject.toml") for line in lines
    )
    assert any(
        line.startswith('per-file-ignores = { "models/legacy/*.yaml" = ["RL4"] }') for line in lines
    )
    assert any(
        line.startswith("limits.max-renderings = 5000") and line.endswith("# default")
        for line in lines
    )
    assert "relative to the tree root" in text


def test_describe_settings_without_a_file_and_with_an_explicit_one(
    repo: Path, tmp_path: Path
) -> None:
    assert "Settings path: none" in describe_settings(
        load_config(repo / "recipes"), repo / "recipes"
    )
    explicit = write_file(tmp_path / "c.toml", 'select = ["RL1"]\n')
    text = describe_settings(load_config(repo / "recipes", explicit))
    first = text.splitlines()[0]
    assert first.startswith("Settings path: ") and first.endswith("c.toml (--config)")


def test_show_settings_describes_each_tree_and_reports_broken_ones(
    repo: Path, tmp_path: Path
) -> None:
    shown = show_settings([repo / "recipes" / RECIPE], CheckOptions(select=("RL2",)))
    assert shown.diagnostics == [] and 'select = ["RL2"]' in shown.text
    other = build_tree(tmp_path / "other", {".recipelint.toml": "selct = []\n"})
    shown = show_settings([repo / "recipes", other], CheckOptions())
    assert "Tree root:" in shown.text and [d.code for d in shown.diagnostics] == ["RL016"]
    with pytest.raises(CheckError, match="does not exist"):
        show_settings([repo / "recipes"], CheckOptions(config_file=tmp_path / "nope.toml"))


def test_settings_values_print_as_toml(repo: Path, tmp_path: Path) -> None:
    explicit = write_file(
        tmp_path / "c.toml",
        '[severity]\nRL301 = "warning"\n[per-file-ignores]\n"a b/*.yaml" = ["RL4"]\n',
    )
    text = describe_settings(load_config(repo / "recipes", explicit))
    assert 'severity = { RL301 = "warning" }' in text
    assert 'per-file-ignores = { "a b/*.yaml" = ["RL4"] }' in text
    json.dumps(text)  # plain text, nothing unprintable


def test_config_error_is_still_a_config_error(repo: Path, tmp_path: Path) -> None:
    # ConfigFileError is a ConfigError: code that turns configuration problems into RL016 never lets it escape.
    with pytest.raises(ConfigError):
        load_config(repo / "recipes", tmp_path / "missing.toml")


# ----------------------------------------------------------------------------- the click options


def test_the_reusable_options_give_paths_that_need_not_exist(tmp_path: Path) -> None:
    import click
    from click.testing import CliRunner

    from recipelint.commands.options import input_options

    seen: dict[str, object] = {}

    @click.command()
    @input_options
    def command(**given: object) -> None:
        seen.update(given)

    done = CliRunner().invoke(
        command,
        [
            "--config",
            str(tmp_path / "c.toml"),
            "--show-settings",
            "--stdin-filename",
            "models/acme/new.yaml",
        ],
    )
    assert done.exit_code == 0, done.output
    assert seen == {
        "config_file": tmp_path / "c.toml",
        "show_settings": True,
        "stdin_filename": Path("models/acme/new.yaml"),
    }
    CliRunner().invoke(command, [])
    assert seen == {"config_file": None, "show_settings": False, "stdin_filename": None}
