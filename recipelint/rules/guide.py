"""RL6xx: the markdown guide's code blocks.

Readers copy these blocks verbatim.  A python block must parse, a client call's
`model=` must name a model the server actually serves, and a `vllm serve`
line must serve one of the recipe's checkpoints.
"""

from __future__ import annotations

import ast
import functools
import re
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from recipelint.load import Document
from recipelint.rules.common import ArgList, as_dict, as_list, guide_span, guide_text
from recipelint.rules.context import CheckContext
from recipelint.rules.registry import Finding, check

FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})\s*([\w+-]*)")
PYTHON = {"python", "py", "python3"}
SHELL = {"bash", "sh", "shell", "console", "zsh"}
SERVE = re.compile(r"(?:^|[\s;&|(])vllm\s+serve\s+(\S+)")
PLACEHOLDER = re.compile(r"^[$<{/.~]|[<>{}*]")


@dataclass(frozen=True)
class Block:
    language: str
    code: str
    line: int  # 1-based line of the first code line inside the guide text


@functools.lru_cache(maxsize=1024)
def fenced_blocks(markdown: str) -> tuple[Block, ...]:
    """Every fenced code block of a markdown text, parsed once per text."""
    return tuple(_fenced_blocks(markdown))


def _fenced_blocks(markdown: str) -> Iterator[Block]:
    lines = markdown.splitlines()
    index = 0
    while index < len(lines):
        opening = FENCE.match(lines[index])
        if not opening:
            index += 1
            continue
        fence, language = opening.group(2), opening.group(3).lower()
        body: list[str] = []
        end = index + 1
        while end < len(lines) and not lines[end].lstrip().startswith(fence):
            body.append(lines[end])
            end += 1
        yield Block(language, textwrap.dedent("\n".join(body)), index + 2)
        index = end + 1


def served_models(data: dict[str, Any], arg_lists: list[ArgList]) -> set[str]:
    """Model ids and --served-model-name values any command of the recipe serves."""
    names: list[Any] = [as_dict(data.get("model")).get("model_id")]
    names += [as_dict(v).get("model_id") for v in as_dict(data.get("variants")).values()]
    names += [as_dict(t).get("model_id") for t in as_list(as_dict(data.get("omni")).get("tasks"))]
    for arg_list in arg_lists:
        for unit in arg_list.units:
            if unit.name == "--served-model-name":
                value = unit.inline_value if unit.inline_value is not None else unit.value
                names += value.split() if isinstance(value, str) else []
    return {n for n in names if isinstance(n, str) and n}


@functools.lru_cache(maxsize=4096)
def _python_facts(code: str) -> tuple[BaseException | None, tuple[tuple[str, int], ...]]:
    """(CPython's refusal of a block or None, its model_arguments): RL601 and RL602 read the same blocks.

    Only these facts are kept, not the syntax tree: thousands of nodes kept alive per
    block made the cyclic collector walk them over and over for the rest of the run.
    """
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as error:
        return error, ()
    return None, _model_arguments(tree, code)


def _model_arguments(tree: ast.Module, code: str) -> tuple[tuple[str, int], ...]:
    # A `model=` keyword is spelled `model` (ASCII code has no other spelling of the name):
    # without the word, no node needs visiting.
    if code.isascii() and "model" not in code:
        return ()
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            for keyword in node.keywords:
                value = keyword.value
                if (
                    keyword.arg == "model"
                    and isinstance(value, ast.Constant)
                    and isinstance(value.value, str)
                ):
                    found.append((value.value, keyword.lineno))
    return tuple(sorted(found, key=lambda item: item[1]))


@functools.lru_cache(maxsize=4096)
def syntax_error(code: str) -> tuple[str, int] | None:
    """libcst's verdict on a block: (message, line) when it does not parse.

    CPython's own parser answers first (it is fast, and code it accepts libcst
    accepts too); libcst decides, and words the message, only for what it refuses.
    """
    refusal = _python_facts(code)[0]
    if refusal is None:
        return None
    if _too_deep(code, refusal):
        # libcst's native parser overflows its stack on such input: CPython's refusal is the verdict.
        line = refusal.lineno if isinstance(refusal, SyntaxError) and refusal.lineno else 1
        return str(getattr(refusal, "msg", refusal) or "nested too deeply"), line
    import libcst  # costs ~0.3 s to import: only when CPython already refused the block

    try:
        libcst.parse_module(code)
    except libcst.ParserSyntaxError as error:
        return error.message.splitlines()[0], error.raw_line
    return None


