"""Hover: what a flag, hardware id, variant, strategy or rule code means here, as Markdown."""

from __future__ import annotations

import json
from typing import Any

from recipelint.lsp import knowledge, library
from recipelint.lsp.cursor import Cursor, Role, role_of, rule_code_at
from recipelint.lsp.library import Document, JsonValue, RecipeTree

PROFILE_FIELDS = ("brand", "generation", "display_name", "gpu_count", "vram_gb", "multi_node")
COMMAND_ROLES = frozenset({Role.VARIANT, Role.HARDWARE, Role.STRATEGY})


def hover_text(
    tree: RecipeTree, doc: Document, lines: list[str], cursor: Cursor, character: int
) -> str | None:
    """The Markdown shown for the word under the cursor, None when there is nothing to say."""
    code = rule_code_at(lines, cursor.line, character)
    if code is not None:
        return _rule(code)
    role = role_of(cursor, doc.kind)
    # An args item's fate does not depend on reading its role (a flow list's values have none).
    fates = _token_fates(tree, doc, cursor, character, role) if _in_recipe_code(doc, cursor) else ""
    if role is None or not cursor.word:
        return fates or None
    data = doc.data if doc.usable else None
    parts: list[str] = []
    if role is Role.FLAG:
        parts.append(flag_text(data, cursor) or "")
    if role is Role.FLAG_VALUE:
        parts.append(_flag_value(data, cursor))
    parts.append(fates)
    if role is Role.HARDWARE:
        parts.append(_hardware(tree, cursor.word))
    if role is Role.STRATEGY:
        parts.append(_strategy(tree, cursor.word))
    if role in COMMAND_ROLES and doc.kind == "recipe":
        parts.append(_command(tree, doc, cursor, role))
    text = "\n\n".join(part for part in parts if part)
    return text or None


def _rule(code: str) -> str | None:
    info = library.rule_info(code)
    if info is None:
        return None
    fixable = " · safe fix available" if info.autofix else ""
    url = library.rule_url(info.code)  # None without a documentation base: no dead link
    reference = f"\n\n[rule reference]({url})" if url else ""
    return f"**{info.code} `{info.name}`** ({info.severity}){fixable}\n\n{info.summary}{reference}"


def flag_text(data: JsonValue, cursor: Cursor) -> str | None:
    """The flag's facts in the release the recipe is judged at (its min_vllm_version)."""
    catalogs = library.flag_catalogs(data, cursor.variant)
    spelled = cursor.word.split("=", 1)[0]
    judged = catalogs.judged
    found = judged.lookup(spelled)
    shown = found if found.known else catalogs.newest.lookup(spelled)
    if shown.canonical is None:
        where = f"{catalogs.package} {judged.version}"
        # The candidates RL350 offers for the same spelling, so hover and finding agree.
        close = library.close_flags(catalogs.newest, spelled)
        hint = f": did you mean `{close[0]}`?" if close else ""
        return f"`{spelled}` is not a `vllm serve` flag in {where}{hint}"
    spec = (judged if found.known else catalogs.newest).flags[shown.canonical]
    lines = [
        f"**`{shown.canonical}`**" + (f" (written `{spelled}`)" if spelled != spec.name else "")
    ]
    lines.append(_accepted(catalogs, found.known, shown.canonical))
    lines += _spec_lines(spec)
    eras = library.default_eras(shown.canonical, catalogs.judged.version, catalogs.package)
    if eras:
        lines.append(_defaults(eras))
    return "\n\n".join(lines)


def _defaults(eras: list[library.DefaultEra]) -> str:
    """The flag's default over the recipe's range, each change named with its releases."""
    shown = [
        f"`{json.dumps(era.default)}` ({era.first}"
        + ("" if era.first == era.last else f" to {era.last}")
        + ")"
        for era in eras
    ]
    if len(shown) == 1:
        return f"default: {shown[0]}"
    return "default changes in the recipe's range: " + ", then ".join(shown)


def _flag_value(data: JsonValue, cursor: Cursor) -> str:
    """What the release the recipe is judged at makes of the value of the flag above it."""
    flag = (cursor.previous_item or "").split("=", 1)[0]
    catalogs = library.flag_catalogs(data, cursor.variant)
    found = catalogs.judged.lookup(flag) if flag.startswith("-") else None
    if found is None or found.canonical is None:
        return ""
    value, canonical = cursor.word, found.canonical
    status = catalogs.judged.value_status(canonical, value)
    where = f"{catalogs.package} {catalogs.judged.version}"
    verdict = {"ok": "accepted", "bad": "**rejected**", "unknown": "not a known value"}[status]
    span = library.value_span(canonical, value, catalogs.package)
    listed = f"; listed by releases {span[0]} to {span[1]}" if span else ""
    return f"`{value}` for `{canonical}`: {verdict} by {where}{listed}"


def _accepted(catalogs: library.FlagCatalogs, known: bool, canonical: str) -> str:
    span = library.flag_span(canonical, catalogs.package)
    releases = f"releases {span[0]} to {span[1]}" if span else "no recorded release"
    judged = catalogs.judged.version
    at = f"min_vllm_version {catalogs.min_version}" if catalogs.minimum else "the newest release"
    verdict = "accepted" if known else "**not accepted**"
    return f"{verdict} by {catalogs.package} {judged} ({at}); accepted by {releases}"


