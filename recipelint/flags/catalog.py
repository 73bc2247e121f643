"""Committed flag catalogs: load one per release and answer "does `vllm serve` accept this?".

Catalogs live in the repository's ``rules/vllm/`` folder, shipped as the package
data ``recipelint._catalog`` (subpath ``vllm/``). Nothing here touches the network.

Lookup follows what vLLM's own parser does with a spelling, per release (the
catalog's ``spelling`` block): underscores rewritten to dashes, ``--x=v``,
dotted JSON sub-arguments (``--compilation-config.mode 3``, ``-cc.mode=3``,
``--x.key+ v``), ``-O3`` shorthand, ``--no-x`` / ``--disable-x`` negations and
argparse's unique-prefix abbreviations.
"""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import cache, lru_cache
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Literal, cast

import orjson

from recipelint.flags.catalogfiles import (
    FlagCatalogFile,
    FlagEntry,
    HistoryFile,
    JsonKey,
    Spelling,
)
from recipelint.jsvalue import JsonValue
from recipelint.packagedata import RULE_CATALOG, data_folder

VERSION_RE = re.compile(r"^(\d+)\.(\d+)(?:\.(\d+))?(?:\.(\d+))?(?:\.?post(\d+))?")

Via = Literal["exact", "alias", "negation", "abbreviation"]


@lru_cache(maxsize=4096)  # rules compare the same few dozen versions hundreds of thousands of times
def version_key(version: str) -> tuple[int, ...]:
    """Sortable key for release versions such as 0.9.0.1, 0.8.5.post1, 0.17."""
    match = VERSION_RE.match(version.strip().lstrip("vV"))
    if match is None:
        raise ValueError(f"not a release version: {version!r}")
    major, minor, patch, fourth, post = match.groups()
    return (int(major), int(minor), int(patch or 0), int(fourth or 0), int(post or 0))


# A min_vllm_version or image tag that names no release: the build of the main branch, newer
# than every release (upstream's add-recipe guide writes `min_vllm_version: "nightly"`).
NIGHTLY = "nightly"


def written_release(raw: object) -> str | None:
    """A min_vllm_version as the catalogs read it: the version without its `v`, NIGHTLY for a
    nightly build, None for anything else (a malformed version is the schema stage's)."""
    if not isinstance(raw, str):
        return None
    text = raw.strip().lstrip("vV")
    if text.lower() == NIGHTLY:
        return NIGHTLY
    try:
        version_key(text)
    except ValueError:
        return None
    return text


@dataclass(frozen=True)
class FlagSpec:
    """One canonical flag of one release."""

    name: str
    value: str  # "yes" | "no" | "optional"
    type: str | None = None
    aliases: tuple[str, ...] = ()
    negations: tuple[str, ...] = ()
    choices: tuple[str, ...] | None = None  # hard: argparse rejects anything else
    choices_any_case: bool = False  # the choices are compared lower-cased (`--x TRUE`)
    values: tuple[str, ...] = ()  # soft: known values, others validated later (or by plugins)
    nargs: str | int | None = None
    repeatable: bool = False
    deprecated: bool = False
    deprecation: str | None = None  # the release's own wording, when it gives one
    serve_error: str | None = None  # `vllm serve` rejects the flag before argparse (why)
    json_keys: dict[str, JsonKey] | None = None
    json_extra: str | None = None  # "forbid" or "ignore": what the config does with other keys
    has_default: bool = False  # the catalog records argparse's default (which may be None)
    default: JsonValue = None

    @classmethod
    def from_json(cls, name: str, raw: FlagEntry) -> FlagSpec:
        deprecated = raw.get("deprecated", False)
        return cls(
            name=name,
            value=raw["value"],
            type=raw.get("type"),
            aliases=tuple(raw.get("aliases", ())),
            negations=tuple(raw.get("negations", ())),
            choices=tuple(raw["choices"]) if "choices" in raw else None,
            choices_any_case=bool(raw.get("choices_any_case", False)),
            values=tuple(raw.get("values", ())),
            nargs=raw.get("nargs"),
            repeatable=bool(raw.get("repeatable", False)),
            deprecated=bool(deprecated),
            deprecation=deprecated if isinstance(deprecated, str) else None,
            serve_error=raw.get("serve_error"),
            json_keys=raw.get("json_keys"),
            json_extra=raw.get("json_extra"),
            has_default="default" in raw,
            default=raw.get("default"),
        )


