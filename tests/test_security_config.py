"""The tree's configuration comes with the pull request: any content is RL016, never a crash."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from catalog_harness import CONTEXT, build_context

from recipelint.configuration.config import load_config
from recipelint.read.configfile import ConfigError

HOSTILE_CONFIGS = {
    "tool-not-a-table": "tool = 1\n",
    "recipelint-not-a-table": "[tool]\nrecipelint = 1\n",
    "limits-not-a-table": "[tool.recipelint]\nlimits = 1\n",
    "limit-is-a-boolean": "[tool.recipelint.limits]\nmax-depth = true\n",
    "limit-is-a-float": "[tool.recipelint.limits]\nmax-nodes = 1e9\n",
    "deeply-nested-array": "[tool.recipelint]\nselect = " + "[" * 100_000 + "]" * 100_000 + "\n",
    "deeply-nested-table": "[tool.recipelint]\nselect = "
    + "{a=" * 5_000
    + "1"
    + "}" * 5_000
    + "\n",
    "not-utf8": "[tool.recipelint]\nselect = ['\udc80']\n",
    "not-toml": "[tool.recipelint\n",
}


def write_config(root: Path, name: str) -> Path:
    path = root / ".recipelint.toml"
    path.write_bytes(HOSTILE_CONFIGS[name].encode("utf-8", "surrogateescape"))
    return path


@pytest.mark.parametrize("name", sorted(HOSTILE_CONFIGS))
def test_hostile_configuration_is_a_diagnostic(tmp_path: Path, name: str) -> None:
    path = write_config(tmp_path, name)
    with pytest.raises(ConfigError) as caught:
        load_config(tmp_path)
    assert (caught.value.diagnostic.code, caught.value.diagnostic.path) == ("RL016", path)


@pytest.mark.skipif(
    not (CONTEXT / "taxonomy.yaml").is_file(), reason="recipes/ context tree missing"
)
@pytest.mark.parametrize("command", ["check", "compile"])
def test_commands_report_a_hostile_configuration(tmp_path: Path, command: str) -> None:
    root = build_context(tmp_path)
    write_config(root, "deeply-nested-array")
    extra = ["-o", str(tmp_path / "out")] if command == "compile" else []
    result = subprocess.run(
        [
            sys.executable,
            "-c",
            "from recipelint.cli import run; run()",
            command,
            str(root),
            "--format",
            "json",
            *extra,
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 1, result.stderr
    assert "internal error" not in result.stderr
    assert [f["code"] for f in json.loads(result.stdout)] == ["RL016"]
