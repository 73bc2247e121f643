"""Filesystem confinement: links out of the tree are reported and never followed; link loops end.

A pull request can add symbolic links. Following one would publish or quote a
file from elsewhere on the CI machine (a secret, /etc/passwd), and links back
into the tree could make the walk loop forever.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from catalog_harness import CONTEXT, build_context

from recipelint.check.engine import run_checks
from recipelint.compile.compiler import compile_tree
from recipelint.read.tree import load_tree

pytestmark = pytest.mark.skipif(
    not (CONTEXT / "taxonomy.yaml").is_file(), reason="recipes/ context tree missing"
)

SECRET = "SECRET-TOKEN-5f1d"
# Valid YAML with a syntax error further down: if it were read, the secret would be
# quoted in the data, in the compiled JSON and in the text report's source excerpt.
SECRET_YAML = f"meta:\n  title: {SECRET}\nname: {SECRET}\nhardware_profiles: {{}}\nbroken: [\n"
COMPANION = "models/Qwen/Qwen2.5-7B-Instruct.yaml"


@pytest.fixture
def layout(tmp_path: Path) -> tuple[Path, Path]:
    """(tree root, a folder outside it holding secret.yaml and a recipe folder)."""
    (tmp_path / "tree").mkdir()
    root = build_context(tmp_path / "tree")
    companion = root / COMPANION
    companion.parent.mkdir(parents=True, exist_ok=True)
    companion.write_bytes((CONTEXT / COMPANION).read_bytes())
    outside = tmp_path / "outside"
    (outside / "org").mkdir(parents=True)
    (outside / "secret.yaml").write_text(SECRET_YAML, encoding="utf-8")
    (outside / "org" / "model.yaml").write_text(SECRET_YAML, encoding="utf-8")
    (outside / "strategies").mkdir()
    (outside / "strategies" / "s.yaml").write_text(SECRET_YAML, encoding="utf-8")
    return root, outside


def link(at: Path, target: Path) -> Path:
    at.parent.mkdir(parents=True, exist_ok=True)
    if at.exists() or at.is_symlink():
        if at.is_dir() and not at.is_symlink():
            import shutil

            shutil.rmtree(at)
        else:
            at.unlink()
    at.symlink_to(target)
    return at


def assert_refused(root: Path, link_path: Path) -> None:
    """RL012 names the link; nothing of the target is loaded, checked, quoted or compiled."""
    tree = load_tree(root)
    refused = [p for p in tree.problems if p.code == "RL012"]
    assert [p.path for p in refused] == [link_path]
    for doc in tree.documents():
        assert SECRET not in doc.text, f"{doc.rel} was read through the link"
    diagnostics = run_checks(tree)
    assert all(SECRET not in d.message and SECRET not in (d.hint or "") for d in diagnostics)
    result = compile_tree(root)
    assert all(SECRET.encode() not in blob for _, blob in result.files.items())


CASES = {
    "recipe-file": ("models/acme/leak.yaml", "secret.yaml"),
    "recipe-folder": ("models/evil", "org"),
    "nested-recipe-folder": ("models/acme/deeper/evil", "org"),
    "strategy-file": ("strategies/leak.yaml", "secret.yaml"),
    "kv-store-file": ("kv_store/leak.yaml", "secret.yaml"),
    "platforms": ("platforms.yaml", "secret.yaml"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_link_out_of_the_tree_is_reported_and_not_followed(
    layout: tuple[Path, Path], case: str
) -> None:
    root, outside = layout
    where, target = CASES[case]
    assert_refused(root, link(root / where, outside / target))


@pytest.mark.parametrize("folder", ["models", "strategies", "kv_store"])
def test_top_level_folder_that_is_a_link_out_is_refused(
    layout: tuple[Path, Path], folder: str
) -> None:
    root, outside = layout
    target = outside / ("strategies" if folder != "models" else "")
    assert_refused(root, link(root / folder, target))


def test_taxonomy_link_out_is_refused(layout: tuple[Path, Path]) -> None:
    root, outside = layout
    taxonomy = link(root / "taxonomy.yaml", outside / "secret.yaml")
    tree = load_tree(root)
    assert {(p.code, p.path) for p in tree.problems} >= {("RL012", taxonomy), ("RL013", taxonomy)}
    assert tree.taxonomy is None
    assert all(SECRET not in doc.text for doc in tree.documents())


def test_relative_link_that_climbs_out_is_refused(layout: tuple[Path, Path]) -> None:
    root, _ = layout
    sneaky = link(root / "models/acme/up.yaml", Path("../../../outside/secret.yaml"))
    assert sneaky.resolve().is_file()
    assert_refused(root, sneaky)


def test_link_inside_the_tree_is_followed(layout: tuple[Path, Path]) -> None:
    root, _ = layout
    link(root / "models/mirror/copy.yaml", Path("../Qwen/Qwen2.5-7B-Instruct.yaml"))
    tree = load_tree(root)
    assert not [p for p in tree.problems if p.code in ("RL012", "RL017")]
    assert {doc.rel for doc in tree.recipes} == {COMPANION, "models/mirror/copy.yaml"}


def test_link_loops_end_and_are_reported(layout: tuple[Path, Path]) -> None:
    """Two links to a parent folder made the walk exponential (a hang) before RL017."""
    root, _ = layout
    for name in ("a", "b", "c"):
        link(root / "models/Qwen" / name, Path(".."))
    link(root / "models/self", Path("."))
    command = [
        sys.executable,
        "-c",
        "from recipelint.cli import run; run()",
        "check",
        str(root),
        "--format",
        "json",
    ]
    result = subprocess.run(command, capture_output=True, text=True, timeout=120, cwd=root)
    assert "Traceback" not in result.stderr
    findings = json.loads(result.stdout)
    loops = sorted(Path(f["path"]).name for f in findings if f["code"] == "RL017")
    assert loops == ["a", "b", "c", "self"]
    assert load_tree(root).recipes and [d.rel for d in load_tree(root).recipes] == [COMPANION]


def test_check_output_never_quotes_a_linked_file(layout: tuple[Path, Path]) -> None:
    root, outside = layout
    link(root / "models/acme/leak.yaml", outside / "secret.yaml")
    for fmt in ("text", "json", "github", "sarif"):
        command = [
            sys.executable,
            "-c",
            "from recipelint.cli import run; run()",
            "check",
            str(root),
            "--format",
            fmt,
        ]
        result = subprocess.run(
            command,
            capture_output=True,
            text=True,
            timeout=120,
            cwd=root,
            env={**os.environ, "NO_COLOR": "1"},
        )
        assert result.returncode == 1, result.stderr
        assert "RL012" in result.stdout
        assert SECRET not in result.stdout + result.stderr


HOSTILE_NAMES = [b"\x1b[2Jclear.yaml", b"line\n::error file=x::forged.yaml", b"bell\x07.yaml"]
NOT_UTF8 = b"bad\x80name.yaml"


def test_unsafe_file_names_are_refused_or_escaped_and_every_report_stays_valid(
    layout: tuple[Path, Path],
) -> None:
    """A name that is not UTF-8 is RL019 and unread; names with controls are read, but no report
    lets them drive a terminal or forge a line, every report is valid UTF-8, and none is compiled."""
    root, _ = layout
    seed = (root / COMPANION).read_bytes()
    folder = os.fsencode(root / "models" / "acme")
    os.makedirs(folder)
    for name in [NOT_UTF8, *HOSTILE_NAMES]:
        with open(os.path.join(folder, name), "wb") as handle:
            handle.write(seed)
    tree = load_tree(root)
    assert [os.fsencode(p.path.name) for p in tree.problems if p.code == "RL019"] == [NOT_UTF8]
    assert NOT_UTF8 not in [os.fsencode(Path(d.rel).name) for d in tree.recipes]
    outputs = {}
    for fmt in ("text", "json", "github", "sarif"):
        command = [
            sys.executable,
            "-c",
            "from recipelint.cli import run; run()",
            "check",
            str(root),
            "--format",
            fmt,
        ]
        result = subprocess.run(command, capture_output=True, timeout=120, cwd=root)
        assert result.returncode == 1, result.stderr
        outputs[fmt] = result.stdout.decode("utf-8")  # strict: raises on invalid UTF-8
    records = json.loads(outputs["json"])
    assert len(records) == len(json.loads(outputs["sarif"])["runs"][0]["results"])
    assert any("line\n::error file=x::forged" in r["path"] for r in records)  # JSON stays faithful
    assert "\x1b" not in outputs["text"] + outputs["github"] and "\x07" not in outputs["text"]
    assert not any(line.startswith("::") for line in outputs["text"].split("\n"))
    github = outputs["github"].split("\n")[:-1]
    assert len(github) == len(records) and not any(
        line.startswith("::error file=x") for line in github
    )
    assert not [p for p in compile_tree(root).files.paths() if p.startswith("acme/")]


@pytest.mark.parametrize("linked", ["file", "folder"])
def test_quickstart_links_out_of_the_tree_are_not_published(
    layout: tuple[Path, Path], linked: str
) -> None:
    """The compiler reads quickstart/ itself; it used to follow links there into the API."""
    root, outside = layout
    (outside / "quick").mkdir()
    (outside / "quick" / "leak.yaml").write_text(
        f"hardware_profile: h100\nsecret: {SECRET}\n", encoding="utf-8"
    )
    if linked == "file":
        (root / "quickstart").mkdir()
        where = link(root / "quickstart" / "leak.yaml", outside / "quick" / "leak.yaml")
    else:
        where = link(root / "quickstart", outside / "quick")
    result = compile_tree(root)
    assert ("RL012", where) in {(d.code, d.path) for d in result.diagnostics}
    assert all(SECRET.encode() not in blob for _, blob in result.files.items())
    assert not [p for p in result.files.paths() if p.startswith("quickstart/")]
