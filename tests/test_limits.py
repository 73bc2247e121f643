"""Resource limits: each one is configurable in .recipelint.toml and yields its diagnostic.

Every test sets a small limit in a temporary tree and runs the real `check`
command, so the configuration path, the loader and the reporter are all covered.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from catalog_harness import CONTEXT, build_context

from recipelint.cli import main
from recipelint.configuration.config import Config, load_config
from recipelint.read.load import DEFAULT_LIMITS

pytestmark = pytest.mark.skipif(
    not (CONTEXT / "taxonomy.yaml").is_file(), reason="recipes/ context tree missing"
)

# l0 is a list of 3 scalars (4 nodes), l1 three l0s (13), l2 three l1s (40): with the
# top-level mapping, 58 nodes once the aliases are expanded.
ALIASES_58_NODES = "l0: &l0 [x, x, x]\nl1: &l1 [*l0, *l0, *l0]\nl2: &l2 [*l1, *l1, *l1]\n"


def nested(levels: int) -> str:
    """A document whose containers, the top-level mapping included, nest `levels` deep."""
    return "a: " + "[" * (levels - 1) + "x" + "]" * (levels - 1) + "\n"


def set_limits(root: Path, limits: str) -> None:
    (root / ".recipelint.toml").write_text(
        f"[tool.recipelint.limits]\n{limits}\n", encoding="utf-8"
    )


def tree_with(root: Path, limits: str, files: dict[str, str]) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    build_context(root)
    set_limits(root, limits)
    for rel, content in files.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content, encoding="utf-8")
    return root


def codes_by_file(root: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, set[str]]:
    status = main(["check", str(root), "--format", "json"])
    assert status in (0, 1)
    found: dict[str, set[str]] = {}
    for record in json.loads(capsys.readouterr().out):
        rel = Path(record["path"]).resolve().relative_to(root.resolve()).as_posix()
        found.setdefault(rel, set()).add(record["code"])
    return found


def test_max_file_bytes_from_config(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    at_limit = "meta: {title: '" + "x" * (200 - 18) + "'}\n"
    assert len(at_limit.encode()) == 200
    tree_with(
        tmp_path,
        "max-file-bytes = 200",
        {
            "models/acme/at-limit.yaml": at_limit,
            "models/acme/over.yaml": at_limit + "#\n",
        },
    )
    found = codes_by_file(tmp_path, capsys)
    assert "RL003" in found["models/acme/over.yaml"]
    assert "RL003" not in found.get("models/acme/at-limit.yaml", set())
    # The embedded taxonomy is larger than 200 bytes: the limit applies to every tree file.
    assert "RL003" in found["taxonomy.yaml"]


def test_max_depth_from_config(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tree_with(
        tmp_path,
        "max-depth = 6",
        {
            "models/acme/six.yaml": nested(6),
            "models/acme/seven.yaml": nested(7),
        },
    )
    found = codes_by_file(tmp_path, capsys)
    assert "RL009" in found["models/acme/seven.yaml"]
    assert "RL009" not in found.get("models/acme/six.yaml", set())


def test_max_nodes_from_config(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tree_with(tmp_path, "max-nodes = 200", {"models/acme/aliases.yaml": ALIASES_58_NODES})
    assert "RL010" not in codes_by_file(tmp_path, capsys).get("models/acme/aliases.yaml", set())
    set_limits(tmp_path, "max-nodes = 57")
    assert "RL010" in codes_by_file(tmp_path, capsys)["models/acme/aliases.yaml"]


def test_limit_message_names_the_configured_value(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tree_with(tmp_path, "max-depth = 3", {"models/acme/deep.yaml": nested(4)})
    main(["check", str(tmp_path / "models/acme/deep.yaml"), "--format", "json"])
    # At 3 levels the tree's taxonomy is too deep as well, and a tree-wide file that cannot be
    # loaded is reported even when only a recipe is named: it is the cause of what follows.
    found = [r for r in json.loads(capsys.readouterr().out) if r["code"] == "RL009"]
    [record] = [r for r in found if r["path"].endswith("deep.yaml")]
    assert {"deep.yaml", "taxonomy.yaml"} <= {r["path"].rsplit("/", 1)[-1] for r in found}
    assert "3 levels" in record["message"]


@pytest.mark.parametrize(
    "setting",
    [
        "max-depth = 0",
        "max-nodes = -1",
        "max-file-bytes = 'big'",
        "max-renderings = 1.5",
        "max-aliases = 3",
    ],
)
def test_invalid_limits_are_a_configuration_error(tmp_path: Path, setting: str) -> None:
    from recipelint.read.configfile import ConfigError

    tree_with(tmp_path, setting, {})
    with pytest.raises(ConfigError) as caught:
        load_config(tmp_path)
    assert caught.value.diagnostic.code == "RL016"


def test_limits_default_to_the_documented_values(tmp_path: Path) -> None:
    config = load_config(build_context(tmp_path))
    assert config == Config(source=None)
    assert (config.limits.max_file_bytes, config.limits.max_depth, config.limits.max_nodes) == (
        DEFAULT_LIMITS.max_file_bytes,
        DEFAULT_LIMITS.max_depth,
        DEFAULT_LIMITS.max_nodes,
    )
    docs = (Path(__file__).resolve().parent.parent / "docs" / "security.md").read_text(
        encoding="utf-8"
    )
    for key, value in (
        ("max-file-bytes", config.limits.max_file_bytes),
        ("max-depth", config.limits.max_depth),
        ("max-nodes", config.limits.max_nodes),
        ("max-renderings", config.max_renderings),
    ):
        assert f"| `{key}` | {value} |" in docs, f"docs/security.md does not give {key}'s default"


PROMOTING_RECIPE = "models/Qwen/Qwen2.5-7B-Instruct.yaml"  # default plus a promoted AWQ variant


def compile_json(
    root: Path, out: Path, capsys: pytest.CaptureFixture[str]
) -> tuple[int, list[dict]]:
    status = main(
        ["compile", str(root), "-o", str(out), "--format", "json", "-q", "--no-provenance"]
    )
    return status, json.loads(capsys.readouterr().out or "[]")


def test_max_renderings_from_config(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = tree_with(
        tmp_path / "tree",
        "max-renderings = 1",
        {PROMOTING_RECIPE: (CONTEXT / PROMOTING_RECIPE).read_text(encoding="utf-8")},
    )
    status, findings = compile_json(root, tmp_path / "out", capsys)
    capped = [f for f in findings if f["code"] == "RL018"]
    assert status == 1 and len(capped) == 1
    assert capped[0]["path"].endswith(PROMOTING_RECIPE)
    assert "limit of 1 renderings" in capped[0]["message"] and "'awq'" in capped[0]["message"]
    assert not (tmp_path / "out").exists()  # an error finding: nothing written

    set_limits(root, "max-renderings = 5000")
    status, findings = compile_json(root, tmp_path / "out", capsys)
    assert status == 0 and not [f for f in findings if f["code"] == "RL018"]
    assert (tmp_path / "out" / "Qwen/Qwen2.5-7B-Instruct-AWQ.json").is_file()


def test_renderings_limit_bounds_a_variant_bomb(tmp_path: Path) -> None:
    """Two thousand promoted variants would render ~50,000 documents; the default limit stops it."""
    from recipelint.compile.compiler import Compiler
    from recipelint.read.tree import load_tree

    seed = (CONTEXT / PROMOTING_RECIPE).read_text(encoding="utf-8")
    head = seed[: seed.index("variants:")]
    variants = "".join(
        f"  v{i}: {{model_id: bomb/m{i}, precision: bf16, vram_minimum_gb: 19}}\n"
        for i in range(2000)
    )
    root = tree_with(tmp_path, "", {"models/bomb/x.yaml": head + "variants:\n" + variants})
    config = load_config(root)
    result = Compiler(load_tree(root, config.limits), None, config.max_renderings).run()
    rendered = [p for p in result.files.paths() if "/hw/" in p or "/strategies/" in p]
    per_variant = len([p for p in rendered if p.startswith("bomb/m0/")])
    assert per_variant > 0
    assert (
        len(rendered) <= config.max_renderings + per_variant
    )  # the check runs before each variant
    assert [d.code for d in result.diagnostics if d.code == "RL018"] == ["RL018"]
