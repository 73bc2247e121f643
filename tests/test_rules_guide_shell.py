"""rules/guide_shell.py: the `vllm serve` commands of a guide, their words placed where the
guide writes them, and its shortcut (a plain line split without shlex) giving shlex's words."""

from __future__ import annotations

import shlex

from hypothesis import given
from hypothesis import strategies as st

from recipelint.rules import guide_shell
from recipelint.rules.guide_shell import _shell_words, guide_commands


def test_commands_are_found_in_shell_blocks_and_prose_spans_only() -> None:
    guide = (
        "Start with `vllm serve a/b --max-model-len 10`.\n\n```text\nvllm serve a/b --x\n```\n"
        "```console\n$ vllm serve a/b -tp 2\n```"
    )
    commands = [[t.text for t in c.args] for c in guide_commands(guide)]
    assert commands == [["a/b", "-tp", "2"], ["a/b", "--max-model-len", "10"]]


def test_a_command_places_its_words_where_the_guide_writes_them() -> None:
    text = (
        "```bash\nvllm serve org/model \\\n  --max-model-len 4096 --tensor_parallel_size 2\n```\n"
    )
    [command] = list(guide_shell.guide_commands(text))
    assert command.words == ("org/model", "--max-model-len", "4096", "--tensor_parallel_size", "2")
    assert [(t.text, t.line, t.column) for t in command.args] == [
        ("org/model", 2, 11),
        ("--max-model-len", 3, 2),
        ("4096", 3, 18),
        ("--tensor_parallel_size", 3, 23),
        ("2", 3, 46),
    ]


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
