"""rules/guide_flags.py: how a guide's command is judged against the flag catalogs of a release
and package."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from treehelp import Fragment, findings_by_code

from recipelint.flags.catalog import available_versions
from recipelint.jsvalue import JsonValue
from recipelint.read.load import parse_yaml
from recipelint.read.tree import load_tree
from recipelint.rules.common import guide_text
from recipelint.rules.guide import GuideFacts, _package
from recipelint.rules.guide_flags import (
    CommandJudge,
    command_judge,
    deployed_claim,
    guide_release,
)
from recipelint.rules.guide_shell import GuideCommand, guide_commands


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            ["vllm serve", "docker run", "vllm/vllm-openai:x", "-m", "--", "-", "\\\n", "'", '"']
            + ["`", "```bash\n", "\n", "--max-model-len", "=", "-cc.mode", "--x_y", "{", "$A", " "]
        ),
        max_size=30,
    )
)
def test_any_guide_text_is_read_without_a_traceback(parts: list[str]) -> None:
    guide = "".join(parts)
    doc = parse_yaml(json.dumps({"model": {"min_vllm_version": "0.9.0"}, "guide": guide}))
    for command in guide_commands(guide):
        for package in ("vllm", "vllm-omni"):
            [v.placed(doc) for v in CommandJudge("0.9.0", package).findings(command)]


FOLLOWING = (None, "-x", "--other", "auto", "8192", "$VAR", "org/model", "[a]")


def test_an_option_that_takes_no_word_says_the_same_whatever_follows(corpus_tree: Path) -> None:
    judged = 0
    for doc in load_tree(corpus_tree).recipes:
        guide = guide_text(doc) if doc.usable else None
        for command in GuideFacts(guide).commands if guide else ():
            judge = command_judge(guide_release(doc.data), _package(doc, command))
            for word in command.words:
                if judge.reads_next_word(word):
                    continue
                readings = {
                    judge.reading(word, after, via) for after in FOLLOWING for via in (False, True)
                }
                assert len({r for r in readings if r[0]}) == 0, word
                assert len(readings) <= 2, word  # one per via_image at most
                assert {judge.reading(word, None, via) for via in (False, True)} == readings, word
                judged += 1
    assert judged


# --- the findings of a guide's serve commands, read against the catalogs -----------------

RECIPE = "models/acme/demo.yaml"


def _recipe(body: str, model: str = 'min_vllm_version: "0.20.0"', rest: str = "") -> Fragment:
    indented = "".join(f"  {line}\n" if line else "\n" for line in body.split("\n"))
    return Fragment(f"model:\n  {model}\n{rest}guide: |\n{indented}")


def _found(tmp_path: Path, body: str, **recipe: str) -> list[tuple[str, str, str, str]]:
    """(code, the guide text the finding spans, message, hint) of each RL604-RL606 finding."""
    found = findings_by_code(tmp_path, {RECIPE: _recipe(body, **recipe)})
    lines = (tmp_path / RECIPE).read_text(encoding="utf-8").split("\n")
    return [
        (d.code, lines[d.line - 1][d.column - 1 : d.span.end_column - 1], d.message, d.hint or "")
        for code in ("RL604", "RL605", "RL606")
        for d in found.get(code, [])
    ]


def _min(version: str) -> dict[str, str]:
    return {"model": f'min_vllm_version: "{version}"'}


def test_an_option_younger_than_the_minimum_is_refused_at_the_option(tmp_path: Path) -> None:
    body = "```bash\nvllm serve acme/demo --attention-backend FLASH_ATTN\n```"
    assert _found(tmp_path, body, **_min("0.11.0")) == [
        (
            "RL605",
            "--attention-backend",
            "the guide's serve command passes `--attention-backend`, which vLLM 0.11.0 refuses: "
            "it needs vLLM 0.13.0 or newer, but min_vllm_version is 0.11.0",
            "raise min_vllm_version to 0.13.0, or write the form vLLM 0.11.0 accepts",
        )
    ]


def test_an_option_later_releases_dropped_is_refused_from_the_first_that_did(
    tmp_path: Path,
) -> None:
    body = "```bash\nvllm serve acme/demo --swap-space 4\n```"
    assert _found(tmp_path, body, **_min("0.10.0")) == [
        (
            "RL605",
            "--swap-space",
            "the guide's serve command passes `--swap-space`, which vLLM 0.18.0 and newer refuse "
            "(unrecognized arguments): vLLM 0.17.1 is the last release that runs it",
            "drop it, or write the form later releases accept: no release after vLLM 0.17.1 "
            "runs it, so raising min_vllm_version does not help",
        )
    ]


def test_an_option_refused_between_releases_names_the_refusing_run(tmp_path: Path) -> None:
    body = "```bash\nvllm serve acme/demo --disable-log-requests\n```"
    assert _found(tmp_path, body, **_min("0.16.0")) == [
        (
            "RL605",
            "--disable-log-requests",
            "the guide's serve command passes `--disable-log-requests`, which vLLM 0.17.0 to "
            "0.32.0 refuse (unrecognized arguments), though the recipe claims every release "
            "from 0.16.0 on",
            "raise min_vllm_version past 0.32.0, or write the form every release from 0.16.0 "
            "on accepts",
        )
    ]
    latest = "```bash\ndocker run vllm/vllm-openai:latest acme/demo --disable-log-requests\n```"
    assert _found(tmp_path / "latest", latest, **_min("0.16.0")) == []


def test_a_refused_value_is_reported_at_the_value_or_the_inline_option(tmp_path: Path) -> None:
    message = (
        "the guide's serve command passes `--kv-cache-dtype fp9`, which vLLM 0.20.0 refuses "
        "(invalid choice or type): it needs vLLM 0.33.0 or newer, but min_vllm_version is 0.20.0"
    )
    hint = "raise min_vllm_version to 0.33.0, or write the form vLLM 0.20.0 accepts"
    body = "```bash\nvllm serve acme/demo --kv-cache-dtype fp9 --max-model-len\n```"
    assert _found(tmp_path / "a", body) == [("RL605", "fp9", message, hint)]
    inline = "```bash\nvllm serve acme/demo --kv-cache-dtype=fp9\n```"
    assert _found(tmp_path / "b", inline) == [("RL605", "--kv-cache-dtype=fp9", message, hint)]


def test_a_flag_that_takes_no_value_leaves_the_next_option_to_be_judged(tmp_path: Path) -> None:
    body = "```bash\nvllm serve acme/demo --enable-prefix-caching --bogus-option\n```"
    assert _found(tmp_path, body) == [
        (
            "RL604",
            "--bogus-option",
            "the guide's serve command passes `--bogus-option`, an option no vLLM release accepts",
            "check the spelling against `vllm serve --help`",
        )
    ]


def test_an_option_at_the_start_of_a_continuation_line_is_reported_at_itself(
    tmp_path: Path,
) -> None:
    body = "```bash\nvllm serve acme/demo \\\n--bogus-option 1\n```"
    assert [found[:2] for found in _found(tmp_path, body)] == [("RL604", "--bogus-option")]


def test_values_the_reader_supplies_are_not_judged(tmp_path: Path) -> None:
    body = (
        "```bash\nvllm serve acme/demo --max-model-len [N] --kv-cache-dtype ... "
        "--max-num-seqs $SEQS\n```"
    )
    assert _found(tmp_path, body) == []


VARIANT = "variants:\n  fp8:\n    model_id: {}\n    precision: fp8\n"


def test_a_command_serving_a_variant_is_judged_from_a_minimum_it_raises(tmp_path: Path) -> None:
    """`--attention-backend` arrived in 0.13.0; the recipe claims 0.11.0."""
    refused = (
        "RL605",
        "--attention-backend",
        "the guide's serve command passes `--attention-backend`, which vLLM 0.11.0 refuses: it "
        "needs vLLM 0.13.0 or newer, but min_vllm_version is 0.11.0",
        "raise min_vllm_version to 0.13.0, or write the form vLLM 0.11.0 accepts",
    )
    base = 'min_vllm_version: "0.11.0"'
    own = '    min_vllm_version: "{}"\n'
    same = VARIANT.format("acme/demo-fp8") + own.format("0.11.0")
    body = "```bash\nvllm serve acme/demo-fp8 --attention-backend FLASH_ATTN\n```"
    assert _found(tmp_path / "same", body, model=base, rest=same) == [refused]
    raised = VARIANT.format("acme/demo-fp8") + own.format("0.13.0")
    last = "```bash\nvllm serve --attention-backend FLASH_ATTN --model acme/demo-fp8\n```"
    assert _found(tmp_path / "last", last, model=base, rest=raised) == []
    other = raised + "  other:\n    model_id: acme/demo-fp8\n    precision: fp8\n"
    assert _found(tmp_path / "other", body, model=base, rest=other) == [refused]
    spelled = VARIANT.format("acme/demo=fp8") + own.format("0.13.0")
    inline = "```bash\nvllm serve --model=acme/demo=fp8 --attention-backend FLASH_ATTN\n```"
    assert _found(tmp_path / "inline", inline, model=base, rest=spelled) == []


def test_without_a_minimum_a_variant_s_command_runs_the_newest_release(tmp_path: Path) -> None:
    """`--enable-extensible-kv-cache` is new in the newest catalogued release."""
    body = "```bash\nvllm serve acme/demo-fp8 --enable-extensible-kv-cache\n```"
    rest = VARIANT.format("acme/demo-fp8")
    assert _found(tmp_path, body, model="min_vllm_version: null", rest=rest) == []


def test_a_variant_s_args_refused_from_its_own_minimum_leave_the_guide_s_refusal(
    tmp_path: Path,
) -> None:
    body = "```bash\nvllm serve acme/demo --attention-backend FLASH_ATTN\n```"
    rest = (
        'variants:\n  fast:\n    precision: fp8\n    min_vllm_version: "0.13.0"\n'
        '    extra_args: ["--attention-backend", "FLASH_ATTN"]\n'
    )
    assert [found[:2] for found in _found(tmp_path, body, **_min("0.10.0"), rest=rest)] == [
        ("RL605", "--attention-backend")
    ]


def test_an_option_whose_value_is_optional_leaves_a_following_option_alone(
    tmp_path: Path,
) -> None:
    body = "```bash\nvllm serve acme/demo --hf-token --bogus-option\n```"
    assert [found[:2] for found in _found(tmp_path / "a", body)] == [("RL604", "--bogus-option")]
    last = "```bash\nvllm serve acme/demo --max-model-len 8192 --hf-token\n```"
    assert _found(tmp_path / "b", last) == []


def test_a_value_refused_over_runs_of_releases_names_each_run(tmp_path: Path) -> None:
    """The catalogs' readings: `--block-size 64` is refused by 0.6.5 alone after 0.6.4;
    `--all2all-backend mori` from 0.23.0 to 0.33.0, taken again by the newest release alone;
    `--block-size 1024` by every release to 0.17.1 but 0.5.5."""
    one = _found(
        tmp_path / "one", "```bash\nvllm serve acme/demo --block-size 64\n```", **_min("0.6.4")
    )
    assert [found[2:] for found in one] == [
        (
            "the guide's serve command passes `--block-size 64`, which vLLM 0.6.5 refuses "
            "(invalid choice or type), though the recipe claims every release from 0.6.4 on",
            "raise min_vllm_version past 0.6.5, or write the form every release from 0.6.4 on "
            "accepts",
        )
    ]
    back = "```bash\nvllm serve acme/demo --all2all-backend mori\n```"
    assert [found[3] for found in _found(tmp_path / "back", back, **_min("0.15.0"))] == [
        "raise min_vllm_version past 0.33.0, or write the form every release from 0.15.0 on accepts"
    ]
    gaps = "```bash\nvllm serve acme/demo --block-size 1024\n```"
    assert [found[2:] for found in _found(tmp_path / "gaps", gaps, **_min("0.4.0"))] == [
        (
            "the guide's serve command passes `--block-size 1024`, which vLLM 0.4.0 to 0.5.4, "
            "0.6.0 to 0.17.1 refuse (invalid choice or type), though the recipe claims every "
            "release from 0.4.0 on",
            # The minimum refuses it too: every release past the last refusal runs it.
            "raise min_vllm_version past 0.17.1, or write the form every release from 0.4.0 on "
            "accepts",
        )
    ]


# --- a command judged at the build its section is about -----------------------------------

NEEDS_0_13 = "vllm serve acme/demo --attention-backend FLASH_ATTN"


def _sectioned(tmp_path: Path, body: str, rest: str = "") -> list[str]:
    """The texts RL605 underlines in a recipe of minimum 0.11.0 (before --attention-backend)."""
    return [
        text
        for code, text, _message, _hint in _found(
            tmp_path, body, model='min_vllm_version: "0.11.0"', rest=rest
        )
        if code == "RL605"
    ]


def _amd_image(tag: str) -> str:
    return f'variants:\n  default:\n    precision: bf16\n    docker_image:\n      amd: "vllm/vllm-openai-rocm:{tag}"\n'


def test_a_command_about_hardware_runs_the_nightly_image_the_recipe_deploys_there(
    tmp_path: Path,
) -> None:
    body = f"## AMD MI355X\n\nOn 8x MI355X:\n\n```bash\n{NEEDS_0_13}\n```"
    assert _sectioned(tmp_path / "nightly", body, _amd_image("nightly")) == []
    assert _sectioned(tmp_path / "latest", body, _amd_image("latest")) == []
    # A pinned release leaves the section to the minimum a reader may pip-install (PR 601).
    assert _sectioned(tmp_path / "pinned", body, _amd_image("v0.13.0")) == ["--attention-backend"]
    # The compiler's own default image is no choice of the recipe's: the minimum stands.
    assert _sectioned(tmp_path / "default", body) == ["--attention-backend"]


def test_a_command_about_other_hardware_keeps_the_recipe_s_minimum(tmp_path: Path) -> None:
    body = f"## NVIDIA H200\n\n```bash\n{NEEDS_0_13}\n```"
    assert _sectioned(tmp_path, body, _amd_image("nightly")) == ["--attention-backend"]


def test_a_refusal_at_the_deployed_image_names_that_image(tmp_path: Path) -> None:
    body = "## AMD MI355X\n\n```bash\nvllm serve acme/demo --swap-space 4\n```"
    [(code, text, message, _hint)] = _found(
        tmp_path, body, model='min_vllm_version: "0.11.0"', rest=_amd_image("nightly")
    )
    newest = available_versions()[-1]
    assert (code, text) == ("RL605", "--swap-space")
    assert message.endswith(
        f"which vLLM {newest} refuses: the image "
        f"`vllm/vllm-openai-rocm:nightly` runs vLLM {newest} or newer"
    )


def test_a_section_that_names_a_nightly_image_runs_a_nightly_build(tmp_path: Path) -> None:
    command = f"### TPU v7 (Ironwood)\n\n```bash\n{NEEDS_0_13}\n```\n"
    nightly = "> Ironwood support ships in the nightly TPU image (`vllm/vllm-tpu:nightly-20260330-2f76400`).\n"
    assert _sectioned(tmp_path / "a", command + nightly) == []
    assert _sectioned(tmp_path / "b", command + "> Verified on one host.\n") == [
        "--attention-backend"
    ]
    # The statement belongs to its own section: the next heading's commands are not in it.
    later = f"{nightly}\n### Single node\n\n```bash\n{NEEDS_0_13}\n```\n"
    assert _sectioned(tmp_path / "c", command + later) == ["--attention-backend"]


def test_words_asking_for_a_nightly_or_unreleased_build_run_one(tmp_path: Path) -> None:
    for index, words in enumerate(
        (
            "This needs a nightly build of vLLM.",
            "Install the nightly wheels first.",
            "The kernel is not yet released.",
            "The kernels come from [#47433](https://github.com/vllm-project/vllm/pull/47433).",
        )
    ):
        body = f"## Fast path\n\n{words}\n\n```bash\n{NEEDS_0_13}\n```"
        assert _sectioned(tmp_path / str(index), body) == [], words
    negated = f"## Fast path\n\nThis does not need nightly.\n\n```bash\n{NEEDS_0_13}\n```"
    assert _sectioned(tmp_path / "negated", negated) == ["--attention-backend"]


def test_a_section_asking_for_a_release_is_judged_from_it(tmp_path: Path) -> None:
    body = "## Fast path\n\nThis requires vLLM >= {}.\n\n```bash\n" + NEEDS_0_13 + "\n```"
    assert _sectioned(tmp_path / "a", body.format("0.13.0")) == []
    [(code, _text, message, hint)] = _found(
        tmp_path / "b", body.format("0.12.0"), model='min_vllm_version: "0.11.0"'
    )
    assert code == "RL605"
    assert message.endswith(
        "which vLLM 0.12.0 refuses: it needs vLLM 0.13.0 or newer, but the release its "
        "section asks for is 0.12.0"
    )
    assert hint.startswith("raise the release its section asks for to 0.13.0")
    # A release below the recipe's own minimum narrows nothing.
    assert _sectioned(tmp_path / "c", body.format("0.10.0")) == ["--attention-backend"]


def test_a_typo_is_refused_where_the_section_states_no_build(tmp_path: Path) -> None:
    typo = "vllm serve acme/demo --moe-backend tritn"
    plain = f"## Fast path\n\n```bash\n{typo}\n```"
    assert [text for _code, text, _m, _h in _found(tmp_path / "a", plain)] == ["tritn"]
    # A build past every release may know values no catalog does: left to RL407/RL365.
    nightly = f"## Fast path\n\nNeeds a nightly build.\n\n```bash\n{typo}\n```"
    assert _found(tmp_path / "b", nightly) == []


def test_an_option_the_recipe_s_args_are_refused_for_is_left_to_them_at_any_build(
    tmp_path: Path,
) -> None:
    body = "## Fast path\n\nNeeds a nightly build.\n\n```bash\nvllm serve acme/demo --swap-space 4\n```"
    found = findings_by_code(
        tmp_path,
        {
            RECIPE: Fragment(
                'model:\n  min_vllm_version: "0.17.0"\n  base_args: ["--swap-space", "4"]\n'
                + "guide: |\n"
                + "".join(f"  {line}\n" if line else "\n" for line in body.split("\n"))
            )
        },
    )
    assert [d.pointer for d in found.get("RL359", [])] == [("model", "base_args", 0)]
    assert found.get("RL605", []) == []


def test_a_section_asking_for_a_nightly_build_is_judged_by_the_newest_release(
    tmp_path: Path,
) -> None:
    """`--enable-extensible-kv-cache` is new in the newest catalogued release; `--swap-space`
    was dropped long before it."""
    newest = available_versions()[-1]
    section = "## Fast path\n\nNeeds a nightly build.\n\n```bash\nvllm serve acme/demo {}\n```"
    new = section.format("--enable-extensible-kv-cache")
    assert _found(tmp_path / "new", new, **_min("0.11.0")) == []
    [(code, text, message, _hint)] = _found(
        tmp_path / "dropped", section.format("--swap-space 4"), **_min("0.11.0")
    )
    assert (code, text) == ("RL605", "--swap-space")
    assert message.endswith(f"which no release from {newest} on accepts")


# --- which releases a command claims, and the finding's words for them --------------------


def test_a_checkpoint_given_as_the_first_word_is_the_variant_served(tmp_path: Path) -> None:
    """The variant raises the minimum to 0.13.0, where `--attention-backend` arrived."""
    rest = VARIANT.format("acme/demo-fp8") + '    min_vllm_version: "0.13.0"\n'
    body = "```bash\nvllm serve acme/demo-fp8 --attention-backend FLASH_ATTN\n```"
    assert _found(tmp_path, body, **_min("0.11.0"), rest=rest) == []


def test_a_refusal_by_releases_the_recipe_s_list_is_not_refused_by_is_the_guide_s(
    tmp_path: Path,
) -> None:
    """The variant's list runs from 0.12.0, refused there alone; the guide's command from the
    recipe's 0.11.0, refused by 0.11.0 too: a cause of its own, not a repeat of RL358's."""
    rest = (
        'variants:\n  fast:\n    precision: fp8\n    min_vllm_version: "0.12.0"\n'
        '    extra_args: ["--attention-backend", "FLASH_ATTN"]\n'
    )
    body = "```bash\nvllm serve acme/demo --attention-backend FLASH_ATTN\n```"
    found = findings_by_code(tmp_path, {RECIPE: _recipe(body, 'min_vllm_version: "0.11.0"', rest)})
    assert [d.pointer for d in found["RL358"]] == [("variants", "fast", "extra_args", 0)]
    [guide] = found["RL605"]
    assert guide.message.startswith(
        "the guide's serve command passes `--attention-backend`, which vLLM 0.11.0 refuses"
    )


def test_an_option_refused_again_after_a_run_that_took_it_is_not_told_to_be_dropped(
    tmp_path: Path,
) -> None:
    """`--enable-reasoning` is refused by 0.7.0, taken from 0.7.1 to 0.9.2 and refused again
    from 0.10.0: neither raising the minimum nor dropping it is the whole story."""
    body = "```bash\nvllm serve acme/demo --enable-reasoning\n```"
    newest = available_versions()[-1]
    assert _found(tmp_path, body, **_min("0.7.0")) == [
        (
            "RL605",
            "--enable-reasoning",
            "the guide's serve command passes `--enable-reasoning`, which vLLM 0.7.0, 0.10.0 to "
            f"{newest} refuse, though the recipe claims every release from 0.7.0 on",
            "write the form every release from 0.7.0 on accepts (`recipelint flags history FLAG` "
            "shows each release's reading)",
        )
    ]


def test_a_recipe_value_that_is_no_json_leaves_the_guide_s_refusal(tmp_path: Path) -> None:
    # The recipe's lists are read for JSON sub-keys when a guide verdict may repeat theirs.
    body = "```bash\nvllm serve acme/demo --swap-space 4\n```"
    model = 'min_vllm_version: "0.20.0"\n  base_args: ["--compilation-config", "{oops"]'
    found = findings_by_code(tmp_path, {RECIPE: _recipe(body, model)})
    assert [d.pointer for d in found["RL308"]] == [("model", "base_args", 1)]
    assert [d.message for d in found["RL605"]] == [
        "the guide's serve command passes `--swap-space`, which no release from 0.20.0 on accepts"
    ]


def test_an_option_only_the_minimum_runs_is_to_be_dropped(tmp_path: Path) -> None:
    body = "```bash\nvllm serve acme/demo --swap-space 4\n```"
    [(_code, _text, _message, hint)] = _found(tmp_path, body, **_min("0.17.1"))
    assert hint == (
        "drop it, or write the form later releases accept: no release after vLLM 0.17.1 runs "
        "it, so raising min_vllm_version does not help"
    )


def test_a_json_key_is_judged_by_its_config_not_by_its_option(tmp_path: Path) -> None:
    body = "```bash\nvllm serve acme/demo --compilation-config.bogus_key 1\n```"
    assert [found[:3] for found in _found(tmp_path, body)] == [
        (
            "RL605",
            "--compilation-config.bogus_key",
            "the guide's serve command passes `--compilation-config.bogus_key`, which no release "
            "from 0.20.0 on accepts (unknown key)",
        )
    ]


def test_unknown_options_in_a_row_are_each_reported(tmp_path: Path) -> None:
    # An unknown option takes no word: the next one is judged as an option of its own.
    body = "```bash\nvllm serve acme/demo --bogus-one --bogus-two\n```"
    assert [found[:2] for found in _found(tmp_path, body)] == [
        ("RL604", "--bogus-one"),
        ("RL604", "--bogus-two"),
    ]


def test_an_option_the_reader_fills_in_leaves_the_next_to_be_judged(tmp_path: Path) -> None:
    body = "```bash\nvllm serve acme/demo --max-model-len=$LEN --bogus-option\n```"
    assert [found[:2] for found in _found(tmp_path, body)] == [("RL604", "--bogus-option")]


def test_an_option_holding_its_value_reads_no_next_word() -> None:
    judge = command_judge("0.20.0", "vllm")
    assert judge.reads_next_word("--max-model-len")
    # `=` and the `-O3` shorthand carry the value; a negation takes none.
    for word in ("--max-model-len=8192", "-O3", "--no-enable-prefix-caching"):
        assert not judge.reads_next_word(word), word
        assert judge.reading(word, "8", False) == judge.reading(word, None, False), word


def test_argparse_s_own_help_options_are_not_judged(tmp_path: Path) -> None:
    # No catalog lists them: every parser has them.
    body = "```bash\nvllm serve acme/demo --help\nvllm serve acme/demo -h --bogus-option\n```"
    assert [found[:2] for found in _found(tmp_path, body)] == [("RL604", "--bogus-option")]


def test_a_guide_is_first_judged_at_the_recipe_s_minimum_else_at_the_newest_release() -> None:
    newest = available_versions()[-1]
    assert guide_release({"model": {"min_vllm_version": "0.11.0"}}) == "0.11.0"
    assert guide_release({"model": {"min_vllm_version": "nightly"}}) == newest
    assert guide_release({"model": {}}) == newest


def test_a_minimum_older_than_every_catalog_reads_options_as_the_oldest_catalog(
    tmp_path: Path,
) -> None:
    """--device takes a value in the oldest catalog; the newest no longer knows it."""
    body = "```bash\nvllm serve acme/demo --device cuda\n```"
    oldest = available_versions()[0]
    older = _found(tmp_path / "older", body, **_min("0.3.0"))
    assert [found[2] for found in older] == [
        "the guide's serve command passes `--device`, which vLLM 0.10.0 and newer refuse "
        "(unrecognized arguments): vLLM 0.9.2 is the last release that runs it"
    ]
    assert older == _found(tmp_path / "oldest", body, **_min(oldest))


def test_hardware_running_different_open_ended_images_claim_the_first_in_order() -> None:
    """Both run the newest release and what follows it; the claim names one image, the same
    whatever order the section lists its hardware in."""
    data: dict[str, JsonValue] = {
        "model": {
            "model_id": "acme/demo",
            "docker_image": {
                "nvidia": "vllm/vllm-openai:nightly",
                "amd": "vllm/vllm-openai-rocm:nightly",
            },
        }
    }
    hardware: list[tuple[str, JsonValue]] = [
        ("h100", {"brand": "NVIDIA"}),
        ("mi300x", {"brand": "AMD"}),
    ]
    command = GuideCommand(words=("acme/demo",), lines=((1, "vllm serve acme/demo"),))
    for section in (hardware, hardware[::-1]):
        claimed = deployed_claim(data, section, command, "0.11.0")
        assert claimed is not None
        release, claim = claimed
        assert (release, claim.image, claim.open_ended) == (
            available_versions()[-1],
            "vllm/vllm-openai-rocm:nightly",
            True,
        )
