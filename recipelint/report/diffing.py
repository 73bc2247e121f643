"""What changed in the served commands between two compiled trees.

Input is the compiled JSON API of each side as a mapping {API path: document}
(built from :class:`recipelint.compile.compiler.OutputMap`). Every rendering document —
one recipe × variant × hardware × strategy — is reduced to its command lines
(one per role: the single server, head and workers, prefill and decode…) and
its environment; each command line to its flags. The diff lists the flags and
variables added, removed or changed per rendering, the renderings that appeared
or disappeared, and the hardware whose recommended strategy changed.

Pure: no files, no git, no compiler. The formatters escape recipe content for
their target (terminal, GitHub Markdown, JSON).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from recipelint import shellwords
from recipelint.report.formats import strip_controls

# {base}/hw/{hw}.json is the recommended rendering for that hardware; the others
# are alternatives. {base} is a recipe id or the model id of a promoted variant.
_RENDERING_PATH = re.compile(
    r"(?P<base>.+?)/(?:hw/(?P<hw>[^/]+)(?P<alt>/strategies/[^/]+)?|strategies/[^/]+)\.json"
)
_FLAG = re.compile(r"--?[A-Za-z]")
# Documents embedded in a rendering that describe, rather than run, something.
_DESCRIPTIVE = frozenset({"strategy_spec", "hardware_profile", "kv_store_spec", "alternatives"})
PROGRAM = "command"  # the words before the first flag: `vllm serve <model>`


@dataclass(frozen=True, order=True)
class RenderingKey:
    recipe: str
    variant: str
    hardware: str
    strategy: str

    def label(self) -> str:
        return f"variant {self.variant} · hardware {self.hardware} · strategy {self.strategy}"


# role -> setting name -> value; a flag given twice keeps both values, in order.
Settings = dict[str, dict[str, tuple[str | None, ...]]]


@dataclass(frozen=True)
class Change:
    role: str  # "" for a single server, else head, worker[0], prefill, decode, …
    kind: str  # "flag", "env" or "command"
    name: str
    old: tuple[str | None, ...] | None  # None: absent on that side
    new: tuple[str | None, ...] | None

    @property
    def status(self) -> str:
        return "added" if self.old is None else "removed" if self.new is None else "changed"


@dataclass
class CommandDiff:
    changed: dict[RenderingKey, list[Change]] = field(default_factory=dict)
    added: list[RenderingKey] = field(default_factory=list)
    removed: list[RenderingKey] = field(default_factory=list)
    # (recipe, variant, hardware) -> (old strategy, new strategy)
    recommended: dict[tuple[str, str, str], tuple[str, str]] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.changed or self.added or self.removed or self.recommended)


# ---------------------------------------------------------------- extraction


def parse_flags(argv: Iterable[Any]) -> dict[str, tuple[str | None, ...]]:
    """`vllm serve m --a 1 --b --c=x y` -> {command: ("vllm serve m",), --a: ("1",), --b: (None,), --c: ("x y",)}."""
    program: list[str] = []
    values: dict[str, list[str | None]] = {}
    current: str | None = None
    for raw in argv:
        token = str(raw)
        if _FLAG.match(token):
            name, equals, inline = token.partition("=")
            values.setdefault(name, []).append(inline if equals else None)
            current = name
        elif current is None:
            program.append(token)
        else:
            last = values[current][-1]
            values[current][-1] = token if last is None else f"{last} {token}"
    flags = {name: tuple(found) for name, found in values.items()}
    return {PROGRAM: (" ".join(program),), **flags} if program else flags


def split_shell(text: str) -> list[str]:
    """Words of a displayed shell command: continuations joined, comments dropped."""
    joined = text.replace("\\\r\n", " ").replace("\\\n", " ")
    try:
        return shellwords.split(joined)
    except ValueError:  # unbalanced quotes: still compare word by word
        return joined.split()


def _role(trail: tuple[str, ...], key: str, suffix: str) -> str:
    head = key[: -len(suffix)].rstrip("_")
    return "/".join(part for part in (*trail, head) if part)


def _walk(node: Any, trail: tuple[str, ...], settings: Settings) -> None:
    if not isinstance(node, dict):
        return
    for key, value in node.items():
        if not isinstance(key, str) or key in _DESCRIPTIVE or "docker" in key:
            continue
        if key.endswith("argvs") and isinstance(value, list):
            for index, argv in enumerate(value):
                if isinstance(argv, list):
                    settings[f"{_role(trail, key, 'argvs')}[{index}]"] = parse_flags(argv)
        elif key.endswith("argv") and isinstance(value, list):
            if isinstance(node.get(key + "s"), list):
                continue  # worker_argv repeats worker_argvs[0]
            settings.setdefault(_role(trail, key, "argv"), {}).update(parse_flags(value))
        elif key.endswith("command") and isinstance(value, str):
            # router, KV master and store: shell text with no argv of their own
            if not isinstance(node.get(key[: -len("command")] + "argv"), list):
                role = settings.setdefault(_role(trail, key, "command"), {})
                role.update(parse_flags(split_shell(value)))
        elif key == "env" and isinstance(value, dict):
            role = settings.setdefault("/".join(trail), {})
            role.update({f"env {name}": (_text(v),) for name, v in value.items()})
        elif isinstance(value, dict):
            _walk(value, (*trail, key), settings)


def _text(value: Any) -> str | None:
    if value is None or isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def command_settings(rendering: Mapping[str, Any]) -> Settings:
    """Flags, program words and environment of every command line in one rendering."""
    settings: Settings = {}
    _walk(dict(rendering), (), settings)
    return {role: found for role, found in settings.items() if found}


def _recipe_of_base(files: Mapping[str, Any]) -> dict[str, str]:
    """API base folder -> recipe id: the recipe's own id, or for a promoted variant
    (published under its model id) the recipe it is derived from."""
    owners: dict[str, str] = {}
    for path, doc in files.items():
        if not (path.endswith(".json") and isinstance(doc, dict) and doc.get("hf_id") == path[:-5]):
            continue
        meta = doc.get("meta")
        parent = meta.get("derived_from") if isinstance(meta, dict) else None
        owners[path[:-5]] = parent if isinstance(parent, str) else path[:-5]
    return owners


def renderings(
    files: Mapping[str, Any],
) -> tuple[dict[RenderingKey, Settings], dict[tuple[str, str, str], str]]:
    """Every rendering's settings, and the recommended strategy per recipe × variant × hardware."""
    owners = _recipe_of_base(files)
    found: dict[RenderingKey, Settings] = {}
    recommended: dict[tuple[str, str, str], str] = {}
    for path in sorted(files):
        match = _RENDERING_PATH.fullmatch(path)
        doc = files[path]
        if not match or not isinstance(doc, dict):
            continue
        variant, hardware, strategy = (
            doc.get(name) for name in ("variant", "hardware", "strategy")
        )
        if not (
            isinstance(variant, str) and isinstance(hardware, str) and isinstance(strategy, str)
        ):
            continue
        key = RenderingKey(owners.get(match["base"], match["base"]), variant, hardware, strategy)
        found.setdefault(key, command_settings(doc))
        if match["hw"] and not match["alt"]:
            recommended[(key.recipe, key.variant, key.hardware)] = key.strategy
    return found, recommended


