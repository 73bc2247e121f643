"""RL411–RL413: fields and arguments the upstream contributor docs tie to a release or an install."""

from __future__ import annotations

from pathlib import Path

import pytest
from treehelp import Fragment, findings_by_code

from recipelint.flags.catalog import available_versions, version_key
from recipelint.flags.env_catalog import env_releases

RECIPE = "models/acme/demo.yaml"
TEMPLATE_ARGS = '["--chat-template", "examples/tool_chat_template_hermes.jinja"]'


def _found(tmp_path: Path, fragment: str, code: str) -> list[tuple[tuple[str | int, ...], str]]:
    found = findings_by_code(tmp_path, {RECIPE: Fragment(fragment)})
    return [(d.pointer, d.message) for d in found.get(code, [])]


def _omni(minimum: str) -> str:
    return (
        f'meta:\n  tasks: [omni]\nmodel:\n  min_vllm_version: "{minimum}"\n'
        'omni:\n  serve_binary: "vllm-omni serve"\n  tasks: [t2i]\n'
    )


@pytest.mark.parametrize("minimum", ["0.20.0", "0.24.1", "nightly"])
def test_serve_binary_from_0_20_on_is_reported(tmp_path: Path, minimum: str) -> None:
    assert _found(tmp_path, _omni(minimum), "RL411") == [
        (
            ("omni", "serve_binary"),
            f"omni.serve_binary is set, but min_vllm_version is {minimum}: from vLLM 0.20.0 on, "
            "`vllm serve --omni` hands the model to vllm-omni itself",
        )
    ]


def test_serve_binary_below_0_20_is_what_the_field_is_for(tmp_path: Path) -> None:
    assert _found(tmp_path, _omni("0.18.0"), "RL411") == []


def test_a_checkout_path_under_a_package_install_is_reported(tmp_path: Path) -> None:
    fragment = (
        "features:\n  tool_calling:\n    description: t\n"
        '    args: ["--enable-auto-tool-choice", "--tool-call-parser", "hermes", '
        '"--chat-template", "examples/tool_chat_template_hermes.jinja"]\n'
    )
    ((pointer, message),) = _found(tmp_path, fragment, "RL412")
    assert pointer == ("features", "tool_calling", "args", 4)
    assert message == (
        "`examples/tool_chat_template_hermes.jinja` is a path inside a vLLM source checkout, "
        "but the recipe installs vLLM from a package (`uv pip install -U vllm --torch-backend "
        "auto`), which puts no examples/ folder in the working directory: vLLM cannot open the file"
    )


@pytest.mark.parametrize(
    "item",
    [
        "--chat-template=./examples/template.jinja",
        "tools/chat/template.jinja",
        "vllm/entrypoints/openai/tool_parsers/hermes_tool_parser.py",
    ],
)
def test_other_checkout_paths_are_reported(tmp_path: Path, item: str) -> None:
    fragment = f'model:\n  base_args: ["--chat-template", "x.jinja", "{item}"]\n'
    assert [pointer for pointer, _ in _found(tmp_path, fragment, "RL412")] == [
        ("model", "base_args", 2)
    ]


@pytest.mark.parametrize(
    "item",
    [
        "/models/examples/template.jinja",  # absolute: the author put it there
        "nano_v3_reasoning_parser.py",  # downloaded beside the command
        "vllm/vllm-openai",  # no source file
        "examples",
    ],
)
def test_paths_outside_a_checkout_are_left_alone(tmp_path: Path, item: str) -> None:
    fragment = f'model:\n  base_args: ["--chat-template", "{item}"]\n'
    assert _found(tmp_path, fragment, "RL412") == []


@pytest.mark.parametrize(
    "install",
    [
        "    pip: false\n",
        '    pip:\n      command: "git clone https://github.com/vllm-project/vllm && '
        'cd vllm && uv pip install -e ."\n',
    ],
)
def test_no_package_install_means_no_finding(tmp_path: Path, install: str) -> None:
    fragment = f"model:\n  install:\n{install}  base_args: {TEMPLATE_ARGS}\n"
    assert _found(tmp_path, fragment, "RL412") == []


def _released() -> str:
    releases = sorted({*env_releases(), *available_versions()}, key=version_key)
    return releases[len(releases) // 2]


def test_nightly_required_on_a_shipped_release_is_reported(tmp_path: Path) -> None:
    version = _released()
    fragment = f'model:\n  min_vllm_version: "{version}"\n  nightly_required: true\n'
    assert _found(tmp_path, fragment, "RL413") == [
        (
            ("model", "nightly_required"),
            f"nightly_required is set, but vLLM {version} (min_vllm_version) has been released: "
            f"the install block still sends readers to nightly wheels and says {version} "
            "isn't released yet",
        )
    ]


def test_a_variant_is_judged_at_its_own_minimum(tmp_path: Path) -> None:
    unreleased = "0.999.0"
    assert all(version_key(r) < version_key(unreleased) for r in env_releases())
    fragment = (
        f"variants:\n  fp8:\n    precision: fp8\n    vram_minimum_gb: 10\n"
        f'    min_vllm_version: "{unreleased}"\n    nightly_required: true\n'
        f"  fp4:\n    precision: nvfp4\n    vram_minimum_gb: 10\n    nightly_required: true\n"
    )
    assert [pointer for pointer, _ in _found(tmp_path, fragment, "RL413")] == [
        ("variants", "fp4", "nightly_required")
    ]


@pytest.mark.parametrize("minimum", ["nightly", "0.999.0"])
def test_nightly_required_before_the_release_is_what_it_is_for(
    tmp_path: Path, minimum: str
) -> None:
    fragment = f'model:\n  min_vllm_version: "{minimum}"\n  nightly_required: true\n'
    assert _found(tmp_path, fragment, "RL413") == []


ODD_SHAPES = """\
meta: {title: D, slug: d, provider: A, description: d, date_added: 2026-01-10,
  date_updated: 2026-01-12, difficulty: beginner, tasks: [omni]}
model:
  model_id: acme/demo
  min_vllm_version: [1, 2]
  nightly_required: true
  install: {pip: [1], docker: 3}
  docker_image: {nvidia: {cu130: 5}}
  base_args: [1, null, "x", {a: 1}, "examples/x.jinja"]
  base_env: [1, 2]
omni: {serve_binary: 7, tasks: "t2i"}
variants:
  default: {precision: bf16, vram_minimum_gb: 20, min_vllm_version: "garbage",
    nightly_required: true, extra_env: {VLLM_USE_V1: null}, hardware_overrides: [1]}
  v2: [1]
features: {a: {args: [], modes: [1], hardware_overrides: [1]}, b: 5}
strategy_overrides: {pd_cluster: {prefill: [1], decode: {env: [1]}}}
compatible_strategies: [single_node_tp]
guide: "x"
"""


def test_odd_shapes_are_skipped_without_a_traceback(tmp_path: Path) -> None:
    """Wrong types are the schema stage's findings; these families read past them."""
    found = findings_by_code(tmp_path, {RECIPE: ODD_SHAPES})
    assert "RL102" in found  # the schema stage did see the wrong types
    families = ("RL22", "RL32", "RL36", "RL41")
    assert [code for code in found if code.startswith(families)] == []


def test_a_flag_value_is_all_the_text_after_its_first_equals_sign(tmp_path: Path) -> None:
    """`examples/template.jinja=v2` holds an `=`, which no file path of a checkout does."""
    fragment = 'model:\n  base_args: ["--chat-template=examples/template.jinja=v2"]\n'
    assert _found(tmp_path, fragment, "RL412") == []
