"""RL6xx: the markdown guide's code blocks.

Readers copy these blocks verbatim.  A python block must parse, a client call's
`model=` must name a model the server actually serves, and a `vllm serve`
line must serve one of the recipe's checkpoints.
"""

from __future__ import annotations

import ast
import bisect
import functools
import json
import operator
import re
import textwrap
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from itertools import compress, count, repeat
from typing import Any

from recipelint import shellwords
from recipelint.flags.catalog import (
    Catalog,
    Lookup,
    available_versions,
    catalog_for,
    load_catalog,
    newest_catalog,
    version_key,
)
from recipelint.flags.support import (
    ReleaseStatus,
    catalogs_from,
    first_with,
    flag_support,
    json_key_support,
    value_support,
)
from recipelint.load import Document
from recipelint.resolve.layers import is_omni
from recipelint.rules.common import ArgList, as_dict, as_list, guide_span, guide_text
from recipelint.rules.context import CheckContext
from recipelint.rules.registry import Finding, check
from recipelint.spelling import close_flags

FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})\s*([\w+-]*)")
PYTHON = {"python", "py", "python3"}
SHELL = {"bash", "sh", "shell", "console", "zsh"}
SERVE = re.compile(r"(?:^|[\s;&|(])vllm\s+serve\s+(\S+)")
PLACEHOLDER = re.compile(r"^[$<{/.~]|[<>{}*]")


@dataclass(frozen=True, slots=True)
class Block:
    language: str
    code: str
    line: int  # 1-based line of the first code line inside the guide text


def fenced_blocks(markdown: str) -> tuple[Block, ...]:
    """Every fenced code block of a markdown text."""
    return tuple(_fenced_blocks(markdown))


def _fenced_blocks(markdown: str) -> Iterator[Block]:
    lines = markdown.splitlines()
    # Only a line holding three backticks or tildes can open or close a fence.
    marked = iter(_lines_holding(lines, "```", "~~~" in markdown))
    for index in marked:
        opening = FENCE.match(lines[index])
        if not opening:
            continue
        fence, language = opening.group(2), opening.group(3).lower()
        end = next((i for i in marked if lines[i].lstrip().startswith(fence)), len(lines))
        yield Block(language, dedented("\n".join(lines[index + 1 : end])), index + 2)


def _lines_holding(lines: list[str], ticks: str, tildes: bool) -> list[int]:
    """The indices of the lines holding ``ticks`` (or, with ``tildes``, three tildes), in order.

    Asked of every line of every guide: the lines are tested by map(), not one by one in Python.
    """
    found = list(compress(count(), map(operator.contains, lines, repeat(ticks))))
    if tildes:
        found = sorted({*found, *compress(count(), map(operator.contains, lines, repeat("~~~")))})
    return found


# A line of spaces and tabs only: textwrap.dedent empties it.
BLANK_LINE = re.compile(r"^[ \t]+$", re.MULTILINE)


def dedented(code: str) -> str:
    """textwrap.dedent(code), without its work where the answer is plain.

    With no line starting with a space or a tab, nothing is indented and no line is blank
    but empty: the text is its own dedent. With a first line that starts with other text,
    the common margin is empty: only the blank lines are emptied.
    """
    if not code.startswith((" ", "\t")):
        if "\n " not in code and "\n\t" not in code:
            return code
        if code[:1] not in ("", "\n"):
            return BLANK_LINE.sub("", code)
    return textwrap.dedent(code)


SERVED_MODEL_NAME = "--served-model-name"


def served_models(data: dict[str, Any], arg_lists: list[ArgList]) -> set[str]:
    """Model ids and --served-model-name values any command of the recipe serves."""
    names: list[Any] = [as_dict(data.get("model")).get("model_id")]
    names += [as_dict(v).get("model_id") for v in as_dict(data.get("variants")).values()]
    names += [as_dict(t).get("model_id") for t in as_list(as_dict(data.get("omni")).get("tasks"))]
    for arg_list in arg_lists:
        for unit in arg_list.units:
            if unit.flag.startswith(SERVED_MODEL_NAME) and unit.name == SERVED_MODEL_NAME:
                value = unit.inline_value if unit.inline_value is not None else unit.value
                names += value.split() if isinstance(value, str) else []
    return {n for n in names if isinstance(n, str) and n}


PythonFacts = tuple[BaseException | None, tuple[tuple[str, int], ...]]


def _python_facts(code: str) -> PythonFacts:
    """(CPython's refusal of a block or None, its model_arguments): RL601 and RL602 read the same blocks.

    Only these facts are kept, not the syntax tree: thousands of nodes kept alive per
    block made the cyclic collector walk them over and over for the rest of the run.
    """
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as error:
        return error.with_traceback(None), ()  # kept without the frames it was raised in
    return None, _model_arguments(tree, code)