# ---------------------------------------------------------------- comparison


def _changes(old: Settings, new: Settings) -> list[Change]:
    changes = []
    for role in sorted(old.keys() | new.keys()):
        before, after = old.get(role, {}), new.get(role, {})
        for name in sorted(before.keys() | after.keys(), key=_setting_order):
            if before.get(name) != after.get(name):
                changes.append(
                    Change(
                        role,
                        _kind(name),
                        name.removeprefix("env "),
                        before.get(name),
                        after.get(name),
                    )
                )
    return changes


def _kind(name: str) -> str:
    return "command" if name == PROGRAM else "env" if name.startswith("env ") else "flag"


def _setting_order(name: str) -> tuple[int, str]:
    return ({"command": 0, "flag": 1, "env": 2}[_kind(name)], name)


def diff_renderings(old_files: Mapping[str, Any], new_files: Mapping[str, Any]) -> CommandDiff:
    old, old_recommended = renderings(old_files)
    new, new_recommended = renderings(new_files)
    result = CommandDiff()
    result.added = sorted(new.keys() - old.keys())
    result.removed = sorted(old.keys() - new.keys())
    for key in sorted(old.keys() & new.keys()):
        changes = _changes(old[key], new[key])
        if changes:
            result.changed[key] = changes
    for slot in sorted(old_recommended.keys() & new_recommended.keys()):
        if old_recommended[slot] != new_recommended[slot]:
            result.recommended[slot] = (old_recommended[slot], new_recommended[slot])
    return result


