"""Where a compiled tree came from: the `source` block that ends each recipe JSON.

The facts come from the git checkout holding the tree, read through
:mod:`recipelint.read.revision` (the package's one git helper), or from the compile's options.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from recipelint.read.revision import describe_checkout


@dataclass(frozen=True)
class Provenance:
    """Where the recipes came from; each recipe JSON then ends with a `source` block."""

    source: str
    repo: str
    ref: str
    sha: str
    repo_root: Path  # paths in the block are relative to this folder

    def block(self, recipe_file: Path) -> dict[str, Any]:
        try:
            rel = recipe_file.resolve().relative_to(self.repo_root.resolve()).as_posix()
        except ValueError:
            rel = recipe_file.name
        return {
            "source": self.source,
            "repo": self.repo,
            "ref": self.ref,
            "sha": self.sha,
            "path": rel,
            "edit_url": f"https://github.com/{self.repo}/edit/{self.ref}/{rel}",
            "overlays": [],
        }


def git_provenance(
    folder: Path,
    name: str | None = None,
    repo: str | None = None,
    ref: str | None = None,
    sha: str | None = None,
) -> Provenance | None:
    """Fill the source block from the git checkout holding ``folder``; None outside git."""
    checkout = describe_checkout(folder, repo, ref, sha)
    if checkout is None:
        return None
    return Provenance(
        name or checkout.repo.split("/")[-1],
        checkout.repo,
        checkout.ref,
        checkout.sha,
        checkout.top,
    )