def _model_arguments(tree: ast.Module, code: str) -> tuple[tuple[str, int], ...]:
    lines = _model_lines(code)
    if lines == []:
        return ()
    found = []
    for node in _calls(tree, lines):
        for keyword in node.keywords:
            value = keyword.value
            if (
                keyword.arg == "model"
                and isinstance(value, ast.Constant)
                and isinstance(value.value, str)
            ):
                found.append((value.value, keyword.lineno))
    return tuple(sorted(found, key=lambda item: item[1]))


def _model_lines(code: str) -> list[int] | None:
    """The lines (1-based, in order) that spell the word `model`; None when any line may.

    In ASCII code a `model=` keyword is spelled `model` (no other spelling of the name), so
    a node written on none of these lines holds none; code beyond ASCII may spell an
    identifier in characters that normalise to it, and a carriage return ends a line for
    Python but not for this count.
    """
    if not code.isascii() or "\r" in code:
        return None
    return [number for number, line in enumerate(code.split("\n"), start=1) if "model" in line]


def _calls(tree: ast.Module, lines: list[int] | None) -> Iterator[ast.Call]:
    """The calls of ``tree`` in ast.walk's order, leaving out the nodes written on none of
    ``lines`` (none left out when ``lines`` is None).

    A node's lines hold those of every node below it, but for the decorators above a
    definition (counted in) and the expressions inside an f-string, whose positions Python
    3.11 does not always get right: below an f-string nothing is left out.
    """
    pending: deque[tuple[ast.AST, list[int] | None]] = deque([(tree, lines)])
    while pending:
        node, within = pending.popleft()
        if isinstance(node, ast.Call):
            yield node
        if isinstance(node, ast.JoinedStr):
            within = None
        for child in ast.iter_child_nodes(node):
            if within is None or _written_on(child, within):
                pending.append((child, within))


def _written_on(node: ast.AST, lines: list[int]) -> bool:
    """Whether some of ``lines`` falls within a node (its decorators included); a node
    without a position may be anywhere."""
    last = getattr(node, "end_lineno", None)
    if last is None:
        return True
    decorators = getattr(node, "decorator_list", ())
    first = min([getattr(node, "lineno", last), *(d.lineno for d in decorators)])
    index = bisect.bisect_left(lines, first)
    return index < len(lines) and lines[index] <= last


def syntax_error(code: str) -> tuple[str, int] | None:
    """libcst's verdict on a block: (message, line) when it does not parse."""
    return _syntax_verdict(code, _python_facts(code)[0])


def _syntax_verdict(code: str, refusal: BaseException | None) -> tuple[str, int] | None:
    """libcst's verdict on a block CPython refused (``refusal``), or None.

    CPython's own parser answers first (it is fast, and code it accepts libcst
    accepts too); libcst decides, and words the message, only for what it refuses.
    """
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
    marks = (">>>", "!", "%", "$ ")
    if not any(mark in code for mark in marks):
        return False  # no line can start with a mark the code does not hold
    return any(line.lstrip().startswith(marks) for line in code.splitlines())


class GuideFacts:
    """What the guide rules read of one guide, each worked out when first asked.

    RL601-RL606 are one check (guide_blocks) that asks for these facts once per recipe
    and drops them with it, so a guide is read once per run and none outlives it.
    """

    def __init__(self, text: str) -> None:
        self.text = text
        self._spans: dict[str, Spans] = {}

    def spans(self, code: str) -> Spans:
        """A block's logical lines, which RL603 and RL604-RL606 both read."""
        found = self._spans.get(code)
        if found is None:
            found = self._spans[code] = _spans(code)
        return found

    @functools.cached_property
    def blocks(self) -> tuple[Block, ...]:
        return fenced_blocks(self.text)

    @functools.cached_property
    def python(self) -> tuple[tuple[Block, PythonFacts], ...]:
        """The Python blocks meant to run as a module (not transcripts), with their facts."""
        return tuple(
            (block, _python_facts(block.code))
            for block in self.blocks
            if block.language in PYTHON and not _notebook_style(block.code)
        )

    @functools.cached_property
    def served(self) -> frozenset[str]:
        """Names the guide's own `vllm serve` lines make available (the model or --served-model-name)."""
        names: set[str] = set()
        for block in self.blocks:
            for command in _commands(block.code):
                names.update(_serve_names(command))
        return frozenset(names)

    @functools.cached_property
    def commands(self) -> tuple[GuideCommand, ...]:
        return tuple(_guide_commands_in(self.text, self.blocks, self.spans))


# The language server checks the buffer being typed in after every keystroke, its guide mostly
# unchanged: the last few guides' facts outlive their run. A check of a tree reads each guide
# once, so this never serves it.
@functools.lru_cache(maxsize=8)
def _recent_facts(guide: str) -> GuideFacts:
    return GuideFacts(guide)


