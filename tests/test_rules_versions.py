"""RL401–RL407 (recipelint/rules/versions.py): versions and images.

RL407: a recipe that claims a vLLM release newer than every catalog says what it is judged
at. The order of versions, image references, and the guide's stated minimum (found by a
shortcut that gives what the plain pattern gives, in linear time).
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
from recipelint.rules.versions import (
    GUIDE_MINIMUM,
    IMAGE_REFERENCE,
    guide_minimums,
    parse_version,
    split_image,
)


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


def test_versions_order_pre_releases_before_releases() -> None:
    rc, final, post = (
        parse_version("0.25.0rc1"),
        parse_version("v0.25.0"),
        parse_version("0.25.0.post1"),
    )
    assert rc is not None and final is not None and post is not None
    assert rc < final < post and not rc.released and final.released
    assert parse_version("0.9.1") < parse_version("0.10.0")
    assert parse_version("nightly") is None and parse_version(None) is None


def test_image_references() -> None:
    assert split_image("vllm/vllm-openai:v0.20.0") == ("vllm/vllm-openai", "v0.20.0")
    assert split_image("quay.io/ascend/vllm-ascend:qwen3.8-a5") == (
        "quay.io/ascend/vllm-ascend",
        "qwen3.8-a5",
    )
    assert split_image("localhost:5000/x/y") == ("localhost:5000/x/y", None)
    for bad in (
        "docker pull vllm/vllm-openai:nightly",
        "vllm/VLLM:latest",
        "vllm/vllm-openai:",
        "",
    ):
        assert IMAGE_REFERENCE.match(bad) is None, bad


def test_guide_version_pattern_is_linear_on_long_blank_runs() -> None:
    import time

    from recipelint.rules.versions import GUIDE_MINIMUM

    started = time.process_time()
    assert GUIDE_MINIMUM.search("vLLM" + " " * 50_000 + "x") is None
    assert time.process_time() - started < 1.0
    assert GUIDE_MINIMUM.search("- **vLLM**: ≥ 0.23.0.").group(1) == "0.23.0"
