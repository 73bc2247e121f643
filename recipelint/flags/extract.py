"""Build a flag catalog for one vLLM (or vllm-omni) release by reading its sources.

It is long because it follows how vLLM builds its parser across every catalogued release,
each era's shape a branch; the interpreter it runs is recipelint.flags.interp.

Entry point: :func:`extract_catalog`. The catalog format is described in
``docs/flags.md``; :mod:`recipelint.flags.catalog` reads it back.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from recipelint.flags.catalogfiles import FlagCatalogFile, FlagEntry, Spelling
from recipelint.flags.interp import (
    PARSER,
    UNKNOWN,
    AddedArgument,
    EnumMember,
    Frame,
    Instance,
    Interpreter,
    Registry,
    Tag,
)
from recipelint.flags.jsonkeys import class_method, constructs, undeclared_keys
from recipelint.flags.source import SourceError, SourceTree, release_version
from recipelint.flags.types import ClassRef, FieldInfo, Hint, TypeReader, dotted

CATALOG_FORMAT = 1

# Field docstrings / help texts that mark a flag or JSON key as deprecated.
_DEPRECATED_RE = re.compile(
    r"(?i)(\bis deprecated\b|\bare deprecated\b|\bnow deprecated\b|\bbeen deprecated\b|^\s*\W*deprecated\b"
    r"|\bdeprecated[:;,.]|\bwill be removed\b|\bdeprecated (and|since|in favou?r|in v?\d)\b)"
)


@dataclass
class KwargsRules:
    """How this release's get_kwargs maps annotations (detected from its own source)."""

    dataclass_json: bool
    optional_bool_str: bool
    soft_literal_with_str: bool
    dict_subclass_is_dict: bool
    human_int: frozenset[str]
    human_int_or_auto: frozenset[str]
    # `kwargs["choices"].append(None)` beside an optional_type converter: "None" is a choice.
    none_choice: bool = False
    # A config dataclass's JSON is handed to `cls(**json.loads(x))` (0.9.0-0.9.1), not to
    # pydantic's validation, and a class's own `from_cli` is preferred when it has one.
    dataclass_construct: bool = False
    from_cli_first: bool = False


def extract_catalog(path: Path, with_vllm: Path | None = None) -> FlagCatalogFile:
    """Read a wheel or folder and return its catalog (raises SourceError on bad input).

    ``with_vllm`` is the vLLM release a vllm-omni release runs on: omni's `serve`
    starts from vLLM's own parser, so its flags are vLLM's plus omni's.
    """
    tree = SourceTree.open(path)
    if with_vllm is not None:
        tree.fallback = SourceTree.open(with_vllm)
        if tree.fallback.package != "vllm":
            tree.close()
            raise SourceError(f"{with_vllm}: --with-vllm needs a vLLM release")
    try:
        return _Extractor(tree, path).run()
    except RecursionError:
        raise SourceError(
            f"{path}: the parser definitions nest too deeply to read statically"
        ) from None
    finally:
        tree.close()


