"""What every catalogued release from a minimum on does with a flag, a value or a JSON key.

A recipe claims to run on every release from its ``min_vllm_version`` to the newest,
so a spelling is only safe when each of them accepts it. Per release the answer is
``ok``, ``deprecated`` (accepted with a warning: vLLM still starts) or ``rejected``
(vLLM refuses to start: argparse, ``vllm serve`` or the config's validation). The
rules choose error vs warning from that; ``flags history`` prints it.
"""

from __future__ import annotations

import bisect
import functools
import json
from dataclasses import dataclass
from typing import Literal

from recipelint.flags.catalog import (
    Catalog,
    FlagSpec,
    available_versions,
    load_catalog,
    version_key,
)
from recipelint.jsvalue import JsonValue

# "ignored": vLLM starts, but drops the JSON key (its config class does not declare it).
Status = Literal["ok", "deprecated", "ignored", "rejected"]


@dataclass(frozen=True)
class ReleaseStatus:
    version: str
    status: Status
    note: str | None = None  # the release's deprecation wording, or why serve rejects it


def catalogs_from(min_version: str, package: str = "vllm") -> list[Catalog]:
    """The catalogued releases a recipe pinned at ``min_version`` may run on, oldest first.

    The first is the catalog standing for ``min_version`` itself (exact or closest lower);
    a minimum older than every catalog starts at the oldest one.
    """
    return list(_catalogs_from(min_version, package))


@functools.lru_cache(maxsize=256)
def _catalogs_from(min_version: str, package: str) -> tuple[Catalog, ...]:
    versions = available_versions(package)
    keys = [version_key(v) for v in versions]
    start = max(bisect.bisect_right(keys, version_key(min_version)) - 1, 0)
    return tuple(load_catalog(v, package) for v in versions[start:])


def flag_support(canonical: str, min_version: str, package: str = "vllm") -> list[ReleaseStatus]:
    """Each release's verdict on the canonical flag ``canonical``."""
    return list(_flag_support(canonical, min_version, package))


# Recipes ask about the same few dozen flags from the same few minimums: each answer is kept.
@functools.lru_cache(maxsize=4096)
def _flag_support(canonical: str, min_version: str, package: str) -> tuple[ReleaseStatus, ...]:
    return tuple(_flag_status(c, canonical) for c in catalogs_from(min_version, package))


def _flag_status(catalog: Catalog, canonical: str) -> ReleaseStatus:
    return _release_flag_status(catalog.package, catalog.version, canonical)


@functools.lru_cache(maxsize=16384)
def _release_flag_status(package: str, version: str, canonical: str) -> ReleaseStatus:
    catalog = load_catalog(version, package)
    spec = catalog.flag(canonical)
    if spec is None:
        return ReleaseStatus(catalog.version, "rejected", "unrecognized arguments")
    if spec.serve_error is not None:
        return ReleaseStatus(catalog.version, "rejected", spec.serve_error)
    if spec.deprecated:
        return ReleaseStatus(catalog.version, "deprecated", spec.deprecation)
    return ReleaseStatus(catalog.version, "ok")


def value_support(
    canonical: str, value: str, min_version: str, package: str = "vllm"
) -> list[ReleaseStatus]:
    """Each release's verdict on ``canonical value``: rejected where argparse refuses it
    (or the flag is gone); soft values unknown to a release count as accepted."""
    return list(_value_support(canonical, value, min_version, package))


@functools.lru_cache(maxsize=4096)
def _value_support(
    canonical: str, value: str, min_version: str, package: str
) -> tuple[ReleaseStatus, ...]:
    out: list[ReleaseStatus] = []
    for catalog in catalogs_from(min_version, package):
        status = _flag_status(catalog, canonical)
        if status.status != "rejected" and catalog.value_status(canonical, value) == "bad":
            status = ReleaseStatus(catalog.version, "rejected", "invalid choice or type")
        out.append(status)
    return tuple(out)


def json_key_support(
    canonical: str, path: tuple[str, ...], min_version: str, package: str = "vllm"
) -> list[ReleaseStatus]:
    """Each release's verdict on the JSON sub-key ``path`` of a config flag.

    A key the release's config class does not declare is rejected where the class refuses
    undeclared keys, and ignored where it drops them (as each release's catalog records).
    """
    out: list[ReleaseStatus] = []
    for catalog in catalogs_from(min_version, package):
        status = _flag_status(catalog, canonical)
        if status.status != "rejected":
            key = catalog.json_key_status(canonical, path)
            if key == "unknown":
                status = ReleaseStatus(catalog.version, "rejected", "unknown key")
            elif key == "ignored":
                status = ReleaseStatus(catalog.version, "ignored", "undeclared key, dropped")
            elif key == "deprecated":
                status = ReleaseStatus(catalog.version, "deprecated")
        out.append(status)
    return out


