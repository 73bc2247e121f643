"""Extract the environment variables one vLLM release reads, by reading its sources.

vLLM declares most variables in ``vllm/envs.py``: a mapping ``environment_variables``
of name to a callable that reads ``os.environ`` and converts the text. The callable
is read statically: the conversion wrapped around the read (``int(...)``,
``bool(int(...))``, ``.lower() in ("1", "true")``, ``env_with_choices(...)``) gives the
variable's type, the read's second argument its default. Releases before ``envs.py``
existed, and modules that read a variable directly, are covered by scanning every
module for ``os.environ`` / ``os.getenv`` reads of a constant name.

The result of :func:`extract_env` is one release's table; :func:`build_env_catalog`
folds the tables of many releases into the committed ``vllm-env.json``
(``docs/flags.md`` describes both).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, cast

from recipelint.flags.catalog import version_key
from recipelint.flags.catalogfiles import EnvCatalogFile, EnvEra
from recipelint.flags.source import SourceError, SourceTree, release_version
from recipelint.flags.types import ClassRef, TypeReader, dotted

ENV_FORMAT = 1
_NAME_RE = re.compile(r"^[A-Z][A-Z0-9_]*$")
_READERS = ("os.getenv", "os.environ.get", "environ.get", "getenv")
# Conversions seen around a read, innermost first; the first typed one decides.
_CASTS = {"int": "int", "float": "float", "maybe_convert_int": "int", "maybe_convert_bool": "bool"}
_CHOICE_HELPERS = ("env_with_choices", "env_list_with_choices", "env_set_with_choices")


def extract_env(path: Path) -> dict[str, Any]:
    """One release's environment variables (raises SourceError on bad input)."""
    tree = SourceTree.open(path)
    try:
        if tree.package != "vllm":
            raise SourceError(f"{path}: environment variables are read from vLLM releases only")
        version = release_version(tree, path)
        if version is None:
            raise SourceError(f"{path}: cannot tell the release's version (no _version.py)")
        variables = _scan_reads(tree)
        variables.update(_declared(tree))
        return {
            "format": ENV_FORMAT,
            "package": "vllm",
            "version": version,
            "variables": dict(sorted(variables.items())),
        }
    finally:
        tree.close()


# -- envs.py's environment_variables mapping ------------------------------------------------


def _declared(tree: SourceTree) -> dict[str, dict[str, Any]]:
    mod = tree.module("vllm.envs")
    if mod is None:
        return {}
    mapping = next(
        (v for t, v in _module_assignments(mod.tree) if t == "environment_variables"), None
    )
    if not isinstance(mapping, ast.Dict):
        return {}
    functions = {n.name: n for n in mod.tree.body if isinstance(n, ast.FunctionDef)}
    reader = TypeReader(tree)
    out: dict[str, dict[str, Any]] = {}
    for key, value in zip(mapping.keys, mapping.values, strict=True):
        if isinstance(key, ast.Constant) and isinstance(key.value, str):
            for name, spec in _declared_specs(key.value, value, functions, reader):
                out[name] = {**spec, "source": "envs"}
    return out


def _module_assignments(module: ast.Module) -> Iterator[tuple[str, ast.expr]]:
    for stmt in module.body:
        if isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], ast.Name):
            yield stmt.targets[0].id, stmt.value
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value:
            yield stmt.target.id, stmt.value


