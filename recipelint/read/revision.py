"""recipelint's one way to run git: a recipe tree as it was at a revision, and the
facts of the checkout a tree is in (for the compile's provenance block).

git is run with argument lists only, and a revision name is checked with
`git rev-parse --verify --end-of-options`, so a name can neither reach a shell nor
be read as an option. Failures raise :class:`RevisionError`; commands turn it into
a usage error.
"""

from __future__ import annotations

import re
import subprocess
import tarfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from recipelint.read.tree import find_tree_root

GIT_TIMEOUT = 120
# What loading and checking a tree reads: extracting only these keeps a repository's
# other content (a site, a compiled JSON API) out of the temporary copy.
TREE_ENTRIES = (
    "taxonomy.yaml",
    "platforms.yaml",
    "models",
    "strategies",
    "kv_store",
    "schemas",
    "pyproject.toml",
    ".recipelint.toml",
)


class RevisionError(Exception):
    """git is missing, failed, or the revision or path does not exist."""


def git(
    args: Sequence[str], cwd: Path, timeout: float = GIT_TIMEOUT
) -> subprocess.CompletedProcess[str]:
    """Run ``git ARGS`` in ``cwd``; the caller reads the return code and output."""
    try:
        return subprocess.run(
            ["git", *args], cwd=cwd, capture_output=True, text=True, timeout=timeout, check=False
        )
    except FileNotFoundError as exc:
        if exc.filename not in (None, "git"):  # the folder, not git, is missing
            raise RevisionError(f"cannot run git in {cwd}: {exc.strerror or exc}") from None
        raise RevisionError("git is not installed") from None
    except subprocess.TimeoutExpired:
        raise RevisionError(f"git {args[0]} did not finish in {timeout:g} s") from None
    except (OSError, subprocess.SubprocessError) as exc:
        raise RevisionError(f"cannot run git in {cwd}: {exc}") from None


def git_output(folder: Path, *args: str, timeout: float = GIT_TIMEOUT) -> str | None:
    """The trimmed output of a git command that succeeded with output; None otherwise,
    and when git cannot run at all."""
    try:
        done = git(args, folder, timeout)
    except RevisionError:
        return None
    return done.stdout.strip() if done.returncode == 0 and done.stdout.strip() else None


def repository_top(cwd: Path) -> Path | None:
    done = git(["rev-parse", "--show-toplevel"], cwd)
    return Path(done.stdout.strip()).resolve() if done.returncode == 0 else None


def resolve_commit(spec: str, top: Path) -> str | None:
    """The commit a revision name means, or None when it names none."""
    if not spec or spec.startswith("-"):
        return None
    done = git(["rev-parse", "--verify", "--quiet", "--end-of-options", f"{spec}^{{commit}}"], top)
    sha = done.stdout.strip()
    return sha if done.returncode == 0 and sha else None


class NotARepository(RevisionError):
    """The folder is in no git repository."""


class UnknownRevision(RevisionError):
    """The name is no commit of the repository."""

    def __init__(self, spec: str, top: Path) -> None:
        super().__init__(f"{spec!r} names no commit of the repository at {top}")
        self.top = top


def locate_commit(spec: str, cwd: Path) -> tuple[Path, str]:
    """The repository around ``cwd`` and the commit ``spec`` names in it."""
    top = repository_top(cwd)
    if top is None:
        raise NotARepository(f"{cwd} is not in a git repository")
    sha = resolve_commit(spec, top)
    if sha is None:
        raise UnknownRevision(spec, top)
    return top, sha


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


def stays_inside(tree_path: str) -> bool:
    """Whether a path relative to the repository's top stays inside it."""
    return not PurePosixPath(tree_path).is_absolute() and ".." not in PurePosixPath(tree_path).parts


def extract_tree(
    sha: str, top: Path, tree_path: str, destination: Path, entries: Sequence[str] | None = None
) -> Path:
    """Write the revision's files under `tree_path` to `destination`; return the tree folder.

    With `entries`, only those names directly under the tree folder are written. A
    revision without the folder gives an empty folder: everything on the other side
    is then new.
    """
    tree = destination / tree_path
    pathspec = _present(sha, top, tree_path, entries)
    if pathspec is None:
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
        raise RevisionError(f"git archive {sha[:12]} failed: {error.strip()}")
    tree.mkdir(parents=True, exist_ok=True)
    return tree


