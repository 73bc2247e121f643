"""Which platforms (and CUDA generations) can run each attention backend and quantization method.

Read statically from a vLLM release, as the flag and environment catalogs are:

- attention backends are the members of the release's backend enum
  (``AttentionBackendEnum`` 0.12+, ``_Backend`` 0.5-0.11); a backend belongs to each
  platform module under ``vllm/platforms/`` that names it outside a branch that raises
  (CUDA's priority lists, ROCm's selection branches...);
- where a member's value is the backend's class path, the class's
  ``supports_compute_capability`` gives the CUDA capabilities it runs on
  (``capability.major == 10``: SM100 only; ``capability >= DeviceCapability(8, 0)``);
- a platform class's ``supported_quantization`` list restricts quantization methods on
  that platform (an empty or missing list allows every method).

Per-release tables are folded into eras (:func:`recipelint.flags.envs.fold_eras`) in
``rules/vllm/vllm-hardware.json``.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path
from typing import Any, Literal

import orjson

from recipelint.flags.catalog import version_key
from recipelint.flags.source import SourceError, SourceTree, release_version
from recipelint.flags.types import TypeReader, dotted
from recipelint.packagedata import RULE_CATALOG, data_folder

HARDWARE_FORMAT = 1
HARDWARE_CATALOG = "vllm-hardware.json"
_ENUMS = ("AttentionBackendEnum", "_Backend")
_NOT_PLATFORMS = {"__init__", "interface"}


def extract_hardware(path: Path) -> dict[str, Any]:
    """One release's table: ``{"version", "entries": {"attention/NAME": ..., "quantization/P": ...}}``."""
    tree = SourceTree.open(path)
    try:
        if tree.package != "vllm":
            raise SourceError(f"{path}: hardware support is read from vLLM releases only")
        version = release_version(tree, path)
        if version is None:
            raise SourceError(f"{path}: cannot tell the release's version (no _version.py)")
        entries: dict[str, dict[str, Any]] = {}
        entries.update(_attention_backends(tree))
        entries.update(_quantization_limits(tree))
        return {"version": version, "entries": dict(sorted(entries.items()))}
    finally:
        tree.close()


def _platform_modules(tree: SourceTree) -> dict[str, ast.Module]:
    out: dict[str, ast.Module] = {}
    for rel in tree.paths("vllm/platforms/"):
        name = rel.rsplit("/", 1)[-1][: -len(".py")]
        if rel.count("/") == 2 and name not in _NOT_PLATFORMS:
            mod = tree.module_of_path(rel)
            if mod is not None:
                out[name] = mod.tree
    return out


def _backend_enum(tree: SourceTree) -> tuple[str, ast.ClassDef] | None:
    for rel in tree.paths("vllm/"):
        text = tree.read(rel)
        if not any(f"class {name}(" in text for name in _ENUMS):
            continue
        mod = tree.module_of_path(rel)
        for node in mod.tree.body if mod is not None else ():
            if isinstance(node, ast.ClassDef) and node.name in _ENUMS:
                return mod.name, node  # type: ignore[union-attr]
    return None


def _attention_backends(tree: SourceTree) -> dict[str, dict[str, Any]]:
    found = _backend_enum(tree)
    if found is None:
        return {}
    module, enum = found
    members: dict[str, str | None] = {}
    for stmt in enum.body:
        if isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], ast.Name):
            value = _string(stmt.value)
            members[stmt.targets[0].id] = value or None
    mentions = {name: _mentioned(mod, enum.name) for name, mod in _platform_modules(tree).items()}
    reader = TypeReader(tree)
    out: dict[str, dict[str, Any]] = {}
    for member, class_path in members.items():
        entry: dict[str, Any] = {
            "platforms": sorted(p for p, names in mentions.items() if member in names)
        }
        if class_path:
            entry.update(_capability(reader, class_path))
        out[f"attention/{member}"] = entry
    return out


