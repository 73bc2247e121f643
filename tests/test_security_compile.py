"""Compile under attack and under accidents: paths stay in OUT, kills and races leave it whole.

The compiler writes a staging folder beside OUT and swaps it in with renames
(recipelint/compile/emit.py); these tests kill it at random moments and run two at
once, then require OUT to be exactly one complete compile's output.
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from catalog_harness import CONTEXT

from recipelint.cli import main

pytestmark = pytest.mark.skipif(
    not (CONTEXT / "taxonomy.yaml").is_file(), reason="recipes/ context tree missing"
)

COMPILE = [sys.executable, "-c", "from recipelint.cli import run; run()", "compile"]
TITLE_LINE = 'title: "Qwen2.5-7B-Instruct"'
RECIPE = "models/Qwen/Qwen2.5-7B-Instruct.yaml"


def embedded_copy(root: Path) -> Path:
    shutil.copytree(CONTEXT, root)
    return root


def snapshot(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def compile_process(tree: Path, out: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [*COMPILE, str(tree), "-o", str(out), "-q", "--no-provenance"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


def retitle(tree: Path, title: str) -> None:
    recipe = tree / RECIPE
    text = recipe.read_text(encoding="utf-8")
    start = text.index("title: ")
    end = text.index("\n", start)
    recipe.write_text(text[:start] + f'title: "{title}"' + text[end:], encoding="utf-8")


# ------------------------------------------------------------------ paths


def outside_entries(base: Path) -> list[str]:
    return sorted(p.name for p in base.iterdir())


@pytest.mark.parametrize("hw_id", ["../../../escape", "/abs", "a/../../b", "a\\\\b", "nul\\0x"])
def test_unsafe_hardware_id_writes_nothing_outside_out(tmp_path: Path, hw_id: str) -> None:
    """Hardware profile ids (taxonomy keys) become output folders: the compiler refuses unsafe ones."""
    tree = embedded_copy(tmp_path / "tree")
    taxonomy = tree / "taxonomy.yaml"
    text = taxonomy.read_text(encoding="utf-8")
    assert "\n  h100:" in text
    taxonomy.write_text(text.replace("\n  h100:", f'\n  "{hw_id}":', 1), encoding="utf-8")
    status = main(
        [
            "compile",
            str(tree),
            "-o",
            str(tmp_path / "out"),
            "-q",
            "--no-provenance",
            "--format",
            "json",
        ]
    )
    assert status == 1
    assert outside_entries(tmp_path) == ["tree"]  # no OUT, no staging folder, no escape.json
    assert not list(tmp_path.parent.glob("escape*"))

    from recipelint.compile.compiler import compile_tree

    result = compile_tree(tree)
    assert "RL701" in {d.code for d in result.diagnostics}
    assert all(
        ".." not in p.split("/") and "\\" not in p and not p.startswith("/")
        for p in result.files.paths()
    )


@pytest.mark.parametrize("name", ["../../escape", "a/b", "/abs", ".."])
def test_unsafe_strategy_name_writes_nothing_outside_out(tmp_path: Path, name: str) -> None:
    tree = embedded_copy(tmp_path / "tree")
    (tree / "strategies" / "evil.yaml").write_text(
        f'name: "{name}"\ndeploy_type: single_node\n', encoding="utf-8"
    )
    status = main(["compile", str(tree), "-o", str(tmp_path / "out"), "-q", "--no-provenance"])
    assert status == 1
    assert outside_entries(tmp_path) == ["tree"]


def test_unsafe_folder_names_give_unsafe_hf_ids(tmp_path: Path) -> None:
    """A backslash or a control character in a folder name is refused as part of the hf id."""
    tree = embedded_copy(tmp_path / "tree")
    seed = (tree / RECIPE).read_text(encoding="utf-8")
    for folder in ("a\\..\\..", "tab\there"):
        target = tree / "models" / folder / "m.yaml"
        target.parent.mkdir(parents=True)
        target.write_text(seed, encoding="utf-8")
    from recipelint.compile.compiler import compile_tree

    result = compile_tree(tree)
    refused = sorted(d.path.parent.name for d in result.diagnostics if d.code == "RL701")
    assert refused == ["a\\..\\..", "tab\there"]
    assert not [p for p in result.files.paths() if p.startswith(("a\\", "tab"))]


# ------------------------------------------------------------------ interruption


def test_killed_compile_leaves_previous_output_complete(tmp_path: Path) -> None:
    """SIGKILL at random moments (seeded): OUT is the previous output or the new one, whole."""
    from recipelint.compile.compiler import compile_tree

    tree = embedded_copy(tmp_path / "tree")
    out = tmp_path / "out"
    started = time.monotonic()
    assert compile_process(tree, out).wait(timeout=120) == 0
    full_run = time.monotonic() - started
    previous = snapshot(out)
    assert previous == dict(compile_tree(tree).files.items())
    chooser = random.Random(9)
    outcomes = []
    for round_number in range(6):
        retitle(tree, f"Round {round_number}")
        new = dict(compile_tree(tree).files.items())
        process = compile_process(tree, out)
        time.sleep(chooser.uniform(0.3, 1.1) * full_run)
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=120)
        current = snapshot(out)
        assert current in (previous, new), (
            f"round {round_number}: OUT is neither the old nor the new output"
        )
        outcomes.append("new" if current == new else "old")
        previous = current
    assert (
        compile_process(tree, out).wait(timeout=120) == 0
    )  # leftovers never block the next compile
    assert snapshot(out) == new


# Runs a compile that SIGKILLs itself just before or just after its Nth filesystem step
# of the output swap: deterministic coverage of every point a random kill can only hit by luck.
KILL_AT_STEP = """
import os, shutil, signal, sys
import recipelint.compile.emit as emit

