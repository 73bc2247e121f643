"""recipelint/rules/guide_sections.py: the section a line of a guide is in, what its words ask
of the build, and which part of the recipe a heading is about."""

from __future__ import annotations

from recipelint.rules.guide_markdown import fenced_blocks
from recipelint.rules.guide_sections import (
    FEATURE_PART,
    HARDWARE_PART,
    VARIANT_PART,
    GuideOutline,
    HardwareWords,
    asks_for_unreleased,
    parts_named,
)

PROFILES = {"mi355x": {"brand": "AMD", "display_name": "AMD MI355X", "generation": "cdna4"}}
GUIDE = "Intro.\n\n## One\n\ntext one\n\n```bash\n## not a heading\n```\n\n### Two\n\ntext two\n"


def _outline(text: str = GUIDE) -> GuideOutline:
    return GuideOutline(text, fenced_blocks(text), HardwareWords(PROFILES, {}))


def test_a_section_runs_from_its_heading_to_the_next_whatever_its_level() -> None:
    outline = _outline()
    assert outline.section_text(1) is None  # the opening speaks for the whole model
    assert outline.section_text(5) == "## One\n\ntext one\n\n```bash\n## not a heading\n```\n"
    assert outline.section_text(3) == outline.section_text(5)  # the heading's own line
    assert outline.section_text(13) == "### Two\n\ntext two\n"


def test_the_titles_above_a_line_are_its_heading_and_its_parents() -> None:
    outline = _outline()
    assert outline.titles_above(13) == ["Two", "One"]
    assert outline.titles_above(5) == ["One"]
    assert outline.titles_above(1) == []


def test_words_that_ask_for_a_build_past_the_releases() -> None:
    for text in (
        "Run `vllm/vllm-tpu:nightly-20260330-2f76400`.",
        "docker run vllm/vllm-openai:nightly",
        "It ships in the nightly TPU image.",
        "Requires nightly.",
        "pip install --extra-index-url https://wheels.vllm.ai/nightly vllm",
        "vLLM 0.30.0 isn't released yet.",
        "See https://github.com/vllm-project/vllm/pull/47433.",
    ):
        assert asks_for_unreleased(text), text
    for text in (
        "Works on every release.",
        "This does not need nightly.",
        "Use acme/tool:nightly for the client.",
        "See https://github.com/vllm-project/recipes/pull/12.",
    ):
        assert not asks_for_unreleased(text), text


def test_a_heading_names_hardware_a_feature_or_a_variant() -> None:
    words = HardwareWords(PROFILES, {})
    data = {
        "features": {"tool_calling": {"description": "Tool calls", "args": ["--tool-call-parser"]}},
        "variants": {"default": {}, "fp8": {"model_id": "acme/demo-FP8"}},
    }
    assert parts_named("On AMD MI355X", words, data) == {HARDWARE_PART}
    assert parts_named("Tool Calling", words, data) == {FEATURE_PART}
    assert parts_named("Using `--tool-call-parser`", words, data) == {FEATURE_PART}
    assert parts_named("The FP8 checkpoint", words, data) == {VARIANT_PART}
    assert parts_named("Serving acme/demo-FP8", words, data) == {VARIANT_PART}
    assert parts_named("Default settings", words, data) == set()
    assert parts_named("Installation", words, data) == set()
    assert parts_named("Anything", words, {"features": "no mapping", "variants": [1]}) == set()


def test_a_variant_is_named_by_the_checkpoint_it_serves_alone() -> None:
    data = {"variants": {"quantized": {"model_id": "acme/demo-w4a16"}}}
    words = HardwareWords(PROFILES, {})
    assert parts_named("Serving acme/demo-W4A16", words, data) == {VARIANT_PART}


def test_a_feature_is_named_by_two_words_of_its_description_or_its_one_word() -> None:
    words = HardwareWords(PROFILES, {})
    eagle = {"features": {"spec_decoding": {"description": "EAGLE3 speculative decoding"}}}
    assert parts_named("EAGLE3 speculative drafting", words, eagle) == {FEATURE_PART}
    assert parts_named("EAGLE3 drafting", words, eagle) == set()
    mtp = {"features": {"spec_decoding": {"description": "MTP (multi-token prediction)"}}}
    assert parts_named("MTP", words, mtp) == {FEATURE_PART}


HOPPER = {
    "h100": {"brand": "NVIDIA", "generation": "hopper", "display_name": "H100"},
    "h200": {"brand": "NVIDIA", "generation": "hopper", "display_name": "H200"},
    "gh": {"brand": "NVIDIA", "generation": "grace", "display_name": "Hopper"},
    "b2": {"brand": "NVIDIA", "generation": "blackwell", "display_name": "B2"},
}


def test_hardware_words_name_every_profile_that_shares_them_most_specific_first() -> None:
    words = HardwareWords(HOPPER, {})
    assert words.named("on NVIDIA") == {"h100", "h200", "gh", "b2"}
    assert words.named("the Grace boxes") == {"gh"}
    # a display name (a profile) is more specific than the generation of the same word
    assert words.named("on Hopper") == {"gh"}
    assert words.named("on the B2") == {"b2"}  # two characters are enough


def test_a_brand_before_a_slash_is_an_organisation_not_its_hardware() -> None:
    words = HardwareWords(HOPPER, {})
    assert words.named("weights from nvidia/Nemotron-Nano") == frozenset()


def test_a_taxonomy_without_hardware_names_none_in_any_text() -> None:
    words = HardwareWords({}, {})
    assert words.named("Über die H100") == frozenset()
    assert words.named("plain text") == frozenset()