@check("RL601", "RL602", "RL603", "RL604", "RL605", "RL606")
def guide_blocks(ctx: CheckContext) -> Iterator[Finding]:
    """RL601-RL606 from one reading of each guide: its blocks, Python facts and serve commands
    are worked out once, for every rule, and dropped with the recipe (none outlives the run)."""
    enabled = ctx.config.is_enabled
    parse, names = enabled("RL601"), enabled("RL602") or enabled("RL603")
    flags = any(enabled(code) for code in (UNKNOWN_FLAG, REJECTED, UNDERSCORED))
    # A guide may show a related recipe's command.
    siblings = {hf_id.lower() for hf_id in ctx.hf_ids} if names else set()
    for doc in ctx.recipes:
        text = guide_text(doc)
        if not text:
            continue
        guide = _recent_facts(text)
        if parse:
            yield from _parse_failures(doc, guide)
        if names:
            served = served_models(doc.data, ctx.arg_lists_of(doc))
            yield from _client_model_names(doc, guide, served)
            yield from _serve_lines(doc, guide, served, siblings)
        if flags:
            yield from _serve_flag_verdicts(doc, guide, ctx.arg_lists_of(doc))


def _parse_failures(doc: Document, guide: GuideFacts) -> Iterator[Finding]:
    """RL601: a python block that does not parse."""
    for block, (refusal, _models) in guide.python:
        error = _syntax_verdict(block.code, refusal)
        if error is not None:
            yield Finding(
                doc,
                ("guide",),
                f"python block in the guide does not parse: {error[0]}",
                "fix the snippet; mark illustrative fragments as ```text",
                code="RL601",
                span=guide_span(doc, block.line + error[1] - 1),
            )


def _client_model_names(doc: Document, guide: GuideFacts, served: set[str]) -> Iterator[Finding]:
    for block, (_refusal, models) in guide.python:
        for model, line in models:
            if model in served or PLACEHOLDER.search(model) or model in guide.served:
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
    of the model) count too: a guide names them on purpose, as the alternative to try. The very
    checkpoint the recipe serves, under another publisher, does not: that is a variant moved to
    a new publisher while the guide still serves the old one."""
    publisher, _, name = model.lower().partition("/")
    if not name:
        return False
    builds = [s.lower().partition("/") for s in served if "/" in s]
    if any(own == name and owner != publisher for owner, _, own in builds):
        return False
    return _stem(name) in {_stem(own) for _, _, own in builds}


def _serve_lines(
    doc: Document, guide: GuideFacts, served: set[str], siblings: set[str]
) -> Iterator[Finding]:
    reported: set[str] = set()
    for block in guide.blocks:
        if block.language not in SHELL and block.language or "vllm" not in block.code:
            continue  # not shell, or no `vllm serve` in it
        for start, _end, command in guide.spans(block.code):
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


def _logical_spans(code: str) -> Iterator[tuple[int, int, str]]:
    """(offsets of the first and last physical lines, logical line): continuations joined."""
    start, parts = 0, list[str]()
    for offset, line in enumerate(code.splitlines()):
        if not parts:
            start = offset
        written = line.rstrip()
        if written.endswith("\\"):
            parts.append(written[:-1])
            continue
        parts.append(line)
        yield start, offset, " ".join(parts)
        parts = []
    if parts:
        yield start, start + len(parts) - 1, " ".join(parts)


# -- RL604-RL606: the flags of the guide's own serve commands ------------------------------

UNKNOWN_FLAG, REJECTED, UNDERSCORED = "RL604", "RL605", "RL606"
# Where a serve command's arguments begin: `vllm serve`, or the API server module run by Python.
SERVER_MODULES = frozenset({"vllm.entrypoints.openai.api_server", "vllm.entrypoints.api_server"})
# The project's OpenAI-compatible server images (vllm-openai, -rocm, -xpu, ...): the
# arguments after the image go to the server.
SERVER_IMAGE = "vllm/vllm-openai"
# Tokens that end the command: the shell goes on to something else.
SHELL_BREAKS = frozenset({"|", "||", "&&", ";", "&", ">", ">>", "<", "2>&1"})
# argparse's own options, in every release's parser though no catalog records them.
ARGPARSE_OWN = frozenset({"-h", "--help"})
OPTION = re.compile(r"^--?[A-Za-z]")
INLINE_CODE = re.compile(r"`([^`\n]+)`")
# A cheap test of a line before the shell's reading of it: does it run the server at all?
SERVER = re.compile(r"vllm\s+serve|vllm\.entrypoints|vllm/vllm-openai")


@dataclass(frozen=True)
class Token:
    """A shell word of a guide command, and where its text starts in the guide."""

    text: str
    line: int  # 1-based line of the guide
    column: int  # 0-based column in that line; -1 when the word is not written as is


@dataclass(frozen=True)
class GuideCommand:
    """A serve command of the guide: its arguments after `vllm serve` (or the module)."""

    words: tuple[str, ...]
    # The guide lines (number, text) the command is written on, where its words are found.
    lines: tuple[tuple[int, str], ...]
    # Run as a server image's arguments: which entrypoint (`vllm serve` or the API server
    # module) reads them depends on the image's release, so serve's own refusals do not apply.
    via_image: bool = False
    # The server image word (`vllm/vllm-openai:v0.25.0`) when run as an image's arguments.
    image: str | None = None

    @functools.cached_property
    def args(self) -> tuple[Token, ...]:
        """The words where the guide writes them: looked for only once a verdict is placed."""
        return _placed(self.words, self.lines)


Spans = tuple[tuple[int, int, str], ...]


def _spans(code: str) -> Spans:
    return tuple(_logical_spans(code))


def _shell_commands(spans: Spans) -> Iterator[tuple[int, int, str]]:
    """Logical lines as the shell reads them: a quote left open goes on to the next line."""
    pending: tuple[int, str] | None = None
    for start, end, line in spans:
        if pending is not None:
            start, line = pending[0], f"{pending[1]}\n{line}"
        pending = (start, line) if _open_quote(line) else None
        if pending is None:
            yield start, end, line
    if pending is not None:
        yield pending[0], pending[0] + pending[1].count("\n"), pending[1]


def _open_quote(line: str) -> bool:
    if line.count("'") % 2 == 0 and line.count('"') % 2 == 0:
        return False  # paired quotes (the shell's reading is asked only when they are not)
    try:
        shellwords.split(line)
    except ValueError:
        return True
    return False


def _shell_words(command: str) -> list[str]:
    try:
        return shellwords.split(command)
    except ValueError:  # an unbalanced quote: the words as the eye splits them
        return command.split()


def _serve_arguments(words: list[str]) -> tuple[list[str], str | None] | None:
    """The words after `vllm serve`, `python -m <API server>` or a `docker run` of the
    OpenAI server image (whose entrypoint is the server), up to the end of that command,
    and the image word when they are an image's arguments."""
    for index, word in enumerate(words):
        after = words[index + 1 :]
        if word.rsplit("/", 1)[-1] == "vllm" and after[:1] == ["serve"]:
            return _until_break(after[1:]), None
        if word == "-m" and after[:1] and after[0] in SERVER_MODULES:
            return _until_break(after[1:]), None
    return _image_arguments(words)