@dataclass(frozen=True)
class Lookup:
    """How a spelled option resolves against one catalog."""

    spelled: str
    canonical: str | None  # None: unknown or ambiguous
    via: Via | None = None
    negated: bool = False
    underscored: bool = False  # the spelling relied on underscore rewriting
    inline_value: str | None = None  # the `v` of `--x=v` (or `-O3`'s level)
    json_path: tuple[str, ...] = ()  # dotted sub-argument keys
    list_append: bool = False  # `--x.key+ v`
    candidates: tuple[str, ...] = ()  # abbreviation matches when ambiguous

    @property
    def known(self) -> bool:
        return self.canonical is not None


class _Flags(Mapping[str, FlagSpec]):
    """A release's flags by canonical name; each FlagSpec is built from its JSON when first read.

    A lint run reads a few flags of a few releases, so building all of them up front
    (several thousand specs over the committed releases) was most of RL35x's time.
    """

    __slots__ = ("_raw", "_built")

    def __init__(self, raw: dict[str, FlagEntry]) -> None:
        self._raw = raw
        self._built: dict[str, FlagSpec] = {}

    def __getitem__(self, name: str) -> FlagSpec:
        spec = self._built.get(name)
        if spec is None:
            spec = self._built[name] = FlagSpec.from_json(name, self._raw[name])
        return spec

    def __contains__(self, name: object) -> bool:
        return name in self._raw

    def __iter__(self) -> Iterator[str]:
        return iter(self._raw)

    def __len__(self) -> int:
        return len(self._raw)

    def __repr__(self) -> str:
        return repr(dict(self))

    def raw_items(self) -> Iterator[tuple[str, FlagEntry]]:
        """Each flag's JSON entry, no FlagSpec built."""
        return iter(self._raw.items())


