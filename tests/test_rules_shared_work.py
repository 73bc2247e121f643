"""Work the rule families share or skip gives what the plain computation gives."""

from __future__ import annotations

import shlex

from hypothesis import given
from hypothesis import strategies as st

from recipelint.rules.guide import _shell_words

SHELL_TEXT = st.text(
    alphabet=st.sampled_from(list("ab-=./ \t\r\n\x0b\x0c\xa0'\"\\#$|;&`")), max_size=40
)


@given(SHELL_TEXT)
def test_a_guide_line_is_split_into_the_words_shlex_reads(line: str) -> None:
    try:
        expected = shlex.split(line, comments=True)
    except ValueError:
        expected = line.split()
    assert _shell_words(line) == expected