def _image_arguments(words: list[str]) -> tuple[list[str], str] | None:
    """The words after the image of `docker run ... vllm/vllm-openai:TAG MODEL --flag ...`."""
    if words[:2] != ["docker", "run"]:
        return None
    for index, word in enumerate(words[2:], start=2):
        if word.startswith("--entrypoint"):
            return None  # the image runs something else
        if word.startswith(SERVER_IMAGE) and not words[index - 1].startswith("-"):
            return _until_break(words[index + 1 :]), word
        if word in SHELL_BREAKS:
            return None
    return None


def _until_break(words: list[str]) -> list[str]:
    for index, word in enumerate(words):
        if word in SHELL_BREAKS or word.startswith((">", "2>")):
            return words[:index]
    return words


def _placed(words: tuple[str, ...], lines: tuple[tuple[int, str], ...]) -> tuple[Token, ...]:
    """Each word with the guide line and column where it is written, searched in order."""
    if not lines:
        return ()
    out, at, column = [], 0, 0
    for word in words:
        for index in range(at, len(lines)):
            found = lines[index][1].find(word, column if index == at else 0)
            if found >= 0:
                at, column = index, found + len(word)
                out.append(Token(word, lines[index][0], found))
                break
        else:
            out.append(Token(word, lines[at][0], -1))
    return tuple(out)


def guide_commands(guide: str) -> Iterator[GuideCommand]:
    """The serve commands of a guide: in shell (or unlabelled) blocks and in prose code spans."""
    return _guide_commands_in(guide, fenced_blocks(guide), _spans)


def _guide_commands_in(
    guide: str, blocks: tuple[Block, ...], spans: Callable[[str], Spans]
) -> Iterator[GuideCommand]:
    raw = guide.split("\n")
    fenced: set[int] = set()
    for block in blocks:
        count = block.code.count("\n") + 1
        fenced.update(range(block.line - 1, block.line + count + 1))
        if block.language and block.language not in SHELL or "vllm" not in block.code:
            continue  # not shell, or no serve command in it (each names vllm)
        for start, end, command in _shell_commands(spans(block.code)):
            found = _serve_arguments(_shell_words(command)) if SERVER.search(command) else None
            if found and found[0]:
                span = range(block.line + start, min(block.line + end, len(raw)) + 1)
                lines = tuple((n, raw[n - 1]) for n in span)
                # A command placed on no line of the guide has no word to report at.
                words = tuple(found[0]) if lines else ()
                yield GuideCommand(words, lines, found[1] is not None, found[1])
    for number, line in enumerate(raw, start=1):
        if "vllm" in line and number not in fenced and SERVER.search(line):
            yield from _prose_commands(number, line)


def _prose_commands(number: int, line: str) -> Iterator[GuideCommand]:
    for match in INLINE_CODE.finditer(line):
        found = _serve_arguments(_shell_words(match.group(1)))
        if found and found[0]:
            yield GuideCommand(tuple(found[0]), ((number, line),), found[1] is not None, found[1])


def _guide_release(data: dict[str, Any]) -> str:
    """The release a guide's commands are first judged at: the recipe's minimum, else the newest."""
    return _release(as_dict(data.get("model")).get("min_vllm_version")) or available_versions()[-1]


