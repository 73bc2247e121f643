"""A tiny abstract interpreter for the code that builds ``vllm serve``'s parser.

It is long because an abstract interpreter needs one case per Python construct that vLLM's
parser-building code uses.

vLLM builds its parser imperatively: ``subparser_init`` -> ``make_arg_parser``
-> ``FrontendArgs.add_cli_args`` / ``EngineArgs.add_cli_args``, which call
``parser.add_argument(...)`` with literal keywords or with ``**kwargs`` tables
made by ``get_kwargs(SomeConfig)`` and then patched (``kw["x"]["type"] = ...``,
``del kw["x"]["nargs"]``), sometimes in a loop over the table. Reading only the
``add_argument`` calls would miss the loops and the patches, so we execute the
reachable function bodies over abstract values: Python literals stay literal,
everything we cannot know becomes ``UNKNOWN``. Both branches of an ``if`` run
(a flag defined on any branch is accepted on some platform).
"""

from __future__ import annotations

import ast
import itertools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from recipelint.flags.types import ClassRef, TypeReader, dotted


class _Unknown:
    def __repr__(self) -> str:
        return "UNKNOWN"


UNKNOWN: Any = _Unknown()


@dataclass(frozen=True)
class Tag:
    """A named callable/marker we care about: a type converter or an action."""

    name: str


@dataclass
class Registry:
    """Names registered with a parser manager (tool or reasoning parsers)."""

    kind: str
    names: tuple[str, ...]


class _Parser:
    def __repr__(self) -> str:
        return "PARSER"


PARSER: Any = _Parser()


@dataclass(frozen=True)
class Instance:
    cls: ClassRef


@dataclass(frozen=True)
class Super:
    cls: ClassRef  # the class whose method called super()
    self_cls: ClassRef


@dataclass(frozen=True)
class EnumMember:
    name: str
    value: object


@dataclass
class AddedArgument:
    option_strings: list[str]
    kwargs: dict[str, Any]
    positional: bool


@dataclass
class Frame:
    module: str
    env: dict[str, Any] = field(default_factory=dict)
    cls: ClassRef | None = None  # class owning the running method (for super())
    self_cls: ClassRef | None = None  # class bound to cls/self


class _Return(Exception):
    def __init__(self, value: Any) -> None:
        self.value = value


# Names of converters/actions that change what a flag accepts.
_TAG_NAMES = {
    "int",
    "float",
    "str",
    "bool",
    "json.loads",
    "loads",
    "human_readable_int",
    "human_readable_int_or_auto",
    "BooleanOptionalAction",
    "argparse.BooleanOptionalAction",
    "StoreBoolean",
    "nullable_str",
    "nullable_kvs",
    "parse_type",
    "optional_type",
}


