"""RL607 (recipelint/rules/guide_hardware.py): guide commands judged for the hardware their
heading or paragraph names.

Its shortcuts give what the plain computation gives: RL607 reads only the guide blocks in
which something selects, tests plain substrings before its selecting pattern, and scans a
heading for hardware words only when its lowercase holds one.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import example, given
from hypothesis import strategies as st
from propertyprofile import property_profile
from treehelp import (
    NPU_PROFILE,
    Fragment,
    build_tree,
    context_text,
    findings_by_code,
    taxonomy_with,
)

from recipelint.cli import cli
from recipelint.diagnostics import Diagnostic, Severity
from recipelint.read.tree import load_tree
from recipelint.rules.common import guide_text
from recipelint.rules.context import CheckContext
from recipelint.rules.guide import GuideFacts
from recipelint.rules.guide_hardware import (
    SELECTING_TEXT,
    _may_select,
    _selecting_commands,
    _selects,
)
from recipelint.rules.guide_sections import HEADING, GuideOutline, HardwareWords

RECIPE = "models/acme/demo.yaml"


def _guide(markdown: str, recipe: str = "") -> Fragment:
    body = textwrap.indent(textwrap.dedent(markdown).strip("\n"), "  ")
    return Fragment(f"{recipe}guide: |\n{body}\n")


def _rl607(tmp_path: Path, markdown: str, recipe: str = "") -> list[Diagnostic]:
    return findings_by_code(tmp_path, {RECIPE: _guide(markdown, recipe)}).get("RL607", [])


def _line_of(tmp_path: Path, needle: str) -> tuple[int, int]:
    """(line, column) of ``needle`` in the written recipe, as findings count them."""
    lines = (tmp_path / RECIPE).read_text(encoding="utf-8").splitlines()
    number = next(n for n, text in enumerate(lines, 1) if needle in text)
    return number, lines[number - 1].index(needle) + 1


def test_a_backend_the_headings_hardware_refuses_is_reported_at_the_option(
    tmp_path: Path,
) -> None:
    [finding] = _rl607(
        tmp_path,
        """
        ## AMD MI300X

        ```bash
        vllm serve acme/demo --attention-backend FLASHINFER
        ```
        """,
    )
    assert finding.severity is Severity.WARNING
    assert (finding.span.line, finding.span.column) == _line_of(tmp_path, "FLASHINFER")
    line, column = _line_of(tmp_path, "FLASHINFER")
    assert finding.span.end_column == column + len("FLASHINFER")
    assert finding.message == (
        "the guide's command under “AMD MI300X” selects the attention backend `FLASHINFER` "
        "(`--attention-backend FLASHINFER`) for MI300X, but in vLLM 0.20.0 only the cuda "
        "platform selects it: it does not run there"
    )


def test_the_paragraph_before_a_block_decides_before_the_heading(tmp_path: Path) -> None:
    findings = _rl607(
        tmp_path,
        """
        ## NVIDIA

        On 8xMI300X, run:

        ```bash
        vllm serve acme/demo --attention-backend FLASHINFER
        ```

        ```bash
        vllm serve acme/demo --attention-backend FLASHINFER --max-num-seqs 8
        ```
        """,
    )
    assert [f.message.split(" for ")[1][:6] for f in findings] == ["MI300X"]


def test_a_heading_for_a_generation_judges_the_command_for_it(tmp_path: Path) -> None:
    [finding] = _rl607(
        tmp_path,
        """
        ## Deployment

        ### Hopper

        ```bash
        vllm serve acme/demo --attention-backend ROCM_AITER_FA
        ```
        """,
    )
    assert "for H100, H200, but" in finding.message


def test_sections_for_several_brands_or_none_or_unclear_words_judge_nothing(
    tmp_path: Path,
) -> None:
    # "CPU" is also a kv_offload option's word: it may or may not mean hardware.
    assert (
        _rl607(
            tmp_path,
            """
            ## NVIDIA H100 and AMD MI300X

            ```bash
            vllm serve acme/demo --attention-backend FLASHINFER
            ```

            ## Launch

            ```bash
            vllm serve acme/demo --attention-backend ROCM_AITER_FA
            ```

            ## AMD

            ### CPU offload

            ```bash
            vllm serve acme/demo --attention-backend FLASHINFER
            ```

            Serve nvidia/Demo-FP8 on MI300X with `vllm serve acme/demo --quantization fp8`.
            """,
        )
        == []
    )


def test_an_image_of_another_brand_is_reported_and_the_brands_own_is_not(
    tmp_path: Path,
) -> None:
    findings = _rl607(
        tmp_path,
        """
        ## NVIDIA H100

        ```bash
        docker run --gpus all vllm/vllm-openai-rocm:latest acme/demo
        ```

        ## AMD MI300X

        ```bash
        docker run --device=/dev/kfd vllm/vllm-openai-rocm:latest acme/demo
        ```
        """,
    )
    [finding] = findings
    assert (finding.span.line, finding.span.column) == _line_of(tmp_path, "vllm/vllm-openai-rocm")
    assert finding.message == (
        "the guide runs `vllm/vllm-openai-rocm:latest` under “NVIDIA H100”, but that is the "
        "rocm image, which H100 does not run"
    )
    assert finding.hint is not None and finding.hint.startswith("use `vllm/vllm-openai`")


BLACKWELL_ONLY_MOE = """\
hardware_overrides:
  blackwell:
    extra_args: ["--moe-backend", "triton"]
