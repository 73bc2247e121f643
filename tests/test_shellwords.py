"""recipelint.shellwords reads a command line as shlex.split(text, comments=True) does."""

from __future__ import annotations

import shlex
from collections.abc import Callable

from hypothesis import given
from hypothesis import strategies as st

from recipelint import shellwords

# Every character the grammar treats specially, a few it must not (vertical tab, form feed,
# no-break space are not shlex blanks), and plain ones.
SHELL_TEXT = st.text(
    alphabet=st.sampled_from(list("ab-=./ \t\r\n\x0b\x0c\xa0'\"\\#$|;&`")), max_size=60
)


def _read(read: Callable[[str], list[str]], text: str) -> list[str] | tuple[str, str]:
    try:
        return read(text)
    except ValueError as error:
        return ("ValueError", str(error))


@given(SHELL_TEXT)
def test_the_words_and_the_errors_are_shlex_s(text: str) -> None:
    assert _read(shellwords.split, text) == _read(
        lambda line: shlex.split(line, comments=True), text
    )


def test_quotes_escapes_and_comments() -> None:
    line = """vllm serve "a \\"b\\" \\\\c \\d" 'e\\f' g\\ h i#j k\n# l\nm '' --x='{"y": 1}'"""
    assert shellwords.split(line) == [
        "vllm",
        "serve",
        'a "b" \\c \\d',
        "e\\f",
        "g h",
        "i",
        "m",
        "",
        '--x={"y": 1}',
    ]
    assert shellwords.split(line) == shlex.split(line, comments=True)
