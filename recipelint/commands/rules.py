"""`recipelint rules` lists the rulebook; `recipelint explain CODE` (or `rule CODE`,
ruff's verb) prints one entry.

The text comes from :mod:`recipelint.rulebook.docs`; this module only wires the options.
"""

from __future__ import annotations

import json

import click

from recipelint.commands.options import format_option
from recipelint.rulebook.catalog import find_rule, load_rulebook
from recipelint.rulebook.docs import explain_text, reference_markdown, rule_record


@click.command("rules")
@format_option(
    ["text", "json", "markdown"],
    "json: an array of {code, name, severity, summary, fixable, url}; "
    "markdown: the rules page (docs/rules.md).",
)
def rules_command(output_format: str = "text") -> None:
    """List every rule: code, default severity, name and summary ([fix]: --fix repairs it)."""
    catalog = load_rulebook().values()
    if output_format == "json":
        click.echo(
            json.dumps([rule_record(info) for info in catalog], indent=2, ensure_ascii=False)
        )
        return
    if output_format == "markdown":
        click.echo(reference_markdown(list(catalog)), nl=False)
        return
    for info in catalog:
        fix = " [fix]" if info.autofix else ""
        click.echo(f"{info.code}  {str(info.severity):<7}  {info.name}{fix}: {info.summary}")


@click.command("explain")
@click.argument("code")
def explain_command(code: str) -> None:
    """Explain one rule, with a failing and a passing example."""
    _explain(code)


@click.command("rule")
@click.argument("code")
def rule_command(code: str) -> None:
    """Explain one rule, as `explain` does (ruff's name for it)."""
    _explain(code)


def _explain(code: str) -> None:
    info = find_rule(code)
    if info is None:
        raise click.UsageError(f"no rule {code!r}; `recipelint rules` lists them")
    click.echo(explain_text(info), nl=False)
