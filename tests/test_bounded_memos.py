"""Memos keyed by text a recipe writes stay bounded however long the process runs.

The language server lives for a whole editing session, and every keystroke in an args
list or env map asks these functions about a new spelling: an unbounded memo would grow
without end. Each one is a least-recently-used cache of TEXT_KEYED_ENTRIES entries.
"""

from __future__ import annotations

from typing import Any

import pytest

from recipelint.cachesize import TEXT_KEYED_ENTRIES
from recipelint.compile import placevalues
from recipelint.flags import env_catalog
from recipelint.rules import typography, vllm_flags

TEXT_KEYED: list[Any] = [
    vllm_flags._serve_refusal,
    vllm_flags._spelling_refused_between,
    vllm_flags._value_refused_in,
    vllm_flags._key_verdicts,
    env_catalog.env_eras,
    typography.ascii_lookalike,
    placevalues._step,
]


@pytest.mark.parametrize("memo", TEXT_KEYED, ids=lambda memo: memo.__qualname__)
def test_a_text_keyed_memo_is_bounded(memo: Any) -> None:
    assert memo.cache_info().maxsize == TEXT_KEYED_ENTRIES


def test_many_new_spellings_never_grow_a_memo_past_its_bound() -> None:
    typography.ascii_lookalike.cache_clear()
    for code_point in range(0x4E00, 0x4E00 + TEXT_KEYED_ENTRIES + 500):
        typography.ascii_lookalike(chr(code_point))
    assert typography.ascii_lookalike.cache_info().currsize == TEXT_KEYED_ENTRIES
    env_catalog.env_eras.cache_clear()
    for number in range(TEXT_KEYED_ENTRIES + 100):
        assert env_catalog.env_eras(f"VLLM_TYPED_{number}") == ()
    assert env_catalog.env_eras.cache_info().currsize == TEXT_KEYED_ENTRIES
