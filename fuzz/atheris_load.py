"""Coverage-guided fuzzing of the YAML -> diagnostics -> compile path with atheris.

Not collected by pytest (it lives outside tests/). Each input is one file: its
first byte picks the tree slot it replaces (recipe, strategy, kv_store, taxonomy,
platforms; see invariant.SLOTS), the rest is the file's bytes. Any exception, or
a broken invariant (invariant.InvariantViolation), is a crash that libFuzzer
saves as crash-<sha1> for replay.

    python fuzz/make_corpus.py fuzz/corpus            # seeds from the embedded tree
    python fuzz/atheris_load.py fuzz/corpus -dict=fuzz/yaml.dict \
        -max_total_time=3600 -timeout=20 -rss_limit_mb=2048
    python fuzz/atheris_load.py crash-<sha1>           # replay one input

See docs/security.md ("Fuzzing") for the long-run recipe and the last results.
"""

from __future__ import annotations

import random
import sys
import tempfile
from pathlib import Path

import atheris

sys.path.insert(0, str(Path(__file__).resolve().parent))

with atheris.instrument_imports(include=["recipelint", "invariant"]):
    from invariant import SLOTS, FuzzTree, exercise
    from structured import structured_mutation

    import recipelint.compile.compiler  # noqa: F401  (instrumented before the first input)

_FUZZ: FuzzTree | None = None


def _fuzz_tree() -> FuzzTree:
    global _FUZZ
    if _FUZZ is None:
        _FUZZ = FuzzTree(Path(tempfile.mkdtemp(prefix="recipelint-atheris-")))
    return _FUZZ


def test_one_input(data: bytes) -> None:
    if not data:
        return
    exercise(_fuzz_tree(), data[1:], SLOTS[data[0] % len(SLOTS)])


def custom_mutator(data: bytes, max_size: int, seed: int) -> bytes:
    """Half structure-aware (fuzz/structured.py), half libFuzzer's own byte mutations."""
    rng = random.Random(seed)
    if len(data) > 1 and rng.random() < 0.5:
        try:
            mutated = structured_mutation(data, rng)
        except RecursionError:  # a pathological nesting: let the byte mutator handle it
            mutated = None
        if mutated is not None and len(mutated) <= max_size:
            return mutated
    return atheris.Mutate(data, max_size)


def main() -> None:
    atheris.Setup(sys.argv, test_one_input, custom_mutator=custom_mutator)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
