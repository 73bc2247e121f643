"""One hostile file through every stage a pull-request run of recipelint executes.

Shared by the hypothesis suite (tests/test_fuzz_*.py) and the coverage-guided
atheris harness (fuzz/atheris_load.py), so both enforce the same invariant:

* loading, checking and the in-memory compile never raise for any input bytes;
* every diagnostic is well formed (an RLnnn code, a position, a message);
* every output format stays parseable and un-injectable whatever the content;
* every compiled output path stays inside the output folder and serialises.
"""

from __future__ import annotations

import json
import re
import shutil
from dataclasses import dataclass, replace
from pathlib import Path

from recipelint.check.engine import run_checks
from recipelint.configuration.config import Config
from recipelint.diagnostics import Diagnostic
from recipelint.read.load import Document, load_document
from recipelint.read.tree import RecipeTree, load_tree
from recipelint.report.formats import format_github, format_json, format_sarif, format_text

PROJECT_ROOT = Path(__file__).resolve().parent.parent
EMBEDDED_TREE = PROJECT_ROOT / "recipes"
CODE = re.compile(r"RL\d{3}")
# Our own colouring is the only escape sequence the text format may print.
OWN_COLOURS = re.compile(r"\x1b\[(?:3[136]|0)m")


@dataclass(frozen=True)
class Slot:
    kind: str
    rel: str


# Where fuzz input lands in the tree. Atheris picks one with the input's first byte.
SLOTS: tuple[Slot, ...] = (
    Slot("recipe", "models/acme/fuzz-model.yaml"),
    Slot("strategy", "strategies/fuzz_strategy.yaml"),
    Slot("kv_store", "kv_store/fuzz_kv.yaml"),
    Slot("taxonomy", "taxonomy.yaml"),
    Slot("platforms", "platforms.yaml"),
)
RECIPE_SLOT = SLOTS[0]
# A small real recipe stays in the tree when the fuzzed file is a shared input,
# so that a mutated taxonomy or strategy still goes through rendering.
COMPANION_RECIPE = "models/Qwen/Qwen2.5-7B-Instruct.yaml"


class InvariantViolation(AssertionError):
    """The input broke a promise recipelint makes about hostile recipes."""


def seed_files(tree: Path = EMBEDDED_TREE) -> list[tuple[Slot, Path]]:
    """Every embedded tree file with the slot it belongs in (the fuzz seeds)."""
    seeds = [(SLOTS[3], tree / "taxonomy.yaml"), (SLOTS[4], tree / "platforms.yaml")]
    seeds += [(SLOTS[1], p) for p in sorted((tree / "strategies").glob("*.yaml"))]
    seeds += [(SLOTS[2], p) for p in sorted((tree / "kv_store").glob("*.yaml"))]
    seeds += [(RECIPE_SLOT, p) for p in sorted((tree / "models").rglob("*.yaml"))]
    return [(slot, path) for slot, path in seeds if path.is_file()]


class FuzzTree:
    """A private copy of the embedded tree whose one slot is replaced by the fuzz input."""

    def __init__(self, workdir: Path, config: Config | None = None):
        self.root = workdir / "tree"
        # Always a fresh copy: a fuzzed taxonomy.yaml is written over the copy's own.
        shutil.rmtree(self.root, ignore_errors=True)
        shutil.copytree(EMBEDDED_TREE, self.root)
        self.config = config or Config()
        self.base = load_tree(self.root, self.config.limits)
        self.companion = next(d for d in self.base.recipes if d.rel == COMPANION_RECIPE)

    def tree_with(self, data: bytes, slot: Slot) -> tuple[RecipeTree, Document]:
        path = self.root / slot.rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        doc = load_document(path, slot.rel, slot.kind, self.config.limits)
        base = self.base
        if slot.kind == "recipe":
            return replace(base, recipes=[doc], problems=[]), doc
        shared = replace(base, recipes=[self.companion], problems=[])
        if slot.kind == "strategy":
            shared.strategies = [*base.strategies, doc]
        elif slot.kind == "kv_store":
            shared.kv_stores = [*base.kv_stores, doc]
        elif slot.kind == "taxonomy":
            shared.taxonomy = doc
        else:
            shared.platforms = doc
        return shared, doc


def _fail(message: str) -> InvariantViolation:
    return InvariantViolation(message)


def check_diagnostic(diag: Diagnostic) -> None:
    if not CODE.fullmatch(diag.code):
        raise _fail(f"malformed rule code {diag.code!r}")
    if diag.span.line < 1 or diag.span.column < 1:
        raise _fail(f"{diag.code} has no position: {diag.span}")
    if not isinstance(diag.message, str) or not diag.message:
        raise _fail(f"{diag.code} has no message")


def check_reports(diagnostics: list[Diagnostic], sources: dict[Path, str]) -> None:
    """Every format is parseable and recipe text cannot escape into commands or escapes."""
    records = json.loads(format_json(diagnostics))
    if len(records) != len(diagnostics):
        raise _fail("the JSON report lost or invented findings")
    sarif = json.loads(format_sarif(diagnostics))
    if len(sarif["runs"][0]["results"]) != len(diagnostics):
        raise _fail("the SARIF report lost or invented findings")
    github = format_github(diagnostics).splitlines()
    if len(github) != len(diagnostics) or not all(line.startswith("::") for line in github):
        raise _fail("recipe text started or split a GitHub workflow command")
    text = format_text(diagnostics, sources, color=True)
    leftover = OWN_COLOURS.sub("", text)
    if re.search(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]", leftover):
        raise _fail("a control character reached the terminal output")


def check_compile(tree: RecipeTree) -> None:
    from recipelint.compile.compiler import Compiler

    result = Compiler(tree).run()
    for diag in result.diagnostics:
        check_diagnostic(diag)
    for rel, blob in result.files.items():
        parts = rel.split("/")
        if (
            rel.startswith("/")
            or "\\" in rel
            or "\x00" in rel
            or any(p in ("", "..", ".") for p in parts)
        ):
            raise _fail(f"compiled output path {rel!r} could leave the output folder")
        json.loads(blob)


def exercise(
    fuzz: FuzzTree, data: bytes, slot: Slot = RECIPE_SLOT, compile_too: bool = True
) -> list[Diagnostic]:
    """Run one input through load, check, report and compile; raise only on a broken promise."""
    tree, doc = fuzz.tree_with(data, slot)
    if not doc.usable and not doc.problems:
        raise _fail("an unusable document came without a diagnostic")
    diagnostics = run_checks(tree, fuzz.config)
    for diag in diagnostics:
        check_diagnostic(diag)
    check_reports(diagnostics, {d.path: d.text for d in tree.documents()})
    if compile_too:
        check_compile(tree)
    return diagnostics
