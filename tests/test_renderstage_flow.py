"""A check flows one way: load -> schema -> rules and rendering -> report. Its rendering stage
plans publication through the layer it shares with compile and never touches the compile's
output machinery (output map, streaming writer, emit, cache)."""

from __future__ import annotations

import subprocess
import sys

import pytest
from catalog_harness import CONTEXT

OUTPUT_MACHINERY = (
    "recipelint.compiler",
    "recipelint.compilation",
    "recipelint.outputmap",
    "recipelint.emit",
    "recipelint.cache",
    "recipelint.carryover",
)

PROBE = """
import sys
from pathlib import Path
from recipelint.config import Config
from recipelint.renderstage import RenderingStage
from recipelint.tree import load_tree

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
    assert "recipelint.publication" in modules.split()
    assert not set(OUTPUT_MACHINERY) & set(modules.split())