class _Extractor:
    def __init__(self, tree: SourceTree, path: Path) -> None:
        self.tree = tree
        self.path = path
        self.reader = TypeReader(tree)
        self.rules = self._detect_kwargs_rules()
        self._kwargs_cache: dict[ClassRef, dict[str, dict[str, Any]]] = {}
        self._registries: dict[str, Registry] = {}
        self.interp = Interpreter(self.reader, self.get_kwargs, self.registry)

    def run(self) -> FlagCatalogFile:
        version = release_version(self.tree, self.path)
        if version is None:
            raise SourceError(f"{self.path}: cannot tell the release's version (no _version.py)")
        self._interpret_serve_parser()
        added = [a for a in self.interp.added if not a.positional]
        if not added:
            raise SourceError(
                f"{self.path}: found no `serve` command-line flags (not a supported vLLM layout)"
            )
        spelling = self._spelling_rules()
        flags = _build_flags(added, self, spelling)
        _apply_serve_model_rule(flags, spelling["serve_model_flag"])
        return {
            "format": CATALOG_FORMAT,
            "package": self.tree.package.replace("_", "-"),
            "version": version,
            # what the interpreter read, laid out by the two builders in the file's shape
            "spelling": cast(Spelling, spelling),
            "flags": cast("dict[str, FlagEntry]", flags),
        }

    # -- entry points -----------------------------------------------------
    def _interpret_serve_parser(self) -> None:
        pkg = self.tree.package
        serve_mod = f"{pkg}.entrypoints.cli.serve"
        mod = self.tree.module(serve_mod)
        if mod is not None:
            for node in mod.tree.body:
                if isinstance(node, ast.ClassDef):
                    method = _method(node, "subparser_init")
                    if method is not None:
                        cls = ClassRef(serve_mod, node.name)
                        self.interp.call_function(
                            serve_mod, method, [PARSER], cls=cls, self_cls=cls
                        )
                        if self.interp.added:
                            return
        if self._interpret_scripts_serve(f"{pkg}.scripts"):
            return
        # Before `vllm serve` existed the server parsed its own command line.
        for module in (f"{pkg}.entrypoints.openai.cli_args",):
            found = self.reader.resolve(module, "make_arg_parser")
            if found is not None and isinstance(found[1], ast.FunctionDef):
                self.interp.call_function(found[0], found[1], [PARSER])
                return

    def _interpret_scripts_serve(self, module: str) -> bool:
        """0.5.1-0.7.2 built `vllm serve` inside vllm/scripts.py's main(), where the serve
        subparser adds flags of its own (`--config`) before make_arg_parser: run only the
        statements from that subparser's creation to make_arg_parser, not the other commands'."""
        mod = self.tree.module(module)
        if mod is None:
            return False
        for fn in ast.walk(mod.tree):
            if isinstance(fn, ast.FunctionDef):
                body = _serve_statements(fn.body)
                if body:
                    self.interp.exec_body(body, Frame(module))
                    return bool(self.interp.added)
        return False

    # -- get_kwargs emulation -------------------------------------------------
    def _kwargs_source(self) -> tuple[str, ast.FunctionDef | None, ast.FunctionDef | None]:
        mod = self.tree.module("vllm.engine.arg_utils")
        if mod is None:
            return "", None, None
        funcs = {n.name: n for n in mod.tree.body if isinstance(n, ast.FunctionDef)}
        main = funcs.get("_compute_kwargs") or funcs.get("get_kwargs")
        return mod.text, main, funcs.get("literal_to_kwargs")

    def _detect_kwargs_rules(self) -> KwargsRules:
        text, main, literal_fn = self._kwargs_source()
        body = ast.unparse(main) if main is not None else ""
        human, auto = _human_int_names(main) if main is not None else (set(), set())
        return KwargsRules(
            dataclass_json="is_dataclass" in body,
            optional_bool_str=bool(re.search(r"\{bool, str, type\(None\)\}", body)),
            soft_literal_with_str=literal_fn is not None and "metavar" in ast.unparse(literal_fn),
            dict_subclass_is_dict="is_dict_subclass" in body,
            human_int=frozenset(human),
            human_int_or_auto=frozenset(auto),
            none_choice=re.search(r"""\[["']choices["']\]\.append\(None\)""", body) is not None,
            dataclass_construct=re.search(r"\(\*\*json\.loads\(", body) is not None,
            from_cli_first=re.search(r"""hasattr\(\w+, ["']from_cli["']\)""", body) is not None,
        )

    def get_kwargs(self, cls: ClassRef) -> dict[str, dict[str, Any]]:
        """What this release's get_kwargs(cls) returns, as abstract argparse kwargs."""
        if cls not in self._kwargs_cache:
            table: dict[str, dict[str, Any]] = {}
            for info in self.reader.dataclass_fields(cls):
                table[info.name] = self._field_kwargs(info)
            self._kwargs_cache[cls] = table
        # get_kwargs hands out a fresh copy each call; callers mutate it.
        return {k: dict(v) for k, v in self._kwargs_cache[cls].items()}

    def _field_kwargs(self, info: FieldInfo) -> dict[str, Any]:
        hints = self.reader.hints(info.module, info.annotation)
        if self.rules.dict_subclass_is_dict:
            hints = [Hint("dict") if h.kind == "dictclass" else h for h in hints]
        kinds = {h.kind for h in hints}
        out: dict[str, Any] = {"help": info.doc, "_field": info.name}
        default = self._field_default(info)
        if default is not UNKNOWN:
            out["default"] = default
        dataclass_hint = next((h for h in hints if h.kind == "dataclass"), None)
        if self.rules.dataclass_json and dataclass_hint is not None:
            out["type"] = Tag("json")
            if "dict" not in kinds or self._forbids_extra_keys(dataclass_hint.cls):
                # `dict | TensorizerConfig` (a plain dataclass: pydantic ignores keys it
                # lacks) takes any mapping, each loader reading its own keys; a `@config`
                # class forbids other keys, so its fields are the keys.
                out["_dataclass"] = dataclass_hint.cls
        elif self.rules.optional_bool_str and kinds == {"bool", "str", "None"}:
            out.update(type=Tag("str"), nargs="?", const=True)
        elif "bool" in kinds:
            out["action"] = Tag("BooleanOptionalAction")
        elif "literal" in kinds:
            out.update(self._literal_kwargs(hints))
        elif kinds & {"tuple", "list", "set"}:
            out.update(self._collection_kwargs(hints))
        elif "int" in kinds:
            out["type"] = Tag(self._int_type(info.name))
        elif "float" in kinds:
            out["type"] = Tag("float")
        elif "dict" in kinds and kinds & {"str", "opaque", "enum", "dataclass", "dictclass"}:
            out["type"] = Tag("json_or_str")
        elif "dict" in kinds or "dictclass" in kinds:
            out["type"] = Tag("json")
        else:
            out["type"] = Tag("str")
            enum = next((h for h in hints if h.kind == "enum"), None)
            if enum is not None and enum.cls is not None:
                members = self.reader.enum_members(enum.cls)
                if "IntEnum" in self.reader.base_names(enum.cls):
                    # The config validates the text as the enum's integer value
                    # (--optimization-level 3); a member name (O3) fails at startup.
                    out["_soft"] = [str(value) for _, value in members]
                else:
                    # argparse takes any string; the config later looks the enum up by
                    # member name (AttentionBackendEnum[value.upper()]): names are the values.
                    out["_soft"] = [name for name, _ in members]
        # Literal and list-of-Literal fields alike (0.31+ --collect-detailed-traces) get
        # None appended to their choices beside the optional_type converter.
        if (
            self.rules.none_choice
            and "None" in kinds
            and "bool" not in kinds
            and out.get("choices")
        ):
            out["choices"] = [*out["choices"], None]
            out["_none_choice"] = True
        return out

    def _field_default(self, info: FieldInfo) -> Any:
        """The value get_kwargs hands argparse as ``default``: the field's default, that of
        ``field(default=...)``/``Field(default=...)``, or what ``default_factory`` builds."""
        node = info.default
        if node is None:
            return UNKNOWN
        if isinstance(node, ast.Call) and dotted(node.func).rsplit(".", 1)[-1] in (
            "field",
            "Field",
        ):
            found = {kw.arg: kw.value for kw in node.keywords}
            if "default" in found:
                node = found["default"]
            elif node.args and dotted(node.func).endswith("Field"):
                node = node.args[0]  # Field(None, ...): pydantic's positional default
            elif isinstance(factory := found.get("default_factory"), ast.Name):
                return {"list": [], "dict": {}, "set": []}.get(factory.id, UNKNOWN)
            else:
                return UNKNOWN
        return self.interp.eval(node, Frame(info.module))

    def _forbids_extra_keys(self, ref: ClassRef | None) -> bool:
        node = self.reader.class_node(ref) if ref is not None else None
        return node is not None and any(
            dotted(d.func if isinstance(d, ast.Call) else d).rsplit(".", 1)[-1] == "config"
            for d in node.decorator_list
        )

    def _int_type(self, name: str) -> str:
        if name in self.rules.human_int_or_auto:
            return "human_int_or_auto"
        if name in self.rules.human_int:
            return "human_int"
        return "int"

    def _literal_kwargs(self, hints: list[Hint]) -> dict[str, Any]:
        values = [v for h in hints if h.kind == "literal" for v in h.literals]
        typing_only = any(h.soft for h in hints if h.kind == "literal")
        if typing_only or (self.rules.soft_literal_with_str and "str" in {h.kind for h in hints}):
            return {"type": Tag("str"), "_soft": values}
        first = values[0] if values else ""
        return {"type": Tag(type(first).__name__), "choices": values}

    def _collection_kwargs(self, hints: list[Hint]) -> dict[str, Any]:
        coll = next(h for h in hints if h.kind in ("tuple", "list", "set"))
        elems = [h for h in coll.args if h.kind != "ellipsis"]
        out: dict[str, Any] = {"nargs": "+"}
        if coll.kind == "tuple" and coll.args and all(h.kind != "ellipsis" for h in coll.args):
            out["nargs"] = len(coll.args)
        literal = next((h for h in elems if h.kind == "literal"), None)
        if literal is not None:
            out["choices"] = list(literal.literals)
            out["type"] = Tag("str")
        else:
            kinds = {h.kind for h in elems}
            out["type"] = Tag(
                "int" if kinds == {"int"} else "float" if kinds == {"float"} else "str"
            )
        return out

    # -- parser registries ---------------------------------------------------
    def registry(self, kind: str) -> Registry:
        if kind not in self._registries:
            self._registries[kind] = Registry(kind, tuple(sorted(self._scan_registry(kind))))
        return self._registries[kind]

    def _scan_registry(self, kind: str) -> set[str]:
        """Names given to register_module decorators and lazy registration tables."""
        prefixes = [
            p.format(pkg=pkg)
            for pkg in dict.fromkeys((self.tree.package, "vllm"))
            for p in {
                "tool": ["{pkg}/entrypoints/openai/tool_parsers/", "{pkg}/tool_parsers/"],
                "reasoning": ["{pkg}/reasoning/"],
            }[kind]
        ]
        names: set[str] = set()
        for prefix in prefixes:
            for rel in self.tree.paths(prefix):
                text = self.tree.read(rel)
                if "register" not in text.lower():
                    continue
                mod = self.tree.module_of_path(rel)
                if mod is not None:
                    names |= _registered_names(mod.tree)
        return names

    # -- spelling rules --------------------------------------------------------
    def _spelling_rules(self) -> dict[str, Any]:
        pkg = self.tree.package
        text = ""
        # vllm-omni's parser subclasses vLLM's FlexibleArgumentParser: read vLLM's.
        for rel in ("vllm/utils/argparse_utils.py", "vllm/utils/__init__.py", "vllm/utils.py"):
            if self.tree.has(rel) and "class FlexibleArgumentParser" in self.tree.read(rel):
                text = self.tree.read(rel)
                break
        start = text.find("class FlexibleArgumentParser")
        parser_src = text[start:] if start >= 0 else ""
        underscores = "none"
        if 'replace("_", "-")' in parser_src or "replace('_', '-')" in parser_src:
            underscores = "before_dot" if re.search(r"\[\^\\?\.\]", parser_src) else "all"
        dotted_json = (
            bool(re.search(r"""split\(\s*["']\.["']""", parser_src))
            and "json" in parser_src.lower()
        )
        # `vllm serve` lived in vllm/scripts.py (0.5.1-0.7.2) before entrypoints/cli/.
        serve_rel = next(
            (
                rel
                for rel in (f"{pkg}/entrypoints/cli/serve.py", f"{pkg}/scripts.py")
                if self.tree.has(rel)
            ),
            None,
        )
        serve_src = self.tree.read(serve_rel) if serve_rel is not None else ""
        cli_main = (
            self.tree.read(f"{pkg}/entrypoints/cli/main.py")
            if self.tree.has(f"{pkg}/entrypoints/cli/main.py")
            else ""
        )
        return {
            "underscores": underscores,
            "dotted_json": dotted_json,
            "list_append": dotted_json
            and "+" in parser_src
            and re.search(r"""endswith\(\s*["']\+["']""", parser_src) is not None,
            "optimization_shorthand": '"-O"' in parser_src or "'-O'" in parser_src,
            "config_file": "--config" in parser_src,
            "abbreviations": "allow_abbrev=False" not in parser_src,
            "enable_disable_pairs": "_inverse_prefixes" in text
            or ('"--disable-"' in text and '"--enable-"' in text),
            "omni_handoff": '"--omni"' in cli_main,
            "serve_model_flag": _serve_model_flag(
                parser_src if "`--model` option" in parser_src else serve_src
            ),
        }