"""


def test_a_backend_the_recipe_keeps_to_one_generation_is_reported_where_a_command_serves_more(
    tmp_path: Path,
) -> None:
    [finding] = _rl607(
        tmp_path,
        """
        ## Launch

        ```bash
        vllm serve acme/demo --moe-backend triton
        ```

        ## NVIDIA Blackwell

        ```bash
        vllm serve acme/demo --moe-backend triton
        ```
        """,
        BLACKWELL_ONLY_MOE,
    )
    assert finding.message.startswith(
        "the recipe selects the MoE backend `triton` only for blackwell hardware "
        "(hardware_overrides.blackwell.extra_args), but the guide's command under no hardware "
        "heading that selects it also serves h200, h100, mi300x"
    )


NVFP4_ONLY_TRITON = """\
variants:
  default:
    precision: bf16
    vram_minimum_gb: 20
  nvfp4:
    model_id: acme/demo-NVFP4
    precision: nvfp4
    vram_minimum_gb: 10
    extra_args: ["--moe-backend", "triton"]
"""


def test_a_command_serving_a_checkpoint_only_one_generation_runs_is_not_confined(
    tmp_path: Path,
) -> None:
    variants = NVFP4_ONLY_TRITON
    assert (
        _rl607(
            tmp_path,
            """
            ## NVIDIA

            ```bash
            vllm serve acme/demo-NVFP4 --moe-backend triton
            ```
            """,
            variants,
        )
        == []
    )


def test_the_cli_reports_it_in_a_tree(tmp_path: Path) -> None:
    guide = _guide(
        """
        ## AMD MI300X

        ```bash
        vllm serve acme/demo --attention-backend FLASHINFER
        ```
        """
    )
    root = build_tree(tmp_path / "tree", {RECIPE: guide})
    result = CliRunner().invoke(
        cli, ["check", "--select", "RL607", "--format", "json", str(root)], catch_exceptions=False
    )
    assert result.exit_code == 0  # a warning
    [finding] = json.loads(result.stdout)
    assert (finding["code"], finding["path"].endswith(RECIPE)) == ("RL607", True)


def test_an_organisations_repository_or_inline_code_names_no_hardware(tmp_path: Path) -> None:
    [finding] = _rl607(
        tmp_path,
        """
        Serve the nvidia/Demo-FP8 build (`--gpus all` is not needed) on MI300X:

        ```bash
        vllm serve acme/demo --attention-backend FLASHINFER
        ```
        """,
    )
    assert "under “Serve the nvidia/Demo-FP8 build" in finding.message
    assert "for MI300X, but" in finding.message


def test_a_broken_taxonomy_leaves_it_to_the_root_cause(tmp_path: Path) -> None:
    # A usable taxonomy with a schema error where hardware is defined: its findings would be echoes.
    text = context_text("taxonomy.yaml")
    at = text.index("generation: amd", text.index("  mi300x:"))
    taxonomy = text[:at] + "generation: 5" + text[at + len("generation: amd") :]
    guide = _guide(
        """
        ## AMD MI300X

        ```bash
        vllm serve acme/demo --attention-backend FLASHINFER
        ```
        """
    )
    found = findings_by_code(tmp_path, {RECIPE: guide, "taxonomy.yaml": taxonomy})
    assert "RL607" not in found and "RL020" in found


# --- shortcuts -----------------------------------------------------------------------------


# Lines that select, name hardware, serve, fence, or break lines in other ways than "\n".
GUIDE_LINES = st.sampled_from(
    [
        "```bash",
        "```",
        "  ```",
        "~~~sh",
        "~~~",
        "```python",
        "vllm serve org/model \\",
        "  --attention-backend FLASHINFER",
        "-q fp8",
        "  -q fp8 vllm serve m",
        "  -q=awq \\",
        "  --quantization fp8",
        "VLLM_ATTENTION_BACKEND=TRITON_ATTN vllm serve org/model",
        "docker run vllm/vllm-openai:latest org/model --moe-backend x",
        "Run `vllm serve org/model -q fp8` on H200.",
        "echo `vllm serve m --attention_backend X`",
        "## On MI355X",
        "### NVIDIA B200",
        "> ```bash",
        "> vllm serve m -q fp8",
        "pip install -q vllm",
        "",
        "text\rmore -q x",
        "\x0c",
    ]
)


HEADING_LINES = st.sampled_from(
    [
        "# H200",
        "   ## On MI355X ##",
        "    # code",
        "#no",
        "###### x #",
        "####### seven",
        "#",
        "# \r",
        "\t# tab",
    ]
)


def _plain_selecting(facts: GuideFacts) -> list[object]:
    return [command for command in facts.commands if command.lines and _may_select(command)]


def _kept(commands: object) -> list[object]:
    return [c for c in commands if c.lines and _may_select(c)]  # type: ignore[attr-defined]


@property_profile(400)
@given(st.lists(GUIDE_LINES, max_size=14))
# An indented block whose first line selects: only its margin puts a space before `-q`.
@example(["  ```", "  -q fp8 vllm serve m", "  ```"])
def test_selecting_commands_are_the_commands_that_select(lines: list[str]) -> None:
    text = "\n".join(lines)
    assert _kept(_selecting_commands(GuideFacts(text))) == _plain_selecting(GuideFacts(text))


@property_profile(400)
@given(st.lists(GUIDE_LINES, max_size=8).map(" ".join))
def test_selects_is_the_pattern_s_search(text: str) -> None:
    assert _selects(text) == bool(SELECTING_TEXT.search(text))


# `\s` is Unicode whitespace: the separators below ASCII space and the no-break space too.
SHORT_Q_TEXT = st.text(
    alphabet=st.sampled_from(["-", "q", " ", "=", "\t", "\n", "\x1c", "\xa0", "\u2028", "a"]),
    max_size=12,
)


@property_profile(800)
@given(SHORT_Q_TEXT)
# `-q` first: nothing stands before it, not even the whitespace that ends the text.
@example("-q ")
def test_short_options_are_the_pattern_s(text: str) -> None:
    assert _selects(text) == bool(SELECTING_TEXT.search(text))


def test_corpus_guides_select_alike(corpus_tree: Path) -> None:
    tree = load_tree(corpus_tree)
    read = 0
    for doc in tree.recipes:
        text = guide_text(doc)
        if not text:
            continue
        assert _selects(text) == bool(SELECTING_TEXT.search(text))
        facts = GuideFacts(text)
        assert _kept(_selecting_commands(facts)) == _plain_selecting(GuideFacts(text))
        read += 1
    assert read > 50


HEADING_WORDS = st.sampled_from(
    [
        "H200",
        "8xH200",
        "2× MI300X",
        "nvidia/",
        "NVIDIA",
        "Blackwell",
        "cpu",
        "CPU offload",
        "ſ",  # long s: case folding matches it with s, lower() does not
        "\u212a",  # Kelvin sign: folds to k
        "İ",
        "`H100`",
        "sm_90",
        "SM100",
        "gfx942",
        "rtx pro 6000",
        "On",
        " ",
        "-",
        "_",
        "x",
    ]
)


@pytest.fixture(scope="module")
def hardware_words(corpus_tree: Path) -> HardwareWords:
    tree = load_tree(corpus_tree)
    ctx = CheckContext(tree)
    return HardwareWords(ctx.profiles, tree.taxonomy.data if tree.taxonomy else None)


def _scanned(words: HardwareWords, text: str) -> frozenset[str] | None:
    """named() without the substring test: every text scanned by the pattern."""
    holds = words._may_hold_a_word
    words._may_hold_a_word = lambda lowered: True  # type: ignore[method-assign]
    try:
        return words._read(text)
    finally:
        words._may_hold_a_word = holds  # type: ignore[method-assign]


def test_named_is_the_scan_s_reading(hardware_words: HardwareWords) -> None:
    @property_profile(500)
    @given(st.lists(HEADING_WORDS, max_size=6).map(" ".join))
    def check(text: str) -> None:
        assert hardware_words.named(text) == _scanned(hardware_words, text)

    check()


def _scanned_headings(outline: GuideOutline) -> list[tuple[int, int, str]]:
    """The headings by one scan of the whole guide."""
    found = []
    for match in HEADING.finditer(outline.text):
        number = outline.text.count("\n", 0, match.start()) + 1
        if outline.fence_of(number) is None:
            found.append((number, len(match.group(1)), match.group(2)))
    return found


@property_profile(400)
@given(st.lists(GUIDE_LINES | HEADING_LINES, max_size=14).map("\n".join))
def test_headings_are_the_scan_s(text: str) -> None:
    facts = GuideFacts(text)
    outline = GuideOutline(text, facts.blocks, HardwareWords({}, None))
    assert outline.headings == _scanned_headings(outline)


# --- which text decides a command's section -----------------------------------------------

FLASHINFER_BLOCK = "```bash\nvllm serve acme/demo --attention-backend FLASHINFER\n```\n"


def _sections(tmp_path: Path, markdown: str, recipe: str = "") -> list[str]:
    """The section each RL607 finding names."""
    return [f.message.split("“")[1].split("”")[0] for f in _rl607(tmp_path, markdown, recipe)]


def test_a_platform_names_the_hardware_of_its_brand(tmp_path: Path) -> None:
    [finding] = _rl607(tmp_path, "## ROCm\n\n" + FLASHINFER_BLOCK)
    assert "under “ROCm” selects the attention backend `FLASHINFER`" in finding.message
    assert "for MI300X, MI325X, MI355X, but" in finding.message


def test_a_comment_inside_a_block_is_no_heading(tmp_path: Path) -> None:
    markdown = (
        "## NVIDIA H100\n\n```bash\n# MI300X users: see below\n"
        "vllm serve acme/demo --attention-backend FLASHINFER\n```\n"
    )
    assert _rl607(tmp_path, markdown) == []


def test_a_prose_command_s_own_line_decides_not_the_next(tmp_path: Path) -> None:
    markdown = (
        "## AMD MI300X\n\nRun `vllm serve acme/demo --attention-backend FLASHINFER`.\n"
        "On H100 it is faster.\n"
    )
    assert _sections(tmp_path, markdown) == ["AMD MI300X"]


def test_every_line_of_the_paragraph_before_a_block_is_read(tmp_path: Path) -> None:
    markdown = "## NVIDIA\n\nOn MI300X,\nrun the following:\n\n" + FLASHINFER_BLOCK
    assert _sections(tmp_path, markdown) == ["On MI300X, run the following:"]


def test_a_paragraph_past_sixty_characters_is_named_by_its_first_words(tmp_path: Path) -> None:
    sixty = "On MI300X run this command with these options, here and ther"
    assert len(sixty) == 60
    markdown = f"## NVIDIA\n\n{sixty}\n\n" + FLASHINFER_BLOCK
    assert _sections(tmp_path / "sixty", markdown) == [sixty]
    markdown = f"## NVIDIA\n\n{sixty}e\n\n" + FLASHINFER_BLOCK
    assert _sections(tmp_path / "longer", markdown) == [
        "On MI300X run this command with these options, here and …"
    ]


def test_a_backend_selected_by_the_variable_is_named_as_written(tmp_path: Path) -> None:
    markdown = (
        "## AMD MI300X\n\n```bash\nVLLM_ATTENTION_BACKEND=FLASHINFER vllm serve acme/demo\n```\n"
    )
    [finding] = _rl607(tmp_path, markdown, 'model:\n  min_vllm_version: "0.10.0"\n')
    assert "the attention backend `FLASHINFER` (`VLLM_ATTENTION_BACKEND=FLASHINFER`)" in (
        finding.message
    )
    assert (finding.span.line, finding.span.column) == _line_of(tmp_path, "VLLM_ATTENTION")
    assert finding.span.end_column == finding.span.column + len("VLLM_ATTENTION_BACKEND=FLASHINFER")


def test_a_quantization_method_follows_the_checkpoint_not_the_hardware(tmp_path: Path) -> None:
    recipe = 'hardware_overrides:\n  blackwell:\n    extra_args: ["--quantization", "fp8"]\n'
    markdown = "## Launch\n\n```bash\nvllm serve acme/demo --quantization fp8\n```\n"
    assert _rl607(tmp_path, markdown, recipe) == []


def test_a_checkpoint_given_by_the_model_option_is_the_one_served(tmp_path: Path) -> None:
    markdown = (
        "## NVIDIA\n\n```bash\nvllm serve --moe-backend triton --model acme/demo-NVFP4\n"
        "vllm serve --model acme/demo-NVFP4 --moe-backend triton\n```\n"
    )
    assert _rl607(tmp_path / "named", markdown, NVFP4_ONLY_TRITON) == []
    unnamed = "## NVIDIA\n\n```bash\nvllm serve --moe-backend triton --model\n```\n"
    [finding] = _rl607(tmp_path / "unnamed", unnamed, NVFP4_ONLY_TRITON)
    assert finding.message.startswith(
        "the recipe selects the MoE backend `triton` only for blackwell hardware "
        "(variants.nvfp4.extra_args), but the guide's command under “NVIDIA” that selects it "
        "also serves "
    )


def test_a_command_written_in_a_heading_is_not_under_the_sibling_before_it(
    tmp_path: Path,
) -> None:
    markdown = (
        "# Deploy\n\n## AMD MI300X\n\nSee the image below.\n\n"
        "## Run `vllm serve acme/demo --attention-backend FLASHINFER`\n\nOn any GPU.\n"
    )
    assert _rl607(tmp_path / "sibling", markdown) == []
    nested = markdown.replace("## Run", "### Run")
    assert _sections(tmp_path / "nested", nested) == ["AMD MI300X"]


def test_a_heading_after_a_prose_command_is_not_its_section(tmp_path: Path) -> None:
    markdown = (
        "## NVIDIA H100\n\nRun `vllm serve acme/demo --attention-backend FLASHINFER`\n"
        "## AMD MI300X\n\nSee below.\n"
    )
    assert _rl607(tmp_path, markdown) == []


# --- what narrows the hardware a command is judged for ------------------------------------


def test_four_hardware_are_all_named_and_a_fifth_is_left_to_an_ellipsis(tmp_path: Path) -> None:
    block = "```bash\nvllm serve acme/demo --attention-backend ROCM_AITER_FA\n```\n"
    [four] = _rl607(tmp_path / "four", "## H100, H200, B200 and B300\n\n" + block)
    assert "for B200, B300, H100, H200, but in vLLM" in four.message
    [five] = _rl607(tmp_path / "five", "## H100, H200, B200, B300 and GB200\n\n" + block)
    assert "for B200, B300, GB200 NVL4, H100, …, but in vLLM" in five.message


def test_hardware_no_built_in_platform_runs_is_not_judged(tmp_path: Path) -> None:
    # vLLM's catalogs describe no plugin platform: a section for its hardware cannot refuse.
    taxonomy = taxonomy_with(NPU_PROFILE)
    guide = _guide("## Huawei NPU X\n\n" + FLASHINFER_BLOCK)
    found = findings_by_code(tmp_path, {RECIPE: guide, "taxonomy.yaml": taxonomy})
    assert "RL607" not in found


def test_a_command_running_an_image_serves_only_the_brands_it_is_built_for(
    tmp_path: Path,
) -> None:
    served = {}
    for image in ("vllm/vllm-openai", "vllm/vllm-openai-rocm"):
        markdown = (
            f"## Launch\n\n```bash\ndocker run {image}:latest acme/demo --moe-backend triton\n```\n"
        )
        [finding] = _rl607(tmp_path / image.replace("/", "_"), markdown, BLACKWELL_ONLY_MOE)
        served[image] = finding.message.split("also serves ")[1]
    assert served == {
        "vllm/vllm-openai": "h200, h100",
        "vllm/vllm-openai-rocm": "mi300x, mi325x, mi355x",
    }


def test_a_backend_selected_by_the_variable_is_the_one_the_recipe_selects_by_option(
    tmp_path: Path,
) -> None:
    recipe = (
        'hardware_overrides:\n  blackwell:\n    extra_args: ["--attention-backend", "FLASHINFER"]\n'
    )
    markdown = "## Launch\n\n```bash\nVLLM_ATTENTION_BACKEND=FLASHINFER vllm serve acme/demo\n```\n"
    [finding] = _rl607(tmp_path, markdown, recipe)
    assert finding.message.startswith(
        "the recipe selects the attention backend `FLASHINFER` only for blackwell hardware "
        "(hardware_overrides.blackwell.extra_args), but the guide's command under no hardware "
        "heading that selects it also serves h200, h100, mi300x, mi325x, …"
    )


# One variant, for B200 only (a TPU is restricted, offered only where meta.hardware names it).
B200_ONLY_TRITON = NVFP4_ONLY_TRITON.replace(
    "    precision: nvfp4\n    vram_minimum_gb: 10\n",
    "    precision: bf16\n    vram_minimum_gb: 10\n    supported_hardware: [b200, trillium]\n",
)


def test_a_variant_whose_hardware_cannot_be_worked_out_confines_nothing(tmp_path: Path) -> None:
    markdown = "## NVIDIA\n\n```bash\nvllm serve acme/demo --moe-backend triton\n```\n"
    [finding] = _rl607(tmp_path / "valid", markdown, B200_ONLY_TRITON)
    assert "only for blackwell hardware (variants.nvfp4.extra_args)" in finding.message
    # A string where meta.hardware maps hardware: asking it for the TPU throws, as upstream's
    # `in` does, so no variant's hardware is known.
    broken = 'meta:\n  hardware: "trillium"\n' + B200_ONLY_TRITON
    assert _rl607(tmp_path / "broken", markdown, broken) == []


def test_a_block_left_open_at_a_guide_s_end_is_read_to_its_last_line(tmp_path: Path) -> None:
    # `|-` keeps no final line break: the block's last line is the guide's last.
    guide = Fragment(
        "guide: |-\n  ## NVIDIA H100\n\n  ```bash\n"
        "  docker run --gpus all vllm/vllm-openai-rocm:latest acme/demo"
    )
    [finding] = findings_by_code(tmp_path, {RECIPE: guide})["RL607"]
    assert (finding.span.line, finding.span.column) == _line_of(tmp_path, "vllm/vllm-openai-rocm")
    assert finding.message.startswith(
        "the guide runs `vllm/vllm-openai-rocm:latest` under “NVIDIA H100”"
    )


def test_an_image_is_underlined_with_its_tag(tmp_path: Path) -> None:
    markdown = "## NVIDIA H100\n\n```bash\ndocker run vllm/vllm-openai-rocm:v0.9.2 acme/demo\n```\n"
    [finding] = _rl607(tmp_path, markdown)
    line, column = _line_of(tmp_path, "vllm/vllm-openai-rocm")
    assert (finding.span.line, finding.span.column) == (line, column)
    assert finding.span.end_column == column + len("vllm/vllm-openai-rocm:v0.9.2")


def test_a_selection_for_the_default_hardware_confines_nothing(tmp_path: Path) -> None:
    # `default` is no hardware of one generation: the list is rendered for any.
    recipe = 'hardware_overrides:\n  default:\n    extra_args: ["--moe-backend", "triton"]\n'
    markdown = "## Launch\n\n```bash\nvllm serve acme/demo --moe-backend triton\n```\n"
    assert _rl607(tmp_path, markdown, recipe) == []


# --- the blocks skipped for selecting nothing ---------------------------------------------


def test_a_prose_command_right_after_a_block_that_selects_nothing_is_read(
    tmp_path: Path,
) -> None:
    markdown = (
        "## AMD MI300X\n\n```bash\necho hi\n```\n"
        "Run `vllm serve acme/demo --attention-backend FLASHINFER`.\n"
    )
    assert _sections(tmp_path, markdown) == ["AMD MI300X"]


def test_words_on_a_fence_s_own_line_are_no_prose_command(tmp_path: Path) -> None:
    # A tilde fence takes any text after its language; the plain reading fences that line.
    command = "`vllm serve acme/demo --attention-backend FLASHINFER`"
    opening = f"## AMD MI300X\n\n~~~bash {command}\necho hi\n~~~\n"
    assert _rl607(tmp_path / "opening", opening) == []
    closing = f"## AMD MI300X\n\n~~~bash\necho hi\n~~~ {command}\n"
    assert _rl607(tmp_path / "closing", closing) == []
