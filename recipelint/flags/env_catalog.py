"""The committed environment-variable catalog: which variables each vLLM release reads, and how.

``rules/vllm/vllm-env.json`` (built by :mod:`recipelint.flags.envs`) lists every
release it covers and, per variable, its eras: runs of consecutive releases that read
it the same way (type, default, choices). Nothing here touches the network.
"""

from __future__ import annotations

import bisect
import difflib
import json
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Literal, cast

import orjson

from recipelint.cachesize import TEXT_KEYED_ENTRIES
from recipelint.flags.catalog import version_key
from recipelint.flags.catalogfiles import EnvCatalogFile, EnvEra
from recipelint.packagedata import RULE_CATALOG, data_folder

ENV_CATALOG = "vllm-env.json"

ValueStatus = Literal["ok", "bad", "misread"]

# Spellings people use for "on"/"off"; a variable that compares against other words reads
# them the other way without a word of warning.
_TRUTHY = frozenset({"1", "true", "yes", "on", "y", "t", "enable", "enabled"})
_FALSY = frozenset({"0", "false", "no", "off", "n", "f", "disable", "disabled"})


@dataclass(frozen=True)
class EnvSpec:
    """How a run of consecutive releases (``first`` .. ``last``) reads one variable."""

    name: str
    first: str
    last: str
    type: str  # str | int | float | bool | switch | flag | choice | list | json
    source: str  # "envs": declared in vllm/envs.py; "read": read directly by some module
    default: str | None = None  # the text used when unset (None: unset means None)
    default_expr: str | None = None  # a computed default, as written in the source
    choices: tuple[str, ...] = ()
    true_words: tuple[str, ...] = ()  # switch: the texts compared against
    negated: bool = False  # switch: the comparison is `!=` / `not in` (the words mean false)
    case_insensitive: bool = False
    required: bool = False  # read as os.environ[NAME]: only when set

    @classmethod
    def from_json(cls, name: str, raw: EnvEra) -> EnvSpec:
        return cls(
            name=name,
            first=raw["first"],
            last=raw["last"],
            type=raw["type"],
            source=raw["source"],
            default=raw.get("default"),
            default_expr=raw.get("default_expr"),
            choices=tuple(raw.get("choices", ())),
            true_words=tuple(raw.get("true", ())),
            negated=bool(raw.get("negated", False)),
            case_insensitive=bool(raw.get("case_insensitive", False)),
            required=bool(raw.get("required", False)),
        )

    def describe(self) -> str:
        """What the variable takes, in a few words (for messages and `env show`)."""
        if self.type == "bool":
            return "an integer read as a boolean (0 or 1)"
        if self.type == "switch":
            words = " or ".join(f"`{w}`" for w in self.true_words)
            meaning = "false" if self.negated else "true"
            case = ", any case" if self.case_insensitive else ""
            return f"a switch: {words} means {meaning}{case}, anything else the opposite"
        if self.type == "flag":
            return "a switch: any non-empty text means true (even `0`)"
        if self.type in ("choice", "list") and self.choices:
            listed = ", ".join(self.choices)
            kind = "one of" if self.type == "choice" else "a comma-separated list of"
            return f"{kind} {listed}" + (" (any case)" if self.case_insensitive else "")
        return {
            "int": "an integer",
            "float": "a number",
            "list": "a comma-separated list",
            "json": "JSON",
        }.get(self.type, "any text")


@dataclass(frozen=True)
class EnvValueCheck:
    status: ValueStatus  # ok | bad (startup fails) | misread (accepted, read the other way)
    reason: str = ""


def check_env_value(spec: EnvSpec, value: str) -> EnvValueCheck:
    """Whether ``value`` parses as ``spec``'s type, as the release's own conversion reads it."""
    text = value.casefold() if spec.case_insensitive else value
    if spec.type in ("int", "bool"):
        return _converts(int, value, spec)
    if spec.type == "float":
        return _converts(float, value, spec)
    if spec.type == "json":
        try:
            json.loads(value)
        except ValueError:
            return EnvValueCheck("bad", f"not JSON; {spec.name} takes {spec.describe()}")
        return EnvValueCheck("ok")
    if spec.type == "choice" and spec.choices:
        return _in_choices([text.strip()], spec)
    if spec.type == "list" and spec.choices:
        items = [item.strip() for item in text.split(",") if item.strip()]
        return _in_choices(items, spec)
    if spec.type == "switch":
        return _switch(spec, text)
    if spec.type == "flag" and value.strip().casefold() in _FALSY:
        return EnvValueCheck("misread", f"{spec.name} is true for any non-empty text")
    return EnvValueCheck("ok")