def _apply_serve_model_rule(flags: dict[str, Any], rule: str) -> None:
    # parse_args inspects argv for `--model` before argparse runs: invisible to the
    # add_argument reading, so it is recorded on the flag here.
    entry = flags.get("--model")
    if entry is None or rule == "ok":
        return
    message = "with `vllm serve`, give the model as the positional argument, not `--model`"
    if rule == "error":
        entry["serve_error"] = message
    else:
        entry["deprecated"] = message[0].upper() + message[1:] + "."


def _serve_model_flag(parser_src: str) -> str:
    """How `vllm serve ... --model X` fares: the parser (0.8.3+) or the serve command (0.8.0-0.8.2)
    raises ("error"), warns ("deprecated"), or says nothing ("ok")."""
    at = parser_src.find("`--model` option")
    if at < 0:
        return "ok"
    before = parser_src[max(0, at - 600) : at]
    raise_at, warn_at = before.rfind("raise ValueError"), before.rfind("logger.warning")
    if raise_at < 0 and warn_at < 0:
        return "ok"
    return "error" if raise_at > warn_at else "deprecated"


def _serve_statements(body: list[ast.stmt]) -> list[ast.stmt]:
    """The statements from `add_parser("serve", ...)` to the make_arg_parser call, if any."""
    start = next((i for i, stmt in enumerate(body) if _calls(stmt, "add_parser", "serve")), None)
    if start is None:
        return []
    end = next(
        (i for i in range(start, len(body)) if _calls(body[i], "make_arg_parser", None)), None
    )
    return body[start : end + 1] if end is not None else []


