"""The configuration is validated by a typed model, loaded only when a tree has a configuration.

A one-file check (the pre-commit case) of a tree without a configuration file must not pay
for importing pydantic; a tree with one gets typed settings, and a table with several
problems reports the one an author meets first, in a fixed order, at its line.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from catalog_harness import build_context

from recipelint.configuration.config import load_config
from recipelint.diagnostics import Severity
from recipelint.read.configfile import ConfigError
from recipelint.read.load import LoadLimits

PROBE = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from recipelint.configuration.config import load_config
    config = load_config(Path(sys.argv[1]))
    print(config.ignore, "pydantic" in sys.modules)
    """
)


def _tree(tmp_path: Path, config: str | None) -> Path:
    build_context(tmp_path)
    (tmp_path / ".git").mkdir(exist_ok=True)  # discovery stops here
    if config is not None:
        (tmp_path / ".recipelint.toml").write_text(config, encoding="utf-8")
    return tmp_path


def _loaded_in_a_fresh_process(root: Path) -> str:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(root)], capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


def test_a_tree_without_configuration_never_imports_pydantic(tmp_path: Path) -> None:
    assert _loaded_in_a_fresh_process(_tree(tmp_path, None)) == "() False"


def test_a_tree_with_configuration_is_read_by_the_typed_model(tmp_path: Path) -> None:
    assert _loaded_in_a_fresh_process(_tree(tmp_path, 'ignore = ["RL6"]\n')) == "('RL6',) True"


def test_every_setting_reaches_the_config(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        textwrap.dedent(
            """
            select = ["rl1,RL3"]
            ignore = ["RL6"]
            severity = { rl301 = "Warning" }
            per-file-ignores = { "models/legacy/*.yaml" = ["RL4"] }
            [limits]
            max-depth = 50
            max-renderings = 10
            """
        ),
    )
    config = load_config(root)
    assert (config.select, config.ignore) == (("RL1", "RL3"), ("RL6",))
    assert config.severity == {"RL301": Severity.WARNING}
    assert config.per_file_ignores == {"models/legacy/*.yaml": ("RL4",)}
    assert config.limits == LoadLimits(max_depth=50)
    assert config.max_renderings == 10
    assert config.origin("limits.max-depth") == str(root / ".recipelint.toml")
    assert config.origin("limits.max-nodes") == "default"


@pytest.mark.parametrize(
    ("config", "line", "message"),
    [
        (
            'select = "RL1"\nbogus = 1\n',
            2,
            "unknown recipelint setting(s): bogus",
        ),
        (
            'select = ["RLZ"]\n[limits]\nmax-depth = true\n',
            2,
            "limits take positive integers: max-file-bytes, max-depth, max-nodes, max-renderings",
        ),
        (
            'ignore = ["RL6"]\nselect = ["nope"]\nseverity = { RL301 = "loud" }\n',
            3,
            "unknown severity 'loud' (use error, warning or info)",
        ),
        (
            'ignore = "RL6"\nselect = ["RL1", 5]\n',
            2,
            "'select' must be a list of rule codes or prefixes",
        ),
        (
            'per-file-ignores = { "a/*.yaml" = ["RLQ"] }\nignore = ["RL6,RLZ"]\n',
            2,
            "'ignore': 'RLZ' matches no rule",
        ),
        (
            'per-file-ignores = { "a/*.yaml" = ["RLQ"] }\n',
            1,
            "'per-file-ignores.a/*.yaml': 'RLQ' matches no rule",
        ),
        (
            "limits = 3\nper-file-ignores = []\n",
            2,
            "'per-file-ignores' must be a table of glob = [codes]",
        ),
    ],
)
def test_the_first_problem_in_fixing_order_is_reported_at_its_line(
    tmp_path: Path, config: str, line: int, message: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        load_config(_tree(tmp_path, config))
    diagnostic = caught.value.diagnostic
    assert diagnostic.code == "RL016"
    assert diagnostic.message.startswith(message)
    assert diagnostic.span.line == line