@dataclass
class Catalog:
    package: str
    version: str
    spelling: Spelling
    flags: _Flags
    _options: dict[str, tuple[str, Via, bool]] = field(default_factory=dict, repr=False)
    # Caches of answers derived from the fields above (not part of a catalog's value).
    _lookups: dict[str, Lookup] = field(default_factory=dict, repr=False, compare=False)
    _shorthand: list[str | None] = field(default_factory=list, repr=False, compare=False)
    # Did-you-mean candidates by (key, cutoff, limit): recipes repeat an unknown option.
    _close: dict[tuple[str, float, int], list[str]] = field(
        default_factory=dict, repr=False, compare=False
    )
    # Verdicts on (flag, value): recipes judged from different minimums share releases.
    _values: dict[tuple[str, str], str] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_json(cls, data: FlagCatalogFile) -> Catalog:
        raw_flags = data["flags"]
        catalog = cls(data["package"], data["version"], data["spelling"], _Flags(raw_flags))
        # Every canonical name is itself (an alias never shadows a name); any other spelling is
        # the first alias or negation that claims it, in flag order, aliases before negations.
        options = catalog._options
        options.update({name: (name, "exact", False) for name in raw_flags})
        for name, raw in raw_flags.items():
            if "aliases" in raw:
                for alias in raw["aliases"]:
                    options.setdefault(alias, (name, "alias", False))
            if "negations" in raw:
                for negation in raw["negations"]:
                    options.setdefault(negation, (name, "negation", True))
        return catalog

    def option_strings(self) -> list[str]:
        """Every option string this release's `serve` accepts literally."""
        return sorted(self._options)

    def close_options(self, key: str, limit: int, cutoff: float) -> list[str]:
        """difflib's closest long options to the option string ``key``, closest first."""
        wanted = (key, cutoff, limit)
        found = self._close.get(wanted)
        if found is None:
            import difflib

            pool = [o for o in self.option_strings() if o.startswith("--")]
            found = self._close[wanted] = difflib.get_close_matches(key, pool, limit, cutoff)
        return list(found)

    def flag(self, canonical: str) -> FlagSpec | None:
        return self.flags.get(canonical)

    # -- lookup ----------------------------------------------------------------
    def lookup(self, spelled: str) -> Lookup:
        """How this release's parser reads ``spelled`` (answers are immutable, so kept per spelling)."""
        found = self._lookups.get(spelled)
        if found is None:
            found = self._lookups[spelled] = self._lookup(spelled)
        return found

    def _lookup(self, spelled: str) -> Lookup:
        option, eq, value = spelled.partition("=")
        inline = value if eq else None
        shorthand = self._optimization_shorthand(option)
        if shorthand is not None:
            return Lookup(
                spelled, shorthand, "alias", inline_value=option[2:].lstrip("=") or inline
            )
        normalized, underscored = self._rewrite_underscores(option)
        key, path, append = self._split_dotted(normalized)
        found = self._options.get(key)
        if found is not None:
            canonical, via, negated = found
            return Lookup(spelled, canonical, via, negated, underscored, inline, path, append)
        if self.spelling.get("abbreviations", True) and key.startswith("--"):
            matches = sorted({o for o in self._options if o.startswith(key) and o.startswith("--")})
            targets = sorted({self._options[m][0] for m in matches})
            if len(matches) == 1 or (
                len(targets) == 1 and matches and len({self._options[m][2] for m in matches}) == 1
            ):
                canonical, _via, negated = self._options[matches[0]]
                return Lookup(
                    spelled, canonical, "abbreviation", negated, underscored, inline, path, append
                )
            if matches:
                return Lookup(
                    spelled, None, None, underscored=underscored, candidates=tuple(matches)
                )
        return Lookup(spelled, None, None, underscored=underscored, inline_value=inline)

    def option_key(self, spelled: str) -> str:
        """The option string argparse would look up: no `=value`, dashes, no dotted sub-keys."""
        rewritten, _ = self._rewrite_underscores(spelled.partition("=")[0])
        return self._split_dotted(rewritten)[0]

    def _optimization_shorthand(self, option: str) -> str | None:
        """`-O3` / `-O=3` / `-Odecode`: rewritten by vLLM before argparse runs."""
        if (
            not self.spelling.get("optimization_shorthand")
            or not option.startswith("-O")
            or option == "-O"
        ):
            return None
        if option.startswith("-O."):
            return None  # a dotted sub-argument of the flag `-O` aliases; handled generically
        if not self._shorthand:
            self._shorthand.append(self._shorthand_target())
        return self._shorthand[0]

    def _shorthand_target(self) -> str | None:
        """The flag `-O` aliases (from the raw JSON: no FlagSpec needs building)."""
        raw_flags = self.flags._raw if isinstance(self.flags, _Flags) else None
        if raw_flags is not None:
            for name, raw in raw_flags.items():
                if "-O" in raw.get("aliases", ()):
                    return name
        else:
            for spec in self.flags.values():
                if "-O" in spec.aliases:
                    return spec.name
        return "--optimization-level" if "--optimization-level" in self.flags else None

    def _rewrite_underscores(self, option: str) -> tuple[str, bool]:
        mode = self.spelling.get("underscores", "none")
        if not option.startswith("--") or mode == "none" or "_" not in option:
            return option, False
        if mode == "before_dot":
            head, dot, tail = option.partition(".")
            rewritten = head.replace("_", "-") + dot + tail
        else:
            rewritten = option.replace("_", "-")
        return rewritten, rewritten != option

    def _split_dotted(self, option: str) -> tuple[str, tuple[str, ...], bool]:
        if not self.spelling.get("dotted_json") or "." not in option or not option.startswith("-"):
            return option, (), False
        key, *path = option.split(".")
        append = bool(path) and path[-1].endswith("+") and bool(self.spelling.get("list_append"))
        if append:
            path[-1] = path[-1][:-1]
        return key, tuple(path), append

    # -- values ------------------------------------------------------------------
    def json_key_status(self, canonical: str, path: tuple[str, ...]) -> str:
        """ "known", "deprecated", "unknown" (the config refuses the undeclared key),
        "ignored" (it drops it), or "free" (a JSON flag whose keys are not catalogued)."""
        spec = self.flags.get(canonical)
        keys = spec.json_keys if spec is not None else None
        # A catalog that does not say how its release treats undeclared keys (the omni
        # catalogs, read before this was recorded) is read as refusing them.
        extra = (spec.json_extra if spec is not None else None) or "forbid"
        for i, part in enumerate(path):
            if keys is None:
                return "free"
            entry = keys.get(part)
            if entry is None:
                return "unknown" if extra == "forbid" else "ignored"
            if entry.get("deprecated"):
                return "deprecated"
            if i + 1 < len(path):
                keys, extra = entry.get("keys"), entry.get("extra", "forbid")
        return "known"

    def value_status(self, canonical: str, value: str) -> str:
        """ "ok", "bad" (argparse rejects it), or "unknown" (not a known soft value)."""
        found = self._values.get((canonical, value))
        if found is None:
            found = self._values[(canonical, value)] = self._value_status(canonical, value)
        return found

    def _value_status(self, canonical: str, value: str) -> str:
        spec = self.flags.get(canonical)
        if spec is None:
            return "ok"
        if spec.choices is not None:
            if spec.choices_any_case:
                value = value.lower()
            return "ok" if value in spec.choices else "bad"
        if spec.type in ("int", "float", "human_int", "human_int_or_auto", "json"):
            return "ok" if _converts(spec.type, value) else "bad"
        if spec.values and value not in spec.values:
            # Soft values are checked after parsing, often case-folded (enum names, parser names).
            folded = value.casefold()
            return "ok" if any(v.casefold() == folded for v in spec.values) else "unknown"
        return "ok"


