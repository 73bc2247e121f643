"""Static reading of type annotations and dataclasses in a release's sources.

``get_kwargs`` in vLLM turns a dataclass field's annotation into argparse
keyword arguments. To reproduce that without importing vLLM we reduce an
annotation AST to a set of "hints" (mirroring vLLM's own ``get_type_hints``:
unions and ``Optional`` flattened, ``Annotated`` unwrapped) where each hint is
a small record: a builtin kind, a Literal with its values, a dataclass, an
enum, a dict subclass, or an opaque non-builtin type.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass

from recipelint.flags.source import Module, SourceTree

BUILTIN_KINDS = {"int", "float", "str", "bool", "dict", "list", "tuple", "set", "None", "bytes"}
_TYPING_ALIASES = {
    "List": "list",
    "Dict": "dict",
    "Tuple": "tuple",
    "Set": "set",
    "FrozenSet": "set",
    "frozenset": "set",
    "Sequence": "list",
    "Mapping": "dict",
    "MutableMapping": "dict",
    "MutableSequence": "list",
    "Iterable": "list",
    "NoneType": "None",
    "OrderedDict": "dict",
    "defaultdict": "dict",
}
_DATACLASS_DECORATORS = {"dataclass", "config", "pydantic_dataclass", "dataclasses.dataclass"}


@dataclass(frozen=True)
class ClassRef:
    module: str
    name: str


@dataclass(frozen=True)
class Hint:
    kind: str  # a BUILTIN_KINDS member, or literal/dataclass/enum/dictclass/opaque/any/ellipsis
    literals: tuple[object, ...] = ()
    args: tuple[Hint, ...] = ()  # element hints of list/tuple/set
    cls: ClassRef | None = None
    soft: bool = False  # a Literal only visible to type checkers: argparse does not enforce it


class TypeReader:
    """Resolves names across modules and reads classes, aliases and annotations."""

    def __init__(self, tree: SourceTree) -> None:
        self.tree = tree
        self._depth = 0

    # -- name resolution -------------------------------------------------
    def resolve(self, module: str, name: str, depth: int = 0) -> tuple[str, ast.AST] | None:
        """The (module, defining node) a module-level name refers to, following imports."""
        if depth > 25:
            return None
        mod = self.tree.module(module)
        if mod is None:
            return None
        node = mod.bindings.get(name)
        if node is None:
            sub = self.tree.module(f"{module}.{name}")
            if sub is not None:
                return sub.name, sub.tree
            return self._resolve_star(mod, name, depth)
        if isinstance(node, ast.ImportFrom):
            source = _import_base(mod, node)
            for alias in node.names:
                if (alias.asname or alias.name) == name:
                    if source is None:
                        return None
                    found = self.resolve(source, alias.name, depth + 1)
                    if found is None:
                        sub = self.tree.module(f"{source}.{alias.name}")
                        return (sub.name, sub.tree) if sub is not None else None
                    return found
            return None
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname == name:
                    sub = self.tree.module(alias.name)
                    return (sub.name, sub.tree) if sub is not None else None
            return None
        return module, node

    def _resolve_star(self, mod: Module, name: str, depth: int) -> tuple[str, ast.AST] | None:
        for node in mod.star_imports:
            source = _import_base(mod, node)
            if source is not None:
                found = self.resolve(source, name, depth + 1)
                if found is not None:
                    return found
        return None

    def resolve_expr(self, module: str, expr: ast.expr) -> tuple[str, ast.AST] | None:
        """Resolve a Name or dotted Attribute (``config.ModelConfig``) to its definition."""
        if isinstance(expr, ast.Name):
            return self.resolve(module, expr.id)
        if isinstance(expr, ast.Attribute):
            base = self.resolve_expr(module, expr.value)
            if base is not None and isinstance(base[1], ast.Module):
                return self.resolve(base[0], expr.attr)
        return None

    def class_node(self, ref: ClassRef) -> ast.ClassDef | None:
        # A nested class (`VisionLanguageConfig.ImageInputType`) is named by its dotted path.
        head, *nested = ref.name.split(".")
        found = self.resolve(ref.module, head)
        node = found[1] if found is not None and isinstance(found[1], ast.ClassDef) else None
        for name in nested:
            if node is None:
                return None
            node = next(
                (s for s in node.body if isinstance(s, ast.ClassDef) and s.name == name), None
            )
        return node

    def bases(self, ref: ClassRef) -> list[ClassRef]:
        node = self.class_node(ref)
        if node is None:
            return []
        out: list[ClassRef] = []
        for base in node.bases:
            found = self.resolve_expr(ref.module, base)
            if found is not None and isinstance(found[1], ast.ClassDef):
                out.append(ClassRef(found[0], found[1].name))
        return out

    def mro(self, ref: ClassRef) -> list[ClassRef]:
        """Depth-first base order; enough for vLLM's single-inheritance config classes."""
        seen: list[ClassRef] = []
        stack = [ref]
        while stack and len(seen) < 30:
            current = stack.pop(0)
            if current in seen:
                continue
            seen.append(current)
            stack[0:0] = self.bases(current)
        return seen

    def base_names(self, ref: ClassRef) -> set[str]:
        node = self.class_node(ref)
        names: set[str] = set()
        if node is not None:
            for base in node.bases:
                names.add(_dotted(base).rsplit(".", 1)[-1])
        for parent in self.bases(ref):
            names |= self.base_names(parent) if parent != ref else set()
        return names

    def decorators(self, ref: ClassRef) -> Iterator[tuple[ClassRef, ast.expr]]:
        """What decorates the class and each of its bases (nearest first), with the class it
        decorates; a call (`@dataclass(frozen=True)`) stands as the decorator it calls."""
        for current in self.mro(ref):
            node = self.class_node(current)
            for decorator in node.decorator_list if node is not None else ():
                yield current, decorator.func if isinstance(decorator, ast.Call) else decorator

    def is_dataclass(self, ref: ClassRef) -> bool:
        return any(
            _dotted(target).rsplit(".", 1)[-1] in _DATACLASS_DECORATORS
            or _dotted(target).endswith("dataclasses.dataclass")
            for _, target in self.decorators(ref)
        )

    def is_enum(self, ref: ClassRef) -> bool:
        return any(n.endswith("Enum") for n in self.base_names(ref))

    def is_dict_subclass(self, ref: ClassRef) -> bool:
        names = self.base_names(ref)
        return "dict" in names or "TypedDict" in names or "Dict" in names

    def enum_members(self, ref: ClassRef) -> list[tuple[str, object]]:
        node = self.class_node(ref)
        members: list[tuple[str, object]] = []
        if node is None:
            return members
        for stmt in node.body:
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
                target = stmt.targets[0]
                if isinstance(target, ast.Name) and not target.id.startswith("_"):
                    value = stmt.value
                    literal = value.value if isinstance(value, ast.Constant) else target.id.lower()
                    if (
                        isinstance(value, ast.Tuple)
                        and value.elts
                        and isinstance(value.elts[0], ast.Constant)
                    ):
                        literal = value.elts[0].value
                    members.append((target.id, literal))
        return members

    # -- dataclass fields ----------------------------------------------------
    def dataclass_fields(self, ref: ClassRef) -> list[FieldInfo]:
        """Fields in definition order, bases first, later definitions overriding."""
        ordered: dict[str, FieldInfo] = {}
        for current in reversed(self.mro(ref)):
            node = self.class_node(current)
            if node is None:
                continue
            body = node.body
            for i, stmt in enumerate(body):
                if not (isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)):
                    continue
                ann = _dotted(
                    stmt.annotation.value
                    if isinstance(stmt.annotation, ast.Subscript)
                    else stmt.annotation
                )
                if ann.rsplit(".", 1)[-1] in {"ClassVar", "InitVar", "KW_ONLY"}:
                    continue
                doc = ""
                if i + 1 < len(body):
                    nxt = body[i + 1]
                    if (
                        isinstance(nxt, ast.Expr)
                        and isinstance(nxt.value, ast.Constant)
                        and isinstance(nxt.value.value, str)
                    ):
                        doc = nxt.value.value
                name = stmt.target.id
                ordered.pop(name, None)
                ordered[name] = FieldInfo(
                    name, current.module, stmt.annotation, stmt.value, doc, _init_false(stmt.value)
                )
        return list(ordered.values())

    # -- annotations -----------------------------------------------------
    def hints(self, module: str, ann: ast.expr | None) -> list[Hint]:
        """vLLM's get_type_hints: the flattened union members of an annotation."""
        self._depth += 1
        try:
            if ann is None or self._depth > 40:
                return [Hint("opaque")]
            return self._hints(module, ann)
        finally:
            self._depth -= 1

    def _hints(self, module: str, ann: ast.expr) -> list[Hint]:
        if isinstance(ann, ast.Constant):
            if ann.value is None:
                return [Hint("None")]
            if ann.value is Ellipsis:
                return [Hint("ellipsis")]
            if isinstance(ann.value, str):
                try:
                    parsed = ast.parse(ann.value, mode="eval").body
                except SyntaxError:
                    return [Hint("opaque")]
                return self.hints(module, parsed)
            return [Hint("opaque")]
        if isinstance(ann, ast.BinOp) and isinstance(ann.op, ast.BitOr):
            return _dedupe(self.hints(module, ann.left) + self.hints(module, ann.right))
        if isinstance(ann, ast.Subscript):
            return self._subscript(module, ann)
        if isinstance(ann, (ast.Name, ast.Attribute)):
            return self._named(module, ann)
        return [Hint("opaque")]

    def _named(self, module: str, ann: ast.expr) -> list[Hint]:
        hints = self._named_inner(module, ann)
        mod = self.tree.module(module)
        if isinstance(ann, ast.Name) and mod is not None and ann.id in mod.typing_only:
            hints = [
                Hint(h.kind, h.literals, h.args, h.cls, True) if h.kind == "literal" else h
                for h in hints
            ]
        return hints

    def _named_inner(self, module: str, ann: ast.expr) -> list[Hint]:
        short = _dotted(ann).rsplit(".", 1)[-1]
        if isinstance(ann, ast.Name) and ann.id in BUILTIN_KINDS:
            return [Hint(ann.id)]
        if short in _TYPING_ALIASES:
            return [Hint(_TYPING_ALIASES[short])]
        if short == "Any":
            return [Hint("any")]
        found = self.resolve_expr(module, ann)
        if found is None:
            return [Hint("opaque")]
        where, node = found
        if isinstance(node, ast.ClassDef):
            ref = ClassRef(where, node.name)
            if self.is_enum(ref):
                return [Hint("enum", cls=ref)]
            if self.is_dataclass(ref):
                return [Hint("dataclass", cls=ref)]
            if self.is_dict_subclass(ref):
                return [Hint("dictclass", cls=ref)]
            return [Hint("opaque", cls=ref)]
        value = _alias_value(node)
        if value is not None:
            return self.hints(where, value)
        return [Hint("opaque")]

    def _subscript(self, module: str, ann: ast.Subscript) -> list[Hint]:
        head = _dotted(ann.value).rsplit(".", 1)[-1]
        args = list(ann.slice.elts) if isinstance(ann.slice, ast.Tuple) else [ann.slice]
        if head == "Optional":
            return _dedupe(self.hints(module, args[0]) + [Hint("None")])
        if head == "Union":
            out: list[Hint] = []
            for arg in args:
                out += self.hints(module, arg)
            return _dedupe(out)
        if head in ("Annotated", "SkipValidation"):
            return self.hints(module, args[0])
        if head == "Literal":
            return [Hint("literal", literals=tuple(self.literal_values(module, args)))]
        if head in ("type", "Type", "Callable"):
            return [Hint("opaque")]
        kind = _TYPING_ALIASES.get(head, head)
        if kind in ("list", "tuple", "set"):
            elems = tuple(h for arg in args for h in self.hints(module, arg))
            return [Hint(kind, args=elems)]
        if kind == "dict":
            return [Hint("dict")]
        # A generic alias such as `SomeAlias[int]`: read the alias itself.
        return (
            self._named(module, ann.value)
            if isinstance(ann.value, (ast.Name, ast.Attribute))
            else [Hint("opaque")]
        )

    def literal_values(self, module: str, args: list[ast.expr]) -> list[object]:
        values: list[object] = []
        for arg in args:
            if isinstance(arg, ast.Constant):
                values.append(arg.value)
            else:
                for hint in self.hints(module, arg):
                    values.extend(hint.literals)
        return values