@dataclass(frozen=True)
class DefaultEra:
    first: str
    last: str
    default: JsonValue  # argparse's default in those releases


def default_eras(
    canonical: str, min_version: str, package: str = "vllm"
) -> list[DefaultEra] | None:
    """Runs of releases from ``min_version`` on that have the flag, by its default; None when
    a release with the flag does not record one (its default is not a plain value)."""
    return _default_eras(canonical, min_version, package)


@functools.lru_cache(maxsize=4096)
def _default_eras(canonical: str, min_version: str, package: str) -> list[DefaultEra] | None:
    eras: list[DefaultEra] = []
    for catalog in catalogs_from(min_version, package):
        spec = catalog.flag(canonical)
        if spec is None:
            continue
        if not spec.has_default:
            return None
        if (
            eras
            and eras[-1].default == spec.default
            and type(eras[-1].default) is type(spec.default)
        ):
            eras[-1] = DefaultEra(eras[-1].first, catalog.version, spec.default)
        else:
            eras.append(DefaultEra(catalog.version, catalog.version, spec.default))
    return eras


def first_with(statuses: list[ReleaseStatus], status: Status) -> ReleaseStatus | None:
    """The oldest release with that verdict (where a flag goes, or starts to warn)."""
    return next((s for s in statuses if s.status == status), None)


def worst(statuses: list[ReleaseStatus]) -> Status:
    """The verdict a check over the whole range reports: any rejection is an error."""
    found = {s.status for s in statuses}
    return "rejected" if "rejected" in found else "deprecated" if "deprecated" in found else "ok"


# -- a flag's whole life, for `flags history FLAG` --------------------------------------------


@dataclass(frozen=True)
class Era:
    first: str
    last: str
    reading: str  # how those releases read the flag ("not accepted" when absent)


def flag_life(canonical: str, package: str = "vllm") -> list[Era]:
    """Runs of consecutive catalogued releases reading ``canonical`` the same way."""
    eras: list[Era] = []
    for version in available_versions(package):
        spec = load_catalog(version, package).flag(canonical)
        reading = describe_flag(spec) if spec is not None else "not accepted"
        if eras and eras[-1].reading == reading:
            eras[-1] = Era(eras[-1].first, version, reading)
        else:
            eras.append(Era(version, version, reading))
    return eras


def json_key_life(canonical: str, path: tuple[str, ...], package: str = "vllm") -> list[Era]:
    """Runs of consecutive catalogued releases reading a JSON sub-key the same way."""
    readings = {
        "known": "accepted",
        "deprecated": "deprecated",
        "unknown": "not accepted (unknown key)",
        "ignored": "ignored (not a key of the config, which drops undeclared keys)",
        "free": "accepted (the option takes any mapping)",
    }
    eras: list[Era] = []
    for version in available_versions(package):
        catalog = load_catalog(version, package)
        if catalog.flag(canonical) is None:
            reading = f"not accepted (no {canonical})"
        else:
            reading = readings[catalog.json_key_status(canonical, path)]
        if eras and eras[-1].reading == reading:
            eras[-1] = Era(eras[-1].first, version, reading)
        else:
            eras.append(Era(version, version, reading))
    return eras


def describe_flag(spec: FlagSpec) -> str:
    """One line on how a release reads a flag (arity, type, choices, aliases, deprecation)."""
    parts = [
        {"no": "switch", "yes": "takes a value", "optional": "value optional"}[spec.value]
        if spec.value in ("no", "yes", "optional")
        else spec.value
    ]
    if spec.type:
        parts.append(spec.type)
    if spec.nargs is not None:
        parts.append(f"nargs {spec.nargs}")
    if spec.choices is not None:
        case = " (any case)" if spec.choices_any_case else ""
        parts.append("choices " + ", ".join(spec.choices) + case)
    elif spec.values:
        parts.append(f"{len(spec.values)} known values")
    if spec.json_keys is not None:
        parts.append(f"{len(spec.json_keys)} JSON keys")
    if spec.has_default:
        parts.append(f"default {json.dumps(spec.default)}")
    if spec.aliases:
        parts.append("aliases " + ", ".join(spec.aliases))
    if spec.negations:
        parts.append("negations " + ", ".join(spec.negations))
    if spec.serve_error:
        parts.append(f"rejected by `vllm serve`: {spec.serve_error}")
    elif spec.deprecated:
        parts.append(f"deprecated: {spec.deprecation}" if spec.deprecation else "deprecated")
    return "; ".join(parts)