class Interpreter:
    def __init__(
        self,
        reader: TypeReader,
        get_kwargs: Callable[[ClassRef], dict[str, dict[str, Any]]],
        registry: Callable[[str], Registry],
    ) -> None:
        self.reader = reader
        self.get_kwargs = get_kwargs
        self.registry = registry
        self.added: list[AddedArgument] = []
        self._depth = 0
        self._steps = 0

    # -- entry -----------------------------------------------------------
    def call_function(
        self,
        module: str,
        fn: ast.FunctionDef | ast.AsyncFunctionDef,
        args: list[Any],
        cls: ClassRef | None = None,
        self_cls: ClassRef | None = None,
        kwargs: dict[str, Any] | None = None,
    ) -> Any:
        if self._depth > 12:
            return UNKNOWN
        frame = Frame(module, cls=cls, self_cls=self_cls)
        params = [a.arg for a in fn.args.posonlyargs + fn.args.args]
        is_static = any(dotted(d) == "staticmethod" for d in fn.decorator_list)
        if cls is not None and not is_static and params:
            is_classmethod = any(dotted(d) == "classmethod" for d in fn.decorator_list)
            bound = self_cls or cls
            frame.env[params[0]] = bound if is_classmethod else Instance(bound)
            params = params[1:]
        defaults = fn.args.defaults
        for i, name in enumerate(params):
            if i < len(args):
                frame.env[name] = args[i]
            else:
                j = i - (len(params) - len(defaults))
                frame.env[name] = self.eval(defaults[j], frame) if j >= 0 else UNKNOWN
        for kwarg in fn.args.kwonlyargs:
            frame.env[kwarg.arg] = UNKNOWN
        for key, value in (kwargs or {}).items():
            frame.env[key] = value
        self._depth += 1
        try:
            self.exec_body(fn.body, frame)
        except _Return as ret:
            return ret.value
        finally:
            self._depth -= 1
        return None

    # -- statements ------------------------------------------------------
    def exec_body(self, body: list[ast.stmt], frame: Frame) -> None:
        for stmt in body:
            self._steps += 1
            if self._steps > 200_000:
                return
            self.exec_stmt(stmt, frame)

    def exec_stmt(self, stmt: ast.stmt, frame: Frame) -> None:
        if isinstance(stmt, ast.Expr):
            self.eval(stmt.value, frame)
        elif isinstance(stmt, ast.Assign):
            value = self.eval(stmt.value, frame)
            for target in stmt.targets:
                self.assign(target, value, frame)
        elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
            self.assign(stmt.target, self.eval(stmt.value, frame), frame)
        elif isinstance(stmt, ast.AugAssign):
            self._aug_assign(stmt, frame)
        elif isinstance(stmt, ast.Delete):
            for target in stmt.targets:
                self._delete(target, frame)
        elif isinstance(stmt, ast.Return):
            raise _Return(self.eval(stmt.value, frame) if stmt.value is not None else None)
        elif isinstance(stmt, ast.If):
            self._exec_if(stmt, frame)
        elif isinstance(stmt, ast.For):
            self._exec_for(stmt, frame)
        elif isinstance(stmt, (ast.With, ast.AsyncWith)):
            self.exec_body(stmt.body, frame)
        elif isinstance(stmt, ast.Try):
            self.exec_body(stmt.body, frame)
            self.exec_body(stmt.orelse, frame)
            self.exec_body(stmt.finalbody, frame)
        elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            frame.env[stmt.name] = ("localfn", frame.module, stmt)
        elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
            for alias in stmt.names:
                frame.env.pop(alias.asname or alias.name.split(".")[0], None)

    def _exec_if(self, stmt: ast.If, frame: Frame) -> None:
        # Both branches: a return in one must not hide the other's arguments.
        returned: _Return | None = None
        for branch in (stmt.body, stmt.orelse):
            try:
                self.exec_body(branch, frame)
            except _Return as ret:
                returned = returned or ret
        if returned is not None and not stmt.orelse:
            return  # `if x: return` — keep going with the code after it
        if returned is not None:
            raise returned

    def _exec_for(self, stmt: ast.For, frame: Frame) -> None:
        iterable = self.eval(stmt.iter, frame)
        if not isinstance(iterable, (list, tuple)):
            return
        for item in list(iterable)[:500]:
            self.assign(stmt.target, item, frame)
            self.exec_body(stmt.body, frame)

    def assign(self, target: ast.expr, value: Any, frame: Frame) -> None:
        if isinstance(target, ast.Name):
            frame.env[target.id] = value
        elif isinstance(target, (ast.Tuple, ast.List)):
            items = (
                list(value)
                if isinstance(value, (list, tuple)) and len(value) == len(target.elts)
                else None
            )
            for i, elt in enumerate(target.elts):
                self.assign(elt, items[i] if items is not None else UNKNOWN, frame)
        elif isinstance(target, ast.Subscript):
            container = self.eval(target.value, frame)
            key = self.eval(target.slice, frame)
            if (
                isinstance(container, dict)
                and _hashable(key)
                or isinstance(container, list)
                and isinstance(key, int)
                and -len(container) <= key < len(container)
            ):
                container[key] = value

    def _aug_assign(self, stmt: ast.AugAssign, frame: Frame) -> None:
        if isinstance(stmt.target, ast.Subscript):
            container = self.eval(stmt.target.value, frame)
            key = self.eval(stmt.target.slice, frame)
            if isinstance(container, dict) and _hashable(key) and key in container:
                current = container[key]
                addition = self.eval(stmt.value, frame)
                if isinstance(stmt.op, ast.Add):
                    joined = _joined(current, addition)
                    if joined is not None:
                        container[key] = joined
        elif isinstance(stmt.target, ast.Name):
            current = frame.env.get(stmt.target.id, UNKNOWN)
            addition = self.eval(stmt.value, frame)
            joined = _joined(current, addition)
            if joined is not None:
                frame.env[stmt.target.id] = joined

    def _delete(self, target: ast.expr, frame: Frame) -> None:
        if isinstance(target, ast.Subscript):
            container = self.eval(target.value, frame)
            key = self.eval(target.slice, frame)
            if isinstance(container, dict) and _hashable(key):
                container.pop(key, None)

    # -- expressions -----------------------------------------------------
    def eval(self, node: ast.expr | None, frame: Frame) -> Any:
        if node is None:
            return None
        method = getattr(self, f"_eval_{type(node).__name__}", None)
        if method is None:
            return UNKNOWN
        return method(node, frame)

    def _eval_Constant(self, node: ast.Constant, frame: Frame) -> Any:
        return node.value

    def _eval_List(self, node: ast.List, frame: Frame) -> Any:
        out: list[Any] = []
        for elt in node.elts:
            if isinstance(elt, ast.Starred):
                inner = self.eval(elt.value, frame)
                # `[*QUANTIZATION_METHODS, None]` unpacks a dict's keys in some releases.
                out.extend(inner if isinstance(inner, (list, tuple, dict)) else [])
            else:
                out.append(self.eval(elt, frame))
        return out

    def _eval_Tuple(self, node: ast.Tuple, frame: Frame) -> Any:
        return tuple(self._eval_List(node, frame))  # type: ignore[arg-type]

    def _eval_Set(self, node: ast.Set, frame: Frame) -> Any:
        return self._eval_List(node, frame)  # type: ignore[arg-type]

    def _eval_Dict(self, node: ast.Dict, frame: Frame) -> Any:
        out: dict[Any, Any] = {}
        for key, value in zip(node.keys, node.values, strict=False):
            if key is None:
                inner = self.eval(value, frame)
                if isinstance(inner, dict):
                    out.update(inner)
                continue
            k = self.eval(key, frame)
            if _hashable(k):
                out[k] = self.eval(value, frame)
        return out

    def _eval_JoinedStr(self, node: ast.JoinedStr, frame: Frame) -> Any:
        parts: list[str] = []
        registry: Registry | None = None
        for value in node.values:
            if isinstance(value, ast.Constant):
                parts.append(str(value.value))
            elif isinstance(value, ast.FormattedValue):
                inner = self.eval(value.value, frame)
                if isinstance(inner, Registry):
                    registry = inner
                    parts.append("{registry}")
                elif isinstance(inner, (str, int, float)):
                    parts.append(str(inner))
                else:
                    return UNKNOWN
        text = "".join(parts)
        return registry if registry is not None else text

    def _eval_Name(self, node: ast.Name, frame: Frame) -> Any:
        if node.id in frame.env:
            return frame.env[node.id]
        if node.id in ("True", "False", "None"):
            return {"True": True, "False": False, "None": None}[node.id]
        if node.id in _TAG_NAMES:
            return Tag(node.id)
        found = self.reader.resolve(frame.module, node.id)
        if found is None:
            return Tag(node.id)
        return self._wrap_definition(found)

    def _wrap_definition(self, found: tuple[str, ast.AST]) -> Any:
        where, node = found
        if isinstance(node, ast.ClassDef):
            return ClassRef(where, node.name)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return ("fn", where, node)
        if isinstance(node, ast.Module):
            return ("module", where)
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            value = self.eval(node.value, Frame(where))
            return value
        return UNKNOWN

    def _eval_Attribute(self, node: ast.Attribute, frame: Frame) -> Any:
        full = dotted(node)
        if full in _TAG_NAMES:
            return Tag(full)
        base = self.eval(node.value, frame)
        if isinstance(base, tuple) and len(base) == 2 and base[0] == "module":
            found = self.reader.resolve(base[1], node.attr)
            return self._wrap_definition(found) if found is not None else Tag(full)
        if isinstance(base, ClassRef):
            if self.reader.is_enum(base):
                for name, value in self.reader.enum_members(base):
                    if name == node.attr:
                        return EnumMember(name, value)
            manager = _manager_kind(base.name)
            if manager:
                return self.registry(manager)
            return self._class_attribute(base, node.attr)
        if isinstance(base, Instance):
            if node.attr == "name":
                return _subcommand_name(self.reader, base.cls)
            return UNKNOWN
        if isinstance(base, EnumMember):
            return (
                base.value
                if node.attr == "value"
                else base.name
                if node.attr == "name"
                else UNKNOWN
            )
        if isinstance(base, Tag) and base.name.endswith("ParserManager"):
            return self.registry(_manager_kind(base.name) or "tool")
        if isinstance(base, Registry):
            return base
        if (
            isinstance(base, Tag)
            and isinstance(node.value, ast.Name)
            and node.value.id == "argparse"
        ):
            return Tag(full)
        return UNKNOWN

    def _class_attribute(self, ref: ClassRef, attr: str) -> Any:
        for current in self.reader.mro(ref):
            cls_node = self.reader.class_node(current)
            if cls_node is None:
                continue
            for stmt in cls_node.body:
                if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name == attr:
                    return ("method", current, stmt)
                if isinstance(stmt, ast.ClassDef) and stmt.name == attr:
                    return ClassRef(current.module, f"{current.name}.{attr}")
                if (
                    isinstance(stmt, ast.AnnAssign)
                    and isinstance(stmt.target, ast.Name)
                    and stmt.target.id == attr
                ):
                    return (
                        self.eval(stmt.value, Frame(current.module))
                        if stmt.value is not None
                        else UNKNOWN
                    )
                if isinstance(stmt, ast.Assign) and any(
                    isinstance(t, ast.Name) and t.id == attr for t in stmt.targets
                ):
                    return self.eval(stmt.value, Frame(current.module))
        if attr == "__name__":
            return ref.name
        return UNKNOWN

    def _eval_Subscript(self, node: ast.Subscript, frame: Frame) -> Any:
        base = self.eval(node.value, frame)
        key = self.eval(node.slice, frame)
        if isinstance(base, dict) and _hashable(key):
            return base.get(key, UNKNOWN)
        if isinstance(base, (list, tuple, str)) and isinstance(key, int):
            return base[key] if -len(base) <= key < len(base) else UNKNOWN
        return UNKNOWN

    def _eval_BinOp(self, node: ast.BinOp, frame: Frame) -> Any:
        left = self.eval(node.left, frame)
        right = self.eval(node.right, frame)
        if isinstance(node.op, ast.Add):
            if isinstance(left, Registry) or isinstance(right, Registry):
                return left if isinstance(left, Registry) else right
            joined = _joined(left, right)
            if joined is not None:
                return joined
            if isinstance(left, tuple) and isinstance(right, tuple):
                return left + right
        if isinstance(node.op, ast.Mod) and isinstance(left, str):
            return left
        return UNKNOWN

    def _eval_Starred(self, node: ast.Starred, frame: Frame) -> Any:
        return self.eval(node.value, frame)

    def _eval_IfExp(self, node: ast.IfExp, frame: Frame) -> Any:
        body = self.eval(node.body, frame)
        return body if body is not UNKNOWN else self.eval(node.orelse, frame)

    def _eval_ListComp(self, node: ast.ListComp, frame: Frame) -> Any:
        if len(node.generators) != 1:
            return UNKNOWN
        gen = node.generators[0]
        iterable = self.eval(gen.iter, frame)
        if isinstance(iterable, ClassRef) and self.reader.is_enum(iterable):
            iterable = [EnumMember(n, v) for n, v in self.reader.enum_members(iterable)]
        if isinstance(iterable, Registry):
            return iterable
        if not isinstance(iterable, (list, tuple)):
            return UNKNOWN
        out: list[Any] = []
        inner = Frame(frame.module, dict(frame.env), frame.cls, frame.self_cls)
        for item in iterable:
            self.assign(gen.target, item, inner)
            if all(self.eval(cond, inner) is not False for cond in gen.ifs):
                out.append(self.eval(node.elt, inner))
        return out

    _eval_GeneratorExp = _eval_ListComp
    _eval_SetComp = _eval_ListComp

    def _eval_Compare(self, node: ast.Compare, frame: Frame) -> Any:
        return UNKNOWN

    def _eval_Call(self, node: ast.Call, frame: Frame) -> Any:
        func = node.func
        if isinstance(func, ast.Attribute):
            return self._call_method(node, func, frame)
        callee = self.eval(func, frame)
        args = [self.eval(a, frame) for a in node.args]
        name = dotted(func).rsplit(".", 1)[-1]
        if name == "get_kwargs" and args and isinstance(args[0], ClassRef):
            return self.get_kwargs(args[0])
        if name == "get_args" and node.args:
            return self._literal_values(node.args[0], frame)
        if name in ("permutations", "combinations") and args and isinstance(args[0], (list, tuple)):
            # Choices built at run time from pairs of a Literal's values (0.9-0.30
            # --collect-detailed-traces): the same itertools call on the values read.
            size = next((self.eval(k.value, frame) for k in node.keywords if k.arg == "r"), None)
            size = args[1] if len(args) > 1 else size
            if size is None or isinstance(size, int):
                return list(getattr(itertools, name)(args[0], size))
            return UNKNOWN
        if name == "super":
            if frame.cls is not None:
                return Super(frame.cls, frame.self_cls or frame.cls)
            return UNKNOWN
        if name in ("list", "tuple", "sorted", "set", "frozenset") and args:
            value = args[0]
            if isinstance(value, ClassRef) and self.reader.is_enum(value):
                return [EnumMember(n, v) for n, v in self.reader.enum_members(value)]
            if isinstance(value, dict):
                return list(value)
            if isinstance(value, (list, tuple)):
                items = list(value)
                return sorted(items, key=repr) if name == "sorted" else items
            return value if isinstance(value, Registry) else UNKNOWN
        if name in ("optional_type", "parse_type") and args:
            return args[0] if not isinstance(args[0], _Unknown) else Tag(name)
        if name == "dict":
            out = dict(args[0]) if args and isinstance(args[0], dict) else {}
            for kw in node.keywords:
                if kw.arg:
                    out[kw.arg] = self.eval(kw.value, frame)
            return out
        if isinstance(callee, tuple) and callee and callee[0] in ("fn", "localfn"):
            kwargs = {kw.arg: self.eval(kw.value, frame) for kw in node.keywords if kw.arg}
            return self.call_function(callee[1], callee[2], args, kwargs=kwargs)
        if isinstance(callee, ClassRef):
            return Instance(callee)
        if isinstance(callee, Tag):
            return Tag(f"{callee.name}()")
        return UNKNOWN

    def _call_method(self, node: ast.Call, func: ast.Attribute, frame: Frame) -> Any:
        attr = func.attr
        if attr == "add_argument":
            self._record(node, frame)
            return UNKNOWN
        if attr in (
            "add_argument_group",
            "add_mutually_exclusive_group",
            "add_parser",
            "add_subparsers",
        ):
            return PARSER
        base = self.eval(func.value, frame)
        args = [self.eval(a, frame) for a in node.args]
        if isinstance(base, Super):
            return self._call_super(base, attr, args)
        if isinstance(base, ClassRef):
            kind = _manager_kind(base.name)
            if kind:
                return self.registry(kind)
            found = self._class_attribute(base, attr)
            if isinstance(found, tuple) and found[0] == "method":
                return self.call_function(
                    found[1].module, found[2], args, cls=found[1], self_cls=base
                )
            return UNKNOWN
        if isinstance(base, Instance):
            found = self._class_attribute(base.cls, attr)
            if isinstance(found, tuple) and found[0] == "method":
                return self.call_function(
                    found[1].module, found[2], args, cls=found[1], self_cls=base.cls
                )
            return UNKNOWN
        if isinstance(base, tuple) and len(base) == 2 and base[0] == "module":
            found = self.reader.resolve(base[1], attr)
            if found is not None and isinstance(found[1], (ast.FunctionDef, ast.AsyncFunctionDef)):
                return self.call_function(found[0], found[1], args)
            return UNKNOWN
        if isinstance(base, Registry):
            return base
        return _builtin_method(base, attr, args)

    def _call_super(self, sup: Super, attr: str, args: list[Any]) -> Any:
        mro = self.reader.mro(sup.self_cls)
        start = mro.index(sup.cls) + 1 if sup.cls in mro else 1
        for current in mro[start:]:
            cls_node = self.reader.class_node(current)
            if cls_node is None:
                continue
            for stmt in cls_node.body:
                if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name == attr:
                    return self.call_function(
                        current.module, stmt, args, cls=current, self_cls=sup.self_cls
                    )
        return UNKNOWN

    def _literal_values(self, node: ast.expr, frame: Frame) -> Any:
        values = [h.literals for h in self.reader.hints(frame.module, node) if h.kind == "literal"]
        if values:
            return [v for group in values for v in group]
        return UNKNOWN

    def _record(self, node: ast.Call, frame: Frame) -> None:
        strings: list[str] = []
        for arg in node.args:
            value = self.eval(arg, frame)
            if isinstance(arg, ast.Starred) and isinstance(value, (list, tuple)):
                strings.extend(v for v in value if isinstance(v, str))
            elif isinstance(value, str):
                strings.append(value)
        kwargs: dict[str, Any] = {}
        for kw in node.keywords:
            value = self.eval(kw.value, frame)
            if kw.arg is None:
                if isinstance(value, dict):
                    kwargs.update(value)
            else:
                kwargs[kw.arg] = value
                if kw.arg == "type" and _wraps_optional(kw.value):
                    # optional_type(str) evaluates to its inner converter, yet maps the text
                    # "None" to None first: with None among the choices, "None" passes.
                    kwargs["_none_choice"] = True
        if not strings:
            return
        positional = not strings[0].startswith("-")
        self.added.append(AddedArgument(strings, kwargs, positional))


