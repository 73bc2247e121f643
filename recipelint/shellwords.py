"""The words of a shell command line as `shlex.split(text, comments=True)` reads them.

Guide rules split every shell line of every guide (and `diff` every displayed command);
shlex does it one character at a time through a stream, the largest single cost of a
check's guide rules. This reads the same POSIX grammar a run of characters at a time:
blanks (space, tab, CR, LF) separate words; `'...'` is literal; inside `"..."` a
backslash escapes only `"` and itself; outside quotes a backslash takes the next
character as it is; an unquoted `#` ends the word and the rest of its line. Errors are
shlex's: ValueError for an unclosed quote or a trailing backslash. A property test holds
it to shlex on generated text.
"""

from __future__ import annotations

import re

_BLANKS = re.compile(r"[ \t\r\n]*")
_PLAIN = re.compile(r"[^ \t\r\n'\"\\#]+")
_SINGLE = re.compile(r"'([^']*)'")
_DOUBLE = re.compile(r'"((?:[^"\\]|\\[\s\S])*)"')
_DOUBLE_ESCAPE = re.compile(r'\\([\\"])')
_DOUBLE_ENDS_ESCAPING = re.compile(r'"(?:[^"\\]|\\[\s\S])*\\\Z')
_WORD_ENDS = frozenset(" \t\r\n")
_SPECIAL = re.compile(r"['\"\\#]")
_UNQUOTED_WORDS = re.compile(r"[^ \t\r\n]+")
# A word of plain characters alone, up to a blank or the end of the text.
_PLAIN_WORD = re.compile(r"[^ \t\r\n'\"\\#]+(?=[ \t\r\n]|\Z)")


def split(text: str) -> list[str]:
    """The words of ``text``; ValueError where shlex raises one."""
    if not _SPECIAL.search(text):
        return _UNQUOTED_WORDS.findall(text)  # no quote, escape or comment: blanks alone split
    words: list[str] = []
    at, end = 0, len(text)
    while True:
        found = _BLANKS.match(text, at)
        at = found.end() if found else at
        if at >= end:
            return words
        if text[at] == "#":
            at = _next_line(text, at)
            continue
        plain = _PLAIN_WORD.match(text, at)  # most words: no quote, escape or comment in them
        if plain is not None:
            words.append(plain[0])
            at = plain.end()
            continue
        word, at = _word(text, at)
        words.append(word)


def _next_line(text: str, at: int) -> int:
    newline = text.find("\n", at)
    return len(text) if newline < 0 else newline + 1


def _word(text: str, at: int) -> tuple[str, int]:
    """The word starting at ``at`` (not a blank, not `#`), and where reading goes on."""
    parts: list[str] = []
    end = len(text)
    while at < end:
        char = text[at]
        if char in _WORD_ENDS:
            break
        if char == "#":
            return "".join(parts), _next_line(text, at)
        if char == "\\":
            if at + 1 >= end:
                raise ValueError("No escaped character")
            parts.append(text[at + 1])
            at += 2
            continue
        pattern = _SINGLE if char == "'" else _DOUBLE if char == '"' else _PLAIN
        found = pattern.match(text, at)
        if found is None:
            raise ValueError(_unclosed(text, at))
        if char == "'":
            parts.append(found[1])
        elif char == '"':
            parts.append(_DOUBLE_ESCAPE.sub(r"\1", found[1]))
        else:
            parts.append(found[0])
        at = found.end()
    return "".join(parts), at


def _unclosed(text: str, at: int) -> str:
    """shlex's message for a quote opened at ``at`` and never closed."""
    if text[at] == '"' and _DOUBLE_ENDS_ESCAPING.match(text, at):
        return "No escaped character"
    return "No closing quotation"