def _declared_specs(
    key: str,
    value: ast.expr,
    functions: dict[str, ast.FunctionDef],
    reader: TypeReader,
) -> list[tuple[str, dict[str, Any]]]:
    """The variables one mapping entry reads: normally its key, but an entry may read
    another name (``"VLLM_USE_HPU_CONTIGUOUS_CACHE_FETCH"`` reads ``VLLM_CONTIGUOUS_PA``),
    and then setting the key itself does nothing."""
    if isinstance(value, ast.Call) and dotted(value.func).rsplit(".", 1)[-1] in _CHOICE_HELPERS:
        first = value.args[0] if value.args else None
        named = first.value if isinstance(first, ast.Constant) else key
        return [(str(named), _choice_spec(value, reader))]
    body: ast.AST = value
    if isinstance(value, ast.Name) and value.id in functions:
        body = functions[value.id]  # `"VLLM_PORT": get_vllm_port`
    elif isinstance(value, ast.Lambda) and isinstance(value.body, ast.Call):
        called = dotted(value.body.func)
        if called in functions and not _reads_of(value.body, None):
            body = functions[called]  # `lambda: _get_x()`: the helper reads it
    parents = _parents(body)
    own = _reads_of(body, key)
    if own:
        return [(key, _read_spec(own[0], parents))]
    others: dict[str, dict[str, Any]] = {}
    for read in _reads_of(body, None):
        name = _read_name(read)
        if name is not None and name not in others:
            others[name] = _read_spec(read, parents)
    # Read in a way this reading does not follow: known by name, any text.
    return list(others.items()) or [(key, {"type": "str"})]


def _choice_spec(call: ast.Call, reader: TypeReader) -> dict[str, Any]:
    """`env_with_choices(NAME, default, choices, case_sensitive=...)` and its list/set forms."""
    helper = dotted(call.func).rsplit(".", 1)[-1]
    args = list(call.args)
    keywords = {k.arg: k.value for k in call.keywords if k.arg}
    default = args[1] if len(args) > 1 else keywords.get("default")
    choices_node = args[2] if len(args) > 2 else keywords.get("choices")
    sensitive = args[3] if len(args) > 3 else keywords.get("case_sensitive")
    spec: dict[str, Any] = {"type": "list" if helper != "env_with_choices" else "choice"}
    spec.update(_default(default))
    choices = _choices(choices_node, reader)
    if choices:
        spec["choices"] = choices
    elif spec["type"] == "choice":
        spec["type"] = "str"  # choices computed at run time: any text passes our reading
    if isinstance(sensitive, ast.Constant) and sensitive.value is False:
        spec["case_insensitive"] = True
    return spec


def _choices(node: ast.expr | None, reader: TypeReader) -> list[str]:
    if isinstance(node, ast.Lambda):
        node = node.body
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return sorted(
            {str(e.value) for e in node.elts if isinstance(e, ast.Constant) and e.value is not None}
        )
    # `list(SomeEnum.__members__.keys())` / `[b.name for b in SomeEnum]`: the enum's names,
    # also where the enum is imported inline (`__import__("vllm.x", ...).SomeEnum`).
    for sub in ast.walk(node) if node is not None else ():
        found = None
        if isinstance(sub, ast.Name) and sub.id[:1].isupper():
            found = reader.resolve("vllm.envs", sub.id)
        elif (
            isinstance(sub, ast.Attribute)
            and isinstance(sub.value, ast.Call)
            and dotted(sub.value.func) == "__import__"
            and sub.value.args
            and isinstance(sub.value.args[0], ast.Constant)
        ):
            found = reader.resolve(str(sub.value.args[0].value), sub.attr)
        if found is not None and isinstance(found[1], ast.ClassDef):
            ref = ClassRef(found[0], found[1].name)
            if reader.is_enum(ref):
                return sorted(member for member, _ in reader.enum_members(ref))
    return []


# -- reads anywhere in the package ----------------------------------------------------------


def _scan_reads(tree: SourceTree) -> dict[str, dict[str, Any]]:
    """Every constant-named environment read in the release, typed by its surroundings."""
    out: dict[str, dict[str, Any]] = {}
    for rel in tree.paths(f"{tree.package}/"):
        text = tree.read(rel)
        if "environ" not in text and "getenv" not in text:
            continue
        mod = tree.module_of_path(rel)
        if mod is None:
            continue
        parents = _parents(mod.tree)
        for read in _reads_of(mod.tree, None):
            name = _read_name(read)
            if name is None or name in out:
                continue
            out[name] = {**_read_spec(read, parents), "source": "read"}
    return out


