"""`recipelint diff BASE HEAD`: the resolved vllm commands that a change alters.

Each side is a folder (a recipe tree, or a folder inside one) or a git revision of
the repository the command runs in. A revision's tree is extracted with
`git archive` into a temporary folder; git is run with argument lists only, and a
revision name is checked with `git rev-parse --verify --end-of-options`, so a
name can neither reach a shell nor be read as an option.
"""

from __future__ import annotations

import subprocess
import tarfile
import tempfile
from contextlib import ExitStack
from pathlib import Path, PurePosixPath
from typing import Any

import click

from recipelint.tree import find_tree_root

EXIT_OK, EXIT_CHANGED = 0, 1
GIT_TIMEOUT = 120


def _git(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(
            ["git", *args],
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=GIT_TIMEOUT,
            check=False,
        )
    except FileNotFoundError:
        raise click.UsageError("git is not installed, so only folders can be compared") from None
    except subprocess.TimeoutExpired:
        raise click.ClickException(f"git {args[0]} did not finish in {GIT_TIMEOUT} s") from None


def repository_top(cwd: Path) -> Path | None:
    done = _git(["rev-parse", "--show-toplevel"], cwd)
    return Path(done.stdout.strip()).resolve() if done.returncode == 0 else None


def resolve_commit(spec: str, top: Path) -> str | None:
    """The commit a revision name means, or None when it names none."""
    if not spec or spec.startswith("-"):
        return None
    done = _git(["rev-parse", "--verify", "--quiet", "--end-of-options", f"{spec}^{{commit}}"], top)
    sha = done.stdout.strip()
    return sha if done.returncode == 0 and sha else None


def default_tree_path(top: Path, cwd: Path) -> str:
    """Where the recipe tree lives in the repository: the one around `cwd`, else the
    repository root when it is a tree, else `recipes`."""
    here = find_tree_root(cwd)
    if here is not None:
        here = here.resolve()
        if here == top or top in here.parents:
            return here.relative_to(top).as_posix()
    return "." if (top / "taxonomy.yaml").is_file() else "recipes"


def default_tree_path_for(cwd: Path) -> str:
    top = repository_top(cwd)
    return default_tree_path(top, cwd.resolve()) if top is not None else "."


def extract_tree(sha: str, top: Path, tree_path: str, destination: Path) -> Path:
    """Write the revision's files under `tree_path` to `destination`; return the tree folder.

    A revision without that folder gives an empty folder: every rendering of the
    other side then shows as added or removed.
    """
    pathspec = [] if tree_path in ("", ".") else ["--", tree_path]
    probe = _git(
        ["ls-tree", "-d", "--name-only", sha, *(["--", tree_path] if pathspec else [])], top
    )
    tree = destination / tree_path
    if probe.returncode != 0 or (pathspec and not probe.stdout.strip()):
        tree.mkdir(parents=True, exist_ok=True)
        return tree
    with subprocess.Popen(
        ["git", "archive", "--format=tar", sha, *pathspec],
        cwd=top,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    ) as process:
        assert process.stdout is not None
        with tarfile.open(fileobj=process.stdout, mode="r|") as archive:
            _extract_all(archive, destination)
        error = process.stderr.read().decode("utf-8", "replace") if process.stderr else ""
    if process.returncode != 0:
        raise click.ClickException(f"git archive {sha[:12]} failed: {error.strip()}")
    tree.mkdir(parents=True, exist_ok=True)
    return tree


def _extract_all(archive: tarfile.TarFile, destination: Path) -> None:
    if hasattr(tarfile, "data_filter"):
        # refuses absolute names, links leaving the folder, devices
        archive.extractall(destination, filter="data")
        return
    for member in archive:  # Python < 3.11.4: keep plain files and folders only
        inside = (
            not PurePosixPath(member.name).is_absolute()
            and ".." not in PurePosixPath(member.name).parts
        )
        if inside and (member.isfile() or member.isdir()):
            archive.extract(member, destination)


def resolve_side(spec: str, tree_path: str | None, stack: ExitStack, cwd: Path) -> Path:
    """A folder's tree root, or a revision extracted into a temporary folder."""
    folder = Path(spec)
    if folder.is_dir():
        root = find_tree_root(folder)
        if root is None:
            raise click.UsageError(
                f"{spec} is a folder but not a recipe tree "
                "(no folder above it holds taxonomy.yaml and models/)"
            )
        return root
    top = repository_top(cwd)
    if top is None:
        raise click.UsageError(f"{spec!r} is not a folder, and {cwd} is not in a git repository")
    sha = resolve_commit(spec, top)
    if sha is None:
        raise click.UsageError(
            f"{spec!r} is neither a folder nor a revision of the repository at {top}"
        )
    where = tree_path if tree_path is not None else default_tree_path(top, cwd.resolve())
    if PurePosixPath(where).is_absolute() or ".." in PurePosixPath(where).parts:
        raise click.UsageError(f"--tree {where!r} must be a relative path inside the repository")
    temporary = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="recipelint-diff-")))
    return extract_tree(sha, top, where, temporary)


def compiled_documents(root: Path, label: str) -> dict[str, Any]:
    from recipelint.compiler import compile_tree
    from recipelint.diagnostics import Severity

    result = compile_tree(root)
    errors = sum(1 for d in result.diagnostics if d.severity is Severity.ERROR)
    if errors:
        click.echo(
            f"recipelint diff: {label}: {errors} compile error{'s' if errors != 1 else ''}; "
            "renderings that failed are missing from that side",
            err=True,
        )
    return {path: result.files.document(path) for path in result.files.paths()}


@click.command("diff")
@click.argument("base")
@click.argument("head")
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["text", "markdown", "json"]),
    default="text",
    show_default=True,
    help="Output format.",
)
@click.option(
    "--tree",
    "tree_path",
    metavar="PATH",
    help="Where the recipe tree is inside the repository, for revision sides "
    "(default: the tree around the current folder, else the repository root "
    "when it is one, else recipes).",
)
@click.option("--exit-code", is_flag=True, help="Exit 1 when any command changed.")
@click.pass_context
def diff_command(
    ctx: click.Context,
    base: str,
    head: str,
    output_format: str,
    tree_path: str | None,
    exit_code: bool,
) -> None:
    """Show how the resolved vllm commands differ between BASE and HEAD.

    BASE and HEAD are each a recipe-tree folder or a git revision of the current
    repository (a name that is an existing folder is read as the folder). For every
    recipe x variant x hardware x strategy rendering whose command changed, prints
    the flags and environment variables added, removed or changed, then the
    renderings that appeared or disappeared.
    """
    from recipelint.diffing import FORMATTERS, diff_renderings

    cwd = Path.cwd()
    with ExitStack() as stack:
        old_root = resolve_side(base, tree_path, stack, cwd)
        new_root = resolve_side(head, tree_path, stack, cwd)
        if not any((root / "taxonomy.yaml").is_file() for root in (old_root, new_root)):
            # One side without the tree is a tree being added or removed; both is a wrong --tree.
            raise click.UsageError(
                f"neither {base!r} nor {head!r} holds a recipe tree at "
                f"{tree_path or default_tree_path_for(cwd)!r}; say where it is with --tree"
            )
        old = compiled_documents(old_root, base)
        new = compiled_documents(new_root, head)
    result = diff_renderings(old, new)
    click.echo(FORMATTERS[output_format](result), nl=False)
    ctx.exit(EXIT_CHANGED if exit_code and result else EXIT_OK)
