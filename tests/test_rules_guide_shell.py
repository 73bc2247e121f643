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


def _commands(guide: str) -> list[tuple[tuple[str, ...], tuple[int, ...], bool, str | None]]:
    """Each command's words, the guide lines it is written on, and the image running it."""
    return [
        (c.words, tuple(n for n, _ in c.lines), c.via_image, c.image) for c in guide_commands(guide)
    ]


def test_a_server_image_s_arguments_are_the_words_after_the_image() -> None:
    guide = (
        "```bash\ndocker pull vllm/vllm-openai:latest --bogus\n"
        "docker run --gpus all -v vllm/vllm-openai-models:/models vllm/vllm-openai:v0.10.0"
        " acme/demo --max-num-seqs 8 | tee log\n```\n"
    )
    assert _commands(guide) == [
        (("acme/demo", "--max-num-seqs", "8"), (3,), True, "vllm/vllm-openai:v0.10.0")
    ]


def test_serve_commands_run_by_no_image_name_none() -> None:
    guide = (
        "Then run `vllm serve acme/demo --max-num-seqs 8`.\n\n"
        "```bash\n/opt/venv/bin/vllm serve acme/demo -tp 2 > log.txt\n```\n"
    )
    assert _commands(guide) == [
        (("acme/demo", "-tp", "2"), (4,), False, None),
        (("acme/demo", "--max-num-seqs", "8"), (1,), False, None),
    ]
    prose = [command for command in guide_commands(guide) if command.lines[0][0] == 1]
    assert [(t.text, t.line, t.column) for t in prose[0].args] == [
        ("acme/demo", 1, 21),
        ("--max-num-seqs", 1, 31),
        ("8", 1, 46),
    ]


def test_a_continuation_to_the_end_of_the_block_stays_on_the_block_s_lines() -> None:
    guide = "```bash\nvllm serve org/model \\\n--max-model-len 4096 \\\n```\n"
    [command] = list(guide_commands(guide))
    assert command.lines == ((2, "vllm serve org/model \\"), (3, "--max-model-len 4096 \\"))
    assert [(t.text, t.line, t.column) for t in command.args] == [
        ("org/model", 2, 11),
        ("--max-model-len", 3, 0),
        ("4096", 3, 16),
    ]


def test_a_quote_left_open_goes_on_to_the_next_lines() -> None:
    guide = (
        "```bash\nvllm serve acme/demo --chat-template '{{\n  messages }}' --max-num-seqs 8\n"
        "vllm serve acme/demo --served-model-name 'demo' --chat-template 'a\n  b' -tp 2\n"
        'vllm serve acme/demo --served-model-name "demo" --override-generation-config "{\n'
        '  }" --max-num-seqs 4\n'
        "vllm serve acme/demo --served-model-name \"demo's\" --chat-template '{{\n"
        "  messages }}' --max-model-len 8\n"
        "vllm serve acme/demo --chat-template 'never\nclosed --x\n```\n"
    )
    assert _commands(guide) == [
        (
            ("acme/demo", "--chat-template", "{{\n  messages }}", "--max-num-seqs", "8"),
            (2, 3),
            False,
            None,
        ),
        (
            ("acme/demo", "--served-model-name", "demo", "--chat-template", "a\n  b", "-tp", "2"),
            (4, 5),
            False,
            None,
        ),
        (
            ("acme/demo", "--served-model-name", "demo")
            + ("--override-generation-config", "{\n  }", "--max-num-seqs", "4"),
            (6, 7),
            False,
            None,
        ),
        (
            ("acme/demo", "--served-model-name", "demo's")
            + ("--chat-template", "{{\n  messages }}", "--max-model-len", "8"),
            (8, 9),
            False,
            None,
        ),
        (("acme/demo", "--chat-template", "'never", "closed", "--x"), (10, 11), False, None),
    ]


def test_a_word_not_written_as_is_is_placed_nowhere_and_the_next_after_it() -> None:
    guide = "```bash\nvllm serve demo --max-num-seqs 8 --name a\\ b --max-num-seqs 8\n```\n"
    [command] = list(guide_commands(guide))
    assert [(t.text, t.line, t.column) for t in command.args] == [
        ("demo", 2, 11),
        ("--max-num-seqs", 2, 16),
        ("8", 2, 31),
        ("--name", 2, 33),
        ("a b", 2, -1),
        ("--max-num-seqs", 2, 45),
        ("8", 2, 60),
    ]


def test_a_backslash_right_after_a_word_continues_the_line_without_cutting_it() -> None:
    guide = "```bash\nvllm serve acme/demo --max-num-seqs 8\\\n  -tp 2\n```\n"
    assert _commands(guide) == [
        (("acme/demo", "--max-num-seqs", "8", "-tp", "2"), (2, 3), False, None)
    ]