def _parents(root: ast.AST) -> dict[ast.AST, ast.AST]:
    return {child: node for node in ast.walk(root) for child in ast.iter_child_nodes(node)}


def _reads_of(root: ast.AST, name: str | None) -> list[ast.expr]:
    """Calls `os.getenv(NAME, ...)` / `os.environ.get(NAME, ...)`, loads `os.environ[NAME]`."""
    found: list[ast.expr] = []
    for node in ast.walk(root):
        read_name = _read_name(node)
        if read_name is not None and (name is None or read_name == name):
            found.append(node)  # type: ignore[arg-type]
    return sorted(found, key=lambda n: (n.lineno, n.col_offset))


def _read_name(node: ast.AST) -> str | None:
    key: ast.expr | None = None
    if isinstance(node, ast.Call) and node.args and dotted(node.func) in _READERS:
        key = node.args[0]
    elif (
        isinstance(node, ast.Subscript)
        and isinstance(node.ctx, ast.Load)
        and dotted(node.value) in ("os.environ", "environ")
    ):
        key = node.slice
    if isinstance(key, ast.Constant) and isinstance(key.value, str) and _NAME_RE.match(key.value):
        return key.value
    return None


def _read_spec(read: ast.expr, parents: dict[ast.AST, ast.AST]) -> dict[str, Any]:
    """Type and default of one read, from the conversions applied to it on the way out."""
    spec: dict[str, Any] = {}
    if isinstance(read, ast.Call):
        spec.update(_default(read.args[1] if len(read.args) > 1 else None))
    else:
        spec["required"] = True  # os.environ[NAME]: only read when set (or a KeyError)
    folded = False
    node: ast.AST = read
    for _step in range(64):  # a bounded walk: following locals must not cycle
        parent = parents.get(node)
        if isinstance(parent, ast.Assign) and len(parent.targets) == 1:
            use = _first_use(parent, parents)
            if use is None:
                break
            node = use  # `text = os.getenv(NAME); return int(text)`: follow the local
            continue
        if parent is None or isinstance(parent, (ast.stmt, ast.Lambda)):
            break
        step = _conversion(node, parent)
        if step == "fold":
            folded = True
        elif step == "bool" and isinstance(parent, ast.Call):
            spec["type"] = "flag"  # bool(text): any non-empty text is true
            return spec
        elif step in ("int", "float"):
            outer = parents.get(parent)
            as_bool = step == "int" and isinstance(outer, ast.Call) and dotted(outer.func) == "bool"
            spec["type"] = "bool" if as_bool else step
            return spec
        elif step == "compare" and isinstance(parent, ast.Compare):
            if parent.left is not node:
                break  # `"proxy" in text`: a substring test, any text passes
            words = _compared_words(parent)
            if words is not None:
                spec["type"] = "switch"
                spec["true"] = sorted(w.lower() if folded else w for w in words[0])
                if words[1]:
                    spec["negated"] = True
                if folded:
                    spec["case_insensitive"] = True
                return spec
        elif step in ("list", "json"):
            spec["type"] = step
            return spec
        node = parent
    spec["type"] = "str"
    return spec


def _first_use(assign: ast.Assign, parents: dict[ast.AST, ast.AST]) -> ast.AST | None:
    target = assign.targets[0]
    if not isinstance(target, ast.Name):
        return None
    uses = [
        n
        for n in parents
        if isinstance(n, ast.Name)
        and n.id == target.id
        and isinstance(n.ctx, ast.Load)
        and (n.lineno, n.col_offset) > (assign.end_lineno or 0, assign.end_col_offset or 0)
    ]
    return min(uses, key=lambda n: (n.lineno, n.col_offset), default=None)