def _converts(convert: type[int] | type[float], value: str, spec: EnvSpec) -> EnvValueCheck:
    try:
        convert(value)
    except ValueError:
        return EnvValueCheck("bad", f"{spec.name} takes {spec.describe()}")
    return EnvValueCheck("ok")


def _in_choices(items: list[str], spec: EnvSpec) -> EnvValueCheck:
    allowed = {c.casefold() if spec.case_insensitive else c for c in spec.choices}
    unknown = [item for item in items if item not in allowed]
    if unknown:
        return EnvValueCheck("bad", f"`{unknown[0]}`: {spec.name} takes {spec.describe()}")
    return EnvValueCheck("ok")


def _switch(spec: EnvSpec, text: str) -> EnvValueCheck:
    if text in spec.true_words:
        return EnvValueCheck("ok")
    # The words decide one meaning; a value that looks like it means that and is not
    # among them gets the other meaning.
    intended = _FALSY if spec.negated else _TRUTHY
    if text.strip().casefold() in intended:
        meaning = "true" if spec.negated else "false"
        return EnvValueCheck("misread", f"read as {meaning}: {spec.name} takes {spec.describe()}")
    return EnvValueCheck("ok")


# -- loading ---------------------------------------------------------------------------


@cache
def load_env_catalog() -> EnvCatalogFile:
    data = (data_folder(RULE_CATALOG) / "vllm" / ENV_CATALOG).read_bytes()
    return cast(EnvCatalogFile, orjson.loads(data))  # the file `env extract` writes


@cache
def env_releases() -> tuple[str, ...]:
    """Releases the catalog covers, oldest first."""
    return tuple(load_env_catalog()["releases"])


@cache
def _release_index() -> dict[str, int]:
    return {version: index for index, version in enumerate(env_releases())}


@lru_cache(maxsize=TEXT_KEYED_ENTRIES)
def env_eras(name: str) -> tuple[EnvSpec, ...]:
    """A variable's life: each run of releases that reads it one way, oldest first."""
    raw = load_env_catalog()["variables"].get(name, ())
    return tuple(EnvSpec.from_json(name, era) for era in raw)


@lru_cache(maxsize=1024)  # every env value of every recipe asks it of a few minimums
def covered_release(version: str) -> str | None:
    """The catalogued release standing for ``version``: itself, else the closest lower one."""
    releases = env_releases()
    position = bisect.bisect_right(_release_keys(), version_key(version))
    return releases[position - 1] if position else None


@cache
def _release_keys() -> tuple[tuple[int, ...], ...]:
    return tuple(version_key(r) for r in env_releases())


def env_spec(name: str, version: str) -> EnvSpec | None:
    """How ``version`` (or the closest lower catalogued release) reads ``name``; None: it does not."""
    release = covered_release(version)
    if release is None:
        return None
    index = _release_index()
    at = index[release]
    for era in env_eras(name):
        if index[era.first] <= at <= index[era.last]:
            return era
    return None


def env_span(name: str) -> tuple[str, str] | None:
    """(first, last) catalogued release that reads the variable."""
    eras = env_eras(name)
    return (eras[0].first, eras[-1].last) if eras else None


def env_names(version: str | None = None) -> list[str]:
    """Variables a release reads (every release's when ``version`` is None), sorted."""
    names = load_env_catalog()["variables"]
    if version is None:
        return sorted(names)
    return sorted(name for name in names if env_spec(name, version) is not None)


def closest_env_names(name: str, version: str | None = None, limit: int = 3) -> list[str]:
    """Did-you-mean candidates: variables of that release (or any) spelled like ``name``."""
    return difflib.get_close_matches(name.upper(), env_names(version), n=limit, cutoff=0.75)
