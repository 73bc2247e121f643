"""RL401–RL407 (recipelint/rules/versions.py): versions and images.

RL407: a recipe that claims a vLLM release newer than every catalog says what it is judged
at. The guide's stated minimum is found by a shortcut that gives what the plain pattern gives.
"""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st
from propertyprofile import property_profile
from treehelp import Fragment, build_tree, checked

from recipelint.cli import cli
from recipelint.flags.catalog import newest_catalog
from recipelint.rules.versions import GUIDE_MINIMUM, guide_minimums


def _next_minor(version: str) -> str:
    major, minor = version.split(".")[:2]
    return f"{major}.{int(minor) + 1}.0"


def test_a_minimum_past_the_newest_catalog_names_the_release_judged(tmp_path: Path) -> None:
    newest = newest_catalog().version
    future = _next_minor(newest)
    documents = {
        "models/acme/demo.yaml": Fragment(
            f'model:\n  min_vllm_version: "{future}"\n  docker_image: "vllm/vllm-openai:v{future}"\n'
        )
    }
    found = [d for d in checked(tmp_path, documents) if d.code == "RL407"]
    assert [d.pointer for d in found] == [("model", "min_vllm_version"), ("model", "docker_image")]
    assert all(f"vLLM {future} is newer" in d.message for d in found)
    assert all(f"judged as {newest} reads them" in d.message for d in found)
    assert all(d.severity.name == "INFO" for d in found)


def test_the_newest_catalog_and_nightly_minimums_claim_nothing_new(tmp_path: Path) -> None:
    newest = newest_catalog().version
    documents = {
        "models/acme/demo.yaml": Fragment(f'model:\n  min_vllm_version: "{newest}"\n'),
        "models/acme/nightly.yaml": Fragment(
            f'model:\n  min_vllm_version: "{_next_minor(newest)}"\n  nightly_required: true\n'
            '  docker_image: "vllm/vllm-openai:nightly"\n'
        ),
    }
    assert [d for d in checked(tmp_path, documents) if d.code == "RL407"] == []


def test_through_the_command_line(tmp_path: Path) -> None:
    future = _next_minor(newest_catalog().version)
    root = build_tree(
        tmp_path, {"models/acme/demo.yaml": Fragment(f'model:\n  min_vllm_version: "{future}"\n')}
    )
    result = CliRunner().invoke(
        cli, ["check", str(root / "models/acme/demo.yaml"), "--select", "RL407"]
    )
    assert result.exit_code == 0, result.output  # an info finding fails nothing
    assert "RL407" in result.output and "recipelint flags update" in result.output


GUIDE_WORDS = st.sampled_from(
    [
        "vLLM >= 0.11",
        "vllm 0.11.0 or later",
        "VLLM: ≥ v1.2",
        "**vLLM** version >= 0.10.1",
        "vLlM  1.2.3 OR NEWER",
        "pip install vllm>=0.9",
        "vllm/vllm-openai",
        "vllm",
        " ",
        "\n",
        "*",
        ">=",
        "İ",
        "ß",
        "x",
    ]
)


@property_profile(500)
@given(st.lists(GUIDE_WORDS, max_size=16))
def test_guide_minimums_are_the_pattern_s_matches(words: list[str]) -> None:
    text = "".join(words)
    expected = [(m.span(), m.groups()) for m in GUIDE_MINIMUM.finditer(text)]
    assert [(m.span(), m.groups()) for m in guide_minimums(text)] == expected
