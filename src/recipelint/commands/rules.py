"""`recipelint rules` lists the catalog; `recipelint explain CODE` prints one entry."""

from __future__ import annotations

import json

import click

from recipelint.catalog import RuleInfo, find_rule, load_catalog, rule_url


def rule_record(info: RuleInfo) -> dict[str, object]:
    """The catalog entry tools need (editors, dashboards, SARIF consumers)."""
    return {"code": info.code, "name": info.name, "severity": str(info.severity), "summary": info.summary,
            "fixable": info.autofix, "url": rule_url(info.code)}


@click.command("rules")
@click.option("--format", "output_format", type=click.Choice(["text", "json"]), default="text",
              show_default=True, help="json: an array of {code, name, severity, summary, fixable, url}.")
def rules_command(output_format: str = "text") -> None:
    """List every rule: code, default severity, name and summary ([fix]: --fix repairs it)."""
    catalog = load_catalog().values()
    if output_format == "json":
        click.echo(json.dumps([rule_record(info) for info in catalog], indent=2, ensure_ascii=False))
        return
    for info in catalog:
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
