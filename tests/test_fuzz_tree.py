"""Fuzzing check and compile: a hostile file anywhere in a real tree yields diagnostics only.

Each input replaces one file of a private copy of the embedded tree (a recipe, a
strategy, a kv_store spec, taxonomy.yaml or platforms.yaml) and goes through
`run_checks`, every report format and the in-memory compile (fuzz/invariant.py).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "fuzz"))

from invariant import RECIPE_SLOT, SLOTS, FuzzTree, Slot, exercise  # noqa: E402
from mutations import HOSTILE_STRINGS, fuzz_settings, mutated_files, mutated_values  # noqa: E402

# Fuzzing, hundreds of generated inputs per test: the slow step (`pytest -m slow`) runs them.
pytestmark = pytest.mark.slow

TIME_BOUND = 20.0  # seconds per input, check plus compile: a hang guard, not a speed target


@pytest.fixture(scope="module")
def fuzz_tree(tmp_path_factory: pytest.TempPathFactory) -> FuzzTree:
    return FuzzTree(tmp_path_factory.mktemp("fuzz"))


def exercise_bounded(fuzz: FuzzTree, data: bytes, slot: Slot) -> None:
    started = time.monotonic()
    exercise(fuzz, data, slot)
    assert time.monotonic() - started < TIME_BOUND, "check and compile took too long"


@fuzz_settings(120)
@given(case=mutated_files())
def test_byte_mutations_anywhere_in_the_tree(fuzz_tree: FuzzTree, case: tuple[Slot, bytes]) -> None:
    exercise_bounded(fuzz_tree, case[1], case[0])


@fuzz_settings(120)
@given(case=mutated_values())
def test_value_mutations_anywhere_in_the_tree(
    fuzz_tree: FuzzTree, case: tuple[Slot, bytes]
) -> None:
    exercise_bounded(fuzz_tree, case[1], case[0])


@fuzz_settings(40)
@given(data=st.binary(max_size=2048), slot=st.sampled_from(SLOTS))
def test_arbitrary_bytes_anywhere_in_the_tree(fuzz_tree: FuzzTree, data: bytes, slot: Slot) -> None:
    exercise_bounded(fuzz_tree, data, slot)


def test_every_hostile_string_in_every_recipe_string(fuzz_tree: FuzzTree) -> None:
    """Deterministic sweep: each hostile payload replaces every string value of a real recipe."""
    import yaml

    from recipelint.read.load import parse_yaml

    seed = (fuzz_tree.root / "models/Qwen/Qwen2.5-7B-Instruct.yaml").read_text(encoding="utf-8")
    for payload in HOSTILE_STRINGS:
        data = _replace_strings(parse_yaml(seed).data, payload)
        text = yaml.safe_dump(data, allow_unicode=True, sort_keys=False)
        exercise_bounded(fuzz_tree, text.encode("utf-8", "surrogatepass"), RECIPE_SLOT)


def _replace_strings(value: object, payload: str) -> object:
    if isinstance(value, dict):
        return {key: _replace_strings(item, payload) for key, item in value.items()}
    if isinstance(value, list):
        return [_replace_strings(item, payload) for item in value]
    return payload if isinstance(value, str) else value


@fuzz_settings(30)
@given(data=st.data())
def test_mutated_corpus_recipes(
    corpus_tree: Path, fuzz_tree: FuzzTree, data: st.DataObject
) -> None:
    """The upstream corpus as extra seeds, when it is present (RECIPELINT_SHARED, tests/conftest.py)."""
    seeds = _corpus_seeds(corpus_tree)
    slot, content = data.draw(mutated_files(seeds))
    exercise_bounded(fuzz_tree, content, slot)


_CORPUS: list[tuple[Slot, bytes]] = []


def _corpus_seeds(tree: Path) -> list[tuple[Slot, bytes]]:
    if not _CORPUS:
        from invariant import seed_files

        _CORPUS.extend((slot, path.read_bytes()) for slot, path in seed_files(tree))
    return _CORPUS


LONG = 100_000
LONG_VALUES = {
    "letters": "a" * LONG,
    "brackets": "[" * LONG,
    "objects": '{"a":' * (LONG // 5),
    "backticks": "`" * LONG,
    "pipes": "|" * LONG,
    "dashes": "-" * LONG,
    "words": "a \n" * (LONG // 3),
    "substitutions": "$(" * (LONG // 2),
}


@pytest.mark.parametrize("name", sorted(LONG_VALUES))
def test_long_values_in_args_text_and_names_are_bounded(fuzz_tree: FuzzTree, name: str) -> None:
    """Pathological long strings where regexes and parsers look: args, free text, keys."""
    import json

    value = json.dumps(LONG_VALUES[name])
    seed = (fuzz_tree.root / "models/Qwen/Qwen2.5-7B-Instruct.yaml").read_text(encoding="utf-8")
    assert "  base_args: []\n" in seed and "  description: " in seed
    text = seed.replace(
        "  base_args: []\n", f'  base_args: ["--hf-overrides", {value}, {value}]\n', 1
    )
    text = text.replace(
        "  description: ", f"  {value}: 1\n  description: {value}\n  x_description: ", 1
    )
    exercise_bounded(fuzz_tree, text.encode(), RECIPE_SLOT)