def _calls(stmt: ast.stmt, name: str, first_arg: str | None) -> bool:
    for node in ast.walk(stmt):
        if isinstance(node, ast.Call) and dotted(node.func).split(".")[-1] == name:
            if first_arg is None:
                return True
            if node.args and isinstance(node.args[0], ast.Constant):
                return node.args[0].value == first_arg
    return False


def _method(cls: ast.ClassDef, name: str) -> ast.FunctionDef | None:
    for stmt in cls.body:
        if isinstance(stmt, ast.FunctionDef) and stmt.name == name:
            return stmt
    return None


def _human_int_names(fn: ast.FunctionDef) -> tuple[set[str], set[str]]:
    """Field names get_kwargs parses as human-readable ints (``128k``), and those also taking ``auto``."""
    sets: dict[str, set[str]] = {}
    for node in ast.walk(fn):
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
        ):
            strings = _string_collection(node.value)
            if strings is not None:
                sets[node.targets[0].id] = strings
    human: set[str] = set()
    auto: set[str] = set()
    for node in ast.walk(fn):
        if not isinstance(node, ast.If):
            continue
        names = _names_tested(node.test, sets)
        if not names:
            continue
        body = "\n".join(ast.unparse(s) for s in node.body)
        if "human_readable_int_or_auto" in body:
            auto |= names
        elif "human_readable_int" in body:
            human |= names
    return human, auto