_HUMAN_INT = re.compile(r"^\d+(?:\.\d+)?[kKmMgGtT]$")


def _converts(kind: str, value: str) -> bool:
    text = value.strip()
    if kind == "int":
        return re.fullmatch(r"[-+]?\d+", text) is not None
    if kind == "float":
        try:
            float(text)
        except ValueError:
            return False
        return True
    if kind in ("human_int", "human_int_or_auto"):
        if kind == "human_int_or_auto" and text.lower() in ("auto", "-1"):
            return True
        return re.fullmatch(r"[-+]?\d+", text) is not None or _HUMAN_INT.match(text) is not None
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


# -- loading -----------------------------------------------------------------------


@cache
def _catalog_dir() -> Traversable:
    return data_folder(RULE_CATALOG) / "vllm"


@cache
def available_versions(package: str = "vllm") -> tuple[str, ...]:
    """Releases with a committed catalog, oldest first."""
    prefix = f"{package}-"
    found = []
    for entry in _catalog_dir().iterdir():
        name = entry.name
        if (
            name.startswith(prefix)
            and name.endswith(".json")
            and name[len(prefix) : -5][:1].isdigit()
        ):
            found.append(name[len(prefix) : -5])
    return tuple(sorted(found, key=version_key))


@cache
def load_catalog(version: str, package: str = "vllm") -> Catalog:
    """The committed catalog of exactly this release (KeyError when there is none)."""
    if version not in available_versions(package):
        raise KeyError(f"no {package} catalog for {version}")
    return Catalog.from_json(_raw_catalog(version, package))