target, when = int(sys.argv[1]), sys.argv[2]
count = [0]

def killing(function):
    def step(*args, **kwargs):
        count[0] += 1
        if count[0] == target and when == "before":
            os.kill(os.getpid(), signal.SIGKILL)
        result = function(*args, **kwargs)
        if count[0] == target and when == "after":
            os.kill(os.getpid(), signal.SIGKILL)
        return result
    return step

real_replace = emit.replace_folder
def replace_folder(files, out, *rest, **options):
    files = list(files)  # the writes themselves are covered by the random kills
    emit.os.rename = killing(os.rename)
    emit._exchange = killing(emit._exchange)
    if hasattr(emit, "remove_folder"):
        emit.remove_folder = killing(emit.remove_folder)
    emit.shutil.rmtree = killing(shutil.rmtree)
    return real_replace(files, out, *rest, **options)
emit.replace_folder = replace_folder

from recipelint.cli import main
sys.exit(main(["compile", sys.argv[3], "-o", sys.argv[4], "-q", "--no-provenance"]))
"""


@pytest.mark.slow
def test_kill_at_every_step_of_the_swap_leaves_a_complete_output(tmp_path: Path) -> None:
    from recipelint.compile.compiler import compile_tree

    tree = embedded_copy(tmp_path / "tree")
    out = tmp_path / "out"
    assert compile_process(tree, out).wait(timeout=120) == 0
    previous = snapshot(out)
    for step in range(1, 12):
        finished = False
        for when in ("before", "after"):
            retitle(tree, f"Step {step} {when}")
            new = dict(compile_tree(tree).files.items())
            done = subprocess.run(
                [sys.executable, "-c", KILL_AT_STEP, str(step), when, str(tree), str(out)],
                capture_output=True,
                timeout=120,
            )
            current = snapshot(out)
            assert current in (previous, new), (
                f"killed {when} step {step}: OUT is not a whole output"
            )
            previous = current
            finished = done.returncode == 0
        if finished:  # the swap has fewer steps than this: every one was covered
            break
    else:
        pytest.fail("the swap took more steps than the test covers")


@pytest.mark.slow
def test_concurrent_compiles_leave_one_complete_output(tmp_path: Path) -> None:
    tree = embedded_copy(tmp_path / "tree")
    out = tmp_path / "out"
    assert compile_process(tree, out).wait(timeout=120) == 0
    expected = snapshot(out)
    for _ in range(2):
        processes = [compile_process(tree, out) for _ in range(3)]
        errors = [p.communicate(timeout=180)[1].decode() for p in processes]
        assert [p.returncode for p in processes] == [0, 0, 0], errors
        assert snapshot(out) == expected
    assert outside_entries(tmp_path) == ["out", "tree"]  # nothing left beside OUT


def test_swap_is_serialised_when_two_compiles_overlap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Force the two-rename fallback and hold one swap half-done while another starts: the
    second must wait for the lock instead of moving its output into the gap."""
    import threading

    from recipelint.compile import emit

    out = tmp_path / "out"
    emit.replace_folder([("models.json", b"[]\n"), ("a.json", b"0\n")], out)
    monkeypatch.setattr(emit, "_exchange", lambda a, b: False)
    halfway = threading.Event()
    release = threading.Event()
    real_rename = os.rename

    def slow_rename(src: object, dst: object) -> None:
        real_rename(src, dst)
        if threading.current_thread().name == "first" and Path(str(src)) == out:
            halfway.set()  # OUT has just been moved aside; the staging folder is not in yet
            release.wait(timeout=10)

    monkeypatch.setattr(emit.os, "rename", slow_rename)
    failures: list[BaseException] = []

    def compile_into(files: list[tuple[str, bytes]]) -> None:
        try:
            emit.replace_folder(files, out)
        except BaseException as exc:  # noqa: BLE001 - reported by the assertion below
            failures.append(exc)

    first = threading.Thread(
        target=compile_into, name="first", args=([("models.json", b"[1]\n"), ("a.json", b"1\n")],)
    )
    second = threading.Thread(
        target=compile_into, name="second", args=([("models.json", b"[2]\n"), ("a.json", b"2\n")],)
    )
    first.start()
    assert halfway.wait(timeout=10)
    second.start()
    second.join(timeout=1)
    assert second.is_alive(), "the second swap did not wait for the first"
    release.set()
    first.join(timeout=10)
    second.join(timeout=10)
    assert not failures, failures
    assert snapshot(out) == {"a.json": b"2\n", "models.json": b"[2]\n"}
    assert outside_entries(tmp_path) == ["out"]


def test_hostile_branch_name_stays_data_in_the_source_block(tmp_path: Path) -> None:
    """A pull request's branch name is attacker-chosen; git allows `"`, `$()`, `;`, `<>` in it."""
    import json

    branch = 'x"$(id);<img>|`id`'  # no spaces: git refuses them
    repo = tmp_path / "repo"
    embedded_copy(repo / "recipes")
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@t",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@t",
    }
    for args in (
        ["init", "-q", "-b", branch],
        ["remote", "add", "origin", "https://github.com/acme/recipes.git"],
        ["add", "."],
        ["commit", "-q", "-m", "x"],
    ):
        subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, env=env)
    out = tmp_path / "out"
    assert main(["compile", str(repo / "recipes"), "-o", str(out), "-q"]) == 0
    source = json.loads((out / "Qwen/Qwen2.5-7B-Instruct.json").read_text(encoding="utf-8"))[
        "source"
    ]
    assert source["ref"] == branch
    assert source["edit_url"].startswith("https://github.com/acme/recipes/edit/")
    assert outside_entries(tmp_path) == ["out", "repo"]
    assert not Path("/tmp/pwned").exists()
