"""Which platforms (and CUDA generations) can run each attention backend and quantization method.

It is long because each vLLM era names its backends and their capabilities its own way (an
enum or `_Backend`, priority lists, capability checks), and each needs its reader.

Read statically from a vLLM release, as the flag and environment catalogs are:

- attention backends are the members of the release's backend enum
  (``AttentionBackendEnum`` 0.12+, ``_Backend`` 0.5-0.11); a backend belongs to each
  platform module under ``vllm/platforms/`` that names it outside a branch that raises
  (CUDA's priority lists, ROCm's selection branches...);
- where a member's value is the backend's class path, the class's
  ``supports_compute_capability`` gives the CUDA capabilities it runs on
  (``capability.major == 10``: SM100 only; ``capability >= DeviceCapability(8, 0)``);
- a platform class's ``supported_quantization`` list restricts quantization methods on
  that platform (an empty or missing list allows every method);
- a ``--moe-backend`` choice maps, in the MoE oracles (``fused_moe/oracle/``), to per-scheme
  backend members and, through ``backend_to_kernel_cls``, to kernel classes; a kernel's
  ``_supports_current_device`` states its platforms (``is_cuda()``, ``is_rocm()``) and CUDA
  capabilities (``is_device_capability(90)``, ``..._family(100)``, ``has_device_capability``).
  A choice runs wherever one of its kernels does; a choice with an unreadable kernel, or
  that code outside the oracles tests by name, is not recorded.

Per-release tables are folded into eras (:func:`recipelint.flags.envs.fold_eras`) in
``rules/vllm/vllm-hardware.json``, which :mod:`recipelint.flags.hardware_catalog` reads (the
checks import that module alone, not the source readers).
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any, cast

from recipelint.flags.catalogfiles import HardwareCatalogFile, HardwareEra
from recipelint.flags.hardware_catalog import (
    CUDA_CAPABILITIES,
    HARDWARE_CATALOG,
    Runs,
    attention_backend,
    backend_runs_on,
    load_hardware_catalog,
    moe_backend,
    moe_backend_runs_on,
    quantization_on,
)
from recipelint.flags.source import SourceError, SourceTree, release_version
from recipelint.flags.types import TypeReader, dotted

__all__ = [
    "HARDWARE_CATALOG",
    "Runs",
    "attention_backend",
    "backend_runs_on",
    "build_hardware_catalog",
    "extract_hardware",
    "load_hardware_catalog",
    "moe_backend",
    "moe_backend_runs_on",
    "quantization_on",
]

HARDWARE_FORMAT = 1
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
        entries.update(_moe_backends(tree))
        entries.update(_selectors(tree))
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


def _selectors(tree: SourceTree) -> dict[str, dict[str, Any]]:
    """``selector/<platform>``: what the platform's ``get_attn_backend_cls`` does with a
    selected backend it does not handle, for MLA models and for the others: ``refused`` when
    a ``raise`` there names the selection (``Invalid attention backend``, 0.12's ROCm), else
    ``fallback`` (it logs "Cannot use %s backend" or nothing and returns its own). A platform
    module without a selector, in a release whose other platforms have one, delegates to an
    out-of-tree plugin (TPU from 0.14, ``tpu_inference``): ``{"out_of_tree": true}``."""
    modules = _platform_modules(tree)
    found: dict[str, ast.FunctionDef | None] = {}
    owner: dict[str, str] = {}  # platform class name -> its platform module
    for platform, module in modules.items():
        found[platform] = next(
            (
                node
                for node in ast.walk(module)
                if isinstance(node, ast.FunctionDef) and node.name == "get_attn_backend_cls"
            ),
            None,
        )
        owner.update({c.name: platform for c in module.body if isinstance(c, ast.ClassDef)})
    if not any(found.values()):
        return {}  # selection by one selector module for every platform (to 0.6)
    out: dict[str, dict[str, Any]] = {}
    for platform, selector in found.items():
        if selector is not None:
            refusing = _refusing_paths(selector.body, mla=False)
            if not any(
                isinstance(node, ast.If) and _names(node.test, {"use_mla"})
                for node in ast.walk(selector)
            ):
                refusing |= {"mla"} if "other" in refusing else set()  # one path for both
            out[f"selector/{platform}"] = {
                "mla": "refused" if "mla" in refusing else "fallback",
                "unsupported": "refused" if "other" in refusing else "fallback",
            }
        elif not any(isinstance(c, ast.ClassDef) for c in modules[platform].body):
            out[f"selector/{platform}"] = {"out_of_tree": True}
    for platform, module in modules.items():
        # A platform class built on another platform's (ZenCpuPlatform(CpuPlatform)) selects
        # as that one does.
        if found[platform] is None and f"selector/{platform}" not in out:
            bases = [
                dotted(base).rsplit(".", 1)[-1]
                for c in module.body
                if isinstance(c, ast.ClassDef)
                for base in c.bases
            ]
            parent = next((owner[b] for b in bases if owner.get(b, platform) != platform), None)
            if parent is not None and f"selector/{parent}" in out:
                out[f"selector/{platform}"] = dict(out[f"selector/{parent}"])
    return out


def _refusing_paths(body: list[ast.stmt], mla: bool) -> set[str]:
    """Which paths ("mla", "other") hold a ``raise`` that names the selected backend."""
    out: set[str] = set()
    for stmt in body:
        if isinstance(stmt, ast.If) and _names(stmt.test, {"use_sparse"}):
            out |= _refusing_paths(stmt.orelse, mla)
            continue  # sparse attention is chosen by the model, not by the recipe
        if isinstance(stmt, ast.If) and _names(stmt.test, {"use_mla"}):
            out |= _refusing_paths(stmt.body, True) | _refusing_paths(stmt.orelse, mla)
            continue
        if isinstance(stmt, ast.If):
            guarded = _names(stmt.test, {"selected_backend"})
            for branch in (stmt.body, stmt.orelse):
                out |= _refusing_paths(branch, mla)
                if guarded and any(isinstance(s, ast.Raise) for s in branch):
                    out.add("mla" if mla else "other")
        elif isinstance(stmt, ast.Raise) and stmt.exc is not None:
            if _names(stmt.exc, {"selected_backend"}):
                out.add("mla" if mla else "other")
        elif isinstance(stmt, (ast.For, ast.While, ast.With, ast.Try)):
            out |= _refusing_paths(stmt.body, mla)
    return out


def _names(node: ast.AST, names: set[str]) -> bool:
    return any(
        (isinstance(n, ast.Name) and n.id in names)
        or (isinstance(n, ast.Attribute) and n.attr in names)
        for n in ast.walk(node)
    )


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
        if "capability" not in entry:
            entry.update(_support_check(tree, member))
        out[f"attention/{member}"] = entry
    return out


def _support_check(tree: SourceTree, member: str) -> dict[str, Any]:
    """Before backends stated ``supports_compute_capability`` (to 0.11.0), a backend's own
    ``is_<name>_supported()`` refused other GPUs: ``if ...get_device_capability()[0] != 9:
    return False, "FlashMLA is only supported on Hopper devices."`` -> majors [9]."""
    name = f"is_{member.lower()}_supported"
    for rel in tree.paths("vllm/attention/"):
        if f"def {name}(" not in tree.read(rel):
            continue
        mod = tree.module_of_path(rel)
        function = next(
            (
                node
                for node in (mod.tree.body if mod is not None else ())
                if isinstance(node, ast.FunctionDef) and node.name == name
            ),
            None,
        )
        for stmt in function.body if function is not None else ():
            found = _refused_capability(stmt)
            if found:
                return found
    return {}


def _refused_capability(stmt: ast.stmt) -> dict[str, Any]:
    """``if <major> != N: return False, ...`` (or ``< N``): the capabilities the check keeps."""
    if not (
        isinstance(stmt, ast.If)
        and stmt.body
        and isinstance(stmt.body[0], ast.Return)
        and _is_false(stmt.body[0].value)
        and isinstance(stmt.test, ast.Compare)
        and len(stmt.test.ops) == 1
        and isinstance(stmt.test.comparators[0], ast.Constant)
        and isinstance(stmt.test.comparators[0].value, int)
    ):
        return {}
    left, op, bound = stmt.test.left, stmt.test.ops[0], stmt.test.comparators[0].value
    major = ast.unparse(left)
    if not (major.endswith("get_device_capability()[0]") or major.endswith(".major")):
        return {}
    if isinstance(op, ast.NotEq):
        return {"capability": f"{major} == {bound}", "majors": [bound]}
    if isinstance(op, ast.Lt):
        return {"capability": f"{major} >= {bound}", "min": f"{bound}.0"}
    return {}


def _is_false(node: ast.expr | None) -> bool:
    if isinstance(node, ast.Tuple) and node.elts:
        node = node.elts[0]
    return isinstance(node, ast.Constant) and node.value is False


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


# -- MoE backends ------------------------------------------------------------------------------

_ORACLES = "vllm/model_executor/layers/fused_moe/oracle/"
_PLATFORM_CHECKS = {
    "is_cuda": {"cuda"},
    "is_rocm": {"rocm"},
    "is_cuda_alike": {"cuda", "rocm"},
    "is_xpu": {"xpu"},
    "is_cpu": {"cpu"},
    "is_tpu": {"tpu"},
}
Capabilities = frozenset[tuple[int, int]]
_ALL_CAPABILITIES: Capabilities = frozenset(CUDA_CAPABILITIES)
# A kernel's device check read: the platforms it allows (None: not stated) and, when CUDA
# only, the capabilities it allows among CUDA_CAPABILITIES.
Device = tuple[frozenset[str] | None, Capabilities]


def _moe_backends(tree: SourceTree) -> dict[str, dict[str, Any]]:
    """``moe/<choice>``: the platforms (and CUDA capabilities) of every kernel a ``--moe-backend``
    choice maps to in the release's MoE oracles; a choice whose kernels or mapping cannot all
    be read gets no entry."""
    choices = _moe_choices(tree)
    if not choices:
        return {}
    reader = TypeReader(tree)
    kernels: dict[str, list[Device | None]] = {}
    elsewhere: set[str] = set()
    for rel in tree.paths(_ORACLES):
        mod = tree.module_of_path(rel)
        if mod is None:
            continue
        mapping, keys = _oracle_mapping(mod.tree)
        classes = _oracle_kernels(mod.tree)
        elsewhere |= (_compared_strings(mod.tree, keys) & choices) - set(mapping)
        for choice, members in mapping.items():
            for member in members:
                found = classes.get(member)
                if found is None:
                    kernels.setdefault(choice, []).append(None)
                for module, name in found or ():
                    kernels.setdefault(choice, []).append(_kernel_device(reader, module, name))
    elsewhere |= _handled_outside_oracles(tree, choices)
    out: dict[str, dict[str, Any]] = {}
    for choice, devices in sorted(kernels.items()):
        entry = _union(devices) if choice in choices and choice not in elsewhere else None
        if entry:
            out[f"moe/{choice}"] = entry
    return out


def _moe_choices(tree: SourceTree) -> set[str]:
    mod = tree.module("vllm.config.kernel")
    for node in mod.tree.body if mod is not None else ():
        if (
            isinstance(node, ast.Assign)
            and isinstance(node.targets[0], ast.Name)
            and node.targets[0].id == "MoEBackend"
            and isinstance(node.value, ast.Subscript)
        ):
            elts = node.value.slice.elts if isinstance(node.value.slice, ast.Tuple) else []
            return {_string(e) for e in elts if _string(e)}
    return set()


def _oracle_mapping(module: ast.Module) -> tuple[dict[str, list[str]], set[int]]:
    """The ``{"choice": Enum.MEMBER}`` literals of an oracle's ``map_*`` functions, and the
    ids of their key nodes."""
    mapping: dict[str, list[str]] = {}
    keys: set[int] = set()
    for func in ast.walk(module):
        if not (isinstance(func, ast.FunctionDef) and func.name.startswith("map_")):
            continue
        for node in ast.walk(func):
            if not isinstance(node, ast.Dict):
                continue
            for key, value in zip(node.keys, node.values, strict=True):
                if key is None or not _string(key):
                    continue
                values = value.elts if isinstance(value, (ast.List, ast.Tuple)) else [value]
                members = [dotted(v) for v in values if isinstance(v, ast.Attribute)]
                if len(members) == len(values):
                    mapping.setdefault(_string(key), []).extend(members)
                    keys.add(id(key))
    return mapping, keys


def _oracle_kernels(module: ast.Module) -> dict[str, list[tuple[str, str]]]:
    """``backend_to_kernel_cls``: Enum.MEMBER -> the (module, class) its branch returns."""
    imports = _imports(module)
    out: dict[str, list[tuple[str, str]]] = {}
    for func in ast.walk(module):
        if not (isinstance(func, ast.FunctionDef) and func.name == "backend_to_kernel_cls"):
            continue
        for node in ast.walk(func):
            if not isinstance(node, ast.If):
                continue
            members = _tested_members(node.test)
            local = {**imports, **_imports(ast.Module(body=node.body, type_ignores=[]))}
            returned = [
                local[name.id]
                for s in node.body
                for r in ast.walk(s)
                if isinstance(r, ast.Return) and r.value is not None
                for name in (
                    r.value.elts if isinstance(r.value, (ast.List, ast.Tuple)) else [r.value]
                )
                if isinstance(name, ast.Name) and name.id in local
            ]
            for member in members:
                out.setdefault(member, []).extend(returned)
    return {member: classes for member, classes in out.items() if classes}


def _tested_members(test: ast.expr) -> list[str]:
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or):
        return [m for value in test.values for m in _tested_members(value)]
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return []
    right = test.comparators[0]
    if isinstance(test.ops[0], (ast.Eq, ast.Is)) and isinstance(right, ast.Attribute):
        return [dotted(right)]
    if isinstance(test.ops[0], ast.In) and isinstance(right, (ast.List, ast.Tuple, ast.Set)):
        return [dotted(e) for e in right.elts if isinstance(e, ast.Attribute)]
    return []


def _imports(module: ast.Module) -> dict[str, tuple[str, str]]:
    out: dict[str, tuple[str, str]] = {}
    for node in ast.walk(module):
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                out[alias.asname or alias.name] = (node.module, alias.name)
    return out


def _compared_strings(module: ast.Module, skip: set[int]) -> set[str]:
    """String constants a module compares or collects (not docstrings), outside ``skip``."""
    out: set[str] = set()
    for node in ast.walk(module):
        if isinstance(node, (ast.Compare, ast.Assign, ast.Set, ast.List, ast.Tuple, ast.Dict)):
            for const in ast.walk(node):
                if id(const) not in skip and _string(const):  # type: ignore[arg-type]
                    out.add(_string(const))  # type: ignore[arg-type]
    return out


def _handled_outside_oracles(tree: SourceTree, choices: set[str]) -> set[str]:
    """Choices code outside the oracles tests by name (a model's own MoE path, a quantization
    method's): their hardware is not the oracle kernels' alone."""
    out: set[str] = set()
    for rel in tree.paths("vllm/"):
        if (
            rel.startswith(_ORACLES)
            or not rel.endswith(".py")
            or "moe_backend" not in tree.read(rel)
        ):
            continue
        mod = tree.module_of_path(rel)
        if mod is None:
            continue
        literal = {
            id(c)
            for node in ast.walk(mod.tree)
            if isinstance(node, ast.Subscript) and dotted(node.value).endswith("Literal")
            for c in ast.walk(node)
        }
        out |= _compared_strings(mod.tree, literal) & choices
    return out


def _kernel_device(reader: TypeReader, module: str, name: str) -> Device | None:
    """What a kernel class's own ``_supports_current_device`` states; None: not readable."""
    found = reader.resolve(module, name)
    if found is None or not isinstance(found[1], ast.ClassDef):
        return None
    method = next(
        (
            s
            for s in found[1].body
            if isinstance(s, ast.FunctionDef) and s.name == "_supports_current_device"
        ),
        None,
    )
    if method is None or not method.body or not isinstance(method.body[-1], ast.Return):
        return None
    if sum(isinstance(n, ast.Return) for n in ast.walk(method)) != 1:
        return None
    returned = method.body[-1].value
    if returned is None:
        return None
    platforms = _platforms_of(returned)
    capabilities = _ALL_CAPABILITIES
    if platforms == frozenset({"cuda"}):
        capabilities = _capabilities_of(returned) or _ALL_CAPABILITIES
    return platforms, capabilities


def _call_name(expr: ast.expr) -> str:
    if isinstance(expr, ast.Call) and not expr.keywords:
        return dotted(expr.func).rsplit(".", 1)[-1]
    return ""


def _platforms_of(expr: ast.expr) -> frozenset[str] | None:
    """The platforms a device check can be true on; None where it does not say."""
    name = _call_name(expr)
    if name in _PLATFORM_CHECKS and not expr.args:  # type: ignore[attr-defined]
        return frozenset(_PLATFORM_CHECKS[name])
    if isinstance(expr, ast.BoolOp):
        return _combined(expr.op, [_platforms_of(v) for v in expr.values])
    return None


def _combined(op: ast.boolop, parts: list[frozenset[Any] | None]) -> frozenset[Any] | None:
    """What ``a and b`` / ``a or b`` of device checks can be true on, from each part's reading
    (None: the part does not say). A conjunction is bounded by the parts that say; a
    disjunction is known only when every part is."""
    if isinstance(op, ast.And):
        known = [part for part in parts if part is not None]
        return frozenset.intersection(*known) if known else None
    if any(part is None for part in parts):
        return None
    return frozenset().union(*(part for part in parts if part is not None))


def _capabilities_of(expr: ast.expr) -> Capabilities | None:
    """The CUDA capabilities a device check can be true on; None where it does not say."""
    name = _call_name(expr)
    if name in ("is_device_capability", "is_device_capability_family", "has_device_capability"):
        wanted = _capability_arg(expr.args)  # type: ignore[attr-defined]
        if wanted is None:
            return None
        tests = {
            "is_device_capability": lambda c: c == wanted,
            "is_device_capability_family": lambda c: c[0] == wanted[0],
            "has_device_capability": lambda c: c >= wanted,
        }
        return frozenset(c for c in CUDA_CAPABILITIES if tests[name](c))
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.Not):
        # Only a single check is exact enough to negate: a conjunction's reading is an
        # upper bound, whose complement would claim too much.
        if isinstance(expr.operand, ast.BoolOp):
            return None
        inner = _capabilities_of(expr.operand)
        return None if inner is None else _ALL_CAPABILITIES - inner
    if isinstance(expr, ast.BoolOp):
        return _combined(expr.op, [_capabilities_of(v) for v in expr.values])
    return None


def _capability_arg(args: list[ast.expr]) -> tuple[int, int] | None:
    """``90`` / ``100`` (major * 10 + minor) or ``(9, 0)`` / ``DeviceCapability(9, 0)``."""
    numbers = [a.value for a in args if isinstance(a, ast.Constant) and isinstance(a.value, int)]
    if len(args) == 1 and isinstance(args[0], (ast.Tuple, ast.Call)):
        inner = args[0].elts if isinstance(args[0], ast.Tuple) else args[0].args
        numbers = [
            a.value for a in inner if isinstance(a, ast.Constant) and isinstance(a.value, int)
        ]
        return (numbers[0], numbers[1]) if len(numbers) == 2 == len(inner) else None
    if len(numbers) == len(args) == 1:
        return divmod(numbers[0], 10)
    if len(numbers) == len(args) == 2:
        return numbers[0], numbers[1]
    return None


def _union(devices: list[Device | None]) -> dict[str, Any] | None:
    """A choice runs where any of its kernels runs; one unreadable kernel leaves it unknown."""
    platforms: set[str] = set()
    capabilities: set[tuple[int, int]] = set()
    for device in devices:
        if device is None or device[0] is None:
            return None
        platforms |= device[0]
        if "cuda" in device[0]:
            capabilities |= device[1]
    entry: dict[str, Any] = {"platforms": sorted(platforms)}
    if "cuda" in platforms and capabilities != _ALL_CAPABILITIES:
        entry["capabilities"] = [f"{a}.{b}" for a, b in sorted(capabilities)]
    return entry


def build_hardware_catalog(tables: list[dict[str, Any]]) -> HardwareCatalogFile:
    from recipelint.flags.envs import fold_eras

    releases, entries = fold_eras(tables, "entries")
    return {
        "format": HARDWARE_FORMAT,
        "package": "vllm",
        "releases": releases,
        "entries": cast("dict[str, list[HardwareEra]]", entries),  # eras of extract_hardware's
    }