def _string_collection(node: ast.expr) -> set[str] | None:
    if (
        isinstance(node, (ast.Set, ast.List, ast.Tuple))
        and node.elts
        and all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts)
    ):
        return {e.value for e in node.elts}  # type: ignore[attr-defined]
    return None


def _names_tested(test: ast.expr, sets: dict[str, set[str]]) -> set[str]:
    if not (
        isinstance(test, ast.Compare) and isinstance(test.left, ast.Name) and test.left.id == "name"
    ):
        return set()
    right = test.comparators[0]
    if (
        isinstance(test.ops[0], ast.Eq)
        and isinstance(right, ast.Constant)
        and isinstance(right.value, str)
    ):
        return {right.value}
    if isinstance(test.ops[0], ast.In):
        found = _string_collection(right)
        if found is not None:
            return found
        if isinstance(right, ast.Name):
            return sets.get(right.id, set())
    return set()


def _registered_names(tree: ast.Module) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            callee = dotted(node.func).rsplit(".", 1)[-1]
            if callee in ("register_module", "register_lazy_module"):
                names |= _strings_in_call(node, lazy=callee == "register_lazy_module")
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            target = node.targets[0] if isinstance(node, ast.Assign) else node.target
            registry = (
                isinstance(target, ast.Name) and target.id.isupper() and "REGISTER" in target.id
            )
            if registry and isinstance(node.value, ast.Dict):
                names |= {
                    k.value
                    for k in node.value.keys
                    if isinstance(k, ast.Constant) and isinstance(k.value, str)
                }
    return names


def _strings_in_call(call: ast.Call, lazy: bool) -> set[str]:
    out: set[str] = set()
    candidates: list[ast.expr] = []
    if call.args:
        candidates.append(call.args[0] if lazy else call.args[0])
    candidates += [kw.value for kw in call.keywords if kw.arg == "name"]
    for cand in candidates:
        if isinstance(cand, ast.Constant) and isinstance(cand.value, str):
            out.add(cand.value)
        elif isinstance(cand, (ast.List, ast.Tuple)):
            out |= {
                e.value
                for e in cand.elts
                if isinstance(e, ast.Constant) and isinstance(e.value, str)
            }
    return out


# -- converting recorded add_argument calls into catalog entries -------------------


def _build_flags(
    added: list[AddedArgument], ex: _Extractor, spelling: dict[str, Any]
) -> dict[str, Any]:
    flags: dict[str, Any] = {}
    for arg in added:
        longs = [s for s in arg.option_strings if s.startswith("--")]
        canonical = longs[0] if longs else arg.option_strings[0]
        entry = _entry(arg, canonical, ex, spelling)
        # A flag registered twice (both branches of an if) keeps the first, richest reading.
        if canonical not in flags:
            flags[canonical] = entry
    # Parser names are validated after argparse from registries in later releases;
    # keep the built-in names as soft values so a typo can still be reported.
    for flag, kind in (("--tool-call-parser", "tool"), ("--reasoning-parser", "reasoning")):
        parser_flag = flags.get(flag)
        if parser_flag is not None and "choices" not in parser_flag and "values" not in parser_flag:
            names = list(ex.registry(kind).names)
            if names:
                parser_flag["values"] = names
    return dict(sorted(flags.items()))