def _string(node: ast.expr) -> str:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _string(node.left) + _string(node.right)
    return ""


def _mentioned(module: ast.Module, enum: str) -> set[str]:
    """Members of ``enum`` a platform module names, outside branches that only raise."""
    raising: set[ast.AST] = set()
    for node in ast.walk(module):
        if isinstance(node, ast.If) and any(isinstance(s, ast.Raise) for s in node.body):
            raising.update(ast.walk(node.test))
    return {
        node.attr
        for node in ast.walk(module)
        if isinstance(node, ast.Attribute)
        and dotted(node.value).rsplit(".", 1)[-1] == enum
        and node not in raising
    }


def _capability(reader: TypeReader, class_path: str) -> dict[str, Any]:
    module, _, name = class_path.rpartition(".")
    found = reader.resolve(module, name)
    if found is None or not isinstance(found[1], ast.ClassDef):
        return {}
    method = next(
        (
            s
            for s in found[1].body
            if isinstance(s, ast.FunctionDef) and s.name == "supports_compute_capability"
        ),
        None,
    )
    if method is None or not method.body or not isinstance(method.body[-1], ast.Return):
        return {}
    returned = method.body[-1].value
    if returned is None or (isinstance(returned, ast.Constant) and returned.value is True):
        return {}
    out: dict[str, Any] = {"capability": ast.unparse(returned)}
    out.update(_capability_bounds(returned))
    return out


def _capability_bounds(expr: ast.expr) -> dict[str, Any]:
    """``capability.major == 10`` -> majors [10]; ``capability >= DeviceCapability(8, 0)``
    or ``capability.major >= 8`` -> min "8.0"; anything else stays the expression only."""
    if isinstance(expr, ast.BoolOp) and isinstance(expr.op, ast.And):
        merged: dict[str, Any] = {}
        for value in expr.values:
            merged.update(_capability_bounds(value))
        return merged
    if not (isinstance(expr, ast.Compare) and len(expr.ops) == 1):
        return {}
    left, op, right = dotted(expr.left), expr.ops[0], expr.comparators[0]
    if left.endswith("capability.major"):
        if isinstance(op, ast.Eq) and isinstance(right, ast.Constant):
            return {"majors": [right.value]}
        if isinstance(op, ast.In) and isinstance(right, (ast.List, ast.Tuple, ast.Set)):
            return {"majors": sorted(e.value for e in right.elts if isinstance(e, ast.Constant))}
        if isinstance(op, ast.GtE) and isinstance(right, ast.Constant):
            return {"min": f"{right.value!s}.0"}
    if left.endswith("capability") and isinstance(op, (ast.GtE, ast.LtE)):
        numbers = [a.value for a in getattr(right, "args", ()) if isinstance(a, ast.Constant)]
        if len(numbers) == 2:
            bound = ".".join(str(n) for n in numbers)
            return {"min" if isinstance(op, ast.GtE) else "max": bound}
    return {}


def _quantization_limits(tree: SourceTree) -> dict[str, dict[str, Any]]:
    out = _config_quantization_limits(tree)
    for platform, module in _platform_modules(tree).items():
        methods: list[str] = []
        for node in ast.walk(module):
            target: ast.expr
            if isinstance(node, (ast.AnnAssign, ast.AugAssign)):
                target, value = node.target, node.value
            elif isinstance(node, ast.Assign):
                target, value = node.targets[0], node.value
            else:
                continue
            named = isinstance(target, ast.Name) and target.id == "supported_quantization"
            if named and isinstance(value, (ast.List, ast.Tuple)):
                methods += [_string(e) for e in value.elts if _string(e)]
        if methods:
            out[f"quantization/{platform}"] = {"methods": sorted(set(methods))}
    return out