def _release(raw: Any) -> str | None:
    """A version as the catalogs read it; None for nightly or one the schema stage reports."""
    text = raw.strip().lstrip("vV") if isinstance(raw, str) else ""
    try:
        version_key(text)
    except ValueError:
        return None
    return text


@dataclass(frozen=True)
class Claim:
    """What says which releases a guide command runs on, in the words its findings use: the
    recipe's min_vllm_version, a variant's own one, or a pinned server image (that release alone)."""

    minimum: str = "min_vllm_version"
    holder: str = "the recipe"
    image: str | None = None


RECIPE_CLAIM = Claim()
# A pinned tag of a server image: `v0.25.0`, `0.9.2`, `v0.24.0-ubuntu2404` (a build of that release).
IMAGE_TAG = re.compile(r"v?(\d+\.\d+(?:\.\d+)?)(?:[-+][\w.-]*)?")


def command_release(data: dict[str, Any], command: GuideCommand, package: str) -> tuple[str, Claim]:
    """The release a guide command is judged from, and what claims it.

    A `docker run` of a pinned server image runs that image's release and no other; a command
    serving a variant's checkpoint runs where that variant does (its own min_vllm_version, when
    it raises the recipe's); any other command from the recipe's min_vllm_version on.
    """
    pinned = _image_release(command.image) if package == "vllm" else None
    if pinned is not None and command.image is not None:
        return pinned, Claim(image=command.image)
    model = as_dict(data.get("model"))
    base = _release(model.get("min_vllm_version"))
    served = _served_model(command.words)
    if served is None or served == model.get("model_id"):
        return base or available_versions()[-1], RECIPE_CLAIM
    raised = [
        (version_key(own), own, key)
        for key, variant in as_dict(data.get("variants")).items()
        if as_dict(variant).get("model_id") == served
        and (own := _release(as_dict(variant).get("min_vllm_version"))) is not None
        and (base is None or version_key(own) > version_key(base))
    ]
    if not raised or len(raised) < _variants_serving(data, served):
        return base or available_versions()[-1], RECIPE_CLAIM  # a variant without its own minimum
    _, own, key = min(raised)
    return own, Claim(f"variant `{key}`'s min_vllm_version", f"variant `{key}`")


def _variants_serving(data: dict[str, Any], served: str) -> int:
    return sum(as_dict(v).get("model_id") == served for v in as_dict(data.get("variants")).values())


def _image_release(image: str | None) -> str | None:
    """The release a server image's tag pins (`vllm/vllm-openai:v0.25.0`); None for a moving
    tag (latest, nightly) or a named build whose release the tag does not say."""
    if image is None:
        return None
    name = image.split("@", 1)[0]
    _, colon, tag = name.rpartition(":")
    if not colon or "/" in tag:
        return None
    match = IMAGE_TAG.fullmatch(tag)
    return _release(match.group(1)) if match else None


def _served_model(words: tuple[str, ...]) -> str | None:
    """The checkpoint a serve command serves: its first word, or its `--model` option."""
    if words and not words[0].startswith("-"):
        return words[0]
    for index, word in enumerate(words):
        if word == "--model" and index + 1 < len(words):
            return words[index + 1]
        if word.startswith("--model="):
            return word.split("=", 1)[1]
    return None


# What a verdict is about, whatever the command's spelling: the option (canonical), the JSON
# sub-key, the value, and the releases that refuse it (("unknown",): no release knows it).
Cause = tuple[str, tuple[str, ...], str | None, tuple[str, ...]]


@dataclass(frozen=True)
class GuideVerdict:
    """A finding of a guide command, before it is placed in a document: its text and where in
    the guide it is (``column`` -1: the whole line)."""

    code: str
    message: str
    hint: str
    line: int
    column: int
    length: int
    cause: Cause | None = None

    def placed(self, doc: Document) -> Finding:
        """The finding at this place of ``doc``'s guide."""
        if self.column < 0:
            span = guide_span(doc, self.line)
        else:
            end = self.column + self.length
            span = doc.scalar_line_span(("guide",), self.line - 1, self.column, end)
        return Finding(doc, ("guide",), self.message, self.hint, code=self.code, span=span)


@dataclass(frozen=True)
class OptionVerdict:
    """A verdict on one option of a command before it is placed: on the option's own word, or
    on the word after it that holds its value; ``length`` characters from the word's start."""

    code: str
    message: str
    hint: str
    on_value: bool
    length: int
    cause: Cause | None = None

    def at(self, option: Token, value: Token | None) -> GuideVerdict:
        token = value if self.on_value and value is not None else option
        return GuideVerdict(
            self.code, self.message, self.hint, token.line, token.column, self.length, self.cause
        )


# What one option says, and how many following words it takes as its value.
OptionReading = tuple[int, tuple[OptionVerdict, ...]]