def _entry(
    arg: AddedArgument, canonical: str, ex: _Extractor, spelling: dict[str, Any]
) -> dict[str, Any]:
    kw = arg.kwargs
    entry: dict[str, Any] = {}
    aliases = sorted(s for s in arg.option_strings if s != canonical)
    if aliases:
        entry["aliases"] = aliases
    action = _action_name(kw.get("action"))
    value_kind, type_name = _arity(kw, action)
    words = _boolean_action_words(ex, kw.get("action"))
    if words is not None:
        # An action reading `true`/`false` (StoreBoolean, 0.5-0.8): with nargs="?" the
        # bare switch means true, and `--x false` switches it off.
        value_kind = "optional" if kw.get("nargs") == "?" else "yes"
        entry["choices"] = words[0]
        if words[1]:
            entry["choices_any_case"] = True
    entry["value"] = value_kind
    if type_name:
        entry["type"] = type_name
    nargs = kw.get("nargs")
    if nargs in ("+", "*") or (isinstance(nargs, int) and nargs > 1):
        entry["nargs"] = nargs
    if action in ("append", "extend"):
        entry["repeatable"] = True
    if action == "BooleanOptionalAction":
        entry["negations"] = _negations(arg.option_strings, spelling)
    choices = _values(kw.get("choices"))
    if choices is not None and kw.get("choices") is not None:
        if _none_is_a_choice(kw):
            choices = sorted({*choices, "None"})
        entry["choices"] = choices
    soft = _soft_values(kw)
    if soft and "choices" not in entry:
        entry["values"] = soft
    converter = kw.get("type")
    if (
        isinstance(converter, tuple)
        and converter[:1] == ("method",)
        and converter[2].name in _PARSING_METHODS
    ):
        # Early releases parse config flags with `SomeConfig.from_cli`: JSON text.
        entry["type"] = "json"
    if entry.get("type") == "json":
        config = _config_class(ex, arg, converter)
        if config is not None:
            entry["json_keys"] = _json_keys(ex, config[0], depth=0)
            entry["json_extra"] = undeclared_keys(ex.reader, *config)
    if _is_deprecated(kw, action):
        entry["deprecated"] = _deprecation_note(kw.get("help")) or True
    default = _default(kw, action)
    if default is not UNKNOWN:
        entry["default"] = default
    return entry


def _default(kw: dict[str, Any], action: str | None) -> Any:
    """The flag's argparse default as JSON (an enum member by its name), when it is a plain
    value; argparse's own for a ``store_true``/``store_false`` switch without one."""
    if "default" not in kw:
        return {"store_true": False, "store_false": True}.get(action or "", UNKNOWN)
    return _plain(kw["default"])


def _plain(value: Any) -> Any:
    if isinstance(value, EnumMember):
        return value.name
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (list, tuple)):
        items = [_plain(v) for v in value]
        return UNKNOWN if any(i is UNKNOWN for i in items) else items
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        plain = {k: _plain(v) for k, v in value.items()}
        return UNKNOWN if any(v is UNKNOWN for v in plain.values()) else plain
    return UNKNOWN


# Class methods that read a config flag's text (`from_cli`) or its parsed mapping (`from_dict`).
_PARSING_METHODS = ("from_cli", "from_json")


def _config_class(
    ex: _Extractor, arg: AddedArgument, converter: Any
) -> tuple[ClassRef, bool] | None:
    """The config class a JSON flag's value becomes, and whether the release constructs it
    (``cls(**mapping)``) rather than having pydantic validate the JSON."""
    reader = ex.reader
    if isinstance(converter, tuple) and converter[:1] == ("method",):
        cls = converter[1]
        if reader.is_dataclass(cls) or "BaseModel" in reader.base_names(cls):
            return cls, constructs(converter[2])
    found = arg.kwargs.get("_dataclass")
    if isinstance(found, ClassRef):
        if converter != Tag("json"):
            # The release swapped get_kwargs' converter for plain JSON (--speculative-config
            # from 0.10.1): EngineArgs builds the class from the mapping later.
            return found, True
        from_cli = class_method(reader, found, "from_cli") if ex.rules.from_cli_first else None
        if from_cli is not None:
            return found, constructs(from_cli)
        return found, ex.rules.dataclass_construct
    return _built_from_mapping(ex, arg)