def _wraps_optional(node: ast.expr) -> bool:
    return isinstance(node, ast.Call) and dotted(node.func).rsplit(".", 1)[-1] == "optional_type"


def _builtin_method(base: Any, attr: str, args: list[Any]) -> Any:
    """The few str/dict/list methods the parser-building code uses."""
    if isinstance(base, str):
        if attr == "replace" and len(args) >= 2 and all(isinstance(a, str) for a in args[:2]):
            return base.replace(args[0], args[1])
        if attr in ("lower", "upper", "strip"):
            return getattr(base, attr)()
        if attr == "removeprefix" and args and isinstance(args[0], str):
            return base.removeprefix(args[0])
        if attr == "join" and args and isinstance(args[0], (list, tuple)):
            return base.join(str(a) for a in args[0])
        if attr == "join" and args and isinstance(args[0], Registry):
            return args[0]
        if attr == "format":
            return base
        return UNKNOWN
    if isinstance(base, dict):
        if attr == "items":
            return list(base.items())
        if attr == "keys":
            return list(base.keys())
        if attr == "values":
            return list(base.values())
        if attr == "pop" and args and _hashable(args[0]):
            return base.pop(args[0], args[1] if len(args) > 1 else UNKNOWN)
        if attr == "get" and args and _hashable(args[0]):
            return base.get(args[0], args[1] if len(args) > 1 else None)
        if attr == "copy":
            return dict(base)
        if attr == "update" and args and isinstance(args[0], dict):
            base.update(args[0])
            return None
        if attr == "setdefault" and args and _hashable(args[0]):
            return base.setdefault(args[0], args[1] if len(args) > 1 else None)
        return UNKNOWN
    if isinstance(base, list):
        if attr == "append" and args:
            base.append(args[0])
            return None
        if attr == "extend" and args and isinstance(args[0], (list, tuple)):
            base.extend(args[0])
            return None
        if attr == "copy":
            return list(base)
        if attr == "remove" and args and args[0] in base:
            base.remove(args[0])
            return None
    return UNKNOWN


def _hashable(value: Any) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return value is not UNKNOWN


def _manager_kind(name: str) -> str | None:
    if name.endswith("ToolParserManager"):
        return "tool"
    if name.endswith("ReasoningParserManager"):
        return "reasoning"
    return None


def _subcommand_name(reader: TypeReader, cls: ClassRef) -> Any:
    """`self.name` in a CLISubcommand: the class's `name = "serve"` or the __init__ assignment."""
    node = reader.class_node(cls)
    if node is None:
        return UNKNOWN
    for stmt in ast.walk(node):
        if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Constant):
            for target in stmt.targets:
                if (isinstance(target, ast.Attribute) and target.attr == "name") or (
                    isinstance(target, ast.Name) and target.id == "name"
                ):
                    return stmt.value.value
    return UNKNOWN


def _joined(left: Any, right: Any) -> list[Any] | str | None:
    """``left + right`` for two lists or two strings (what the source's ``+`` joins); else None."""
    if isinstance(left, list) and isinstance(right, list):
        return left + right
    if isinstance(left, str) and isinstance(right, str):
        return left + right
    return None
