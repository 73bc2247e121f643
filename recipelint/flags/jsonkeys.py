"""What a release does with a JSON key its config class does not declare: refuse it or drop it.

vLLM turns a config flag's JSON into its config class in one of two ways, each read from
the release's own source. Pydantic *validates* it (``TypeAdapter(cls).validate_json``,
``model_validate_json``, ``model_validate``): an undeclared key is dropped unless the
class's pydantic configuration says ``extra="forbid"`` (on the class, on a base, or merged
in by the release's own ``@config`` decorator, as from 0.16). Or the release *constructs*
the class (``cls(**json.loads(text))``, ``SpeculativeConfig(**d)``): a standard-library
dataclass refuses an unexpected keyword with a TypeError, a pydantic one validates as above.
"""

from __future__ import annotations

import ast
from typing import Literal

from recipelint.flags.source import Module
from recipelint.flags.types import ClassRef, TypeReader, dotted, import_base

Undeclared = Literal["forbid", "ignore"]

# Calls that hand the JSON to pydantic's validation rather than to the class's __init__.
_VALIDATING = {"validate_json", "model_validate_json", "model_validate", "parse_raw", "parse_obj"}


def undeclared_keys(reader: TypeReader, ref: ClassRef, constructed: bool) -> Undeclared:
    """ "forbid" when building ``ref`` from a mapping with an undeclared key fails, else "ignore"."""
    configured = _pydantic_extra(reader, ref)
    if configured is not None:
        return "forbid" if configured == "forbid" else "ignore"
    if constructed and not _is_pydantic(reader, ref):
        return "forbid"
    return "ignore"


def constructs(method: ast.FunctionDef) -> bool:
    """Whether a parsing method (``from_cli``, ``from_json``, ``from_dict``) ends in
    ``cls(**mapping)`` rather than in a pydantic validation call."""
    returns = [node for node in ast.walk(method) if isinstance(node, ast.Return)]
    # The last in the source: earlier ones handle special inputs (`-O3`'s level).
    last = max(returns, key=lambda node: node.lineno).value if returns else None
    if not isinstance(last, ast.Call):
        return False
    if dotted(last.func).rsplit(".", 1)[-1] in _VALIDATING:
        return False
    return any(keyword.arg is None for keyword in last.keywords)


def class_method(reader: TypeReader, ref: ClassRef, name: str) -> ast.FunctionDef | None:
    """The method ``name`` that ``ref`` defines or inherits."""
    for current in reader.mro(ref):
        node = reader.class_node(current)
        if node is None:
            continue
        for stmt in node.body:
            if isinstance(stmt, ast.FunctionDef) and stmt.name == name:
                return stmt
    return None


def _pydantic_extra(reader: TypeReader, ref: ClassRef) -> str | None:
    """The ``extra`` setting the class's pydantic configuration states (nearest class first)."""
    for current in reader.mro(ref):
        node = reader.class_node(current)
        if node is None:
            continue
        for decorator in node.decorator_list:
            found = _extra_in(decorator)
            if found is None:
                found = _decorator_default(reader, current.module, decorator)
            if found is not None:
                return found
        for stmt in node.body:
            found = _extra_in_body(stmt)
            if found is not None:
                return found
    return None


def _extra_in(node: ast.AST) -> str | None:
    """An ``extra=...`` keyword inside ``node`` (ConfigDict(extra="forbid"), Extra.forbid)."""
    for inner in ast.walk(node):
        if isinstance(inner, ast.keyword) and inner.arg == "extra":
            return _extra_value(inner.value)
    return None


def _extra_value(value: ast.expr) -> str | None:
    if isinstance(value, ast.Constant) and isinstance(value.value, str):
        return value.value
    if isinstance(value, ast.Attribute):
        return value.attr  # Extra.forbid
    return None


def _extra_in_body(stmt: ast.stmt) -> str | None:
    """``model_config = ConfigDict(extra=...)`` or a pydantic v1 ``class Config: extra = ...``."""
    if isinstance(stmt, (ast.Assign, ast.AnnAssign)):
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        if any(isinstance(t, ast.Name) and t.id == "model_config" for t in targets):
            return _extra_in(stmt.value) if stmt.value is not None else None
    if isinstance(stmt, ast.ClassDef) and stmt.name == "Config":
        for inner in stmt.body:
            if (
                isinstance(inner, ast.Assign)
                and any(isinstance(t, ast.Name) and t.id == "extra" for t in inner.targets)
                and (value := _extra_value(inner.value)) is not None
            ):
                return value
    return None


def _decorator_default(reader: TypeReader, module: str, decorator: ast.expr) -> str | None:
    """The ``extra`` a release's own decorator function sets (0.16's ``@config`` merges
    ``ConfigDict(extra="forbid")`` into every class it makes a pydantic dataclass)."""
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    found = reader.resolve_expr(module, target)
    if found is None or not isinstance(found[1], ast.FunctionDef):
        return None
    return _extra_in(found[1])


def _is_pydantic(reader: TypeReader, ref: ClassRef) -> bool:
    """A pydantic model or dataclass: its __init__ validates instead of refusing keywords."""
    if "BaseModel" in reader.base_names(ref):
        return True
    return any(
        _from_pydantic(reader, current.module, target) for current, target in reader.decorators(ref)
    )


def _from_pydantic(reader: TypeReader, module: str, target: ast.expr) -> bool:
    """A decorator imported from pydantic, or a release's own function that applies one."""
    name = dotted(target)
    if name.startswith("pydantic."):
        return True
    mod = reader.tree.module(module)
    if mod is None:
        return False
    head = name.split(".", 1)[0]
    origin = _import_origin(mod, head)
    if origin is not None:
        if origin.startswith("pydantic"):
            return True
        found = reader.resolve(module, head)
        if found is not None and isinstance(found[1], ast.FunctionDef):
            return _applies_pydantic(reader, found[0], found[1])
        return False
    binding = mod.bindings.get(head)
    return isinstance(binding, ast.FunctionDef) and _applies_pydantic(reader, module, binding)


def _applies_pydantic(reader: TypeReader, module: str, function: ast.FunctionDef) -> bool:
    mod = reader.tree.module(module)
    if mod is None:
        return False
    for node in ast.walk(function):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            origin = _import_origin(mod, node.func.id)
            if origin is not None and origin.startswith("pydantic"):
                return True
    return False


def _import_origin(mod: Module, name: str) -> str | None:
    """The module a top-level name is imported from, in-tree or not (``pydantic.dataclasses``)."""
    node = mod.bindings.get(name)
    if isinstance(node, ast.ImportFrom):
        return import_base(mod, node)
    return None
