"""`python -m recipelint`: the same command line as the `recipelint` script."""

from recipelint.cli import run

run()
