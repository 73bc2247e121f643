"""Hostile recipe files through the real command: a diagnostic and exit 1, never a traceback,
with memory capped and a generous hang guard."""

from __future__ import annotations

import json
import resource
import subprocess
import sys
from pathlib import Path

import pytest
from catalog_harness import CONTEXT, build_context

MEMORY_CAP = 1024 * 1024 * 1024  # bytes of address space for the child
HANG_GUARD = 120  # seconds; a hang, not a speed target

LAUGHS = (
    "\n".join(
        ["l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
        + [f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 9)}]" for i in range(1, 12)]
    )
    + "\n"
)

HOSTILE: dict[str, tuple[bytes, str]] = {
    "duplicate-keys": (b"meta:\n  title: a\n  title: b\n", "RL002"),
    "multi-document": (b"meta:\n  title: a\n---\nmeta:\n  title: b\n", "RL005"),
    "tabs": (b"meta:\n\ttitle: a\n", "RL001"),
    "invalid-utf8": (b"meta:\n  title: caf\xe9\n", "RL004"),
    "nul-byte": (b"meta:\n  title: a\x00b\n", "RL004"),
    "empty": (b"", "RL006"),
    "top-level-list": (b"- meta\n- model\n", "RL007"),
    "top-level-scalar": (b"hello\n", "RL007"),
    "deep-nesting": (b"a: " + b"[" * 5000 + b"]" * 5000 + b"\n", "RL009"),
    "billion-laughs": (LAUGHS.encode(), "RL010"),
    "python-tag": (b"meta: !!python/object/apply:os.system ['touch /tmp/pwned']\n", "RL008"),
    "oversized": (b"meta:\n  title: '" + b"x" * 1_100_000 + b"'\n", "RL003"),
}


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))


def run_check(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-c", "from recipelint.cli import run; run()", "check", *args]
    return subprocess.run(
        command,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
        preexec_fn=_limit_memory,
    )


@pytest.mark.skipif(
    not (CONTEXT / "taxonomy.yaml").is_file(), reason="recipes/ context tree missing"
)
@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_file_gives_a_diagnostic(name: str, tmp_path: Path) -> None:
    content, code = HOSTILE[name]
    build_context(tmp_path)
    target = tmp_path / "models" / "acme" / f"{name}.yaml"
    target.parent.mkdir(parents=True)
    target.write_bytes(content)
    result = run_check(str(target), "--format", "json", cwd=tmp_path)
    assert "Traceback" not in result.stderr
    assert result.returncode == 1, result.stderr
    findings = json.loads(result.stdout)
    assert {f["code"] for f in findings} >= {code}
    assert all(f["path"] == f"models/acme/{name}.yaml" for f in findings)
    assert not Path("/tmp/pwned").exists()


def test_outside_a_tree_is_a_usage_error(tmp_path: Path) -> None:
    result = run_check(str(tmp_path), cwd=tmp_path)
    assert result.returncode == 2
    assert "not inside a recipe tree" in result.stderr
    assert "Traceback" not in result.stderr


def test_missing_path_is_a_usage_error(tmp_path: Path) -> None:
    result = run_check(str(tmp_path / "nope"), cwd=tmp_path)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