def _built_from_mapping(ex: _Extractor, arg: AddedArgument) -> tuple[ClassRef, bool] | None:
    """A plain-JSON flag whose mapping EngineArgs hands to a config class's constructor
    (``SpeculativeConfig.from_dict(self.speculative_config)`` → ``cls(**d)``, 0.8.5-0.10.0)."""
    dest = arg.kwargs.get("dest")
    if not isinstance(dest, str):
        longs = [s for s in arg.option_strings if s.startswith("--")]
        dest = longs[0][2:].replace("-", "_") if longs else None
    mod = ex.tree.module("vllm.engine.arg_utils")
    if dest is None or mod is None:
        return None
    for node in ast.walk(mod.tree):
        if not isinstance(node, ast.Call):
            continue
        if any(_is_self_attr(k.value, dest) for k in node.keywords if k.arg is None):
            target = node.func
        elif (
            isinstance(node.func, ast.Attribute)
            and node.args
            and _is_self_attr(node.args[0], dest)
            and node.func.attr.startswith("from_")
        ):
            target = node.func.value
        else:
            continue
        found = ex.reader.resolve_expr(mod.name, target)
        if found is None or not isinstance(found[1], ast.ClassDef):
            continue
        cls = ClassRef(found[0], found[1].name)
        if not ex.reader.is_dataclass(cls):
            continue
        if target is node.func or not isinstance(node.func, ast.Attribute):
            return cls, True
        method = class_method(ex.reader, cls, node.func.attr)
        if method is not None and constructs(method):
            return cls, True
    return None


def _is_self_attr(node: ast.expr, name: str) -> bool:
    return (
        isinstance(node, ast.Attribute)
        and node.attr == name
        and isinstance(node.value, ast.Name)
        and node.value.id == "self"
    )


def _none_is_a_choice(kw: dict[str, Any]) -> bool:
    """The text `None` passes: the converter maps it to None and None is among the choices."""
    raw = kw.get("choices")
    if not isinstance(raw, (list, tuple)) or None not in raw:
        return False
    if kw.get("_none_choice"):
        return True
    converter = kw.get("type")
    if isinstance(converter, Tag):
        name = converter.name.rsplit(".", 1)[-1]
    elif isinstance(converter, tuple) and converter[:1] == ("fn",):
        name = converter[-1].name
    else:
        return False
    return "nullable" in name or "optional" in name


def _boolean_action_words(ex: _Extractor, action: Any) -> tuple[list[str], bool] | None:
    """The words a custom action's ``__call__`` compares its value with, and whether it
    lower-cases the value first (then any case passes)."""
    if isinstance(action, Tag):
        # Named actions are kept as tags by the interpreter; the class is the one
        # arg_utils imports under that name.
        found = ex.reader.resolve("vllm.engine.arg_utils", action.name.rsplit(".", 1)[-1])
        if found is None or not isinstance(found[1], ast.ClassDef):
            return None
        action = ClassRef(found[0], found[1].name)
    if not isinstance(action, ClassRef):
        return None
    node = ex.reader.class_node(action)
    call = _method(node, "__call__") if node is not None else None
    if call is None or len(call.args.args) < 4:
        return None
    values = call.args.args[3].arg
    words: set[str] = set()
    folded = False
    for sub in ast.walk(call):
        if not (isinstance(sub, ast.Compare) and len(sub.ops) == 1):
            continue
        left, right = sub.left, sub.comparators[0]
        if isinstance(left, ast.Call) and isinstance(left.func, ast.Attribute):
            folded = folded or left.func.attr == "lower"
            left = left.func.value
        if (
            isinstance(left, ast.Name)
            and left.id == values
            and isinstance(sub.ops[0], ast.Eq)
            and isinstance(right, ast.Constant)
            and isinstance(right.value, str)
        ):
            words.add(right.value)
    return (sorted(words), folded) if words else None


def _action_name(action: Any) -> str | None:
    if isinstance(action, str):
        return action
    if isinstance(action, Tag):
        return action.name.rsplit(".", 1)[-1]
    if isinstance(action, ClassRef):
        return action.name
    return None


def _arity(kw: dict[str, Any], action: str | None) -> tuple[str, str | None]:
    """Whether the flag takes a value ("yes"/"no"/"optional") and the value's type name."""
    if action in (
        "store_true",
        "store_false",
        "store_const",
        "count",
        "BooleanOptionalAction",
        "StoreBoolean",
    ):
        return "no", None
    if action is not None and action.endswith("BooleanOptionalAction"):
        return "no", None
    nargs = kw.get("nargs")
    value_kind = "optional" if nargs in ("?", "*") else "yes"
    return value_kind, _type_name(kw.get("type"), kw)