def _conversion(node: ast.AST, parent: ast.AST) -> str | None:
    if isinstance(parent, ast.Call) and node in parent.args:
        name = dotted(parent.func)
        if name in _CASTS:
            return _CASTS[name]
        if name == "bool":
            return "bool"
        if name.endswith("json.loads") or name == "loads":
            return "json"
        return None
    if isinstance(parent, ast.Attribute) and parent.attr in ("lower", "upper", "casefold"):
        return "fold"
    if isinstance(parent, ast.Attribute) and parent.attr == "split":
        return "list"
    if isinstance(parent, ast.Compare):
        return "compare"
    return None


def _compared_words(compare: ast.Compare) -> tuple[list[str], bool] | None:
    """The words a `text == "1"` / `text in ("1", "true")` comparison takes as true."""
    if len(compare.ops) != 1:
        return None
    op, right = compare.ops[0], compare.comparators[0]
    if isinstance(op, (ast.Eq, ast.NotEq)) and isinstance(right, ast.Constant):
        return [str(right.value)], isinstance(op, ast.NotEq)
    if isinstance(op, (ast.In, ast.NotIn)) and isinstance(right, (ast.Tuple, ast.List, ast.Set)):
        words = [str(e.value) for e in right.elts if isinstance(e, ast.Constant)]
        return words, isinstance(op, ast.NotIn)
    return None


def _default(node: ast.expr | None) -> dict[str, Any]:
    if node is None or (isinstance(node, ast.Constant) and node.value is None):
        return {}
    if isinstance(node, ast.Constant):
        return {"default": str(node.value)}
    return {"default_expr": ast.unparse(node)}


# -- many releases into one catalog ---------------------------------------------------------


def build_env_catalog(tables: Iterable[dict[str, Any]]) -> EnvCatalogFile:
    """Fold per-release tables into eras: runs of consecutive releases with one reading."""
    releases, variables = fold_eras(tables, "variables")
    return {
        "format": ENV_FORMAT,
        "package": "vllm",
        "releases": releases,
        "variables": cast("dict[str, list[EnvEra]]", variables),  # eras of extract_env's readings
    }


def fold_eras(
    tables: Iterable[dict[str, Any]], field: str
) -> tuple[list[str], dict[str, list[dict[str, Any]]]]:
    """Releases oldest first, and per name of ``table[field]`` its eras: runs of consecutive
    releases with one reading, each ``{"first", "last", **reading}``."""
    ordered = sorted(tables, key=lambda t: version_key(t["version"]))
    if not ordered:
        raise ValueError("no releases to build a catalog from")
    releases = [t["version"] for t in ordered]
    folded: dict[str, list[dict[str, Any]]] = {}
    for index, table in enumerate(ordered):
        for name, spec in table[field].items():
            eras = folded.setdefault(name, [])
            last = eras[-1] if eras else None
            if (
                last is not None
                and releases.index(last["last"]) == index - 1
                and _reading(last) == spec
            ):
                last["last"] = releases[index]
            else:
                eras.append({"first": releases[index], "last": releases[index], **spec})
    return releases, dict(sorted(folded.items()))


def _reading(era: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in era.items() if k not in ("first", "last")}


def release_table(catalog: dict[str, Any], version: str) -> dict[str, Any]:
    """One release's table back out of a built catalog (what extract_env gave for it)."""
    variables = era_table(catalog, "variables", version)
    return {"format": ENV_FORMAT, "package": "vllm", "version": version, "variables": variables}


def era_table(catalog: dict[str, Any], field: str, version: str) -> dict[str, Any]:
    """The readings of ``catalog[field]`` that hold in ``version`` (a catalogued release)."""
    releases: list[str] = catalog["releases"]
    position = releases.index(version)
    table: dict[str, Any] = {}
    for name, eras in catalog[field].items():
        for era in eras:
            if releases.index(era["first"]) <= position <= releases.index(era["last"]):
                table[name] = _reading(era)
    return table


def unfold_eras(catalog: dict[str, Any], field: str) -> list[dict[str, Any]]:
    """The per-release tables a folded catalog was built from (fold_eras undone), so one
    new release can be added without the sources of every earlier one."""
    return [
        {"version": version, field: era_table(catalog, field, version)}
        for version in catalog["releases"]
    ]