def _config_quantization_limits(tree: SourceTree) -> dict[str, dict[str, Any]]:
    """Before platform classes held them (to 0.6.4), ModelConfig listed per-platform methods
    as ``rocm_supported_quantization = [...]`` (and 0.4.0's ``rocm_not_supported_quantization``)."""
    mod = tree.module("vllm.config")
    out: dict[str, dict[str, Any]] = {}
    for node in ast.walk(mod.tree) if mod is not None else ():
        if not (
            isinstance(node, ast.Assign)
            and isinstance(node.targets[0], ast.Name)
            and isinstance(node.value, (ast.List, ast.Tuple))
        ):
            continue
        name = node.targets[0].id
        methods = sorted({_string(e) for e in node.value.elts if _string(e)})
        for suffix, key in (
            ("_not_supported_quantization", "excluded"),
            ("_supported_quantization", "methods"),
        ):
            if name.endswith(suffix) and name != suffix.lstrip("_") and methods:
                out[f"quantization/{name[: -len(suffix)]}"] = {key: methods}
                break
    return out


# -- the committed catalog -------------------------------------------------------------------

Runs = Literal["yes", "no", "unknown"]


@cache
def load_hardware_catalog() -> dict[str, Any]:
    data = (data_folder(RULE_CATALOG) / "vllm" / HARDWARE_CATALOG).read_bytes()
    return orjson.loads(data)  # type: ignore[no-any-return]


def _entry(key: str, version: str) -> dict[str, Any] | None:
    catalog = load_hardware_catalog()
    releases: list[str] = catalog["releases"]
    wanted = version_key(version)
    covered = [r for r in releases if version_key(r) <= wanted]
    if not covered:
        return None
    at = releases.index(covered[-1])
    for era in catalog["entries"].get(key, ()):
        if releases.index(era["first"]) <= at <= releases.index(era["last"]):
            return dict(era)
    return None


def attention_backend(name: str, version: str) -> dict[str, Any] | None:
    """The release's (or closest lower one's) record of an attention backend enum name:
    ``platforms`` naming it, and ``capability`` / ``majors`` / ``min`` where the backend
    states the CUDA capabilities it supports. None: the release has no such backend."""
    return _entry(f"attention/{name.upper()}", version)


def backend_runs_on(
    name: str, version: str, platform: str, capability: tuple[int, int] | None = None
) -> Runs:
    """Whether a backend can be selected on ``platform`` (cuda, rocm, cpu, xpu, tpu...) and,
    for CUDA, on a GPU of ``capability`` (major, minor): "unknown" when the source says nothing."""
    entry = attention_backend(name, version)
    if entry is None:
        return "unknown"
    platforms = entry.get("platforms", [])
    if platforms and platform not in platforms:
        return "no"
    if capability is not None and platform == "cuda":
        if "majors" in entry:
            return "yes" if capability[0] in entry["majors"] else "no"
        low = _version_pair(entry.get("min", "0.0"))
        high = _version_pair(entry.get("max", "999.0"))
        if "min" in entry or "max" in entry:
            return "yes" if low <= capability <= high else "no"
    return "yes" if platforms else "unknown"


def _version_pair(text: str) -> tuple[int, int]:
    major, _, minor = text.partition(".")
    return int(major), int(minor or 0)


def quantization_on(method: str, version: str, platform: str) -> Runs:
    """Whether ``platform`` accepts a quantization method ("yes" when it lists none: all pass)."""
    entry = _entry(f"quantization/{platform}", version)
    if entry is None:
        return "yes" if _entry_known(version) else "unknown"
    if "excluded" in entry:
        return "no" if method in entry["excluded"] else "yes"
    return "yes" if method in entry["methods"] else "no"


def _entry_known(version: str) -> bool:
    releases = load_hardware_catalog()["releases"]
    return any(version_key(r) <= version_key(version) for r in releases)


def build_hardware_catalog(tables: list[dict[str, Any]]) -> dict[str, Any]:
    from recipelint.flags.envs import fold_eras

    releases, entries = fold_eras(tables, "entries")
    return {"format": HARDWARE_FORMAT, "package": "vllm", "releases": releases, "entries": entries}