def renamed_files(sha: str, top: Path, tree_path: str) -> dict[str, str]:
    """The files under ``tree_path`` that the working tree has under another name than
    revision ``sha`` (git's rename detection), as tree paths: old -> new."""
    prefix = "" if tree_path in ("", ".") else tree_path.rstrip("/") + "/"
    done = git(
        ["diff", "-M", "--diff-filter=R", "--name-status", "-z", sha, "--", tree_path or "."],
        top,
    )
    if done.returncode != 0:
        return {}
    fields = done.stdout.split("\0")
    renames: dict[str, str] = {}
    for at in range(0, len(fields) - 2, 3):  # "R<score>", old, new
        old, new = fields[at + 1], fields[at + 2]
        if fields[at].startswith("R") and old.startswith(prefix) and new.startswith(prefix):
            renames[old[len(prefix) :]] = new[len(prefix) :]
    return renames


def _present(
    sha: str, top: Path, tree_path: str, entries: Sequence[str] | None
) -> list[str] | None:
    """The pathspec for `git archive`, or None when the revision has nothing to write."""
    prefix = "" if tree_path in ("", ".") else tree_path.rstrip("/") + "/"
    if entries is None:
        if not prefix:
            return []
        probe = git(["ls-tree", "-d", "--name-only", sha, "--", tree_path], top)
        return ["--", tree_path] if probe.returncode == 0 and probe.stdout.strip() else None
    probe = git(["ls-tree", "--name-only", sha, "--", *(prefix + name for name in entries)], top)
    found = probe.stdout.splitlines() if probe.returncode == 0 else []
    return ["--", *found] if found else None


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


# ---------------------------------------------------------------- the checkout a tree is in

# Reading a checkout's facts must not hold a compile up: a git that hangs means "no provenance".
PROVENANCE_TIMEOUT = 10

_GITHUB_REMOTE = re.compile(
    r"^(?:(?:https?|ssh|git)://(?:[^@/]+@)?github\.com(?::\d+)?/|[^@/:]+@github\.com:)"
    r"(?P<owner>[A-Za-z0-9][A-Za-z0-9._-]*)/(?P<name>[A-Za-z0-9._-]+?)(?:\.git)?/?$"
)


def repo_slug(url: str) -> str | None:
    """owner/name of a GitHub remote (https, ssh or scp-style); None for any other remote."""
    found = _GITHUB_REMOTE.match(url.strip())
    return f"{found['owner']}/{found['name']}" if found else None


def checkout_fact(folder: Path, *args: str) -> str | None:
    """One fact of the checkout holding ``folder`` (``rev-parse HEAD``, the origin URL, …),
    or None: outside git, without git, or when git does not answer in PROVENANCE_TIMEOUT."""
    return git_output(folder, *args, timeout=PROVENANCE_TIMEOUT)


@dataclass(frozen=True)
class Checkout:
    """Where a tree's files come from: the checkout's top folder, GitHub repository,
    branch (or commit, when HEAD is detached) and commit."""

    top: Path
    repo: str
    ref: str
    sha: str


def describe_checkout(
    folder: Path, repo: str | None = None, ref: str | None = None, sha: str | None = None
) -> Checkout | None:
    """The checkout holding ``folder``, with ``repo``/``ref``/``sha`` given taking precedence
    over what git says (git is not asked for them then); None outside git, or when any of
    the three stays unknown."""
    top = checkout_fact(folder, "rev-parse", "--show-toplevel")
    if top is None:
        return None
    if not repo:
        url = checkout_fact(folder, "remote", "get-url", "origin")
        repo = repo_slug(url) if url else None
    ref = (
        ref
        or checkout_fact(folder, "symbolic-ref", "--quiet", "--short", "HEAD")
        or checkout_fact(folder, "rev-parse", "HEAD")
    )
    sha = sha or checkout_fact(folder, "rev-parse", "HEAD")
    if not (repo and ref and sha):
        return None
    return Checkout(Path(top), repo, ref, sha)
