"""A guide's shell commands as words: the `vllm serve`, server-module and docker lines of its blocks and prose, each word with its line."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from recipelint import shellwords
from recipelint.rules.guide_markdown import (
    SERVE,
    SHELL,
    Block,
    fenced_blocks,
)


def logical_lines(code: str) -> Iterator[str]:
    """Logical shell lines: backslash continuations joined."""
    yield from re.sub(r"\\\s*\n", " ", code).splitlines()


SERVED_NAME = re.compile(r"--served-model-name(?:=|\s+)[\"']?([^\s\"']+)")


def serve_names(command: str) -> set[str]:
    match = SERVE.search(command) if "vllm" in command else None  # SERVE needs the word
    if not match:
        return set()
    return {match.group(1).strip("\"'"), *SERVED_NAME.findall(command[match.start() :])}


def logical_spans(code: str) -> Iterator[tuple[int, int, str]]:
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


def logical_line_spans(code: str) -> Spans:
    return tuple(logical_spans(code))


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


# Where a line's quote count does not tell whether a quote is left open: a backslash may
# escape a quote, and one kind of quote may stand inside the other (`"it's"`).
MISCOUNTED_QUOTES = re.compile(r"\\|'.*\"|\".*'", re.DOTALL)


def _open_quote(line: str) -> bool:
    counted = line.count("'") % 2 == 0 and line.count('"') % 2 == 0
    if counted and not MISCOUNTED_QUOTES.search(line):
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
    return guide_commands_in(guide, fenced_blocks(guide), logical_line_spans)


def guide_commands_in(
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
