"""docs/editors.md: the Neovim set-up it gives works in the Neovim at hand.

Runs only where `nvim` is installed: headless, with the page's snippet for that version
as init.lua, it opens a recipe with a duplicate key and waits for recipelint's finding.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import PROJECT_ROOT

PAGE = PROJECT_ROOT / "docs" / "editors.md"
RECIPE = "models/Qwen/Qwen2.5-7B-Instruct.yaml"
PROBE = """
vim.wait(60000, function() return #vim.diagnostic.get(0) > 0 end, 200)
for _, d in ipairs(vim.diagnostic.get(0)) do
  io.stdout:write(string.format("%d %s\\n", d.lnum + 1, d.code or ""))
end
vim.cmd("qa!")
"""


def _neovim_version() -> tuple[int, int] | None:
    if shutil.which("nvim") is None:
        return None
    done = subprocess.run(["nvim", "--version"], capture_output=True, text=True, timeout=30)
    match = re.match(r"NVIM v(\d+)\.(\d+)", done.stdout)
    return (int(match[1]), int(match[2])) if match else None


def _snippet(version: tuple[int, int]) -> str:
    """The page's Lua block for this version: the first needs 0.11, the second 0.7 to 0.10."""
    section = PAGE.read_text(encoding="utf-8").split("## Neovim", 1)[1].split("\n## ", 1)[0]
    modern, older = re.findall(r"```lua\n(.*?)```", section, re.S)
    return modern if version >= (0, 11) else older


def test_the_neovim_snippet_shows_findings(tmp_path: Path, embedded_tree: Path) -> None:
    version = _neovim_version()
    if version is None or version < (0, 7):
        pytest.skip("needs Neovim 0.7 or newer on the PATH")
    tree = tmp_path / "a tree, with spaces"
    shutil.copytree(embedded_tree, tree)
    recipe = tree / RECIPE
    title = '  title: "Qwen2.5-7B-Instruct"\n'
    recipe.write_text(recipe.read_text(encoding="utf-8").replace(title, title * 2, 1), "utf-8")
    (tmp_path / "init.lua").write_text(_snippet(version), encoding="utf-8")
    (tmp_path / "probe.lua").write_text(PROBE, encoding="utf-8")
    env = {**os.environ, "PATH": str(Path(sys.executable).parent) + os.pathsep + os.environ["PATH"]}
    env["XDG_STATE_HOME"] = env["XDG_DATA_HOME"] = str(tmp_path / "state")
    done = subprocess.run(
        ["nvim", "--headless", "-u", "init.lua", str(recipe), "-c", "luafile probe.lua"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert "3 RL002" in done.stdout.splitlines(), done.stdout + done.stderr
