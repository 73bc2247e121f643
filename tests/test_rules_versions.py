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
from rulehelp import findings_of
from treehelp import Fragment, build_tree, checked

from recipelint.cli import cli
from recipelint.diagnostics import Severity
from recipelint.flags.catalog import newest_catalog
from recipelint.rules.versions import (
    GUIDE_MINIMUM,
    IMAGE_REFERENCE,
    GuideClaims,
    _guide_images,
    asked_releases,
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


# --- RL401-RL406: the images and versions a recipe and its guide name -----------------------


def test_an_image_older_than_the_minimum_it_serves_is_an_error_at_the_pin(
    tmp_path: Path,
) -> None:
    pinned = 'variants:\n  default:\n    min_vllm_version: "0.21.0"\n'
    pinned += '    docker_image: "vllm/vllm-openai:{}"\n'
    [finding] = findings_of(tmp_path / "a", pinned.format("v0.20.0"), "RL401")
    assert finding.pointer == ("variants", "default", "docker_image")
    assert finding.message.startswith(
        "image `vllm/vllm-openai:v0.20.0` is vLLM 0.20.0, older than variant `default` "
        "min_vllm_version 0.21.0"
    )
    assert finding.hint == "pin a tag at or above v0.21.0, or drop the pin"
    assert findings_of(tmp_path / "b", pinned.format("v0.21.0"), "RL401") == []


NIGHTLY = 'model:\n  min_vllm_version: "{}"\n  nightly_required: true\n  docker_image: "{}"\n'


def test_nightly_required_with_a_released_image_is_a_warning_at_the_image(
    tmp_path: Path,
) -> None:
    released = NIGHTLY.format("0.20.0", "vllm/vllm-openai:v0.21.0")
    [finding] = findings_of(tmp_path / "a", released, "RL402")
    assert finding.pointer == ("model", "docker_image")
    assert finding.severity is Severity.WARNING
    assert finding.message == (
        "nightly_required is set for variant `default`, but its image "
        "`vllm/vllm-openai:v0.21.0` is the released vLLM 0.21.0"
    )
    commit_build = NIGHTLY.format("0.99.0", "vllm/vllm-openai:nightly-8bff831f0aa2")
    assert findings_of(tmp_path / "b", commit_build, "RL402") == []


def test_nightly_required_with_the_latest_tag_is_an_error_and_nightly_is_not(
    tmp_path: Path,
) -> None:
    [finding] = findings_of(
        tmp_path / "a", NIGHTLY.format("0.99.0", "vllm/vllm-openai:latest"), "RL403"
    )
    assert finding.pointer == ("model", "docker_image")
    assert finding.severity is Severity.ERROR
    assert "`vllm/vllm-openai:latest` is the latest *release*" in finding.message
    assert (
        findings_of(tmp_path / "b", NIGHTLY.format("0.99.0", "vllm/vllm-openai:nightly"), "RL403")
        == []
    )


def test_an_image_docker_would_refuse_is_an_error_at_the_field(tmp_path: Path) -> None:
    image = 'model:\n  docker_image: "{}"\n'
    for index, bad in enumerate(("vllm/VLLM:latest", "docker pull vllm/vllm-openai:v0.20.0")):
        [finding] = findings_of(tmp_path / str(index), image.format(bad), "RL404")
        assert finding.pointer == ("model", "docker_image")
        assert finding.message.startswith(f"`{bad}` is not a valid image reference")
    assert findings_of(tmp_path / "ok", image.format("vllm/vllm-openai:v0.20.0"), "RL404") == []


PREREQUISITES = "guide: |\n  ## Prerequisites\n  - vLLM >= 0.22.0\n"


def test_a_guide_minimum_no_field_states_is_a_warning_until_a_variant_states_it(
    tmp_path: Path,
) -> None:
    [finding] = findings_of(tmp_path / "a", PREREQUISITES, "RL405")
    assert finding.pointer == ("guide",)
    assert finding.message == (
        "the guide asks for vLLM >= 0.22.0, but no min_vllm_version field says so (they say 0.20.0)"
    )
    stated = 'variants:\n  default:\n    min_vllm_version: "0.22.0"\n' + PREREQUISITES
    assert findings_of(tmp_path / "b", stated, "RL405") == []


LAUNCH = "guide: |\n  ## Launch\n  ```bash\n  docker run --gpus all {} acme/demo\n  ```\n"


def test_a_guide_image_no_command_uses_is_a_warning_until_the_recipe_pins_it(
    tmp_path: Path,
) -> None:
    preview = "vllm/vllm-openai:demo-preview"
    [finding] = findings_of(tmp_path / "a", LAUNCH.format(preview), "RL406")
    assert finding.pointer == ("guide",)
    assert finding.message == (
        f"the guide names `{preview}`, but the recipe's docker commands use "
        "`vllm/vllm-openai:latest`"
    )
    pinned = f'model:\n  docker_image: "{preview}"\n' + LAUNCH.format(preview)
    assert findings_of(tmp_path / "b", pinned, "RL406") == []


def test_a_variant_s_own_brand_image_replaces_the_model_s_for_that_brand_only(
    tmp_path: Path,
) -> None:
    recipe = (
        "model:\n  docker_image:\n"
        '    nvidia: "vllm/vllm-openai:v0.20.0"\n    amd: "vllm/vllm-openai-rocm:v0.20.0"\n'
        'variants:\n  default:\n    min_vllm_version: "0.21.0"\n'
        '    docker_image:\n      nvidia: "vllm/vllm-openai:v0.21.0"\n'
    )
    [finding] = findings_of(tmp_path, recipe, "RL401")
    assert finding.pointer == ("model", "docker_image", "amd")
    assert finding.message.startswith("image `vllm/vllm-openai-rocm:v0.20.0` is vLLM 0.20.0")


def test_a_variant_s_own_plain_image_replaces_every_model_image(tmp_path: Path) -> None:
    model = 'model:\n  docker_image: "vllm/vllm-openai:v0.20.0"\n'
    variant = 'variants:\n  default:\n    min_vllm_version: "0.21.0"\n'
    pinned = variant + '    docker_image: "vllm/vllm-openai:v0.21.0"\n'
    assert findings_of(tmp_path / "a", model + pinned, "RL401") == []
    [inherited] = findings_of(tmp_path / "b", model + variant, "RL401")
    assert inherited.pointer == ("model", "docker_image")


def test_a_guide_asking_for_a_release_or_later_is_read_as_a_minimum(tmp_path: Path) -> None:
    [finding] = findings_of(tmp_path / "a", "guide: |\n  Needs vLLM 0.22.0 or later.\n", "RL405")
    assert finding.message == (
        "the guide asks for vLLM >= 0.22.0, but no min_vllm_version field says so (they say 0.20.0)"
    )
    assert findings_of(tmp_path / "b", "guide: |\n  Needs vLLM 0.20.0 or newer.\n", "RL405") == []


def test_a_guide_minimum_without_a_patch_agrees_with_any_patch_of_its_minor(
    tmp_path: Path,
) -> None:
    assert findings_of(tmp_path / "a", "guide: |\n  - vLLM >= 0.20\n", "RL405") == []
    [finding] = findings_of(tmp_path / "b", "guide: |\n  - vLLM >= 0.21\n", "RL405")
    assert finding.message.startswith("the guide asks for vLLM >= 0.21, but")


def test_a_guide_minimum_finding_underlines_the_guide_s_words(tmp_path: Path) -> None:
    [finding] = findings_of(tmp_path, PREREQUISITES, "RL405")
    line = finding.path.read_text(encoding="utf-8").splitlines()[finding.span.line - 1]
    assert finding.span.end_line in (None, finding.span.line)
    assert finding.span.end_column is not None
    assert line[finding.span.column - 1 : finding.span.end_column - 1] == "vLLM >= 0.22.0"


def _guide(*lines: str) -> str:
    return "guide: |\n" + "".join(f"  {line}\n" if line else "\n" for line in lines)


def _launch(*commands: str) -> str:
    return _guide("## Launch", "```bash", *commands, "```")


def _rl406(tmp_path: Path, recipe: str) -> list[str]:
    return [d.message for d in findings_of(tmp_path, recipe, "RL406")]


def test_the_release_of_the_recipe_s_minimum_is_a_faithful_image_to_name(
    tmp_path: Path,
) -> None:
    for index, tag in enumerate(("v0.20.0", "0.20.0", "v0.20.0-cu129")):
        run = f"docker run --gpus all vllm/vllm-openai:{tag} acme/demo"
        assert _rl406(tmp_path / str(index), _launch(run)) == [], tag
    older = _launch("docker run --gpus all vllm/vllm-openai:v0.19.0 acme/demo")
    assert _rl406(tmp_path / "older", older) == [
        "the guide names `vllm/vllm-openai:v0.19.0`, but the recipe's docker commands use "
        "`vllm/vllm-openai:latest`"
    ]


def test_a_commit_build_of_a_nightly_image_counts_only_for_a_nightly_recipe(
    tmp_path: Path,
) -> None:
    run = _launch("docker run --gpus all vllm/vllm-openai:nightly-8bff831f0aa2 acme/demo")
    nightly = 'model:\n  min_vllm_version: "0.99.0"\n  nightly_required: true\n'
    assert _rl406(tmp_path / "nightly", nightly + run) == []
    assert _rl406(tmp_path / "release", run) == [
        "the guide names `vllm/vllm-openai:nightly-8bff831f0aa2`, but the recipe's docker "
        "commands use `vllm/vllm-openai:latest`"
    ]


def test_an_image_the_guide_tags_itself_is_no_claim_where_it_runs(tmp_path: Path) -> None:
    tagged = _launch(
        "docker tag vllm/vllm-openai:latest vllm/vllm-openai:deploy",
        "docker run --gpus all vllm/vllm-openai:deploy acme/demo",
    )
    assert _rl406(tmp_path / "tag", tagged) == []
    built = _launch(
        "docker build -t vllm/vllm-openai:mine .",
        "docker run --gpus all vllm/vllm-openai:mine acme/demo",
    )
    assert _rl406(tmp_path / "build", built) == []
    committed = _launch(
        "docker commit builder vllm/vllm-openai:snapshot",
        "docker run --gpus all vllm/vllm-openai:snapshot acme/demo",
    )
    assert _rl406(tmp_path / "commit", committed) == []


def test_the_source_image_a_buildx_command_copies_is_a_claim(tmp_path: Path) -> None:
    copied = _launch(
        "docker buildx imagetools create -t registry.example.com/acme/vllm:1 "
        "vllm/vllm-openai:demo-preview"
    )
    assert _rl406(tmp_path, copied) == [
        "the guide names `vllm/vllm-openai:demo-preview`, but the recipe's docker commands use "
        "`vllm/vllm-openai:latest`"
    ]


def test_a_manifest_s_image_is_no_claim_even_after_a_blank_first_line(tmp_path: Path) -> None:
    manifest = _guide("", "```yaml", "image: vllm/vllm-openai:demo-preview", "```")
    assert manifest.startswith("guide: |\n\n")
    assert _rl406(tmp_path / "blank", manifest) == []
    assert _rl406(tmp_path / "heading", _guide("## Deploy", *manifest.split("\n")[2:])) == []


def test_words_about_an_image_their_section_runs_only_elsewhere_claim_nothing(
    tmp_path: Path,
) -> None:
    section = _guide(
        "## Deploy",
        "Use vllm/vllm-openai:demo-preview on the cluster.",
        "```bash",
        "kubectl run demo --image=vllm/vllm-openai:demo-preview",
        "docker run --gpus all vllm/vllm-openai:latest acme/demo",
        "```",
    )
    assert _rl406(tmp_path / "kubectl", section) == []
    docker = section.replace("kubectl run demo --image=", "docker run --gpus all ")
    assert len(_rl406(tmp_path / "docker", docker)) == 1


def test_a_command_with_an_unbalanced_quote_is_read_word_by_word(tmp_path: Path) -> None:
    unbalanced = 'docker run --gpus all vllm/vllm-openai:demo-preview bash -c "vllm serve'
    assert len(_rl406(tmp_path / "docker", _launch(unbalanced))) == 1
    elsewhere = 'kubectl run demo --image=vllm/vllm-openai:demo-preview -- "vllm serve'
    assert _rl406(tmp_path / "kubectl", _launch(elsewhere)) == []


def test_an_image_set_in_a_variable_is_a_claim(tmp_path: Path) -> None:
    assigned = _launch("IMAGE=vllm/vllm-openai:demo-preview", 'docker run --gpus all "$IMAGE"')
    assert len(_rl406(tmp_path, assigned)) == 1


def test_an_empty_code_block_ends_at_its_closing_fence() -> None:
    """The line after ``` ``` is prose again: a heading there opens a section of its own."""
    claims = GuideClaims.of("intro\n```\n```\n## Serving on AMD\nuse the rocm image")
    assert claims.sections == (3,)
    assert claims.prose_lines == frozenset({0, 3, 4})


def _rl405(tmp_path: Path, heading: str, recipe: str = "") -> list[str]:
    guide = f"guide: |\n  ## Launch\n  Serve it.\n  {heading}\n  This requires vLLM >= 0.22.0.\n"
    return [d.message for d in findings_of(tmp_path, recipe + guide, "RL405")]


EAGLE3 = (
    'features:\n  spec_decoding:\n    description: "EAGLE3 speculative decoding"\n'
    '    args: ["--speculative-config", "{}"]\n'
)


def test_a_version_asked_for_in_a_feature_s_section_is_that_feature_s(tmp_path: Path) -> None:
    assert _rl405(tmp_path / "a", "## Speculative Decoding (EAGLE3)", EAGLE3) == []
    assert _rl405(tmp_path / "b", "## Spec decoding", EAGLE3) == []
    # The same heading in a recipe without the feature is about the model.
    assert len(_rl405(tmp_path / "c", "## Speculative Decoding (EAGLE3)")) == 1


def test_a_version_asked_for_in_a_hardware_section_is_that_hardware_s(tmp_path: Path) -> None:
    assert _rl405(tmp_path / "a", "## AMD MI355X") == []
    assert _rl405(tmp_path / "b", "### On Blackwell") == []
    assert len(_rl405(tmp_path / "c", "## Deployment")) == 1


def test_a_version_asked_for_in_a_variant_s_section_is_still_a_disagreement(
    tmp_path: Path,
) -> None:
    nvfp4 = (
        "variants:\n  default:\n    precision: bf16\n    vram_minimum_gb: 20\n"
        '  nvfp4:\n    model_id: "acme/demo-NVFP4"\n    precision: nvfp4\n    vram_minimum_gb: 8\n'
    )
    # Its own min_vllm_version is where the variant's requirement belongs.
    assert len(_rl405(tmp_path / "a", "### RTX Pro 6000 NVFP4", nvfp4)) == 1
    assert len(_rl405(tmp_path / "b", "### Serving acme/demo-NVFP4", nvfp4)) == 1


def test_a_guide_asking_for_a_patch_release_or_later_reads_all_three_numbers() -> None:
    assert asked_releases("Needs vLLM 0.10.1 or later, or vLLM >= 0.9") == ["0.10.1", "0.9.0"]


def test_a_guide_minimum_with_a_patch_must_be_the_field_s_exact_release(tmp_path: Path) -> None:
    """0.20.1 is not 0.20.0: only a minimum written without its patch agrees with any patch."""
    [finding] = findings_of(tmp_path, "guide: |\n  - vLLM >= 0.20.1\n", "RL405")
    assert finding.message.startswith("the guide asks for vLLM >= 0.20.1, but")


def test_words_about_an_image_are_judged_by_their_own_section_only() -> None:
    """The section before runs the image with docker; this one only in a manifest."""
    guide = "\n".join(
        (
            "## Launch",
            "```bash",
            "docker run --gpus all vllm/vllm-openai:demo-preview acme/demo",
            "```",
            "## Kubernetes",
            "The manifest uses vllm/vllm-openai:demo-preview on the cluster",
            "```yaml",
            "image: vllm/vllm-openai:demo-preview",
            "```",
        )
    )
    claims = GuideClaims.of(guide)
    (words,) = (m for m in _guide_images(guide) if m.string.count("\n", 0, m.start()) == 5)
    assert claims.sections == (0, 4)
    assert not claims.claims(words)


def test_only_a_named_commit_makes_an_image() -> None:
    """`docker commit CONTAINER` makes an image without a name; its last word is the container."""

    def aliases(command: str) -> frozenset[str]:
        return GuideClaims.of(f"```bash\n{command}\n```").aliases

    assert aliases("docker commit builder") == frozenset()
    assert aliases("docker commit builder --pause") == frozenset()
    assert aliases("docker commit -p builder vllm/vllm-openai:snapshot") == {
        "vllm/vllm-openai:snapshot"
    }
