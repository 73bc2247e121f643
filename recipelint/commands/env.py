"""`recipelint env ...`: the environment variables each vLLM release reads (docs/flags.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from recipelint.commands.options import catalog_build_options, format_option
from recipelint.exitcodes import EXIT_USAGE
from recipelint.flags.serialize import dump_json


@click.group("env")
def env_group() -> None:
    """Environment variables vLLM reads, per release (see docs/flags.md)."""


@env_group.command("show")
@click.argument("name")
@format_option(["text", "json"])
def show_command(name: str, output_format: str) -> None:
    """A variable's life across releases: when it is read, its type and default."""
    from recipelint.flags.env_catalog import closest_env_names, env_eras

    eras = env_eras(name)
    if not eras:
        hint = closest_env_names(name)
        click.echo(
            f"{name}: read by no catalogued vLLM release"
            + (f" (did you mean {', '.join(hint)}?)" if hint else "")
        )
        raise SystemExit(1)
    if output_format == "json":
        rows = [
            {k: v for k, v in era.__dict__.items() if v not in (None, (), False)} for era in eras
        ]
        click.echo(json.dumps(rows, indent=2, default=list))
        return
    click.echo(f"{name}: read by vLLM {eras[0].first} .. {eras[-1].last}")
    for era in eras:
        span = era.first if era.first == era.last else f"{era.first} .. {era.last}"
        click.echo(f"  {span}: {era.describe()}; {_default_text(era.default, era.default_expr)}")
        if era.source == "read":
            click.echo("    (read directly by a module, not declared in vllm/envs.py)")


def _default_text(default: str | None, expr: str | None) -> str:
    if expr is not None:
        return f"default {expr}"
    return "unset by default" if default is None else f"default {default!r}"


@env_group.command("list")
@click.option("--release", default=None, help="vLLM release (default: every catalogued one).")
def list_command(release: str | None) -> None:
    """Every variable a release reads (exact or closest lower catalogued release)."""
    from recipelint.flags.catalog import version_key
    from recipelint.flags.env_catalog import covered_release, env_names, env_spec

    if release is not None:
        try:
            version_key(release)
        except ValueError:
            click.echo(f"recipelint env list: {release!r} is not a release version", err=True)
            raise SystemExit(EXIT_USAGE) from None
        if covered_release(release) is None:
            click.echo(
                f"recipelint env list: no catalogued release at or below {release}", err=True
            )
            raise SystemExit(EXIT_USAGE)
    for name in env_names(release):
        spec = env_spec(name, release) if release is not None else None
        click.echo(f"{name}\t{spec.type}" if spec is not None else name)


@env_group.command("extract")
@click.argument("sources", nargs=-1, required=True, type=click.Path(path_type=Path))
@catalog_build_options("vllm-env.json")
def extract_command(sources: tuple[Path, ...], output: Path, add_to: Path | None) -> None:
    """Read vLLM wheels or unpacked releases and write the environment catalog of all of them."""
    from recipelint.flags.envs import build_env_catalog, extract_env
    from recipelint.flags.source import SourceError
    from recipelint.progress import Progress

    kept = kept_tables(add_to, "variables", "recipelint env extract") if add_to else []
    tables: list[dict[str, Any]] = []
    for source in sources:
        try:
            with Progress(f"reading the environment variables of {source}"):
                tables.append(extract_env(source))
        except SourceError as exc:
            click.echo(f"recipelint env extract: {exc}", err=True)
            raise SystemExit(EXIT_USAGE) from None
    # A release read again from its source replaces the kept reading.
    by_version = {t["version"]: t for t in [*kept, *tables]}
    catalog = build_env_catalog(by_version.values())
    try:
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_text(dump_json(catalog), encoding="utf-8")
    except OSError as exc:
        click.echo(f"recipelint env extract: cannot write {output}: {exc}", err=True)
        raise SystemExit(EXIT_USAGE) from None
    click.echo(
        f"vllm: {len(catalog['releases'])} releases, {len(catalog['variables'])} variables -> {output}"
    )


def kept_tables(path: Path, field: str, command: str) -> list[dict[str, Any]]:
    """The per-release tables of an existing folded catalog (what --add-to keeps)."""
    from recipelint.flags.envs import unfold_eras

    try:
        catalog = json.loads(path.read_text(encoding="utf-8"))
        return unfold_eras(catalog, field)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        click.echo(f"{command}: {path}: not a catalog to add to ({exc})", err=True)
        raise SystemExit(EXIT_USAGE) from None
