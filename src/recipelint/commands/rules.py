"""`recipelint rules` lists the catalog; `recipelint explain CODE` prints one entry."""

from __future__ import annotations

import click

from recipelint.catalog import RuleInfo, find_rule, load_catalog


@click.command("rules")
def rules_command() -> None:
    """List every rule: code, default severity, name and summary."""
    for info in load_catalog().values():
        fix = " [fix]" if info.autofix else ""
        click.echo(f"{info.code}  {str(info.severity):<7}  {info.name}{fix}: {info.summary}")


def explain_text(info: RuleInfo) -> str:
    parts = [f"{info.code} {info.name} ({info.severity}){'  [autofix]' if info.autofix else ''}",
             "", info.summary]
    if info.rationale:
        parts += ["", "Why:", info.rationale]
    if info.fix:
        parts += ["", "Fix:", info.fix]
    for title, examples in (("Fails", info.failing), ("Passes", info.passing)):
        for example in examples:
            parts += ["", f"{title} ({example.path}):", *("    " + l for l in example.content.rstrip().splitlines())]
    return "\n".join(parts) + "\n"


@click.command("explain")
@click.argument("code")
def explain_command(code: str) -> None:
    """Explain one rule, with a failing and a passing example."""
    info = find_rule(code)
    if info is None:
        raise click.UsageError(f"no rule {code!r}; `recipelint rules` lists them")
    click.echo(explain_text(info), nl=False)