MAX_NESTING = 100


def _too_deep(code: str, refusal: BaseException) -> bool:
    """Nesting beyond what CPython accepts (brackets or indentation), counted without parsing."""
    if not isinstance(refusal, SyntaxError) or "too many" in str(refusal.msg):
        return True
    depth = deepest = 0
    for char in code:
        if char in "([{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in ")]}":
            depth = max(0, depth - 1)
    indents = (len(line) - len(line.lstrip(" \t")) for line in code.splitlines())
    return deepest > MAX_NESTING or max(indents, default=0) > 4 * MAX_NESTING


def model_arguments(code: str) -> tuple[tuple[str, int], ...]:
    """(value, line) of every string literal passed as `model=` to a call."""
    return _python_facts(code)[1]


def _notebook_style(code: str) -> bool:
    """Interactive transcripts and notebook shell escapes are not meant to parse as a module."""
    return any(line.lstrip().startswith((">>>", "!", "%", "$ ")) for line in code.splitlines())


def _guided(ctx: CheckContext) -> Iterator[tuple[Document, str]]:
    """(recipe, guide text) of every recipe in focus that has a guide."""
    for doc in ctx.recipes:
        guide = guide_text(doc)
        if guide:
            yield doc, guide


def _python_blocks(guide: str) -> Iterator[Block]:
    """The guide's Python blocks that are meant to run as a module (not transcripts)."""
    return (
        block
        for block in fenced_blocks(guide)
        if block.language in PYTHON and not _notebook_style(block.code)
    )


@check("RL601")
def python_blocks_parse(ctx: CheckContext) -> Iterator[Finding]:
    for doc, guide in _guided(ctx):
        for block in _python_blocks(guide):
            error = syntax_error(block.code)
            if error is not None:
                yield Finding(
                    doc,
                    ("guide",),
                    f"python block in the guide does not parse: {error[0]}",
                    "fix the snippet; mark illustrative fragments as ```text",
                    span=guide_span(doc, block.line + error[1] - 1),
                )


@check("RL602", "RL603")
def served_model_names(ctx: CheckContext) -> Iterator[Finding]:
    """RL602: a client asks for a model nothing serves; RL603: a serve line of another checkpoint."""
    siblings = {
        hf_id.lower() for hf_id in ctx.hf_ids
    }  # a guide may show a related recipe's command
    for doc, guide in _guided(ctx):
        served = served_models(doc.data, ctx.arg_lists_of(doc))
        yield from _client_model_names(doc, guide, served)
        yield from _serve_lines(doc, guide, served, siblings)


def _client_model_names(doc: Document, guide: str, served: set[str]) -> Iterator[Finding]:
    for block in _python_blocks(guide):
        for model, line in model_arguments(block.code):
            if model in served or PLACEHOLDER.search(model) or model in _guide_served(guide):
                continue
            yield Finding(
                doc,
                ("guide",),
                f"the guide's client asks for model `{model}`, which no command of this recipe "
                "serves: the server answers 404",
                f"pass one of the served names: {', '.join(f'`{n}`' for n in sorted(served)[:4])}",
                code="RL602",
                span=guide_span(doc, block.line + line - 1, model),
            )


@functools.lru_cache(maxsize=1024)
def _guide_served(guide: str) -> frozenset[str]:
    """Names a guide's own `vllm serve` lines make available (the model or --served-model-name)."""
    names: set[str] = set()
    for block in fenced_blocks(guide):
        for command in _commands(block.code):
            names.update(_serve_names(command))
    return frozenset(names)


def _commands(code: str) -> Iterator[str]:
    """Logical shell lines: backslash continuations joined."""
    yield from re.sub(r"\\\s*\n", " ", code).splitlines()


