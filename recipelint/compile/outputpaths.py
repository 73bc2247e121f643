"""Output paths: which are safe to write, and which a compile leaves, with upstream's semantics.

Upstream writes as it goes, `rm -rf`s a rendered variant's folder first and lets a later
write replace an earlier one. :class:`PathLedger` replays those operations on paths alone
(with the tree file that wrote each), so the check and the compile find the same overwrites,
file-versus-folder conflicts and refused paths without holding a single document.
"""

from __future__ import annotations

import re

_BAD_SEGMENT = re.compile(r"(?:^|/)(?:\.{1,2})?(?:/|$)")
_CONTROL = re.compile(r"[\x00-\x1f]")
# The longest file or folder name the usual file systems take (NAME_MAX), in bytes.
NAME_MAX = 255
# A segment this many characters long has at most NAME_MAX bytes (4 per character).
_SHORT = NAME_MAX // 4
# A segment that may be longer than NAME_MAX bytes; its absence is one C-level search.
_LONG_SEGMENT = re.compile(f"[^/]{{{_SHORT + 1},}}")


def unsafe_path_reason(path: object) -> str | None:
    """Why a data-derived output path (an hf id) could leave, or clobber, the output folder,
    or cannot be made in it (a name longer than file systems take)."""
    if type(path) is str and _plainly_safe(path):
        return None
    if not isinstance(path, str) or not path:
        return "it is empty"
    if "\x00" in path:
        return "it contains a NUL character"
    if "\\" in path:
        return "it contains a backslash"
    if path.startswith("/"):
        return "it is an absolute path"
    if _BAD_SEGMENT.search(path):
        return "it has an empty, '.' or '..' path segment"
    if _CONTROL.search(path):
        return "it contains a control character"
    longest = _longest_segment(path)
    if longest > NAME_MAX:
        return (
            f"a path segment is {longest} bytes long, more than the {NAME_MAX} a file name may have"
        )
    return None


def _longest_segment(path: str) -> int:
    return max(len(part.encode("utf-8", "surrogatepass")) for part in path.split("/"))


def _plainly_safe(path: str) -> bool:
    """The common case in a few C-level string tests: printable (so no control character),
    no backslash, no empty segment, and no segment starting with a dot (so no '.' or '..').
    Anything else takes the careful checks above."""
    return (
        path.isprintable()
        and path[:1] not in ("", "/", ".")
        and path[-1] != "/"
        and "\\" not in path
        and "//" not in path
        and "/." not in path
        and _LONG_SEGMENT.search(path) is None
    )


def folder_key(path: str) -> str:
    """The first two segments of a path (all of it when it has fewer): a recipe's folder."""
    first = path.find("/")
    second = path.find("/", first + 1) if first != -1 else -1
    return path if second == -1 else path[:second]


# What PathLedger.write did with a path.
REFUSED = 0
NEW = 1
REWRITTEN = 2


class PathLedger:
    """The paths upstream would leave in its output folder, each with the tree file that wrote it."""

    def __init__(self) -> None:
        self.origins: dict[str, str] = {}
        # Paths by their folder key, so `rm -rf org/model` looks at that recipe's files only.
        self._by_folder: dict[str, set[str]] = {}
        self.overwritten: list[tuple[str, str, str]] = []  # path, earlier origin, later origin
        self.refused: list[tuple[str, str, str]] = []  # path, reason, origin
        # Folders and file names of paths found plainly safe (see _checked).
        self._safe_folders: set[str] = set()
        self._safe_names: set[str] = set()

    def write(self, path: str, origin: str) -> int:
        """Record a write: NEW, REWRITTEN (the path was already there), or REFUSED (falsy;
        nothing is recorded). Every path of the output passes here, so this is where it is
        checked; the writer trusts the paths a ledger accepted."""
        # The last line of defence for every data-derived path (hardware ids are taxonomy keys).
        parent, slash, name = path.rpartition("/") if type(path) is str else ("", "", "")
        # (a path with no slash is its name; `/name` has an empty folder, never a safe one)
        known = name in self._safe_names and (not slash or parent in self._safe_folders)
        if not known and not self._checked(path, origin):
            return REFUSED
        earlier = self.origins.get(path)
        if earlier is not None and earlier != origin:
            self.overwritten.append((path, earlier, origin))
        self.origins[path] = origin
        # folder_key, inline: this runs for every file of a compile
        first = path.find("/")
        second = path.find("/", first + 1) if first != -1 else -1
        key = path if second == -1 else path[:second]
        bucket = self._by_folder.get(key)
        if bucket is None:
            self._by_folder[key] = {path}
        else:
            bucket.add(path)
        return NEW if earlier is None else REWRITTEN

    def _checked(self, path: str, origin: str) -> bool:
        """Whether ``path`` is safe (else it is refused); a plainly safe one's folder and
        name are remembered. A path joined from a folder and a name that were each part of
        plainly safe paths is plainly safe too (each test is about a segment or a boundary
        between segments), so the compile's 130,000 paths on a 10x tree, of a few thousand
        folders and names, are mostly checked by two set lookups."""
        if type(path) is str and _plainly_safe(path):
            parent, _, name = path.rpartition("/")
            self._safe_names.add(name)
            if parent:
                self._safe_folders.add(parent)
            return True
        reason = unsafe_path_reason(path)
        if reason is not None:
            self.refused.append((path, reason, origin))
            return False
        return True

    def remove_tree(self, base: str) -> list[str]:
        """`rm -rf <base>`: forget the file or folder at base and everything below; the paths."""
        prefix = base + "/"
        # A one-segment base spans every folder under it; a deeper one lies in one folder
        # (a recipe's `org/model`, the common case, must not scan every folder: that made
        # compile and check quadratic in the number of recipes).
        keys = (
            [k for k in self._by_folder if k == base or k.startswith(prefix)]
            if "/" not in base
            else [folder_key(base)]
        )
        removed: list[str] = []
        for found in keys:
            bucket = self._by_folder.get(found)
            if not bucket:
                continue
            doomed = [p for p in bucket if p == base or p.startswith(prefix)]
            for path in doomed:
                bucket.discard(path)
                del self.origins[path]
            removed.extend(doomed)
        return removed

    def __contains__(self, path: object) -> bool:
        return path in self.origins

    def __len__(self) -> int:
        return len(self.origins)

    def conflicts(self) -> list[str]:
        """Paths that are a file and also a folder holding other files (mkdir would fail)."""
        files = self.origins
        folders: set[str] = set()
        for path in files:
            parent = path.rpartition("/")[0]
            while parent and parent not in folders:
                folders.add(parent)
                parent = parent.rpartition("/")[0]
        if folders.isdisjoint(files):
            return []
        clashes = []
        for path in files:
            cut = path.find("/")
            while cut != -1:
                if path[:cut] in files:
                    clashes.append(path)
                    break
                cut = path.find("/", cut + 1)
        return sorted(clashes)