@dataclass
class CommandJudge:
    """Reads one guide command's options against the catalogs from the recipe's minimum release.

    An option's verdict reads only its own word, the word after it and whether the command runs
    through a server image: each distinct such option is judged once (option_reading) and
    placed wherever a command holds it.
    """

    release: str
    package: str
    claim: Claim = RECIPE_CLAIM

    @functools.cached_property
    def catalog(self) -> Catalog:
        """The minimum release's catalog (the oldest one for a minimum older than every catalog)."""
        found = catalog_for(self.release, self.package)
        return (
            found
            if found is not None
            else load_catalog(available_versions(self.package)[0], self.package)
        )

    def findings(self, command: GuideCommand) -> Iterator[GuideVerdict]:
        words, index = command.words, 0
        while index < len(words):
            if not OPTION.match(words[index]):
                index += 1
                continue
            after = words[index + 1] if index + 1 < len(words) else None
            # The word after an option that takes no value is no part of what it says.
            read = after if reads_next_word(self.release, self.package, words[index]) else None
            used, verdicts = option_reading(
                self.release, self.package, words[index], read, command.via_image, self.claim
            )
            if verdicts:
                args = command.args
                value = args[index + 1] if after is not None else None
                for verdict in verdicts:
                    yield verdict.at(args[index], value)
            index += 1 + used

    def reading(self, text: str, after: str | None, via_image: bool) -> OptionReading:
        """What the option ``text`` (followed by ``after``) says, and the words it takes."""
        option = self._option(text)
        if option is None:
            return 0, ()
        name, hit = option
        if hit.canonical is None:
            return 0, (self._unknown(text, name),)
        value, used = self._value(text, after, hit)
        found = list(self._verdict(text, hit, value, used, via_image))
        if hit.underscored:
            found.append(self._underscored(name))
        return used, tuple(found)

    def reads_next_word(self, text: str) -> bool:
        """Whether what option ``text`` says can depend on the word after it: only when it
        takes its value from that word (see reading and _value)."""
        option = self._option(text)
        return (
            option is not None
            and option[1].canonical is not None
            and self._takes_next_word(text, option[1])
        )

    def _option(self, text: str) -> tuple[str, Lookup] | None:
        """The option's name and what the catalog says of it; None for a word that is no
        option of vLLM's to judge (a placeholder, argparse's own)."""
        if not OPTION.match(text) or _placeholder(text):
            return None
        name = text.split("=", 1)[0]
        if name in ARGPARSE_OWN:
            return None
        return name, self.catalog.lookup(name)

    def _takes_next_word(self, text: str, hit: Lookup) -> bool:
        """Whether a known option takes its value from the word after it, when there is one."""
        if "=" in text or hit.inline_value is not None or hit.negated:
            return False
        spec = self.catalog.flag(hit.canonical or "")
        return spec is not None and spec.value != "no"

    def _value(self, text: str, after: str | None, hit: Lookup) -> tuple[str | None, int]:
        """(the option's value, how many following words it takes)."""
        inline = text.split("=", 1)[1] if "=" in text else None
        if inline is not None or hit.inline_value is not None:
            return inline if inline is not None else hit.inline_value, 0
        if after is None or not self._takes_next_word(text, hit):
            return None, 0
        spec = self.catalog.flag(hit.canonical or "")
        if spec is not None and spec.value == "optional" and after.startswith("-"):
            return None, 0
        return after, 1

    def _verdict(
        self, text: str, hit: Lookup, value: str | None, used: int, via_image: bool
    ) -> Iterator[OptionVerdict]:
        canonical = hit.canonical or ""
        judged = value if value is not None and not _placeholder(value) else None
        statuses = self._claimed(
            _support(canonical, hit.json_path, judged, self.release, self.package)
        )
        if via_image:
            statuses = [self._image_status(canonical, s) for s in statuses]
        if not hit.json_path and judged is None:
            spelled = text.split("=", 1)[0]
            statuses = [self._spelling_status(spelled, s) for s in statuses]
        if first_with(statuses, "rejected") is None:
            return
        flag_refused = first_with(
            self._claimed(_support(canonical, (), None, self.release, self.package)), "rejected"
        )
        on_option = flag_refused is not None or bool(hit.json_path) or value is None
        shown = text if on_option else f"{text.split('=', 1)[0]} {value}"
        # Without a following word the value is inline: the verdict stays on the option.
        on_value = not on_option and used == 1
        length = len(value or "") if on_value else len(text)
        refused = tuple(s.version for s in statuses if s.status == "rejected")
        cause = (canonical, hit.json_path, None if on_option else judged, refused)
        yield self._rejected(shown, statuses, on_value, length, cause)

    def _claimed(self, statuses: list[ReleaseStatus]) -> list[ReleaseStatus]:
        """The releases the command runs on: a pinned image's alone, else all from the minimum."""
        return statuses[:1] if self.claim.image is not None else statuses

    def _spelling_status(self, spelled: str, status: ReleaseStatus) -> ReleaseStatus:
        """A release that reads the spelling as another flag's form (`--disable-log-requests`
        as the negation of `--enable-log-requests`) accepts it: the canonical flag's own
        history would call it refused there, and the ranges would be told wrong."""
        if (
            status.status == "rejected"
            and load_catalog(status.version, self.package).lookup(spelled).known
        ):
            return ReleaseStatus(status.version, "ok")
        return status

    def _image_status(self, canonical: str, status: ReleaseStatus) -> ReleaseStatus:
        """A refusal by `vllm serve` alone counts as accepted: the image may run the API server module."""
        spec = load_catalog(status.version, self.package).flag(canonical)
        if status.status == "rejected" and spec is not None and status.note == spec.serve_error:
            return ReleaseStatus(status.version, "ok")
        return status

    def _rejected(
        self,
        shown: str,
        statuses: list[ReleaseStatus],
        on_value: bool,
        length: int,
        cause: Cause | None = None,
    ) -> OptionVerdict:
        claim = self.claim
        if claim.image is not None:
            hint = (
                f"write the form vLLM {self.release} accepts, or run an image of a release that "
                "accepts it (`recipelint flags history FLAG` shows each release's reading)"
            )
        else:
            hint = (
                f"write the form every release from {claim.minimum} on accepts, or raise "
                f"{claim.minimum} (`recipelint flags history FLAG` shows each release's reading)"
            )
        return OptionVerdict(
            REJECTED,
            f"the guide's serve command passes `{shown}`, "
            f"{_refusal(statuses, self.release, claim)}",
            hint,
            on_value,
            length,
            cause,
        )

    def _unknown(self, text: str, name: str) -> OptionVerdict:
        known = set(_releases_knowing(name, self.package))
        if known:
            statuses = self._claimed(
                [
                    ReleaseStatus(c.version, "ok" if c.version in known else "rejected", None)
                    for c in catalogs_from(self.release, self.package)
                ]
            )
            refused = tuple(s.version for s in statuses if s.status == "rejected")
            return self._rejected(name, statuses, False, len(text), (name, (), None, refused))
        close = _did_you_mean(newest_catalog(self.package), name)
        hint = (
            f"did you mean {', '.join(f'`{c}`' for c in close)}?"
            if close
            else "check the spelling against `vllm serve --help`"
        )
        return OptionVerdict(
            UNKNOWN_FLAG,
            f"the guide's serve command passes `{name}`, an option no vLLM release accepts",
            hint,
            False,
            len(name),
            (name, (), None, ("unknown",)),
        )

    def _underscored(self, name: str) -> OptionVerdict:
        option, dot, keys = name.partition(".")  # sub-keys keep their underscores
        spelled = option.replace("_", "-") + dot + keys
        return OptionVerdict(
            UNDERSCORED,
            f"the guide spells `{name}` with underscores; vLLM rewrites it to `{spelled}`",
            f"write `{spelled}` as vLLM documents it",
            False,
            len(name),
        )


