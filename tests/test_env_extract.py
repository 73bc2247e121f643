"""Environment-variable extraction on small synthetic vLLM source folders (no network)."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from recipelint.commands.env import env_group
from recipelint.flags.envs import build_env_catalog, extract_env, release_table
from recipelint.flags.source import SourceError

ENVS = """
    import os
    import tempfile
    from enum import Enum

    class Backend(Enum):
        FLASH_ATTN = 1
        TRITON_ATTN = 2

    def maybe_convert_int(value):
        return None if value is None else int(value)

    def get_port():
        if "VLLM_PORT" not in os.environ:
            return None
        port = os.getenv("VLLM_PORT", "0")
        return int(port)

    def env_with_choices(name, default, choices, case_sensitive=True):
        return lambda: os.getenv(name, default)

    environment_variables = {
        "VLLM_PORT": get_port,
        "VLLM_RPC_BASE_PATH": lambda: os.getenv("VLLM_RPC_BASE_PATH", tempfile.gettempdir()),
        "VLLM_USE_V1": lambda: bool(int(os.getenv("VLLM_USE_V1", "1"))),
        "VLLM_TIMEOUT": lambda: float(os.getenv("VLLM_TIMEOUT", "2.5")),
        "VLLM_FA_VERSION": lambda: maybe_convert_int(os.environ.get("VLLM_FA_VERSION", None)),
        "VLLM_ALLOW_LONG": lambda: os.environ.get("VLLM_ALLOW_LONG", "0").strip().lower()
        in ("1", "true"),
        "VLLM_SKIP_CHECK": lambda: os.getenv("VLLM_SKIP_CHECK", "0") == "1",
        "VLLM_KEEP_ALIVE": lambda: bool(os.getenv("VLLM_KEEP_ALIVE", 0)),
        "VLLM_KERNELS": lambda: [] if "VLLM_KERNELS" not in os.environ
        else os.environ["VLLM_KERNELS"].split(","),
        "VLLM_ALL2ALL": env_with_choices("VLLM_ALL2ALL", "naive", ["naive", "pplx"]),
        "VLLM_ATTN": env_with_choices(
            "VLLM_ATTN", None, lambda: list(Backend.__members__.keys()), case_sensitive=False
        ),
        "VLLM_USE_CONTIGUOUS": lambda: os.environ.get("VLLM_CONTIGUOUS_PA", "true").lower()
        in ("1", "true"),
    }
