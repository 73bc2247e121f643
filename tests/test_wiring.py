"""How the package is wired: a broken install fails loudly, commands stay lazy, the
exit statuses and --format choices have one definition, library code raises its own
errors and the command line turns them into usage errors."""

from __future__ import annotations

import ast
import json
import pickle
import subprocess
import sys
from pathlib import Path

import click
import pytest

from recipelint import exitcodes
from recipelint.cli import COMMANDS, cli, main
from recipelint.lazy import BrokenInstallError, import_own

PACKAGE = Path(__file__).resolve().parent.parent / "recipelint"
assert PACKAGE.is_dir(), PACKAGE
RECIPE = (
    Path(__file__).resolve().parent.parent
    / "recipes"
    / "models"
    / "Qwen"
    / "Qwen2.5-7B-Instruct.yaml"
)


def _missing(monkeypatch: pytest.MonkeyPatch, module: str) -> None:
    """Make `module` unimportable, as a packaging mistake that left its file out would."""
    monkeypatch.setitem(sys.modules, module, None)  # import raises ModuleNotFoundError(name=module)


# ---------------------------------------------------------------- a broken install fails loudly


def test_import_own_names_the_missing_module(monkeypatch: pytest.MonkeyPatch) -> None:
    _missing(monkeypatch, "recipelint.rules.guide")
    with pytest.raises(BrokenInstallError) as raised:
        import_own("recipelint.rules.guide")
    assert raised.value.missing == "recipelint.rules.guide"
    assert "recipelint.rules.guide" in str(raised.value)


def test_broken_install_error_survives_pickling() -> None:
    """It may be raised in a helper process and re-raised in the parent."""
    error = pickle.loads(pickle.dumps(BrokenInstallError("yaml", "recipelint.read.load")))
    assert (error.missing, error.wanted) == ("yaml", "recipelint.read.load")
    assert "yaml" in str(error) and "recipelint.read.load" in str(error)


def test_a_missing_rule_family_is_an_internal_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from recipelint.rules import registered_checks

    _missing(monkeypatch, "recipelint.rules.guide")
    with pytest.raises(BrokenInstallError, match=r"recipelint\.rules\.guide"):
        registered_checks()
    assert main(["check", str(RECIPE)]) == exitcodes.EXIT_INTERNAL == 2
    err = capsys.readouterr().err
    assert "internal error" in err and "recipelint.rules.guide" in err


def test_a_missing_schema_stage_is_an_internal_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from recipelint.check.engine import _schema_problems
    from recipelint.read.configfile import NO_OVERLAY

    _missing(monkeypatch, "recipelint.schema.check")
    with pytest.raises(BrokenInstallError, match=r"recipelint\.schema\.check"):
        _schema_problems([], NO_OVERLAY)
    assert main(["check", str(RECIPE)]) == 2
    err = capsys.readouterr().err
    assert "internal error" in err and "recipelint.schema" in err


def test_a_missing_command_module_is_an_internal_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _missing(monkeypatch, "recipelint.commands.summary")
    assert "summary" in cli.list_commands(click.Context(cli))  # listed, not hidden
    with pytest.raises(BrokenInstallError):
        cli.get_command(click.Context(cli), "summary")
    assert main(["summary", str(RECIPE)]) == 2
    err = capsys.readouterr().err
    assert "internal error" in err and "recipelint.commands.summary" in err
    # The other commands still run.
    assert main(["explain", "RL201"]) == 0


def test_a_missing_dependency_of_a_command_is_an_internal_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delitem(sys.modules, "recipelint.commands.diff", raising=False)
    _missing(monkeypatch, "recipelint.report.sides")
    assert main(["diff", ".", "."]) == 2
    err = capsys.readouterr().err
    assert "recipelint.report.sides" in err and "recipelint.commands.diff" in err


def test_an_unknown_command_is_still_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["no-such-command"]) == exitcodes.EXIT_USAGE
    assert "No such command" in capsys.readouterr().err


def test_every_command_module_is_importable() -> None:
    for name, (target, _) in COMMANDS.items():
        module, attribute = target.split(":")
        assert isinstance(getattr(import_own(module), attribute), click.Command), name