@dataclass(frozen=True)
class FieldInfo:
    name: str
    module: str
    annotation: ast.expr
    default: ast.expr | None
    doc: str
    init_false: bool


def _init_false(value: ast.expr | None) -> bool:
    if isinstance(value, ast.Call) and _dotted(value.func).rsplit(".", 1)[-1] in ("field", "Field"):
        for kw in value.keywords:
            if kw.arg == "init" and isinstance(kw.value, ast.Constant) and kw.value.value is False:
                return True
    return False


def _alias_value(node: ast.AST) -> ast.expr | None:
    if isinstance(node, ast.Assign):
        return node.value
    if isinstance(node, ast.AnnAssign):
        return node.value
    if type(node).__name__ == "TypeAlias":
        return node.value  # type: ignore[attr-defined,no-any-return]
    return None


def _dedupe(hints: list[Hint]) -> list[Hint]:
    out: list[Hint] = []
    for hint in hints:
        if hint not in out:
            out.append(hint)
    return out


def _dotted(expr: ast.expr) -> str:
    if isinstance(expr, ast.Name):
        return expr.id
    if isinstance(expr, ast.Attribute):
        return f"{_dotted(expr.value)}.{expr.attr}"
    if isinstance(expr, ast.Call):
        return _dotted(expr.func)
    return ""


def dotted(expr: ast.expr) -> str:
    return _dotted(expr)


def import_base(mod: Module, node: ast.ImportFrom) -> str | None:
    """The module an ``from X import ...`` statement of ``mod`` reads (relative ones resolved)."""
    return _import_base(mod, node)


def _import_base(mod: Module, node: ast.ImportFrom) -> str | None:
    if node.level == 0:
        return node.module
    parts = mod.name.split(".")
    if not mod.is_package:
        parts = parts[:-1]
    if node.level > 1:
        parts = parts[: len(parts) - (node.level - 1)]
    base = ".".join(parts)
    return f"{base}.{node.module}" if node.module else base