@functools.cache
def _judge(release: str, package: str, claim: Claim = RECIPE_CLAIM) -> CommandJudge:
    return CommandJudge(release, package, claim)


# Keyed by small values (a release, an option and the word after it), which guides repeat:
# the language server judges the same options again after every keystroke.
@functools.lru_cache(maxsize=16384)
def option_reading(
    release: str,
    package: str,
    text: str,
    after: str | None,
    via_image: bool,
    claim: Claim = RECIPE_CLAIM,
) -> OptionReading:
    """What an option of a guide command says at a release (see CommandJudge.reading)."""
    return _judge(release, package, claim).reading(text, after, via_image)


@functools.lru_cache(maxsize=16384)
def reads_next_word(release: str, package: str, text: str) -> bool:
    """Whether the reading of a guide command's option depends on the word after it."""
    return _judge(release, package).reads_next_word(text)


def _refusal(statuses: list[ReleaseStatus], release: str, claim: Claim = RECIPE_CLAIM) -> str:
    """Which releases from the minimum on refuse it, said the way a reader acts on it."""
    refused = [i for i, s in enumerate(statuses) if s.status == "rejected"]
    accepted = [i for i, s in enumerate(statuses) if s.status != "rejected"]
    first, last = statuses[refused[0]], statuses[refused[-1]]
    why = f" ({first.note})" if first.note else ""
    if claim.image is not None:
        return f"which vLLM {release} refuses{why}: the image `{claim.image}` runs that release"
    if accepted and refused[0] == 0 and refused[-1] < accepted[0]:
        return (
            f"which vLLM {first.version} refuses{why}: it needs vLLM "
            f"{statuses[accepted[0]].version} or newer, but {claim.minimum} is {release}"
        )
    if accepted and last is statuses[-1] and accepted[-1] < refused[0]:
        return (
            f"which vLLM {first.version} and newer refuse{why}: vLLM "
            f"{statuses[accepted[-1]].version} is the last release that runs it"
        )
    if not accepted:
        return f"which no release from {release} on accepts{why}"
    return (
        f"which vLLM {_runs(statuses, refused)} refuse{why}, though {claim.holder} claims every "
        f"release from {release} on"
    )


