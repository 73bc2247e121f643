"""`recipelint show`: one rendering of one recipe, every token with the list it came from.

The stages: find the tree and the recipe (:func:`find_recipe`), choose the combination as
the compiler's plan offers it, the recommended one by default (:func:`choose`), render it
with each token attributed (:mod:`recipelint.resolve.attribution`), place each source at
its file and line (the loaded documents' spans), and lay the view out as text or JSON. The
view is a list of sections, so that another kind of section can follow the commands.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from recipelint.jsvalue import JsonValue, js_string
from recipelint.read.load import Document
from recipelint.read.tree import (
    RECIPE_SUFFIXES,
    RecipeTree,
    find_tree_root,
    load_tree,
    recipe_hf_id,
)
from recipelint.resolve import layers
from recipelint.resolve.attribution import (
    AttributedCommand,
    AttributedUnit,
    EnvAssignment,
    Source,
    Token,
    attributed_commands,
    layer_name,
)
from recipelint.resolve.command import Combination, RenderInputs
from recipelint.resolve.deployment import Deployment, deployment_of_argv
from recipelint.resolve.formatting import shell_quote
from recipelint.resolve.plan import SYNTHESIS_ERRORS, hardware_combinations, variant_hardware
from recipelint.rules.common import as_dict, flag_catalog

FORMATS = ("text", "json")


class ShowError(Exception):
    """What was asked for does not exist (a usage error); the message lists the choices."""


class RenderFailed(Exception):
    """The combination exists but the compiler cannot render it (`compile` reports it too)."""


@dataclass(frozen=True)
class Loaded:
    """The tree and the recipe a `show` is about."""

    tree: RecipeTree
    inputs: RenderInputs
    doc: Document
    hf_id: str

    @property
    def recipe(self) -> dict[str, JsonValue]:
        """The recipe as the compiler renders it (hf_id added, as render_combination does)."""
        return {**as_dict(self.doc.data), "hf_id": self.hf_id}  # find_recipe took a mapping


def find_recipe(model: str, tree_path: Path | None, cwd: Path) -> Loaded:
    """The recipe MODEL names (an `org/repo` id, or the path of its file, relative to ``cwd``
    or to the tree's root) in its tree: the one at ``tree_path``, else the one around the
    recipe file, else around ``cwd``."""
    as_file = Path(model)
    is_file = as_file.suffix in RECIPE_SUFFIXES and as_file.is_file()
    start = tree_path if tree_path is not None else as_file if is_file else cwd
    root = find_tree_root(start)
    if root is None:
        raise ShowError(
            f"{start} is not in a recipe tree (no taxonomy.yaml and models/ at or above it); "
            "run inside one or say where it is with --tree"
        )
    tree = load_tree(root)
    from recipelint.compile.compiler import Compiler

    prepared = Compiler(tree).prepare()
    if prepared is None:
        raise ShowError(f"{root}: the tree has no usable taxonomy.yaml")
    if not is_file and as_file.suffix in RECIPE_SUFFIXES and (root / as_file).is_file():
        as_file, is_file = root / as_file, True  # a path relative to the tree's root
    doc = _recipe_doc(tree, as_file.resolve() if is_file else None, model)
    hf_id = recipe_hf_id(doc.rel)
    if not doc.usable or not isinstance(doc.data, dict) or hf_id is None:
        raise ShowError(f"{doc.rel} does not load as a recipe: run `recipelint check {doc.rel}`")
    return Loaded(tree, prepared.inputs, doc, hf_id)


def _recipe_doc(tree: RecipeTree, path: Path | None, model: str) -> Document:
    for doc in tree.recipes:
        if (doc.path.resolve() == path) if path is not None else recipe_hf_id(doc.rel) == model:
            return doc
    ids = sorted(hf_id for doc in tree.recipes if (hf_id := recipe_hf_id(doc.rel)))
    close = difflib.get_close_matches(model, ids, n=5, cutoff=0.4)
    hint = f"; closest: {', '.join(close)}" if close else ""
    raise ShowError(f"no recipe {model} in {tree.root.name}/ ({len(ids)} recipes{hint})")


@dataclass(frozen=True)
class Choice:
    """The combination shown, and what else could have been asked for."""

    variant: str  # as asked (the plan may render another variant that fits the hardware)
    hardware: str
    strategy: Any  # a name as the recipe lists it: a number, for all the compiler minds
    combination: Combination
    variants: list[str]
    hardware_choices: list[str]
    strategies: list[Any]


def choose(
    loaded: Loaded, variant: str | None, hardware: str | None, strategy: str | None
) -> Choice:
    """The combination the compiler renders for the variant, hardware and strategy asked for,
    each defaulting to what it publishes first (the recommended command)."""
    inputs, recipe = loaded.inputs, loaded.recipe
    if layers.is_omni(recipe):
        raise ShowError(
            f"{loaded.hf_id} is served through vLLM-Omni: the compiler renders no command for it"
        )
    table = as_dict(recipe.get("variants"))
    variants = [key for key, value in table.items() if value]
    variant = _pick("variant", variant, variants, "default" if "default" in variants else None)
    try:
        default_hw, hardware_ids = variant_hardware(inputs, recipe, table[variant])
        offered = {hw: hardware_combinations(inputs, recipe, variant, hw) for hw in hardware_ids}
    except SYNTHESIS_ERRORS as exc:
        raise RenderFailed(f"variant {variant} cannot be planned: {exc}") from None
    rendered_on = [hw for hw, plan in offered.items() if plan is not None]
    hardware = _pick("hardware", hardware, rendered_on, default_hw)
    recommended, combinations = offered[hardware] or ("", {})
    names = list(combinations)
    strategy = _pick("strategy", strategy, names, recommended)
    return Choice(
        variant,
        hardware,
        strategy,
        combinations[strategy],
        variants,
        rendered_on,
        names,
    )


def _pick(what: str, asked: str | None, choices: list[Any], default: Any) -> Any:
    """The choice asked for (by its text: a recipe may list a number as a strategy), else
    ``default``, else the first; a usage error listing the choices when there is none."""
    listed = [js_string(choice) for choice in choices]
    if asked is None:
        if default in choices:
            return default
        if choices:
            return choices[0]
        raise ShowError(f"no {what} is rendered here")
    if asked not in listed:
        raise ShowError(f"unknown {what} {asked}; choose one of: {', '.join(listed)}")
    return choices[listed.index(asked)]


# ---------------------------------------------------------------- positions


@dataclass(frozen=True)
class Place:
    """A source as a reader finds it: the list's name, and the file and line of the item."""

    layer: str | None  # None: what the renderer writes itself
    origin: str
    path: tuple[str | int, ...]
    file: str | None
    line: int | None

    def text(self) -> str:
        if self.layer is None:
            return self.origin
        where = f" ({self.file}:{self.line})" if self.file else ""
        return f"{self.layer}{where}"

    def data(self) -> dict[str, Any]:
        if self.layer is None:
            return {"origin": self.origin}
        return {"layer": self.layer, "path": list(self.path), "file": self.file, "line": self.line}


class Locator:
    """Each source placed in its loaded document (the recipe, a strategy or kv_store file,
    the taxonomy)."""

    def __init__(self, loaded: Loaded, combo: Combination) -> None:
        self.kv_store = combo.kv_offload
        tree = loaded.tree
        self._documents: dict[tuple[str, Any], Document | None] = {
            (layers.RECIPE, None): loaded.doc,
            (layers.TAXONOMY, None): tree.taxonomy,
        }
        for kind, docs in (
            (layers.STRATEGY_FILE, tree.strategies),
            (layers.KV_FILE, tree.kv_stores),
        ):
            for doc in docs:
                if doc.usable and isinstance(doc.data, dict):
                    self._documents[(kind, doc.data.get("name"))] = doc

    def __call__(self, source: Source) -> Place:
        layer = source.layer
        if layer is None:
            return Place(None, source.origin, (), None, None)
        name = layer_name(layer, self.kv_store)
        doc = self._document(layer)
        pointer = source.pointer or ()
        if doc is None:
            return Place(name, "", pointer, None, None)
        return Place(name, "", pointer, doc.rel, doc.span(pointer).line)

    def _document(self, layer: layers.Layer) -> Document | None:
        document = layer.document
        if document == layers.STRATEGY_FILE:
            return self._documents.get((document, layer.scope.strategy))
        if document == layers.KV_FILE:
            return self._documents.get((document, self.kv_store))
        return self._documents.get((document, None))


# ---------------------------------------------------------------- the view


class Section(Protocol):
    """One part of the view: its text lines and its JSON object (with a "kind")."""

    def text(self) -> list[str]: ...

    def data(self) -> dict[str, Any]: ...


def _token_text(values: list[Any]) -> str:
    """Tokens as the command line writes them (quoted where the shell needs it); a token
    that is not a string, as YAML would write it."""
    return " ".join(
        shell_quote(value) if isinstance(value, str) and value else json.dumps(value)
        for value in values
    )


@dataclass(frozen=True)
class CommandSection:
    """One `vllm serve` line (and its `docker run`): each token's source, the dropped ones,
    and the env with the same."""

    command: AttributedCommand
    place: Callable[[Source], Place]

    def text(self) -> list[str]:
        command = self.command
        title = "vllm serve" if command.label == "serve" else f"vllm serve ({command.label})"
        lines = [f"== {title} ==", command.command, "", "where each token comes from:"]
        lines += self._units(command.args.kept)
        dropped = command.args.dropped
        if dropped:
            lines += ["", "dropped by a later layer (last wins):"]
            lines += self._units(dropped)
        if command.args.falsy:
            lines += ["", "dropped before the dedupe (empty or false):"]
            lines += [
                _row(_token_text([t.value]), self.place(t.source).text())
                for t in command.args.falsy
            ]
        lines += self._env()
        if command.docker_command is not None:
            lines += [
                "",
                f"== docker run{'' if command.label == 'serve' else f' ({command.label})'} ==",
                command.docker_command,
                "",
                "`docker run` adds its brand's GPU flags, the port and the cache mount, one `-e`",
                "per variable of the environment above and the image; what follows the image",
                "is the command above, token for token",
            ]
        return lines

    def _units(self, units: list[AttributedUnit]) -> list[str]:
        lines = []
        for unit in units:
            lines.append(_row(_token_text(unit.values), self.unit_source(unit.tokens)))
            if unit.replaced_by is not None:
                winner = unit.replaced_by
                lines.append(
                    _row(
                        "",
                        f"replaced by `{_token_text(winner.values)}` from {self.unit_source(winner.tokens)}",
                    )
                )
        return lines

    def unit_source(self, tokens: tuple[Token, ...]) -> str:
        """The first token's source; a value glued on from another list says which."""
        first = tokens[0].source
        text = self.place(first).text()
        for token in tokens[1:]:
            if token.source.layer is not first.layer:
                text += f"; value from {self.place(token.source).text()}"
        return text

    def _env(self) -> list[str]:
        env = self.command.env
        if not env:
            return []
        lines = ["", "environment:"]
        lines += [
            _row(f"{a.name}={_scalar(a.value)}", self.place(a.source).text()) for a in env if a.kept
        ]
        gone = [a for a in env if not a.kept]
        if gone:
            lines += ["", "environment dropped:"]
            for assignment in gone:
                lines.append(
                    _row(
                        f"{assignment.name}={_scalar(assignment.value)}",
                        self.place(assignment.source).text(),
                    )
                )
                why = (
                    f"replaced by {self.place(assignment.replaced_by).text()}"
                    if assignment.replaced_by is not None
                    else assignment.removed or ""
                )
                lines.append(_row("", why))
        return lines

    def data(self) -> dict[str, Any]:
        command = self.command
        return {
            "kind": "command",
            "label": command.label,
            "role": command.role,
            "node_role": command.node_role,
            "command": command.command,
            "argv": command.argv,
            "docker_command": command.docker_command,
            "docker_argv": command.docker_argv,
            "args": [self._unit_data(unit) for unit in command.args.units],
            "falsy": [self._token_data(token) for token in command.args.falsy],
            "env": [self._env_data(assignment) for assignment in command.env],
        }

    def _token_data(self, token: Token) -> dict[str, Any]:
        return {"token": token.value, "from": self.place(token.source).data()}

    def _unit_data(self, unit: AttributedUnit) -> dict[str, Any]:
        winner = unit.replaced_by
        return {
            "tokens": [self._token_data(token) for token in unit.tokens],
            "kept": unit.kept,
            "replaced_by": None if winner is None else [self._token_data(t) for t in winner.tokens],
        }

    def _env_data(self, assignment: EnvAssignment) -> dict[str, Any]:
        replaced = assignment.replaced_by
        return {
            "name": assignment.name,
            "value": assignment.value,
            "from": self.place(assignment.source).data(),
            "kept": assignment.kept,
            "replaced_by": None if replaced is None else self.place(replaced).data(),
            "removed": assignment.removed,
        }


ROW_WIDTH = 36


def _row(left: str, right: str) -> str:
    if len(left) >= ROW_WIDTH:
        return f"  {left}\n  {'':{ROW_WIDTH}}  {right}" if right else f"  {left}"
    return f"  {left:{ROW_WIDTH}}  {right}".rstrip()


def _scalar(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


@dataclass(frozen=True)
class DeploymentSection:
    """What one command asks of the machine: nodes, GPUs used of those allotted, the ranks,
    platform and host architecture, weights against the room they get, the image."""

    label: str
    deployment: Deployment

    def text(self) -> list[str]:
        title = "deployment" if self.label == "serve" else f"deployment ({self.label})"
        return [f"== {title} ==", *self.deployment.describe()]

    def data(self) -> dict[str, Any]:
        found, ranks, image = self.deployment, self.deployment.ranks, self.deployment.image
        return {
            "kind": "deployment",
            "label": self.label,
            "role": found.role,
            "nodes": found.nodes,
            "gpus_per_node": found.gpus_per_node,
            "gpus_allotted": found.gpus_allotted,
            "gpus_used": found.gpus_used if ranks.known else None,
            "world_size": ranks.world_size if ranks.known else None,
            "ranks": ranks.formula() if ranks.known else None,
            "platform": found.platform,
            "arch": found.arch,
            "weights_gb": found.weights_gb,
            "vram_minimum_gb": found.vram_minimum_gb,
            "weights_room_gb": found.weights_room_gb,
            "image": None if image is None else image.reference,
            "image_vllm_release": None if image is None else image.vllm_release,
        }


@dataclass
class ShowView:
    """What `show` prints: the combination, then its sections in order."""

    loaded: Loaded
    choice: Choice
    sections: list[Section] = field(default_factory=list)

    def header(self) -> dict[str, Any]:
        combo = self.choice.combination
        return {
            "recipe": self.loaded.hf_id,
            "file": self.loaded.doc.rel,
            "variant": combo.variant_key,
            "hardware": combo.hw_id,
            "strategy": self.choice.strategy,
            "serving_strategy": combo.strategy,
            "node_count": combo.node_count,
            "features": list(combo.features),
            "choices": {
                "variants": self.choice.variants,
                "hardware": self.choice.hardware_choices,
                "strategies": self.choice.strategies,
            },
        }


def build_view(loaded: Loaded, choice: Choice) -> ShowView:
    """The rendering of ``choice`` with every command's tokens attributed."""
    combo = choice.combination
    try:
        _doc, commands = attributed_commands(loaded.inputs, loaded.recipe, combo)
        deployments = _deployments(loaded, combo, commands)
    except SYNTHESIS_ERRORS as exc:
        raise RenderFailed(
            f"{loaded.hf_id}: variant {combo.variant_key} on {combo.hw_id} with "
            f"{choice.strategy} cannot be rendered: {exc}"
        ) from None
    place = Locator(loaded, combo)
    sections: list[Section] = [CommandSection(command, place) for command in commands]
    return ShowView(loaded, choice, sections + deployments)


def _deployments(
    loaded: Loaded, combo: Combination, commands: list[AttributedCommand]
) -> list[Section]:
    """One deployment per command a node's head starts (a multi-node worker shares its head's)."""
    flags = flag_catalog(loaded.recipe)
    return [
        DeploymentSection(
            command.label,
            deployment_of_argv(
                loaded.inputs, loaded.recipe, combo, command.role, command.args.deduped(), flags
            ),
        )
        for command in commands
        if command.node_role != "worker"
    ]


def view_text(view: ShowView) -> str:
    header = view.header()
    lines = [
        f"{header['recipe']} ({header['file']})",
        f"variant {header['variant']} · hardware {header['hardware']} · strategy "
        f"{header['strategy']}"
        + (
            f" (serving {header['serving_strategy']})"
            if header["strategy"] != header["serving_strategy"]
            else ""
        )
        + f" · {header['node_count']} node{'s' if header['node_count'] != 1 else ''}",
    ]
    if header["features"]:
        lines.append("features: " + ", ".join(header["features"]))
    for section in view.sections:
        lines += ["", *section.text()]
    choices = header["choices"]
    lines += [
        "",
        "other choices: --variant " + " ".join(choices["variants"]),
        "               --hardware " + " ".join(choices["hardware"]),
        "               --strategy " + " ".join(map(js_string, choices["strategies"])),
    ]
    return "\n".join(lines) + "\n"


def view_json(view: ShowView) -> str:
    document = {**view.header(), "sections": [section.data() for section in view.sections]}
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


VIEWS: dict[str, Callable[[ShowView], str]] = {"text": view_text, "json": view_json}


# ---------------------------------------------------------------- one item's fate


@dataclass(frozen=True)
class ItemFate:
    """What one command does with one list item: keeps it, drops it for a later unit of the
    same flag (``replaced_by``, placed), or drops it first as a falsy token."""

    command: str  # the command's label ("serve", a PD role, "head", "worker 1")
    unit: str  # the unit holding the item, as the command line writes it ("" for a falsy item)
    replaced_by: str | None = None  # "`--x 2` from its layer (file:line)"
    falsy: bool = False

    @property
    def kept(self) -> bool:
        return self.replaced_by is None and not self.falsy


def item_fates(view: ShowView, document: str, pointer: tuple[str | int, ...]) -> list[ItemFate]:
    """What each command of the view does with the item written at ``pointer`` of a document
    of kind ``document`` (its args lists' items); a command it does not join is left out."""
    fates = []
    for section in view.sections:
        if not isinstance(section, CommandSection):
            continue
        args = section.command.args
        label = section.command.label
        unit = args.unit_at(document, pointer)
        if unit is not None:
            winner = unit.replaced_by
            replaced = (
                None
                if winner is None
                else f"`{_token_text(winner.values)}` from {section.unit_source(winner.tokens)}"
            )
            fates.append(ItemFate(label, _token_text(unit.values), replaced))
        elif any(token.source.is_at(document, pointer) for token in args.falsy):
            fates.append(ItemFate(label, "", falsy=True))
    return fates
