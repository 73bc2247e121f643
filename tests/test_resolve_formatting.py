"""recipelint.resolve.formatting: an arg list laid out as the `vllm serve` line upstream
publishes (docs/upstream-behaviour.md#formatting): deduped last-wins, one flag and its value
per continuation line, a value quoted unless the shell reads it as is; and what it refuses."""

from __future__ import annotations

from typing import Any

import pytest

from recipelint.resolve.formatting import (
    RenderError,
    check_serve_args,
    format_command,
    serve_command,
    shell_quote,
)


@pytest.mark.parametrize(
    ("value", "quoted"),
    [
        ("cutlass", "cutlass"),  # shell-safe
        ("$HF_TOKEN", "$HF_TOKEN"),  # a bare upper-case variable is left to the shell
        ("a b", "'a b'"),
        ("it's", "'it'\\''s'"),
        ("", ""),  # nothing to quote: an empty or non-string value is returned as it is
        (7, 7),
    ],
)
def test_a_value_is_quoted_only_when_the_shell_would_not_read_it_as_is(
    value: Any, quoted: Any
) -> None:
    assert shell_quote(value) == quoted


def test_a_repeated_flag_keeps_its_last_value_in_the_last_flags_place() -> None:
    command, argv = serve_command("m", "m", ["--a", "1", "--b", "--a", "2", "pos"])
    assert command == "vllm serve m \\\n  --b \\\n  --a 2 \\\n  pos"
    assert argv == ["vllm", "serve", "m", "--b", "--a", "2", "pos"]


@pytest.mark.parametrize("args", [[], ["", ""]])
def test_no_truthy_argument_leaves_the_model_alone_on_the_line(args: list[Any]) -> None:
    assert serve_command("acme/demo", "acme/demo", args) == (
        "vllm serve acme/demo",
        ["vllm", "serve", "acme/demo"],
    )


def test_an_unhashable_token_that_the_dedupe_drops_lays_out_as_the_others() -> None:
    # the list is the first --a's value, which the second --a replaces
    assert serve_command("m", "m", ["--a", [1], "--a", "x"]) == (
        "vllm serve m \\\n  --a x",
        ["vllm", "serve", "m", "--a", "x"],
    )


@pytest.mark.parametrize("args", [[1], ["--a", 1], [True, "--a"]])
def test_a_truthy_token_that_is_no_string_is_refused(args: list[Any]) -> None:
    with pytest.raises(RenderError, match="non-string argument"):
        check_serve_args(args)
    with pytest.raises(RenderError, match="non-string argument"):
        serve_command("m", "m", args)


@pytest.mark.parametrize("args", [[], ["--a", "1"], [0, None, "--a", ""]])
def test_strings_and_falsy_tokens_are_accepted(args: list[Any]) -> None:
    check_serve_args(args)  # the dedupe drops a falsy token before the formatter sees it


def test_format_command_lays_out_the_model_alone_or_with_its_lines() -> None:
    assert format_command("acme/demo", []) == "vllm serve acme/demo"
    assert format_command("acme/demo", ["--a", "x y", "-v"]) == (
        "vllm serve acme/demo \\\n  --a 'x y' \\\n  -v"
    )
