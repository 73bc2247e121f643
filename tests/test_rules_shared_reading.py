"""Rules that share one reading of the data report the same whichever of them are selected.

The layer rules (RL340/RL341) and the backend rules (RL370-RL373) read one plan of each
recipe's commands; the guide rules (RL601-RL606) read each guide once. Selecting only some
of them must neither drop nor change the findings of the others.
"""

from __future__ import annotations

from pathlib import Path

from recipelint.check import engine
from recipelint.read.tree import load_tree
from recipelint.rules import guide, guide_shell


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
