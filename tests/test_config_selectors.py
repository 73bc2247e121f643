"""Rule selectors: a code or prefix that names no rule is an error, never a check that runs nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
from catalog_harness import build_context

from recipelint.cli import main
from recipelint.configuration.config import load_config
from recipelint.configuration.selectors import parse_code_selectors
from recipelint.read.configfile import ConfigError


def test_comma_lists_are_split_trimmed_and_upper_cased() -> None:
    assert parse_code_selectors(["RL1,RL5"]) == ("RL1", "RL5")
    assert parse_code_selectors([" rl101 , RL2 ", "rl6"]) == ("RL101", "RL2", "RL6")
    assert parse_code_selectors(["RL1,", "RL1"]) == ("RL1",)  # empty parts and repeats dropped
    assert parse_code_selectors([]) == ()


def test_all_means_every_rule() -> None:
    assert parse_code_selectors(["ALL"]) == ("RL",)
    assert parse_code_selectors(["all,RL1"]) == ("RL", "RL1")


@pytest.mark.parametrize(
    ("written", "suggestion"),
    [
        ("RL1O1", "RL101"),  # a letter O for a zero
        ("R101", "RL101"),  # a dropped letter
        ("101", "RL101"),  # no family letters
        ("unknown-key", "RL101"),  # the rule's name instead of its code
        ("RL1011", "RL101"),  # one digit too many
    ],
)
def test_a_typo_raises_with_the_code_it_probably_meant(written: str, suggestion: str) -> None:
    with pytest.raises(ValueError, match=f"did you mean '{suggestion}'") as caught:
        parse_code_selectors([f"RL2,{written}"])
    assert f"'{written}' matches no rule" in str(caught.value)


@pytest.mark.parametrize("written", ["foo", "RL9", "E501", "RL1;RL5"])
def test_anything_that_matches_no_rule_raises(written: str) -> None:
    with pytest.raises(ValueError, match="matches no rule"):
        parse_code_selectors([written])


def test_only_separators_is_no_selection() -> None:
    with pytest.raises(ValueError, match="no rule code given"):
        parse_code_selectors([" , "])


def _tree(tmp_path: Path, config: str) -> Path:
    build_context(tmp_path)
    (tmp_path / ".recipelint.toml").write_text(config, encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize(
    ("config", "line", "fragment"),
    [
        ('select = ["RL1O1"]\n', 1, "'select': 'RL1O1' matches no rule"),
        ('# codes\nignore = ["RL6", "foo"]\n', 2, "'ignore': 'foo' matches no rule"),
        (
            '[per-file-ignores]\n"models/legacy/*.yaml" = ["RL4", "RL44"]\n',
            2,
            "'RL44' matches no rule",
        ),
        ('[severity]\nRL30 = "warning"\n', 2, "'severity': 'RL30' is not a rule code"),
        ('selct = ["RL1"]\n', 1, "unknown recipelint setting(s): selct (did you mean 'select'?)"),
    ],
)
def test_config_errors_are_rl016_at_the_line(
    tmp_path: Path, config: str, line: int, fragment: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        load_config(_tree(tmp_path, config))
    diag = caught.value.diagnostic
    assert (diag.code, diag.path.name, diag.span.line) == ("RL016", ".recipelint.toml", line)
    assert fragment in diag.message


def test_valid_selectors_configure_the_check(tmp_path: Path) -> None:
    config = load_config(_tree(tmp_path, 'select = ["RL1,RL2", "all"]\nignore = ["rl6"]\n'))
    assert config.select == ("RL1", "RL2", "RL") and config.ignore == ("RL6",)
    assert config.is_enabled("RL101") and not config.is_enabled("RL601")


def test_a_mistyped_config_selector_fails_the_check(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _tree(tmp_path, 'select = ["RL1,RL5", "RL1O1"]\n')
    assert main(["check", str(root)]) == 1
    out = capsys.readouterr().out
    assert ".recipelint.toml:1:" in out and "RL016" in out and "did you mean 'RL101'" in out
