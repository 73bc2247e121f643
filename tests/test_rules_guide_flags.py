"""rules/guide_flags.py: how a guide's command is judged against the flag catalogs of a release
and package."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from recipelint.read.load import parse_yaml
from recipelint.read.tree import load_tree
from recipelint.rules.common import guide_text
from recipelint.rules.guide import GuideFacts, _package
from recipelint.rules.guide_flags import CommandJudge, command_judge, guide_release
from recipelint.rules.guide_shell import guide_commands


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            ["vllm serve", "docker run", "vllm/vllm-openai:x", "-m", "--", "-", "\\\n", "'", '"']
            + ["`", "```bash\n", "\n", "--max-model-len", "=", "-cc.mode", "--x_y", "{", "$A", " "]
        ),
        max_size=30,
    )
)
def test_any_guide_text_is_read_without_a_traceback(parts: list[str]) -> None:
    guide = "".join(parts)
    doc = parse_yaml(json.dumps({"model": {"min_vllm_version": "0.9.0"}, "guide": guide}))
    for command in guide_commands(guide):
        for package in ("vllm", "vllm-omni"):
            [v.placed(doc) for v in CommandJudge("0.9.0", package).findings(command)]


FOLLOWING = (None, "-x", "--other", "auto", "8192", "$VAR", "org/model", "[a]")


def test_an_option_that_takes_no_word_says_the_same_whatever_follows(corpus_tree: Path) -> None:
    judged = 0
    for doc in load_tree(corpus_tree).recipes:
        guide = guide_text(doc) if doc.usable else None
        for command in GuideFacts(guide).commands if guide else ():
            judge = command_judge(guide_release(doc.data), _package(doc, command))
            for word in command.words:
                if judge.reads_next_word(word):
                    continue
                readings = {
                    judge.reading(word, after, via) for after in FOLLOWING for via in (False, True)
                }
                assert len({r for r in readings if r[0]}) == 0, word
                assert len(readings) <= 2, word  # one per via_image at most
                assert {judge.reading(word, None, via) for via in (False, True)} == readings, word
                judged += 1
    assert judged