# ---------------------------------------------------------------- formatting


def _value(values: tuple[str | None, ...] | None) -> str:
    if values is None:
        return "(absent)"
    return "; ".join("(set)" if v is None else v for v in values)


def _setting(change: Change, values: tuple[str | None, ...] | None) -> str:
    if change.kind == "flag":
        shown = "; ".join(change.name if v is None else f"{change.name} {v}" for v in values or ())
        return shown or change.name
    if change.kind == "env":
        return f"env {change.name}={_value(values)}"
    return _value(values)


def describe(change: Change) -> tuple[str, str]:
    """(sign, human text) of one change, recipe text unescaped."""
    role = f"[{change.role}] " if change.role else ""
    if change.status == "added":
        return "+", role + _setting(change, change.new)
    if change.status == "removed":
        return "-", role + _setting(change, change.old)
    label = change.name if change.kind != "env" else f"env {change.name}"
    return "~", f"{role}{label}: {_value(change.old)} → {_value(change.new)}"


def _one_line(text: str) -> str:
    return strip_controls(text).replace("\n", "\\n").replace("\r", "\\r")


def change_groups(result: CommandDiff) -> list[tuple[str, tuple[Change, ...], list[RenderingKey]]]:
    """Renderings of one recipe that changed in exactly the same way, grouped.

    One flag edit in a recipe usually changes every rendering of it; a reviewer
    reads the edit once, followed by the renderings it reaches.
    """
    groups: dict[tuple[str, tuple[Change, ...]], list[RenderingKey]] = {}
    for key, changes in result.changed.items():
        groups.setdefault((key.recipe, tuple(changes)), []).append(key)
    return [(recipe, changes, keys) for (recipe, changes), keys in groups.items()]


def rendering_buckets(keys: Iterable[RenderingKey]) -> list[tuple[str, str, list[str]]]:
    """(variant, strategy, [hardware…]) for a set of renderings of one recipe.

    A change usually reaches one strategy on many hardware profiles; one line per
    variant × strategy keeps every rendering named without a line for each.
    """
    buckets: dict[tuple[str, str], list[str]] = {}
    for key in sorted(keys):
        buckets.setdefault((key.variant, key.strategy), []).append(key.hardware)
    return [
        (variant, strategy, hardware) for (variant, strategy), hardware in sorted(buckets.items())
    ]


def _bucket_text(variant: str, strategy: str, hardware: list[str]) -> str:
    return f"variant {variant} · strategy {strategy} · hardware {', '.join(hardware)}"


def _by_recipe(keys: Iterable[RenderingKey]) -> dict[str, list[RenderingKey]]:
    grouped: dict[str, list[RenderingKey]] = {}
    for key in keys:
        grouped.setdefault(key.recipe, []).append(key)
    return grouped


def diff_as_text(result: CommandDiff) -> str:
    if not result:
        return "no command changes\n"
    lines: list[str] = []
    previous = None
    for recipe, changes, keys in change_groups(result):
        if recipe != previous:
            lines.append(_one_line(recipe))
            previous = recipe
        lines.extend(_one_line(f"  {_bucket_text(*bucket)}") for bucket in rendering_buckets(keys))
        lines.extend(_one_line(f"      {sign} {text}") for sign, text in map(describe, changes))
    for (recipe, variant, hardware), (old, new) in result.recommended.items():
        lines.append(
            _one_line(
                f"{recipe}  variant {variant} · hardware {hardware}: "
                f"recommended strategy {old} → {new}"
            )
        )
    for sign, note, keys in (("+", "new", result.added), ("-", "removed", result.removed)):
        for recipe, group in _by_recipe(keys).items():
            lines.extend(
                _one_line(f"{sign} {recipe}  {_bucket_text(*bucket)}  ({note})")
                for bucket in rendering_buckets(group)
            )
    return "\n".join(lines) + "\n"


