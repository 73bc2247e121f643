"""`recipelint flags ...`: build and query the per-release `vllm serve` flag catalogs."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import click

from recipelint.commands.options import catalog_build_options
from recipelint.exitcodes import EXIT_USAGE
from recipelint.flags.catalogfiles import FlagCatalogFile
from recipelint.flags.serialize import dump_json


@click.group("flags")
def flags_group() -> None:
    """Per-release catalogs of `vllm serve` flags (see docs/flags.md)."""


@flags_group.command("extract")
@click.argument("source", type=click.Path(path_type=Path))
@click.option(
    "-o",
    "--output",
    type=click.Path(path_type=Path),
    required=True,
    help="Where to write the catalog JSON (e.g. rules/vllm/vllm-0.17.0.json).",
)
@click.option(
    "--with-vllm",
    type=click.Path(path_type=Path),
    default=None,
    help="For a vllm-omni release: the vLLM wheel/folder it runs on (omni extends vLLM's parser).",
)
def extract_command(source: Path, output: Path, with_vllm: Path | None) -> None:
    """Read a vLLM or vllm-omni wheel (or unpacked source folder) and write its catalog."""
    from recipelint.flags.extract import extract_catalog
    from recipelint.flags.source import SourceError
    from recipelint.progress import Progress

    try:
        # Reading a wheel's parser modules takes seconds: say so on a terminal.
        with Progress(f"reading the `vllm serve` flags of {source}"):
            catalog = extract_catalog(source, with_vllm)
    except SourceError as exc:
        click.echo(f"recipelint flags extract: {exc}", err=True)
        raise SystemExit(EXIT_USAGE) from None
    _write(output, catalog)
    click.echo(
        f"{catalog['package']} {catalog['version']}: {len(catalog['flags'])} flags -> {output}"
    )


class _FlagArgumentCommand(click.Command):
    """A command whose one argument is a flag name: `flags show --moe-backend` needs no `--`.

    Click reads any token starting with a dash as an option and refuses the ones it does
    not know. Here every token that is not one of the command's own options (with its
    value) is moved behind a `--`, so it reaches the argument as written. A flag spelled
    like one of the command's own options (`--version`) still needs the `--`.
    """

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        own = {
            name: param
            for param in self.get_params(ctx)
            if isinstance(param, click.Option)
            for name in (*param.opts, *param.secondary_opts)
        }
        options: list[str] = []
        positional: list[str] = []
        index = 0
        while index < len(args):
            token = args[index]
            index += 1
            if token == "--":
                positional += args[index:]
                break
            param = own.get(token.split("=", 1)[0])
            if param is None:
                positional.append(token)
                continue
            options.append(token)
            if "=" not in token and not param.is_flag and not param.count and index < len(args):
                options.append(args[index])  # the option's value, even if it starts with a dash
                index += 1
        return super().parse_args(ctx, [*options, "--", *positional] if positional else options)


@flags_group.command("history", cls=_FlagArgumentCommand)
@click.argument("catalogs", nargs=-1, required=True)
@click.option(
    "-o",
    "--output",
    type=click.Path(path_type=Path),
    default=None,
    help="Rebuild mode: where to write the history JSON (e.g. rules/vllm/vllm-history.json).",
)
@click.option("--package", default="vllm", show_default=True, help="vllm or vllm-omni.")
def history_command(catalogs: tuple[str, ...], output: Path | None, package: str) -> None:
    """A flag's life across releases (`flags history --enable-chunked-prefill`), or, with
    -o, rebuild the first/last-release history file from catalog files of one package."""
    if output is None:
        if len(catalogs) != 1:
            click.echo("recipelint flags history: give one FLAG, or catalogs and -o", err=True)
            raise SystemExit(EXIT_USAGE)
        _print_life(catalogs[0], package)
        return
    from recipelint.flags.history import build_history

    loaded: list[FlagCatalogFile] = []
    for name in catalogs:
        path = Path(name)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            data["flags"], data["version"], data["package"]  # noqa: B018 - shape check
        except (OSError, ValueError, KeyError, TypeError) as exc:
            click.echo(f"recipelint flags history: {path}: not a flag catalog ({exc})", err=True)
            raise SystemExit(EXIT_USAGE) from None
        loaded.append(data)
    if not loaded or len({c["package"] for c in loaded}) != 1:
        click.echo("recipelint flags history: give catalogs of exactly one package", err=True)
        raise SystemExit(EXIT_USAGE)
    history = build_history(loaded)
    _write(output, history)
    click.echo(f"{history['package']}: {len(history['releases'])} releases -> {output}")


def _print_key_life(canonical: str, path: tuple[str, ...], package: str) -> None:
    from recipelint.flags.support import json_key_life

    eras = json_key_life(canonical, path, package)
    click.echo(f"{canonical}.{'.'.join(path)} in {package} {eras[0].first} .. {eras[-1].last}:")
    for era in eras:
        span = era.first if era.first == era.last else f"{era.first} .. {era.last}"
        click.echo(f"  {span}: {era.reading}")


def _print_life(option: str, package: str) -> None:
    from recipelint.flags.catalog import closest_flags, newest_catalog
    from recipelint.flags.support import flag_life

    if package not in ("vllm", "vllm-omni"):
        click.echo(f"recipelint flags history: unknown package {package!r}", err=True)
        raise SystemExit(EXIT_USAGE)
    newest = newest_catalog(package)
    found = newest.lookup(option)
    canonical = found.canonical or option
    if found.json_path:
        _print_key_life(canonical, found.json_path, package)
        return
    eras = flag_life(canonical, package)
    if all(era.reading == "not accepted" for era in eras):
        hint = closest_flags(newest, option)
        click.echo(
            f"{option}: accepted by no catalogued {package} release"
            + (f" (did you mean {', '.join(hint)}?)" if hint else "")
        )
        raise SystemExit(1)
    click.echo(f"{canonical} in {package} {eras[0].first} .. {eras[-1].last}:")
    for era in eras:
        span = era.first if era.first == era.last else f"{era.first} .. {era.last}"
        click.echo(f"  {span}: {era.reading}")


@flags_group.command("show", cls=_FlagArgumentCommand)
@click.argument("option")
@click.option("--version", "version", default=None, help="vLLM release (default: newest catalog).")
@click.option("--package", default="vllm", show_default=True, help="vllm or vllm-omni.")
def show_command(option: str, version: str | None, package: str) -> None:
    """How a release's `serve` reads OPTION (e.g. --tensor_parallel_size, -cc.mode=3).

    OPTION is written as on the command line, dashes and all; only a flag spelled like
    one of this command's own options needs a `--` before it (`flags show -- --version`).
    """
    from recipelint.flags.catalog import catalog_for, closest_flags, flag_span, newest_catalog

    catalog = catalog_for(version, package) if version else newest_catalog(package)
    if catalog is None:
        click.echo(f"no {package} catalog at or below {version}", err=True)
        raise SystemExit(EXIT_USAGE)
    found = catalog.lookup(option)
    if not found.known:
        hint = closest_flags(catalog, option) or list(found.candidates)
        click.echo(
            f"{option}: not accepted by {package} {catalog.version}"
            + (f" (did you mean {', '.join(hint)}?)" if hint else "")
        )
        return
    assert found.canonical is not None
    spec = catalog.flags[found.canonical]
    span = flag_span(found.canonical, package)
    click.echo(f"{option} -> {found.canonical} via {found.via} in {package} {catalog.version}")
    if span:
        click.echo(f"  releases: {span[0]} .. {span[1]}")
    click.echo(
        "  "
        + json.dumps(
            {k: v for k, v in spec.__dict__.items() if v not in (None, (), False)}, default=list
        )
    )


@flags_group.command("hardware")
@click.argument("sources", nargs=-1, required=True, type=click.Path(path_type=Path))
@catalog_build_options("vllm-hardware.json")
def hardware_command(sources: tuple[Path, ...], output: Path, add_to: Path | None) -> None:
    """Read vLLM releases and write which platforms run each attention backend and
    quantization method (one catalog for all of them)."""
    from recipelint.commands.env import kept_tables
    from recipelint.flags.hardware import build_hardware_catalog, extract_hardware
    from recipelint.flags.source import SourceError

    kept = kept_tables(add_to, "entries", "recipelint flags hardware") if add_to else []
    tables: list[dict[str, Any]] = []
    for source in sources:
        try:
            tables.append(extract_hardware(source))
        except SourceError as exc:
            click.echo(f"recipelint flags hardware: {exc}", err=True)
            raise SystemExit(EXIT_USAGE) from None
    by_version = {t["version"]: t for t in [*kept, *tables]}
    catalog = build_hardware_catalog(list(by_version.values()))
    _write(output, catalog)
    click.echo(
        f"vllm: {len(catalog['releases'])} releases, {len(catalog['entries'])} entries -> {output}"
    )


@flags_group.command("update")
@click.option(
    "--catalog-dir",
    type=click.Path(path_type=Path, file_okay=False),
    default=Path("rules/vllm"),
    show_default=True,
    help="The folder of committed vLLM catalogs (in a recipelint checkout).",
)
@click.option(
    "--index-url",
    default=None,
    help="A package index's simple API (default: PyPI). Its JSON form (PEP 691) is read.",
)
@click.option("--dry-run", is_flag=True, help="List the new releases; download and write nothing.")
def update_command(catalog_dir: Path, index_url: str | None, dry_run: bool) -> None:
    """Find vLLM releases newer than the catalogs on the package index and add their serve,
    environment and hardware catalogs (and the history) in one go."""
    import tempfile

    from recipelint.flags.source import SourceError
    from recipelint.flags.update import (
        DEFAULT_INDEX,
        UpdateError,
        download_source,
        index_releases,
        newer_releases,
        read_releases,
        write_catalogs,
    )

    known = tuple(
        p.name[len("vllm-") : -len(".json")] for p in catalog_dir.glob("vllm-[0-9]*.json")
    )
    if not known:
        click.echo(f"recipelint flags update: no vllm-<release>.json in {catalog_dir}", err=True)
        raise SystemExit(EXIT_USAGE)
    try:
        new = newer_releases(index_releases("vllm", index_url or DEFAULT_INDEX), known)
        if not new or dry_run:
            names = ", ".join(found.version for found in new) or "none"
            click.echo(f"vllm releases newer than the catalogs: {names}")
            return
        with tempfile.TemporaryDirectory(prefix="recipelint-vllm-") as folder:
            sources = {}
            for found in new:
                click.echo(f"reading vllm {found.version} ({found.filename})", err=True)
                sources[found.version] = download_source(found, Path(folder))
            files = read_releases(catalog_dir, sources)
        write_catalogs(files)
    except (UpdateError, SourceError) as exc:
        click.echo(f"recipelint flags update: {exc}", err=True)
        raise SystemExit(EXIT_USAGE) from None
    except OSError as exc:
        click.echo(f"recipelint flags update: cannot write the catalogs: {exc}", err=True)
        raise SystemExit(EXIT_USAGE) from None
    for path in sorted(files.texts):
        click.echo(f"wrote {path}")


def _write(output: Path, data: Mapping[str, object]) -> None:
    try:
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_text(dump_json(data), encoding="utf-8")
    except OSError as exc:
        click.echo(f"recipelint flags: cannot write {output}: {exc}", err=True)
        raise SystemExit(EXIT_USAGE) from None