def test_each_summary_in_the_command_table_is_the_commands_own_short_help() -> None:
    for name, (_, summary) in COMMANDS.items():
        command = cli.get_command(click.Context(cli), name)
        assert command is not None
        assert command.get_short_help_str(limit=10**6) == summary, name


# ---------------------------------------------------------------- commands stay lazy


def _modules_after(*argv: str) -> set[str]:
    code = (
        "import json, sys\nfrom recipelint.cli import main\n"
        f"main({list(argv)!r})\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith('recipelint'))))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=True
    )
    return set(json.loads(done.stdout.strip().splitlines()[-1]))


def test_checking_one_file_imports_no_other_command() -> None:
    loaded = _modules_after("check", "--quiet", str(RECIPE))
    assert "recipelint.commands.check" in loaded
    others = {target.split(":")[0] for target, _ in COMMANDS.values()} - {
        "recipelint.commands.check"
    }
    assert not loaded & others
    assert not loaded & {
        "recipelint.report.sides",
        "recipelint.report.jobsummary",
        "recipelint.report.diffing",
        "recipelint.flags.extract",
        "recipelint.compile.emit",
        "recipelint.compile.cache",
    }


def test_help_and_version_import_no_command_module() -> None:
    for argv in (("--help",), ("--version",)):
        loaded = _modules_after(*argv)
        assert not {m for m in loaded if m.startswith("recipelint.commands")}, argv
        assert not loaded & {
            "recipelint.check.engine",
            "recipelint.check.checking",
            "recipelint.read.load",
        }, argv


def test_listing_the_rules_imports_neither_engine_nor_compiler() -> None:
    loaded = _modules_after("rules", "--format", "json")
    assert not loaded & {
        "recipelint.check.engine",
        "recipelint.compile.compiler",
        "recipelint.schema.check",
    }


# ---------------------------------------------------------------- defined once


def _assigned_names(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                for leaf in ast.walk(target):
                    if isinstance(leaf, ast.Name):
                        names.add(leaf.id)
    return names


def test_exit_statuses_are_defined_only_in_exitcodes() -> None:
    defining = sorted(
        path.relative_to(PACKAGE).as_posix()
        for path in PACKAGE.rglob("*.py")
        if {"EXIT_OK", "EXIT_FINDINGS", "EXIT_USAGE"} & _assigned_names(path)
    )
    assert defining == ["exitcodes.py"]
    assert (exitcodes.EXIT_OK, exitcodes.EXIT_FINDINGS, exitcodes.EXIT_USAGE) == (0, 1, 2)


def test_format_choices_of_check_and_compile_are_the_formatters() -> None:
    from recipelint.report.formats import FORMATS, FORMATTERS

    assert ("text", *FORMATTERS) == FORMATS
    for name in ("check", "compile"):
        command = cli.get_command(click.Context(cli), name)
        option = next(p for p in command.params if p.name == "output_format")
        assert tuple(option.type.choices) == FORMATS, name


def test_library_modules_do_not_import_click() -> None:
    """Only the command layer (cli.py, commands/) speaks click."""
    allowed = {"cli.py"}
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel in allowed or rel.startswith("commands/"):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            modules = (
                [alias.name for alias in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            if any(m == "click" or m.startswith("click.") for m in modules):
                offenders.append(rel)
    assert offenders == []


def test_summary_is_a_command_module_over_a_library_module() -> None:
    from recipelint.report import jobsummary

    assert COMMANDS["summary"][0].startswith("recipelint.commands.summary:")
    assert not (PACKAGE / "summary.py").exists()
    assert "click" not in jobsummary.__dict__


def test_a_side_that_is_no_tree_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from contextlib import ExitStack

    from recipelint.report.sides import SideError, resolve_side

    with ExitStack() as stack, pytest.raises(SideError, match="not a recipe tree"):
        resolve_side(str(tmp_path), None, stack, tmp_path)
    assert main(["diff", str(tmp_path), str(tmp_path)]) == exitcodes.EXIT_USAGE
    assert "not a recipe tree" in capsys.readouterr().err
