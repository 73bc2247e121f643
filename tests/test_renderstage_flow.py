"""A check flows one way: load -> schema -> rules and rendering -> report. Its rendering stage
plans publication through the layer it shares with compile and never touches the compile's
output machinery (output map, streaming writer, emit, cache)."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest
from catalog_harness import CONTEXT

OUTPUT_MACHINERY = (
    "recipelint.compile.compiler",
    "recipelint.compile.compilation",
    "recipelint.compile.outputmap",
    "recipelint.compile.emit",
    "recipelint.compile.cache",
    "recipelint.compile.carryover",
)

PROBE = """
import sys
from pathlib import Path
from recipelint.configuration.config import Config
from recipelint.check.renderstage import RenderingStage
from recipelint.read.tree import load_tree

stage = RenderingStage(load_tree(Path(sys.argv[1])), Config(), lambda path: True)
found = stage.diagnostics([task() for task in stage.tasks(3)])
print(len(stage.recipes))
print(" ".join(sorted(name for name in sys.modules if name.startswith("recipelint."))))
"""


@pytest.mark.skipif(not (CONTEXT / "taxonomy.yaml").is_file(), reason="recipes/ tree missing")
def test_the_rendering_stage_uses_no_output_machinery() -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(CONTEXT)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    planned, modules = done.stdout.splitlines()
    assert int(planned) > 0
    assert "recipelint.compile.publication" in modules.split()
    assert not set(OUTPUT_MACHINERY) & set(modules.split())


def test_a_selection_of_one_rendering_code_runs_the_rendering_stage(tmp_path) -> None:
    from treehelp import check_tree

    from recipelint.configuration.config import Config

    root = tmp_path / "tree"
    shutil.copytree(CONTEXT, root)
    recipe = root / "models/nvidia/NVIDIA-Nemotron-3.5-Lightning-30B-A3B-BF16.yaml"
    # A variant published under the recipe's own id: a finding only rendering makes (RL706).
    text = recipe.read_text()
    recipe.write_text(
        text.replace(
            "\nvariants:\n",
            "\nvariants:\n  again:\n    model_id: nvidia/NVIDIA-Nemotron-3.5-Lightning-30B-A3B-BF16\n",
            1,
        )
    )
    for select in (("RL",), ("RL7",), ("RL706",), ("RL70",)):
        found = {d.code for d in check_tree(root, Config(select=select))}
        assert "RL706" in found, select
    assert "RL706" not in {d.code for d in check_tree(root, Config(select=("RL2",)))}