def _runs(statuses: list[ReleaseStatus], indices: list[int]) -> str:
    """Consecutive releases among ``indices`` as `A to B` runs."""
    runs: list[list[int]] = []
    for index in indices:
        if runs and runs[-1][-1] == index - 1:
            runs[-1].append(index)
        else:
            runs.append([index])
    return ", ".join(
        statuses[run[0]].version
        if len(run) == 1
        else f"{statuses[run[0]].version} to {statuses[run[-1]].version}"
        for run in runs
    )


def _did_you_mean(catalog: Catalog, spelled: str) -> list[str]:
    """The newest release's options closest to a spelling no release knows."""
    return close_flags(catalog, spelled)


@functools.lru_cache(maxsize=4096)
def _support(
    canonical: str, path: tuple[str, ...], value: str | None, release: str, package: str
) -> list[ReleaseStatus]:
    """Each release's verdict on a JSON sub-key, a value or the option alone (guides repeat them)."""
    if path:
        return json_key_support(canonical, path, release, package)
    if value is not None:
        return value_support(canonical, value, release, package)
    return flag_support(canonical, release, package)


def _placeholder(word: str) -> bool:
    """A shell variable, a template slot or an ellipsis stands for text the reader supplies."""
    return "$" in word or "<" in word or word.endswith("...") or word.startswith("[")


@functools.lru_cache(maxsize=512)
def _releases_knowing(name: str, package: str) -> tuple[str, ...]:
    """The catalogued releases whose parser reads ``name``, oldest first."""
    return tuple(
        version
        for version in available_versions(package)
        if load_catalog(version, package).lookup(name).canonical is not None
    )


def _package(doc: Document, command: GuideCommand) -> str:
    omni = is_omni(doc.data) or "--omni" in command.words
    return "vllm-omni" if omni else "vllm"


def _serve_flag_verdicts(
    doc: Document, guide: GuideFacts, arg_lists: list[ArgList]
) -> Iterator[Finding]:
    """RL604-RL606: the options of the guide's serve commands, each place reported once; a
    verdict the recipe's own args already earn for the same cause is left to their rule."""
    seen: set[tuple[int, int, str | None]] = set()
    structured: frozenset[Cause] | None = None
    for command in guide.commands:
        package = _package(doc, command)
        release, claim = command_release(doc.data, command, package)
        for verdict in _judge(release, package, claim).findings(command):
            if verdict.cause is not None:
                if structured is None:
                    structured = _structured_causes(doc.data, arg_lists)
                if verdict.cause in structured:
                    continue
            finding = verdict.placed(doc)
            key = (
                (finding.span.line, finding.span.column, finding.code)
                if finding.span
                else (0, 0, finding.code)
            )
            if key not in seen:
                seen.add(key)
                yield finding


def _structured_causes(data: dict[str, Any], arg_lists: list[ArgList]) -> frozenset[Cause]:
    """What the recipe's own argument lists are refused for, read as the guide's commands are:
    a guide command passing the same option for the same cause repeats the structured rule's
    finding (RL358, RL359, RL350), which names the place to fix."""
    package = "vllm-omni" if is_omni(data) else "vllm"
    found: set[Cause] = set()
    for arg_list in arg_lists:
        judge = _judge(_list_release(data, arg_list.pointer), package)
        for unit in arg_list.units:
            for text, after in _unit_spellings(unit.flag, unit.value):
                _used, verdicts = judge.reading(text, after, False)
                found.update(v.cause for v in verdicts if v.cause is not None)
    return frozenset(found)


def _list_release(data: dict[str, Any], pointer: tuple[str | int, ...]) -> str:
    """The release an argument list is judged from: a variant's own minimum when it raises
    the recipe's (as the RL35x rules judge it), else the recipe's, else the newest."""
    base = _release(as_dict(data.get("model")).get("min_vllm_version"))
    if len(pointer) >= 2 and pointer[0] == "variants":
        variant = as_dict(as_dict(data.get("variants")).get(str(pointer[1])))
        own = _release(variant.get("min_vllm_version"))
        if own is not None and (base is None or version_key(own) > version_key(base)):
            return own
    return base or available_versions()[-1]


def _unit_spellings(flag: str, value: Any) -> Iterator[tuple[str, str | None]]:
    """An option of an argument list as guide words: the option and its value, and each JSON
    sub-key of a JSON value in its dotted form (`--attention-config.use_fp4_indexer_cache`)."""
    if not isinstance(flag, str):
        return
    text = value if isinstance(value, str) else None
    yield flag, text
    keys = value if isinstance(value, dict) else _json_object(text)
    for path in _key_paths(keys):
        yield f"{flag}.{'.'.join(path)}", None


def _json_object(text: str | None) -> dict[str, Any] | None:
    if text is None or not text.lstrip().startswith("{"):
        return None
    try:
        parsed = json.loads(text)
    except ValueError:
        return None
    return parsed if isinstance(parsed, dict) else None


def _key_paths(value: Any, prefix: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    for key, item in (value or {}).items() if isinstance(value, dict) else ():
        path = (*prefix, str(key))
        yield path
        yield from _key_paths(item, path)