"""


def write_release(root: Path, version: str, envs: str | None, extra: str = "") -> Path:
    files = {"vllm/__init__.py": "", "vllm/_version.py": f"__version__ = '{version}'\n"}
    if envs is not None:
        files["vllm/envs.py"] = envs
    files["vllm/worker.py"] = "import os\n" + textwrap.dedent(extra)
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return root


def test_types_and_defaults_come_from_the_conversion_around_each_read(tmp_path: Path) -> None:
    table = extract_env(write_release(tmp_path, "0.9.0", ENVS))
    variables = table["variables"]
    assert table["version"] == "0.9.0"
    assert variables["VLLM_PORT"] == {"type": "int", "default": "0", "source": "envs"}
    assert variables["VLLM_RPC_BASE_PATH"] == {
        "type": "str",
        "default_expr": "tempfile.gettempdir()",
        "source": "envs",
    }
    assert variables["VLLM_USE_V1"]["type"] == "bool"
    assert variables["VLLM_TIMEOUT"] == {"type": "float", "default": "2.5", "source": "envs"}
    assert variables["VLLM_FA_VERSION"] == {"type": "int", "source": "envs"}
    assert variables["VLLM_ALLOW_LONG"] == {
        "type": "switch",
        "default": "0",
        "true": ["1", "true"],
        "case_insensitive": True,
        "source": "envs",
    }
    assert variables["VLLM_SKIP_CHECK"]["true"] == ["1"]
    assert variables["VLLM_KEEP_ALIVE"]["type"] == "flag"
    assert variables["VLLM_KERNELS"]["type"] == "list"
    assert variables["VLLM_ALL2ALL"]["choices"] == ["naive", "pplx"]
    assert variables["VLLM_ATTN"]["choices"] == ["FLASH_ATTN", "TRITON_ATTN"]
    assert variables["VLLM_ATTN"]["case_insensitive"] is True


def test_an_entry_that_reads_another_name_records_the_name_read(tmp_path: Path) -> None:
    variables = extract_env(write_release(tmp_path, "0.9.0", ENVS))["variables"]
    assert "VLLM_USE_CONTIGUOUS" not in variables
    assert variables["VLLM_CONTIGUOUS_PA"]["type"] == "switch"


def test_releases_without_envs_py_are_read_from_direct_reads(tmp_path: Path) -> None:
    extra = """
        TRACE = int(os.getenv("VLLM_TRACE_FUNCTION", "0"))
        KEY = os.environ.get("VLLM_API_KEY")
        os.environ["VLLM_WRITTEN_ONLY"] = "1"
    """
    variables = extract_env(write_release(tmp_path, "0.4.0", None, extra))["variables"]
    assert variables == {
        "VLLM_API_KEY": {"type": "str", "source": "read"},
        "VLLM_TRACE_FUNCTION": {"type": "int", "default": "0", "source": "read"},
    }


def test_a_development_version_file_defers_to_the_release_named_by_the_folder(
    tmp_path: Path,
) -> None:
    root = write_release(tmp_path / "vllm-0.6.2", "0.6.1.dev238+ge2c6e0a82", ENVS)
    assert extract_env(root)["version"] == "0.6.2"


def test_not_a_release_is_a_source_error(tmp_path: Path) -> None:
    with pytest.raises(SourceError):
        extract_env(tmp_path)


def test_eras_merge_consecutive_releases_and_split_on_change_or_gap() -> None:
    def table(version: str, variables: dict[str, dict[str, str]]) -> dict[str, object]:
        return {"version": version, "variables": variables}

    as_int = {"type": "int", "source": "envs"}
    as_bool = {"type": "bool", "source": "envs"}
    catalog = build_env_catalog(
        [
            table("0.5.0", {"A": as_int}),
            table("0.4.0", {"A": as_int, "B": as_int}),
            table("0.6.0", {"A": as_bool, "B": as_int}),
        ]
    )
    assert catalog["releases"] == ["0.4.0", "0.5.0", "0.6.0"]
    assert catalog["variables"]["A"] == [
        {"first": "0.4.0", "last": "0.5.0", **as_int},
        {"first": "0.6.0", "last": "0.6.0", **as_bool},
    ]
    assert [(e["first"], e["last"]) for e in catalog["variables"]["B"]] == [
        ("0.4.0", "0.4.0"),
        ("0.6.0", "0.6.0"),
    ]
    assert release_table(catalog, "0.5.0")["variables"] == {"A": as_int}


def test_extract_command_writes_a_deterministic_catalog(tmp_path: Path) -> None:
    old = write_release(tmp_path / "vllm-0.8.0", "0.8.0", ENVS)
    new = write_release(tmp_path / "vllm-0.9.0", "0.9.0", ENVS.replace('"VLLM_TIMEOUT"', '"X"'))
    out = tmp_path / "env.json"
    runner = CliRunner()
    result = runner.invoke(env_group, ["extract", str(new), str(old), "-o", str(out)])
    assert result.exit_code == 0, result.output
    first = out.read_bytes()
    runner.invoke(env_group, ["extract", str(old), str(new), "-o", str(out)])
    assert out.read_bytes() == first
    catalog = json.loads(first)
    assert catalog["variables"]["VLLM_TIMEOUT"][0]["last"] == "0.8.0"
    bad = runner.invoke(env_group, ["extract", str(tmp_path / "nothing"), "-o", str(out)])
    assert bad.exit_code == 2 and "Traceback" not in bad.output


def test_add_to_keeps_the_releases_of_an_existing_catalog(tmp_path: Path) -> None:
    old = write_release(tmp_path / "vllm-0.8.0", "0.8.0", ENVS)
    new = write_release(tmp_path / "vllm-0.9.0", "0.9.0", ENVS.replace('"VLLM_TIMEOUT"', '"X"'))
    both, first, added = tmp_path / "both.json", tmp_path / "first.json", tmp_path / "added.json"
    runner = CliRunner()
    runner.invoke(env_group, ["extract", str(old), str(new), "-o", str(both)])
    runner.invoke(env_group, ["extract", str(old), "-o", str(first)])
    result = runner.invoke(
        env_group, ["extract", str(new), "--add-to", str(first), "-o", str(added)]
    )
    assert result.exit_code == 0, result.output
    assert added.read_bytes() == both.read_bytes()
    bad = runner.invoke(env_group, ["extract", str(new), "--add-to", str(old), "-o", str(added)])
    assert bad.exit_code == 2 and "Traceback" not in bad.output
