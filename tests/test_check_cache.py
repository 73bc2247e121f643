"""The check cache (.recipelint_cache/): warm runs report what cold runs do, and an entry
that is damaged or not signed with the user's key is never trusted."""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from treehelp import python_in

from recipelint.checkcache import CACHE_FOLDER, MAX_BUNDLED, DocumentCache
from recipelint.read.load import DEFAULT_LIMITS, parse_yaml


def _check(tree: Path, *args: str, cache: bool = True) -> str:
    env = dict(os.environ)
    env.pop("RECIPELINT_NO_CACHE", None)
    env.pop("RECIPELINT_CACHE_DIR", None)
    if not cache:
        env["RECIPELINT_NO_CACHE"] = "1"
    done = python_in(tree, ["-m", "recipelint", "check", "--format", "json", "-j", "1", *args], env)
    assert done.returncode in (0, 1), done.stderr
    return done.stdout


@pytest.fixture
def tree(embedded_tree: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    copy = tmp_path / "tree"
    shutil.copytree(embedded_tree, copy)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user-cache"))
    return copy


def _entries(tree: Path) -> list[Path]:
    return [p for p in (tree / CACHE_FOLDER).iterdir() if p.name != ".gitignore"]


def test_a_warm_check_reports_what_a_cold_one_does(tree: Path) -> None:
    cold = _check(tree, cache=False)
    assert not (tree / CACHE_FOLDER).exists()
    assert _check(tree) == cold
    assert _entries(tree), "the first run fills the cache"
    assert (tree / CACHE_FOLDER / ".gitignore").read_text(encoding="utf-8").strip().endswith("*")
    assert _check(tree) == cold


def test_damaged_and_foreign_entries_are_ignored_and_rewritten(
    tree: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cold = _check(tree, cache=False)
    _check(tree)
    entries = sorted(_entries(tree))
    intact = {p: p.read_bytes() for p in entries}
    # Every entry spoilt, in turn: damaged (a byte of the body changed, so the signature no
    # longer matches), truncated, or empty. (An entry a run does not need is not read: a
    # whole rendering stage kept spares reading each recipe's plan. Spoiling them all makes
    # every one needed.)
    for index, entry in enumerate(entries):
        body = bytearray(intact[entry])
        body[-1] ^= 0xFF
        entry.write_bytes((bytes(body), intact[entry][:10], b"")[index % 3])
    assert _check(tree) == cold
    for path in entries:
        assert path.read_bytes() == intact[path], "a bad entry is rewritten"
    # Foreign: signed with another user's key, every entry is a miss and rewritten.
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "someone-else"))
    assert _check(tree) == cold
    assert all(p.read_bytes() != intact[p] for p in entries)


def test_what_is_kept_of_a_document_is_one_file(tree: Path) -> None:
    # Its parse, schema findings, rule findings and plan: a warm run opens one file per
    # document, plus the few entries about the whole tree.
    _check(tree)
    documents = [p for p in tree.rglob("*.yaml") if CACHE_FOLDER not in p.parts]
    assert len(documents) <= len(_entries(tree)) <= len(documents) + 4


def test_a_bundle_keeps_a_bounded_number_of_older_values(tmp_path: Path) -> None:
    cache = DocumentCache(tmp_path / "cache", b"k" * 32)
    raw = b"model: {}\n"
    doc = parse_yaml(raw.decode(), tmp_path / "models/a/b.yaml", "recipe", "models/a/b.yaml")
    cache.put(doc, DEFAULT_LIMITS, raw)
    for context in range(MAX_BUNDLED + 5):
        cache.keep_schema_findings(doc, str(context).encode(), [])
    cache.flush()
    reread = DocumentCache(tmp_path / "cache", b"k" * 32)
    kept = reread.get(doc.path, doc.rel, doc.kind, DEFAULT_LIMITS, raw)
    assert kept is not None
    found = [reread.schema_findings(kept, str(c).encode()) for c in range(MAX_BUNDLED + 5)]
    assert found == [None] * 5 + [[]] * MAX_BUNDLED, "the oldest values go first"


def test_no_cache_and_cache_dir(tree: Path, tmp_path: Path) -> None:
    cold = _check(tree, "--no-cache")
    assert not (tree / CACHE_FOLDER).exists()
    elsewhere = tmp_path / "elsewhere"
    assert _check(tree, "--cache-dir", str(elsewhere)) == cold
    assert not (tree / CACHE_FOLDER).exists()
    assert any(p.name != ".gitignore" for p in elsewhere.iterdir())


def test_warm_results_equal_cold_results_over_random_edits(tree: Path) -> None:
    rng = random.Random(28)
    recipes = sorted((tree / "models").rglob("*.yaml"))
    edits = [
        ("\n", "\n# a comment\n"),
        (": ", ":  "),
        ("true", "false"),
        ("-", "- "),
    ]
    for _ in range(4):
        recipe = rng.choice(recipes)
        old, new = rng.choice(edits)
        text = recipe.read_text(encoding="utf-8")
        places = [i for i in range(len(text)) if text.startswith(old, i)]
        if places:
            at = rng.choice(places)
            recipe.write_text(text[:at] + new + text[at + len(old) :], encoding="utf-8")
        named = str(recipe.relative_to(tree))
        assert _check(tree, named) == _check(tree, named, cache=False)
        assert json.loads(_check(tree)) == json.loads(_check(tree, cache=False))


def test_clean_removes_the_cache(tree: Path) -> None:
    _check(tree)
    assert (tree / CACHE_FOLDER).is_dir()
    env = {k: v for k, v in os.environ.items() if k != "RECIPELINT_CACHE_DIR"}
    done = subprocess.run(
        [sys.executable, "-m", "recipelint", "clean"],
        cwd=tree / "models",
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert not (tree / CACHE_FOLDER).exists()
    assert (tree / "models").is_dir() and (tree / "taxonomy.yaml").is_file()


def test_a_warm_check_of_one_file_does_not_load_the_schema_stage(tree: Path) -> None:
    recipe = str(next((tree / "models").rglob("*.yaml")).relative_to(tree))
    code = (
        "import sys\nfrom recipelint.cli import main\n"
        f"main(['check', '-q', '-j', '1', {recipe!r}])\n"
        "print('SCHEMA' if 'recipelint.schema.check' in sys.modules else 'NONE')"
    )
    env = {k: v for k, v in os.environ.items() if k not in ("RECIPELINT_NO_CACHE",)}

    def schema_loaded() -> str:
        done = python_in(tree, ["-c", code], env)
        return done.stdout.strip().splitlines()[-1]

    assert schema_loaded() == "SCHEMA"  # cold: every document is validated
    assert schema_loaded() == "NONE"  # warm: every schema finding comes from the cache