def _raw_catalog(version: str, package: str) -> FlagCatalogFile:
    """One release's catalog file as JSON (not kept: only the flags of a loaded Catalog are)."""
    data = (_catalog_dir() / f"{package}-{version}.json").read_bytes()
    return cast(FlagCatalogFile, orjson.loads(data))  # the file `flags extract` writes


@cache
def options_of_type(types: frozenset[str], package: str = "vllm") -> frozenset[str]:
    """Option strings (aliases too) whose value some catalogued release of ``package`` parses
    as one of ``types``; read from the raw catalogs, without building every release's specs.

    Parsing every release's catalog costs a check of one recipe more than the check itself:
    the answer is kept in the user's cache under the catalog files' stat records."""
    from recipelint.checkcache import kept_value, stat_record

    folder = Path(str(_catalog_dir()))
    files = [
        (folder / f"{package}-{version}.json", version) for version in available_versions(package)
    ]
    try:
        record = stat_record(files)
    except OSError:
        record = None  # not a folder of files (a zipped install): read them every time
    if record is None:
        return _options_of_type(types, package)
    source = repr((sorted(types), package)).encode() + b"\0" + record
    kept = kept_value(b"options-of-type", source, lambda: _options_of_type(types, package))
    return kept if isinstance(kept, frozenset) else _options_of_type(types, package)


def _options_of_type(types: frozenset[str], package: str) -> frozenset[str]:
    found: set[str] = set()
    for version in available_versions(package):
        # The loaded catalog, not its file again: a check loads every release's catalog anyway.
        for name, entry in load_catalog(version, package).flags.raw_items():
            if entry.get("type") in types:
                found.update((name, *entry.get("aliases", ())))
    return frozenset(found)


@cache
def _version_keys(package: str) -> tuple[tuple[int, ...], ...]:
    """version_key of each of available_versions(package), in the same (ascending) order."""
    return tuple(version_key(v) for v in available_versions(package))


def catalog_for(version: str, package: str = "vllm") -> Catalog | None:
    """The catalog of this release or, when it has none, of the closest lower release.

    A version lower than every catalog gives None (the release predates our coverage).
    """
    wanted = version_key(version)
    # The last release whose key is <= wanted (the keys ascend: versions are sorted by them).
    position = bisect.bisect_right(_version_keys(package), wanted)
    return load_catalog(available_versions(package)[position - 1], package) if position else None


def beyond_catalogs(version: str, package: str = "vllm") -> bool:
    """Whether ``version`` is newer than every catalogued release of ``package`` (NIGHTLY is).

    Such a release is read through the newest catalog (catalog_for), which cannot know what
    the release added: a name or value no catalogued release knows is no evidence there.
    """
    return version == NIGHTLY or version_key(version) > _version_keys(package)[-1]


def newest_catalog(package: str = "vllm") -> Catalog:
    return load_catalog(available_versions(package)[-1], package)


@cache
def load_history(package: str = "vllm") -> HistoryFile:
    """First/last release of each flag and of each choice/known value (see docs/flags.md)."""
    data = (_catalog_dir() / f"{package}-history.json").read_bytes()
    return cast(HistoryFile, orjson.loads(data))  # the file `flags history` writes


def flag_span(flag: str, package: str = "vllm") -> tuple[str, str] | None:
    """(first release, last release) that accept this canonical flag."""
    entry = load_history(package)["flags"].get(flag)
    return (entry["first"], entry["last"]) if entry else None


def value_span(flag: str, value: str, package: str = "vllm") -> tuple[str, str] | None:
    """(first release, last release) that list this value for this flag."""
    entry = load_history(package)["values"].get(flag, {}).get(value)
    return (entry["first"], entry["last"]) if entry else None


def closest_flags(catalog: Catalog, spelled: str, limit: int = 3) -> list[str]:
    """Did-you-mean candidates among this release's option strings."""
    return catalog.close_options(catalog.option_key(spelled), limit, 0.75)
