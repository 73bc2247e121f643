"""`recipelint lsp`: the language server over standard input and output.

pygls is imported only here, when the command runs, so no other command pays for it.
"""

from __future__ import annotations

import click


@click.command("lsp")
@click.option(
    "--stdio",
    is_flag=True,
    help="Speak over standard input and output (the only transport; editors often pass it).",
)
@click.option(
    "--debounce-ms",
    type=click.IntRange(0, 10_000),
    default=150,
    show_default=True,
    help="Quiet time after an edit before the buffer is checked (0: check every edit).",
)
def lsp_command(stdio: bool, debounce_ms: int) -> None:
    """Serve the Language Server Protocol for recipe trees (diagnostics, hover, completion, …)."""
    from recipelint.lsp.server import serve

    serve(debounce_seconds=debounce_ms / 1000)
