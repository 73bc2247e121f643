"""Rules that share one reading of the data report the same whichever of them are selected.

The layer rules (RL340/RL341) and the backend rules (RL370-RL373) read one plan of each
recipe's commands; the guide rules (RL601-RL606) read each guide once. Selecting only some
of them must neither drop nor change the findings of the others.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from recipelint.check import engine
from recipelint.configuration.config import Config
from recipelint.diagnostics import Diagnostic
from recipelint.read.tree import load_tree
from recipelint.rules import guide, guide_shell

SHARED_READINGS = (
    ("RL340", "RL341", "RL370", "RL371", "RL372", "RL373"),
    ("RL601", "RL602", "RL603", "RL604", "RL605", "RL606"),
)


def _shown(found: list[Diagnostic], codes: set[str]) -> list[tuple[str, str, int, int, str]]:
    return sorted(
        (d.code, str(d.path), d.span.line, d.span.column, d.message)
        for d in found
        if d.code in codes
    )


@pytest.mark.parametrize("which", ["corpus_tree", "edge_tree", "embedded_tree"])
@pytest.mark.parametrize("codes", SHARED_READINGS)
def test_each_rule_of_a_shared_reading_reports_alone_what_it_reports_with_the_others(
    which: str, codes: tuple[str, ...], request: pytest.FixtureRequest
) -> None:
    tree = load_tree(request.getfixturevalue(which))
    together = _shown(engine.run_checks(tree, Config(select=codes)), set(codes))
    alone = [
        finding
        for code in codes
        for finding in _shown(engine.run_checks(tree, Config(select=(code,))), {code})
    ]
    assert sorted(alone) == together


def test_a_guide_is_read_once_and_not_kept_past_a_few_recent_ones(embedded_tree: Path) -> None:
    tree = load_tree(embedded_tree)
    guided = [doc for doc in tree.recipes if doc.usable and guide.guide_text(doc)]
    guide._recent_facts.cache_clear()
    engine.run_checks(tree)
    info = guide._recent_facts.cache_info()
    assert guided and info.hits + info.misses == len(guided)
    assert info.currsize <= 8


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
