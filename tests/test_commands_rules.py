"""`recipelint rules`, `explain` and its alias `rule`, through the real CLI."""

from __future__ import annotations

from click.testing import CliRunner, Result

from recipelint.cli import cli


def run(*args: str, env: dict[str, str] | None = None) -> Result:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False, env=env)


def test_rule_is_explain_under_ruffs_name() -> None:
    explained = run("explain", "RL002")
    aliased = run("rule", "rl002")
    assert aliased.exit_code == explained.exit_code == 0
    assert aliased.stdout == explained.stdout
    assert aliased.stdout.startswith("RL002 duplicate-key")


def test_rule_with_an_unknown_code_is_a_usage_error() -> None:
    done = run("rule", "RL000")
    assert done.exit_code == 2
    assert "no rule 'RL000'" in done.stderr


def test_rule_is_listed_in_the_help() -> None:
    assert "rule " in run("--help").stdout