def _spec_lines(spec: library.FlagSpec) -> list[str]:
    lines = [f"takes a value: {spec.value}" + (f" · type `{spec.type}`" if spec.type else "")]
    if spec.choices:
        lines.append("choices: " + ", ".join(f"`{c}`" for c in spec.choices))
    elif spec.values:
        lines.append("known values: " + ", ".join(f"`{v}`" for v in spec.values))
    if spec.aliases or spec.negations:
        lines.append("also written: " + ", ".join(f"`{a}`" for a in spec.aliases + spec.negations))
    if spec.deprecated:
        lines.append("deprecated" + (f": {spec.deprecation}" if spec.deprecation else ""))
    if spec.serve_error:
        lines.append(f"`vllm serve` refuses it: {spec.serve_error}")
    return lines


def _hardware(tree: RecipeTree, word: str) -> str:
    profile = knowledge.profiles(tree).get(word)
    if isinstance(profile, dict):
        facts = " · ".join(f"{key}: {profile[key]}" for key in PROFILE_FIELDS if key in profile)
        description = profile.get("description")
        text = f"**hardware `{word}`** — {facts}"
        return text + (f"\n\n{description}" if isinstance(description, str) else "")
    group = knowledge.generations(tree).get(word)
    if group:
        return f"**`{word}`** covers: " + ", ".join(f"`{hw}`" for hw in group)
    return f"`{word}` names no hardware profile, generation or brand in taxonomy.yaml"


def _strategy(tree: RecipeTree, word: str) -> str:
    doc = knowledge.strategies(tree).get(word) or knowledge.kv_stores(tree).get(word)
    if doc is None:
        return f"`{word}` names no strategy in strategies/"
    data = doc.data if isinstance(doc.data, dict) else {}
    facts = [f"deploy_type: {data.get('deploy_type')}", f"file: {doc.rel}"]
    return f"**strategy `{word}`** — " + " · ".join(facts)


def _in_recipe_code(doc: Document, cursor: Cursor) -> bool:
    return doc.kind == "recipe" and doc.usable and not cursor.in_comment


def _token_fates(
    tree: RecipeTree, doc: Document, cursor: Cursor, character: int, role: Role | None
) -> str:
    """Which commands the args item under the cursor lands in, and which later layer drops
    it where it is dropped (`recipelint show` for the combination the cursor is in)."""
    item = library.args_item_at(doc, cursor.line, character)
    if item is None or library.renders_no_command(doc.data):
        return ""
    chosen = knowledge.rendering_at(tree, doc.data, cursor, role)
    try:
        found = library.item_fates(
            tree, doc, item, chosen.variant, chosen.hardware, chosen.strategy
        )
    except library.RenderFailure as exc:
        return f"_cannot render the command: {exc}_"
    title = f"variant `{found.variant}` on `{found.hardware}` with `{found.strategy}`"
    if not found.fates:
        return f"not in the commands of {title}: this list does not join them"
    lines = [f"**in the commands of {title}**"]
    for fate in found.fates:
        command = "`vllm serve`" if fate.command == "serve" else f"`vllm serve` ({fate.command})"
        if fate.falsy:
            lines.append(f"- {command}: dropped before the dedupe (an empty or false item)")
        elif fate.replaced_by is not None:
            lines.append(f"- {command}: `{fate.unit}` dropped, replaced by {fate.replaced_by}")
        else:
            lines.append(f"- {command}: kept as `{fate.unit}`")
    return "\n".join(lines)


def _command(tree: RecipeTree, doc: Document, cursor: Cursor, role: Role) -> str:
    if not doc.usable:
        return "_the buffer does not parse: no command to show_"
    if library.renders_no_command(doc.data):
        return "_an omni recipe is served through vLLM-Omni: the API publishes no command for it_"
    chosen = knowledge.rendering_at(tree, doc.data, cursor, role)
    title = (
        f"rendered for variant `{chosen.variant}` on `{chosen.hardware}` with `{chosen.strategy}`"
    )
    try:
        rendered = library.render(tree, doc, chosen.variant, chosen.hardware, chosen.strategy)
    except library.RenderFailure as exc:
        return f"{title}: cannot render — {exc}"
    blocks = [f"**{title}**"]
    for label, command in _commands(rendered):
        fence = f"```sh\n{command}\n```"
        blocks.append(f"{label}:\n{fence}" if label else fence)
    try:
        deployment = library.deployment_lines(
            tree, doc, chosen.variant, chosen.hardware, chosen.strategy
        )
    except library.RenderFailure:
        deployment = []
    if deployment:
        blocks.append("deployment:\n" + "\n".join(f"- {line}" for line in deployment))
    return "\n\n".join(blocks)


def _commands(rendered: dict[str, Any]) -> list[tuple[str, str]]:
    """Every rendered command, labelled by its role: the serve command itself (no label),
    docker, head and worker, each PD pool's and the router's."""
    found: list[tuple[str, str]] = []
    for key, value in rendered.items():
        if key.endswith("command") and isinstance(value, str):
            role = key.removesuffix("command").removesuffix("_")
            found.append((role.replace("_docker", " (docker)").replace("_", " "), value))
        elif isinstance(value, dict) and isinstance(value.get("command"), str):
            found.append((key, value["command"]))
    return found