def _type_name(value: Any, kw: dict[str, Any]) -> str:
    if isinstance(value, Tag):
        name = value.name.rsplit(".", 1)[-1]
        return {
            "loads": "json",
            "human_readable_int": "human_int",
            "human_readable_int_or_auto": "human_int_or_auto",
            "nullable_str": "str",
            "nullable_kvs": "str",
            "bool": "str",
        }.get(name, name if name in _TYPE_NAMES else "str")
    if isinstance(value, tuple) and value and value[0] in ("fn", "method"):
        fn_name = value[-1].name
        if "json" in fn_name.lower() or "dataclass" in fn_name.lower():
            return "json"
        if "human_readable_int_or_auto" in fn_name:
            return "human_int_or_auto"
        if "human_readable_int" in fn_name:
            return "human_int"
    if isinstance(value, Tag) is False and kw.get("_dataclass") is not None:
        return "json"
    return "str"


_TYPE_NAMES = {"int", "float", "str", "json", "json_or_str", "human_int", "human_int_or_auto"}


def _negations(option_strings: list[str], spelling: dict[str, Any]) -> list[str]:
    out: list[str] = []
    for opt in option_strings:
        if opt.startswith("--"):
            out.append(f"--no-{opt[2:]}")
            if spelling.get("enable_disable_pairs"):
                for prefix, inverse in (("--enable-", "--disable-"), ("--disable-", "--enable-")):
                    if opt.startswith(prefix):
                        out.append(inverse + opt[len(prefix) :])
    return sorted(set(out))


def _values(value: Any) -> list[str] | None:
    if isinstance(value, Registry):
        return list(value.names)
    if isinstance(value, (list, tuple)):
        out = []
        for item in value:
            if isinstance(item, EnumMember):
                item = item.value
            if item is None or item is UNKNOWN or isinstance(item, (Tag, Instance)):
                continue
            out.append(str(item))
        return sorted(set(out))
    return None


def _soft_values(kw: dict[str, Any]) -> list[str]:
    for key in ("_soft", "metavar"):
        found = _values(kw.get(key))
        if found:
            return found
    return []


def _is_deprecated(kw: dict[str, Any], action: str | None) -> bool:
    if kw.get("deprecated") is True:
        return True
    if action is not None and "deprecat" in action.lower():
        return True
    return _deprecation_note(kw.get("help")) is not None


# `The "lm-format-enforcer" backend is deprecated`: a VALUE is deprecated, not the option.
_QUOTED_SUBJECT = re.compile(r'^[^"]*"[^"]+"[^"]*?\b(is|are|will be)\b')
# `This option supersedes x and y which are deprecated`: OTHER options are deprecated.
_OTHER_SUBJECT = re.compile(r"(?i)\b(supersedes|replaces)\b|\bwhich (is|are) (now )?deprecated\b")
# `- "mori_low_latency": MoRI EP … (deprecated; use "mori")`: an item of a list of choices
# describes one VALUE (the text before the match is inside that item).
_CHOICE_ITEM = re.compile(r'(?:^|\s)-\s+"[^"]+":[^"]*$')


def _deprecation_note(help_text: Any) -> str | None:
    """The sentence of the help text that announces the option's deprecation (what a finding quotes)."""
    if not isinstance(help_text, str):
        return None
    text = " ".join(help_text.replace("%%", "%").split())
    for sentence in re.split(r"(?<=[.!?])\s+", text):
        match = _DEPRECATED_RE.search(sentence)
        if (
            match is None
            or _QUOTED_SUBJECT.match(sentence[: match.end()])
            or _OTHER_SUBJECT.search(sentence)
            or _CHOICE_ITEM.search(sentence[: match.start()])
        ):
            continue
        note = sentence.strip()
        return note if len(note) <= 200 else note[:197].rstrip() + "..."
    return None


def _json_keys(ex: _Extractor, ref: ClassRef, depth: int) -> dict[str, Any]:
    """Sub-keys of a JSON config flag: the dataclass's init fields (one nested level kept)."""
    keys: dict[str, Any] = {}
    for info in ex.reader.dataclass_fields(ref):
        if info.init_false or info.name.startswith("_"):
            continue
        sub: dict[str, Any] = {}
        if _deprecation_note(info.doc) is not None:
            sub["deprecated"] = True
        if depth == 0:
            nested = next(
                (
                    h.cls
                    for h in ex.reader.hints(info.module, info.annotation)
                    if h.kind == "dataclass"
                ),
                None,
            )
            if nested is not None and nested != ref:
                sub["keys"] = _json_keys(ex, nested, depth + 1)
                # A nested mapping is validated into its own class by pydantic.
                sub["extra"] = undeclared_keys(ex.reader, nested, constructed=False)
        keys[info.name] = sub
    return dict(sorted(keys.items()))
