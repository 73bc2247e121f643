"""Where recipelint's own data lives: the rule catalog (`rules/`) and the JSON Schemas (`schemas/`).

Both folders sit at the top level of the checkout, beside the package, where authors look for
them; a wheel ships them inside the package as `recipelint._catalog` and `recipelint._schemas`.
Every reader asks here, so a checkout (tests run with the work tree first on `sys.path`) and an
install read the same files through one path.
"""

from __future__ import annotations

import functools
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

_CHECKOUT_FOLDERS = {"recipelint._catalog": "rules", "recipelint._schemas": "schemas"}
RULE_CATALOG = "recipelint._catalog"
SCHEMAS = "recipelint._schemas"


@functools.cache
def data_folder(package: str) -> Traversable:
    """The folder holding `package`'s data: installed package data, else the checkout's folder."""
    try:
        return resources.files(package)
    except ModuleNotFoundError:
        checkout = Path(__file__).resolve().parent.parent / _CHECKOUT_FOLDERS[package]
        if not checkout.is_dir():
            raise
        return checkout