def markdown_code(text: str) -> str:
    """Recipe text as an inert inline code span that cannot break a GFM table row.

    Inside a code span nothing is HTML or emphasis; a `|` still ends a table cell
    unless escaped, and a newline ends the row; a run of backticks needs a longer
    fence.
    """
    # GitHub's table parser (cmark-gfm) reads every `\|` as a pipe inside the cell,
    # whatever precedes the backslash, and drops that backslash.
    text = _one_line(text).replace("|", "\\|")
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or not text.strip() else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _rendering_cell(keys: list[RenderingKey], limit: int) -> str:
    buckets = rendering_buckets(keys)
    shown = [
        f"{markdown_code(variant)} · {markdown_code(strategy)} · "
        + ", ".join(markdown_code(h) for h in hardware)
        for variant, strategy, hardware in buckets[:limit]
    ]
    if len(buckets) > limit:
        shown.append(f"… and {len(buckets) - limit} more")
    return "<br>".join(shown)


def diff_as_markdown(
    result: CommandDiff,
    heading: str = "### Command changes",
    max_rows: int = 200,
    renderings_per_row: int = 12,
) -> str:
    """GitHub-flavoured Markdown for a job summary; recipe text only inside code spans."""
    lines = [heading, ""]
    if not result:
        return "\n".join([*lines, "No resolved command changed.", ""])
    lines += [
        f"{len(result.changed)} changed, {len(result.added)} new and {len(result.removed)} removed "
        "renderings (variant · strategy · hardware).",
        "",
    ]
    rows = [
        (
            recipe,
            _rendering_cell(keys, renderings_per_row),
            "<br>".join(f"{sign} {markdown_code(text)}" for sign, text in map(describe, changes)),
        )
        for recipe, changes, keys in change_groups(result)
    ]
    for status, keys in (("new rendering", result.added), ("rendering removed", result.removed)):
        rows += [
            (recipe, _rendering_cell(group, renderings_per_row), status)
            for recipe, group in _by_recipe(keys).items()
        ]
    lines += ["| recipe | renderings | change |", "|---|---|---|"]
    lines += [
        f"| {markdown_code(recipe)} | {cell} | {change} |"
        for recipe, cell, change in rows[:max_rows]
    ]
    if len(rows) > max_rows:
        lines += [
            "",
            f"{len(rows) - max_rows} more rows: run `recipelint diff --format json` for all.",
        ]
    if result.recommended:
        lines += ["", "| recipe | variant | hardware | recommended strategy |", "|---|---|---|---|"]
        for (recipe, variant, hardware), (old, new) in result.recommended.items():
            ids = " | ".join(markdown_code(part) for part in (recipe, variant, hardware))
            lines.append(f"| {ids} | {markdown_code(old)} → {markdown_code(new)} |")
    return "\n".join(lines) + "\n"


def as_json(result: CommandDiff) -> dict[str, Any]:
    def change(item: Change) -> dict[str, Any]:
        return {
            **asdict(item),
            "status": item.status,
            "old": list(item.old) if item.old is not None else None,
            "new": list(item.new) if item.new is not None else None,
        }

    return {
        "changed": [
            {**asdict(key), "changes": [change(c) for c in changes]}
            for key, changes in result.changed.items()
        ],
        "added": [asdict(key) for key in result.added],
        "removed": [asdict(key) for key in result.removed],
        "recommended": [
            {"recipe": r, "variant": v, "hardware": h, "old": old, "new": new}
            for (r, v, h), (old, new) in result.recommended.items()
        ],
    }


def diff_as_json(result: CommandDiff) -> str:
    return json.dumps(as_json(result), indent=2, ensure_ascii=False) + "\n"


DIFF_FORMATS = {"text": diff_as_text, "markdown": diff_as_markdown, "json": diff_as_json}