SERVED_NAME = re.compile(r"--served-model-name(?:=|\s+)[\"']?([^\s\"']+)")


def _serve_names(command: str) -> set[str]:
    match = SERVE.search(command) if "vllm" in command else None  # SERVE needs the word
    if not match:
        return set()
    return {match.group(1).strip("\"'"), *SERVED_NAME.findall(command[match.start() :])}


# Name parts that make a repository another build of the same model, not another model:
# a quantisation, or the instruct/base/chat release of the same weights.
ALTERNATIVE_WORDS = frozenset(
    {
        "nvfp4",
        "mxfp4",
        "fp4",
        "fp8",
        "bf16",
        "fp16",
        "int4",
        "int8",
        "awq",
        "gptq",
        "w4a16",
        "w8a8",
        "w4a8",
        "dynamic",
        "block",
        "instruct",
        "base",
        "chat",
        "it",
    }
)


# Weight/activation bit widths (`W4A4`, `W8A8`) and number formats (`FP8`, `INT4`, `NVFP4`).
QUANT_WORD = re.compile(r"w\d+a\d+|(?:nv|mx)?fp\d+|int\d+|bf\d+")


def _stem(repo_name: str) -> str:
    """A repository name without its trailing quantisation and release words (`X-Instruct-FP8` -> `x`)."""
    words = re.split(r"[-_]", repo_name.lower())
    while len(words) > 1 and (words[-1] in ALTERNATIVE_WORDS or QUANT_WORD.fullmatch(words[-1])):
        words.pop()
    return "-".join(words)


def _alternative_checkpoint(model: str, served: set[str]) -> bool:
    """Whether ``model`` is another build of a model the recipe serves: the same repository name
    but for quantisation and release words. Third-party quantisations (a publisher's NVFP4 build
    of the model) count too: a guide names them on purpose, as the alternative to try."""
    _, _, name = model.lower().partition("/")
    if not name:
        return False
    return _stem(name) in {_stem(s.lower().partition("/")[2]) for s in served if "/" in s}


def _serve_lines(
    doc: Document, guide: str, served: set[str], siblings: set[str]
) -> Iterator[Finding]:
    reported: set[str] = set()
    for block in fenced_blocks(guide):
        if block.language not in SHELL and block.language:
            continue
        for start, command in _logical_lines(block.code):
            match = SERVE.search(command) if "vllm" in command else None  # SERVE needs the word
            model = match.group(1).strip("'\"") if match else None
            if (
                not model
                or model.startswith("-")
                or PLACEHOLDER.search(model)
                or model in served
                or model.lower() in siblings
                or model in reported
                or _alternative_checkpoint(model, served)
            ):
                continue
            reported.add(model)
            ids = _recipe_ids(doc.data)
            yield Finding(
                doc,
                ("guide",),
                f"the guide's `vllm serve {model}` serves a checkpoint this recipe does not offer "
                "(not model.model_id, a variant's model_id nor another recipe of the tree)",
                f"serve `{ids[0]}` here"
                + (f" (or {', '.join(f'`{i}`' for i in ids[1:4])})" if len(ids) > 1 else "")
                + f", or add a variant with `model_id: {model}`",
                code="RL603",
                span=guide_span(doc, block.line + start, model),
            )


def _recipe_ids(data: dict[str, Any]) -> list[str]:
    """The recipe's own checkpoints, model first: what a guide's launch command should serve."""
    ids = [as_dict(data.get("model")).get("model_id")]
    ids += [as_dict(v).get("model_id") for v in as_dict(data.get("variants")).values()]
    found = [i for i in dict.fromkeys(ids) if isinstance(i, str) and i]
    return found or ["model.model_id"]


def _logical_lines(code: str) -> Iterator[tuple[int, str]]:
    """(offset of the first physical line, logical line) with backslash continuations joined."""
    start, parts = 0, list[str]()
    for offset, line in enumerate(code.splitlines()):
        if not parts:
            start = offset
        if line.rstrip().endswith("\\"):
            parts.append(line.rstrip()[:-1])
            continue
        parts.append(line)
        yield start, " ".join(parts)
        parts = []
    if parts:
        yield start, " ".join(parts)
