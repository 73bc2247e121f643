"""Where a command's report goes: standard output, or the file of --output-file.

Shared by the commands; the formatters that make the text live in :mod:`recipelint.report.formats`.
"""

from __future__ import annotations

from pathlib import Path

import click

from recipelint.atomicfile import write_atomic


def write_report(text: str, output_file: Path | None) -> None:
    """The report on stdout, or in ``output_file`` (--output-file) as UTF-8.

    The file is written whole after the run, under a temporary name renamed into place,
    so a failed run or a full disk leaves no half report (an earlier report stays); a path
    that cannot be written is a usage error, never a traceback.
    """
    if output_file is None:
        # color=True: --color already decided; click would strip our codes off a terminal,
        # and recipe text reaches this point with its own escapes removed (strip_controls).
        click.echo(text, nl=False, color=True)
        return
    try:
        output_file.parent.mkdir(parents=True, exist_ok=True)
        # "replace": a message holding a lone surrogate must not abort the report.
        write_atomic(output_file, text.encode("utf-8", errors="replace"))
    except OSError as exc:
        raise click.UsageError(
            f"cannot write --output-file {output_file}: {exc.strerror or exc}"
        ) from None
