"""The extractor on small synthetic vLLM source folders (no network, no real wheel).

Each folder reproduces one era's shape of the code that builds `vllm serve`'s
parser: explicit add_argument calls (0.8), get_kwargs over config dataclasses
(0.10-0.28), and the FrontendArgs loop with subclass customisation and
--enable/--disable pairs (0.29+).
"""

from __future__ import annotations

import json
import textwrap
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from recipelint.commands.flags import flags_group
from recipelint.flags.catalog import Catalog
from recipelint.flags.extract import extract_catalog
from recipelint.flags.source import SourceError


def write_tree(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    for pkg in {p.parent for p in root.rglob("*.py")}:
        (pkg / "__init__.py").touch()
    return root


SERVE = """
    from vllm.entrypoints.openai.cli_args import make_arg_parser

    class ServeSubcommand:
        def __init__(self):
            self.name = "serve"

        def subparser_init(self, subparsers):
            serve_parser = subparsers.add_parser(self.name)
            serve_parser.add_argument("model_tag", type=str, nargs="?")
            return make_arg_parser(serve_parser)
"""

EXPLICIT_ERA = {
    "vllm/_version.py": "__version__ = version = '0.8.9'\n",
    "vllm/entrypoints/cli/serve.py": SERVE,
    "vllm/entrypoints/openai/cli_args.py": """
        from typing import Literal, get_args
        from vllm.engine.arg_utils import AsyncEngineArgs
        from vllm.entrypoints.openai.tool_parsers import ToolParserManager

        LogLevel = Literal["debug", "info", "warning"]

        def make_arg_parser(parser):
            parser.add_argument("--host", type=str, default=None)
            parser.add_argument("--uvicorn-log-level", type=str, choices=list(get_args(LogLevel)))
            parser.add_argument("--disable-fastapi-docs", action="store_true")
            valid = ToolParserManager.tool_parsers.keys()
            parser.add_argument("--tool-call-parser", type=str,
                                metavar="{" + ",".join(valid) + "} or name registered")
            parser = AsyncEngineArgs.add_cli_args(parser)
            return parser
    """,
    "vllm/entrypoints/openai/tool_parsers/manager.py": """
        class ToolParserManager:
            tool_parsers = {}
    """,
    "vllm/entrypoints/openai/tool_parsers/hermes.py": """
        from vllm.entrypoints.openai.tool_parsers.manager import ToolParserManager

        @ToolParserManager.register_module(["hermes", "hermes2"])
        class Hermes:
            pass
    """,
    "vllm/engine/arg_utils.py": """
        import argparse
        from enum import Enum

        class Device(Enum):
            CUDA = "cuda"
            CPU = "cpu"

        class EngineArgs:
            @staticmethod
            def add_cli_args(parser):
                parser.add_argument("--tensor-parallel-size", "-tp", type=int, default=1)
                parser.add_argument("--max-model-len", type=human_readable_int)
                parser.add_argument("--device", choices=[d.value for d in Device])
                parser.add_argument("--use-v2-block-manager", action="store_true",
                                    help="[DEPRECATED] block manager v1 has been removed.")
                parser.add_argument("--enable-prefix-caching", action=argparse.BooleanOptionalAction)
                parser.add_argument("--served-model-name", nargs="+", type=str)
                return parser

        class AsyncEngineArgs(EngineArgs):
            @staticmethod
            def add_cli_args(parser, async_args_only=False):
                if not async_args_only:
                    parser = EngineArgs.add_cli_args(parser)
                parser.add_argument("--disable-log-requests", action="store_true")
                return parser

        def human_readable_int(value):
            return int(value)
    """,
    "vllm/utils.py": """
        from argparse import ArgumentParser

        class FlexibleArgumentParser(ArgumentParser):
            def parse_args(self, args=None, namespace=None):
                processed = []
                for arg in args:
                    if arg.startswith("--"):
                        processed.append("--" + arg[2:].replace("_", "-"))
                return super().parse_args(processed, namespace)
    """,
}

GET_KWARGS = """
    def literal_to_kwargs(type_hints):
        kwarg = "metavar" if contains_type(type_hints, str) else "choices"

    def get_kwargs(cls):
        for field in fields(cls):
            type_hints = get_type_hints(field.type)
            dataclass_cls = next((th for th in type_hints if is_dataclass(th)), None)
            if dataclass_cls is not None:
                kwargs[name]["type"] = parse_dataclass
            elif type_hints == {bool, str, type(None)}:
                kwargs[name]["nargs"] = "?"
            elif contains_type(type_hints, int):
                if name == "max_model_len":
                    kwargs[name]["type"] = human_readable_int_or_auto
                elif name in {"max_num_batched_tokens"}:
                    kwargs[name]["type"] = human_readable_int
"""

DATACLASS_ERA = {
    "vllm/_version.py": "__version__ = version = '0.17.9'\n",
    "vllm/entrypoints/cli/serve.py": SERVE,
    "vllm/entrypoints/openai/cli_args.py": """
        from vllm.engine.arg_utils import EngineArgs

        def make_arg_parser(parser):
            parser.add_argument("--api-server-count", "-asc", type=int, default=None)
            return EngineArgs.add_cli_args(parser)
    """,
    "vllm/engine/arg_utils.py": GET_KWARGS
    + """
    import argparse
    from vllm.config import CompilationConfig, ModelConfig, SchedulerConfig

    class EngineArgs:
        @staticmethod
        def add_cli_args(parser):
            model_kwargs = get_kwargs(ModelConfig)
            model_group = parser.add_argument_group(title="ModelConfig")
            model_group.add_argument("--dtype", **model_kwargs["dtype"])
            model_group.add_argument("--quantization", "-q", **model_kwargs["quantization"])
            model_group.add_argument("--max-model-len", **model_kwargs["max_model_len"])
            model_group.add_argument("--enforce-eager", **model_kwargs["enforce_eager"])
            model_group.add_argument("--hf-token", **model_kwargs["hf_token"])
            model_group.add_argument("--task", **model_kwargs["task"], deprecated=True)
            sched_kwargs = get_kwargs(SchedulerConfig)
            sched_kwargs["policy"]["choices"] = ["fcfs", "priority"]
            parser.add_argument("--max-num-batched-tokens", **sched_kwargs["max_num_batched_tokens"])
            parser.add_argument("--scheduling-policy", **sched_kwargs["policy"])
            parser.add_argument("--compilation-config", "-cc", **get_kwargs(VllmConfig)["compilation_config"])
            return parser

    from dataclasses import dataclass

    @dataclass
    class VllmConfig:
        compilation_config: CompilationConfig = None
    """,
    "vllm/config/__init__.py": """
        from vllm.config.model import ModelConfig
        from vllm.config.compilation import CompilationConfig
        from vllm.config.scheduler import SchedulerConfig
    """,
    "vllm/config/model.py": """
        from typing import TYPE_CHECKING, Any, Literal, Optional, Union
        from vllm.config.utils import config

        if TYPE_CHECKING:
            from vllm.quant import QuantizationMethods
        else:
            QuantizationMethods = Any

        ModelDType = Literal["auto", "half", "bfloat16"]

        @config
        class ModelConfig:
            dtype: ModelDType = "auto"
            \"\"\"Data type for model weights.\"\"\"
            quantization: QuantizationMethods | str | None = None
            max_model_len: int = None
            enforce_eager: bool = False
            hf_token: bool | str | None = None
            task: Optional[Union[Literal["auto", "generate"], str]] = None
            \"\"\"This is deprecated and will be removed in v0.13.\"\"\"
    """,
    "vllm/quant.py": """
        from typing import Literal
        QuantizationMethods = Literal["awq", "fp8", "gguf"]
    """,
    "vllm/config/utils.py": """
        def config(cls):
            return cls
    """,
    "vllm/config/scheduler.py": """
        from dataclasses import dataclass
        from typing import Literal

        @dataclass
        class SchedulerConfig:
            max_num_batched_tokens: int = 2048
            policy: Literal["fcfs", "priority"] = "fcfs"
            \"\"\"The "priority" policy is deprecated and will be removed.\"\"\"
    """,
    "vllm/config/compilation.py": """
        from dataclasses import dataclass, field
        from vllm.config.utils import config

        @config
        class PassConfig:
            fuse_norm_quant: bool = False

        @config
        class CompilationConfig:
            mode: int = 0
            level: int | None = None
            \"\"\"Deprecated: use mode instead.\"\"\"
            pass_config: PassConfig = field(default_factory=PassConfig)
            bs_to_padded_graph_size: list[int] = field(default=None, init=False)
    """,
    "vllm/utils/argparse_utils.py": """
        import re
        from argparse import ArgumentParser

        class FlexibleArgumentParser(ArgumentParser):
            _json_tip = "json"

            def parse_args(self, args=None, namespace=None):
                pattern = re.compile(r"(?<=--)[^\\.]*")
                for arg in args:
                    key = pattern.sub(lambda m: m.group(0).replace("_", "-"), arg)
                    if arg.startswith("-O") and arg != "-O":
                        pass
                    if "." in arg:
                        key, *keys = arg.split(".")
                        if keys[-1].endswith("+"):
                            pass
                    if "--config" in args:
                        pass
    """,
}

FRONTEND_ERA = {
    "vllm/_version.py": "__version__ = version = '0.33.9'\n",
    "vllm/entrypoints/cli/serve.py": SERVE.replace(
        "vllm.entrypoints.openai.cli_args", "vllm.entrypoints.common.cli_args"
    ),
    "vllm/entrypoints/cli/main.py": 'OMNI = "--omni"\n',
    "vllm/entrypoints/common/cli_args.py": """
        import json
        from dataclasses import dataclass
        from vllm.engine.arg_utils import EngineArgs, get_kwargs
        from vllm.tool_parsers import ToolParserManager

        @dataclass
        class BaseFrontendArgs:
            enable_auto_tool_choice: bool = False
            tool_call_parser: str | None = None
            allowed_origins: list[str] = None

            @classmethod
            def _customize_cli_kwargs(cls, frontend_kwargs):
                frontend_kwargs["tool_call_parser"]["metavar"] = ",".join(ToolParserManager.list_registered())
                return frontend_kwargs

            @classmethod
            def add_cli_args(cls, parser):
                frontend_kwargs = get_kwargs(cls)
                frontend_kwargs = cls._customize_cli_kwargs(frontend_kwargs)
                group = parser.add_argument_group(title=cls.__name__)
                for key, value in frontend_kwargs.items():
                    extra_flags = value.pop("flags", [])
                    group.add_argument(*extra_flags, f"--{key.replace('_', '-')}", **value)
                return parser

        @dataclass
        class FrontendArgs(BaseFrontendArgs):
            port: int = 8000
            log_config_file: str | None = None

            @classmethod
            def _customize_cli_kwargs(cls, frontend_kwargs):
                frontend_kwargs = super()._customize_cli_kwargs(frontend_kwargs)
                frontend_kwargs["allowed_origins"]["type"] = json.loads
                del frontend_kwargs["allowed_origins"]["nargs"]
                frontend_kwargs["port"]["flags"] = ["-p"]
                frontend_kwargs["log_config_file"]["action"] = DeprecatedLogConfigFileAction
                return frontend_kwargs

        class DeprecatedLogConfigFileAction:
            pass

        def make_arg_parser(parser):
            parser = FrontendArgs.add_cli_args(parser)
            return EngineArgs.add_cli_args(parser)
    """,
    "vllm/engine/arg_utils.py": GET_KWARGS
    + """
    from vllm.config import CacheConfig

    class EngineArgs:
        @staticmethod
        def add_cli_args(parser):
            cache_kwargs = get_kwargs(CacheConfig)
            parser.add_argument("--enable-prefix-caching", **cache_kwargs["enable_prefix_caching"])
            parser.add_argument("--gpu-memory-utilization", "--device-memory-utilization",
                                **cache_kwargs["gpu_memory_utilization"])
            return parser
    """,
    "vllm/config/__init__.py": "from vllm.config.cache import *\n",
    "vllm/config/cache.py": """
        from dataclasses import dataclass

        @dataclass
        class CacheConfig:
            enable_prefix_caching: bool = True
            gpu_memory_utilization: float = 0.9
    """,
    "vllm/tool_parsers/__init__.py": """
        from vllm.tool_parsers.abstract import ToolParserManager

        _TOOL_PARSERS_TO_REGISTER = {
            "hermes": ("hermes_tool_parser", "Hermes2ProToolParser"),
            "qwen3_xml": ("qwen3xml_tool_parser", "Qwen3XMLToolParser"),
        }
    """,
    "vllm/tool_parsers/abstract.py": """
        class ToolParserManager:
            @classmethod
            def register_lazy_module(cls, name, module_path, class_name):
                pass
    """,
    "vllm/utils/argparse_utils.py": """
        from argparse import ArgumentParser, BooleanOptionalAction

        class EnableDisableAction(BooleanOptionalAction):
            _inverse_prefixes = {"--enable-": "--disable-", "--disable-": "--enable-"}

        class FlexibleArgumentParser(ArgumentParser):
            def parse_args(self, args=None, namespace=None):
                pattern = r"(?<=--)[^\\.]*"
                key = arg.replace("_", "-")
    """,
}


@pytest.fixture()
def explicit_era(tmp_path: Path) -> dict:
    return extract_catalog(write_tree(tmp_path / "explicit", EXPLICIT_ERA))


@pytest.fixture()
def dataclass_era(tmp_path: Path) -> dict:
    return extract_catalog(write_tree(tmp_path / "dataclass", DATACLASS_ERA))


@pytest.fixture()
def frontend_era(tmp_path: Path) -> dict:
    return extract_catalog(write_tree(tmp_path / "frontend", FRONTEND_ERA))


def test_explicit_add_argument_era(explicit_era: dict) -> None:
    flags = explicit_era["flags"]
    assert explicit_era["version"] == "0.8.9"
    assert set(flags) == {
        "--host",
        "--uvicorn-log-level",
        "--disable-fastapi-docs",
        "--tool-call-parser",
        "--tensor-parallel-size",
        "--max-model-len",
        "--device",
        "--use-v2-block-manager",
        "--enable-prefix-caching",
        "--served-model-name",
        "--disable-log-requests",
    }
    assert flags["--tensor-parallel-size"] == {
        "aliases": ["-tp"],
        "default": 1,
        "type": "int",
        "value": "yes",
    }
    assert flags["--uvicorn-log-level"]["choices"] == ["debug", "info", "warning"]
    assert flags["--device"]["choices"] == ["cpu", "cuda"]
    assert flags["--max-model-len"]["type"] == "human_int"
    assert flags["--use-v2-block-manager"] == {
        "default": False,  # argparse's own for a store_true switch
        "deprecated": "[DEPRECATED] block manager v1 has been removed.",
        "value": "no",
    }
    assert flags["--enable-prefix-caching"]["negations"] == ["--no-enable-prefix-caching"]
    assert flags["--served-model-name"]["nargs"] == "+"
    assert flags["--tool-call-parser"]["values"] == ["hermes", "hermes2"]
    assert "choices" not in flags["--tool-call-parser"]
    assert explicit_era["spelling"]["underscores"] == "all"
    assert explicit_era["spelling"]["dotted_json"] is False


def test_get_kwargs_dataclass_era(dataclass_era: dict) -> None:
    flags = dataclass_era["flags"]
    assert flags["--dtype"]["choices"] == ["auto", "bfloat16", "half"]
    # A Literal seen only under TYPE_CHECKING is Any at run time: soft values, not choices.
    assert flags["--quantization"] == {
        "aliases": ["-q"],
        "default": None,
        "type": "str",
        "value": "yes",
        "values": ["awq", "fp8", "gguf"],
    }
    assert flags["--max-model-len"]["type"] == "human_int_or_auto"
    assert flags["--max-num-batched-tokens"]["type"] == "human_int"
    assert flags["--enforce-eager"] == {
        "default": False,
        "negations": ["--no-enforce-eager"],
        "value": "no",
    }
    assert flags["--hf-token"]["value"] == "optional"
    assert flags["--task"]["deprecated"] == "This is deprecated and will be removed in v0.13."
    assert flags["--task"]["values"] == ["auto", "generate"]  # Literal | str: soft
    assert flags["--scheduling-policy"]["choices"] == ["fcfs", "priority"]
    assert "deprecated" not in flags["--scheduling-policy"]  # a deprecated VALUE, not the flag
    cc = flags["--compilation-config"]
    assert cc["aliases"] == ["-cc"] and cc["type"] == "json"
    assert cc["json_keys"] == {
        "level": {"deprecated": True},
        "mode": {},
        "pass_config": {"extra": "ignore", "keys": {"fuse_norm_quant": {}}},
    }
    assert cc["json_extra"] == "ignore"  # a pydantic dataclass without extra="forbid"
    assert flags["--api-server-count"]["aliases"] == ["-asc"]
    spelling = dataclass_era["spelling"]
    assert spelling["underscores"] == "before_dot"
    assert (
        spelling["dotted_json"] and spelling["list_append"] and spelling["optimization_shorthand"]
    )


def test_frontend_loop_era(frontend_era: dict) -> None:
    flags = frontend_era["flags"]
    assert flags["--enable-auto-tool-choice"]["negations"] == [
        "--disable-auto-tool-choice",
        "--no-enable-auto-tool-choice",
    ]
    assert flags["--enable-prefix-caching"]["negations"] == [
        "--disable-prefix-caching",
        "--no-enable-prefix-caching",
    ]
    assert flags["--allowed-origins"] == {"default": None, "type": "json", "value": "yes"}
    assert flags["--port"]["aliases"] == ["-p"]
    assert flags["--log-config-file"]["deprecated"] is True
    assert flags["--tool-call-parser"]["values"] == ["hermes", "qwen3_xml"]
    assert flags["--gpu-memory-utilization"] == {
        "aliases": ["--device-memory-utilization"],
        "default": 0.9,
        "type": "float",
        "value": "yes",
    }
    assert frontend_era["spelling"]["enable_disable_pairs"] is True
    assert frontend_era["spelling"]["omni_handoff"] is True


def test_lookup_on_extracted_catalog(frontend_era: dict) -> None:
    catalog = Catalog.from_json(frontend_era)
    assert catalog.lookup("--disable-prefix-caching").negated
    assert catalog.lookup("--enable_prefix_caching").underscored
    assert catalog.lookup("--gpu-mem=0.8").via == "abbreviation"
    assert catalog.lookup("--gpu-mem=0.8").inline_value == "0.8"
    assert not catalog.lookup("--nonexistent").known


def test_wheel_input_matches_folder(tmp_path: Path, dataclass_era: dict) -> None:
    wheel = tmp_path / "vllm-0.17.9-cp38-abi3-manylinux1_x86_64.whl"
    with zipfile.ZipFile(wheel, "w") as zf:
        root = write_tree(tmp_path / "w", DATACLASS_ERA)
        for path in sorted(root.rglob("*.py")):
            zf.write(path, path.relative_to(root).as_posix())
        zf.writestr("vllm/_C.abi3.so", b"\0binary")
    assert extract_catalog(wheel) == dataclass_era


def test_bad_inputs_raise_source_error(tmp_path: Path) -> None:
    corrupt = tmp_path / "vllm-0.1.0.whl"
    corrupt.write_bytes(b"PK\x03\x04 not really a zip")
    with pytest.raises(SourceError, match="not a readable wheel"):
        extract_catalog(corrupt)
    with pytest.raises(SourceError, match="no vllm/ or vllm_omni/ package"):
        extract_catalog(tmp_path)
    write_tree(tmp_path / "empty", {"vllm/_version.py": "__version__ = '0.9.0'\n"})
    with pytest.raises(SourceError, match="no `serve` command-line flags"):
        extract_catalog(tmp_path / "empty")


def test_cli_extract_writes_sorted_compact_json(tmp_path: Path) -> None:
    source = write_tree(tmp_path / "src", EXPLICIT_ERA)
    out = tmp_path / "out" / "vllm-0.8.9.json"
    result = CliRunner().invoke(flags_group, ["extract", str(source), "-o", str(out)])
    assert result.exit_code == 0, result.output
    text = out.read_text()
    assert text == json.dumps(json.loads(text), sort_keys=True, separators=(",", ":")) + "\n"
    second = tmp_path / "again.json"
    CliRunner().invoke(flags_group, ["extract", str(source), "-o", str(second)])
    assert second.read_text() == text  # deterministic


def test_cli_bad_input_exits_2_without_traceback(tmp_path: Path) -> None:
    bad = tmp_path / "x.whl"
    bad.write_text("junk")
    result = CliRunner().invoke(flags_group, ["extract", str(bad), "-o", str(tmp_path / "o.json")])
    assert result.exit_code == 2
    assert "Traceback" not in result.output
    assert "not a readable wheel" in result.output


def test_corrupt_member_in_a_wheel(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "w", EXPLICIT_ERA)
    wheel = tmp_path / "vllm-0.8.9-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for path in sorted(root.rglob("*.py")):
            zf.writestr(path.relative_to(root).as_posix(), path.read_text() * 20)
    data = bytearray(wheel.read_bytes())
    offset = data.index(b"vllm/engine/arg_utils.py") + 60  # inside that member's compressed bytes
    data[offset : offset + 40] = bytes(40)
    wheel.write_bytes(bytes(data))
    with pytest.raises(SourceError, match="corrupt wheel member|not a readable wheel"):
        extract_catalog(wheel)


SCRIPTS_SERVE = """
    from vllm.entrypoints.openai.cli_args import make_arg_parser
    from vllm.utils import FlexibleArgumentParser

    def main():
        parser = FlexibleArgumentParser(description="vLLM CLI")
        subparsers = parser.add_subparsers(required=True)
        serve_parser = subparsers.add_parser("serve", usage="vllm serve <model_tag> [options]")
        serve_parser.add_argument("model_tag", type=str)
        serve_parser.add_argument("--config", type=str, default='', required=False)
        serve_parser = make_arg_parser(serve_parser)
        serve_parser.set_defaults(dispatch_function=serve)
        chat_parser = subparsers.add_parser("chat")
        chat_parser.add_argument("--system-prompt", type=str, default=None)
"""


def test_scripts_era_serve_parser_own_flags(tmp_path: Path) -> None:
    # 0.5.1-0.7.2 built `vllm serve` in vllm/scripts.py's main(): the serve subparser's own
    # `--config` is a flag of its own (not an abbreviation of `--config-format`), and the
    # other subcommands' flags are not serve's.
    files = {
        key: value for key, value in EXPLICIT_ERA.items() if key != "vllm/entrypoints/cli/serve.py"
    }
    files["vllm/scripts.py"] = SCRIPTS_SERVE
    flags = extract_catalog(write_tree(tmp_path / "scripts", files))["flags"]
    assert flags["--config"] == {"default": "", "type": "str", "value": "yes"}
    assert "--system-prompt" not in flags
    assert "--host" in flags
