"""RL601–RL606 (recipelint/rules/guide.py): what a recipe's guide says, read against the recipe
and the flag catalogs.

RL604–RL606: the options of the guide's own `vllm serve` commands, read against the flag
catalogs; RL603: which other checkpoints a guide may serve without the recipe offering them;
and each guide is read once per check.
"""

from __future__ import annotations

from pathlib import Path

from rulehelp import findings_of
from treehelp import Fragment, findings_by_code

from recipelint.check import engine
from recipelint.configuration.config import Config
from recipelint.diagnostics import Diagnostic, Severity
from recipelint.flags.catalog import available_versions
from recipelint.flags.support import first_with, value_support
from recipelint.read.tree import load_tree
from recipelint.rules import guide
from recipelint.rules.guide_shell import guide_commands

RECIPE = "models/acme/demo.yaml"
CODES = ("RL604", "RL605", "RL606")


def _guide(body: str, minimum: str = "0.20.0") -> Fragment:
    indented = "".join(f"  {line}\n" if line else "\n" for line in body.split("\n"))
    return Fragment(f'model:\n  min_vllm_version: "{minimum}"\nguide: |\n{indented}')


def _findings(tmp_path: Path, body: str, minimum: str = "0.20.0") -> dict[str, list[Diagnostic]]:
    found = findings_by_code(tmp_path, {RECIPE: _guide(body, minimum)})
    return {code: found.get(code, []) for code in CODES}


def _written(tmp_path: Path, finding: Diagnostic) -> str:
    line = (tmp_path / RECIPE).read_text(encoding="utf-8").split("\n")[finding.line - 1]
    return line[finding.column - 1 : finding.span.end_column - 1]


def test_an_unknown_option_on_a_continuation_line_is_anchored_at_its_own_line(
    tmp_path: Path,
) -> None:
    body = (
        "## Launch\n\n```bash\nvllm serve acme/demo \\\n  --max-model-len 8192 \\\n"
        "  --tool-call-parser-plugin parser.py\n```"
    )
    [finding] = _findings(tmp_path, body)["RL604"]
    assert _written(tmp_path, finding) == "--tool-call-parser-plugin"
    assert finding.message == (
        "the guide's serve command passes `--tool-call-parser-plugin`, an option no vLLM "
        "release accepts"
    )
    assert finding.hint is not None and "`--tool-parser-plugin`" in finding.hint
    assert finding.severity is Severity.WARNING


def test_the_old_key_value_form_is_refused_once_the_flag_takes_json(tmp_path: Path) -> None:
    statuses = value_support("--limit-mm-per-prompt", "image=2", "0.8.0")
    refused = first_with(statuses, "rejected")
    assert refused is not None  # the catalogs' own verdict, which the rule reports
    body = "```bash\nvllm serve acme/demo --limit-mm-per-prompt image=2\n```"
    [finding] = _findings(tmp_path, body, "0.8.0")["RL605"]
    assert _written(tmp_path, finding) == "image=2"
    last = [s.version for s in statuses if s.status == "rejected"][-1]
    assert f"which vLLM {refused.version} to {last} refuse (invalid choice or type)" in (
        finding.message
    )
    assert "`--limit-mm-per-prompt image=2`" in finding.message


def test_an_option_newer_than_the_minimum_names_the_release_it_needs(tmp_path: Path) -> None:
    body = "```\nvllm serve acme/demo --attention-backend FLASH_ATTN\n```"
    [finding] = _findings(tmp_path, body, "0.11.0")["RL605"]
    assert _written(tmp_path, finding) == "--attention-backend"
    assert "it needs vLLM 0.13.0 or newer, but min_vllm_version is 0.11.0" in finding.message


def test_underscore_spellings_are_an_info_at_each_spelling(tmp_path: Path) -> None:
    body = (
        "Run `vllm serve acme/demo --max_model_len 4096` or:\n\n```sh\n"
        "python -m vllm.entrypoints.openai.api_server --model acme/demo"
        " --tensor_parallel_size 2 --compilation_config.mode 3\n```"
    )
    found = _findings(tmp_path, body)
    assert [_written(tmp_path, f) for f in found["RL606"]] == [
        "--max_model_len",
        "--tensor_parallel_size",
        "--compilation_config.mode",
    ]
    assert found["RL606"][2].message.endswith("rewrites it to `--compilation-config.mode`")
    assert {f.severity for f in found["RL606"]} == {Severity.INFO}
    assert found["RL604"] == found["RL605"] == []


def test_a_json_value_quoted_over_several_lines_is_one_value(tmp_path: Path) -> None:
    body = (
        "```bash\nvllm serve acme/demo \\\n  --speculative-config '{\n"
        '    "method": "ngram", "num_speculative_tokens": 3\n  }\' \\\n  --max-num-seqs 8\n```'
    )
    assert _findings(tmp_path, body) == {code: [] for code in CODES}
    [command] = list(guide_commands(body))
    assert [t.text for t in command.args][1:3] == [
        "--speculative-config",
        '{\n    "method": "ngram", "num_speculative_tokens": 3\n  }',
    ]


def test_other_commands_placeholders_and_other_languages_are_not_read(tmp_path: Path) -> None:
    body = (
        "```bash\npip install vllm --extra-index-url https://x\n"
        "vllm serve $MODEL $EXTRA_ARGS --not-an-option-here <flags> | tee log --bogus\n"
        "vllm serve --help\n```\n\n"
        '```python\nsubprocess.run("vllm serve acme/demo --bogus-flag", shell=True)\n```\n\n'
        "```bash\nvllm serve acme/demo --max-model-len 8192 'unclosed\n```"
    )
    found = _findings(tmp_path, body)
    assert [_written(tmp_path, f) for f in found["RL604"]] == ["--not-an-option-here"]
    assert found["RL605"] == found["RL606"] == []


def test_a_server_image_reads_the_words_after_it_without_serve_own_refusals(
    tmp_path: Path,
) -> None:
    body = (
        "```bash\ndocker pull vllm/vllm-openai:latest --bogus-pull\n"
        "docker run --gpus all -p 8000:8000 vllm/vllm-openai:v0.10.0 \\\n"
        "  --model acme/demo --max_num_seqs 8 --enable-prefix-cache-x\n"
        "docker run --entrypoint bash vllm/vllm-openai:latest --bogus-entry\n```"
    )
    found = _findings(tmp_path, body, "0.10.0")
    assert [_written(tmp_path, f) for f in found["RL604"]] == ["--enable-prefix-cache-x"]
    assert [_written(tmp_path, f) for f in found["RL606"]] == ["--max_num_seqs"]
    assert (
        found["RL605"] == []
    )  # `vllm serve --model` is refused in 0.10, the API server module takes it
    [command] = [c for c in guide_commands(body) if c.via_image]
    assert command.args[0].text == "--model"


def test_vllm_serve_itself_refuses_model_as_an_option_where_the_release_does(
    tmp_path: Path,
) -> None:
    body = "```bash\nvllm serve --model acme/demo\n```"
    [finding] = _findings(tmp_path, body, "0.10.0")["RL605"]
    assert _written(tmp_path, finding) == "--model"
    assert "which vLLM 0.10.0 refuses (with `vllm serve`" in finding.message


def test_a_short_unknown_option_gets_no_far_fetched_did_you_mean(tmp_path: Path) -> None:
    """`--cc` shares two letters with `--grpc`: proposing it would send the reader astray."""
    body = "```bash\nvllm serve acme/demo --cc 3\n```"
    [finding] = _findings(tmp_path, body)["RL604"]
    assert finding.hint is not None and "--grpc" not in finding.hint


def test_a_word_written_out_still_gets_its_did_you_mean(tmp_path: Path) -> None:
    body = "```bash\nvllm serve acme/demo --max-model-length 8192\n```"
    [finding] = _findings(tmp_path, body)["RL604"]
    assert finding.hint == "did you mean `--max-model-len`?"


def test_a_flag_a_later_release_accepts_again_is_refused_over_a_stated_range(
    tmp_path: Path,
) -> None:
    """`--disable-log-requests` left after 0.16.0 and came back in 0.33.0 as the negation of
    `--enable-log-requests`: the message names the refusing releases, not "0.17.0 and newer"."""
    body = "```bash\nvllm serve acme/demo --disable-log-requests\n```"
    [finding] = _findings(tmp_path, body, "0.16.0")["RL605"]
    assert "and newer" not in finding.message
    assert "0.17.0 to 0.32.0" in finding.message


def _variant_guide(body: str, variant_minimum: str) -> Fragment:
    indented = "".join(f"  {line}\n" if line else "\n" for line in body.split("\n"))
    return Fragment(
        'model:\n  model_id: acme/demo\n  min_vllm_version: "0.11.0"\n'
        "variants:\n  fp8:\n    model_id: acme/demo-fp8\n"
        f'    min_vllm_version: "{variant_minimum}"\nguide: |\n{indented}'
    )


def test_a_command_serving_a_variant_is_judged_from_that_variant_s_minimum(
    tmp_path: Path,
) -> None:
    """`--attention-backend` arrived in 0.13.0: the recipe claims 0.11.0, its fp8 variant 0.13.0."""
    body = (
        "```bash\nvllm serve acme/demo-fp8 --attention-backend FLASH_ATTN\n```\n\n"
        "```bash\nvllm serve acme/demo --attention-backend FLASH_ATTN\n```"
    )
    found = findings_by_code(tmp_path, {RECIPE: _variant_guide(body, "0.13.0")})
    [finding] = found.get("RL605", [])
    assert finding.line == _line_of(tmp_path, "vllm serve acme/demo --attention")
    assert "but min_vllm_version is 0.11.0" in finding.message


def test_a_variant_s_minimum_is_the_one_its_command_s_finding_names(tmp_path: Path) -> None:
    body = "```bash\nvllm serve acme/demo-fp8 --attention-backend FLASH_ATTN\n```"
    [finding] = findings_by_code(tmp_path, {RECIPE: _variant_guide(body, "0.12.0")})["RL605"]
    assert finding.message.endswith(
        "it needs vLLM 0.13.0 or newer, but variant `fp8`'s min_vllm_version is 0.12.0"
    )
    assert finding.hint is not None and "raise variant `fp8`'s min_vllm_version" in finding.hint


def _line_of(tmp_path: Path, text: str) -> int:
    lines = (tmp_path / RECIPE).read_text(encoding="utf-8").split("\n")
    return next(n for n, line in enumerate(lines, start=1) if text in line)


def test_a_docker_run_of_a_pinned_image_is_judged_at_that_image_s_release(
    tmp_path: Path,
) -> None:
    """`--disable-log-requests` is refused from 0.17.0 to 0.32.0: the 0.16.0 image runs it."""
    body = (
        "```bash\ndocker run --gpus all vllm/vllm-openai:v0.16.0 acme/demo --disable-log-requests\n"
        "docker run --gpus all vllm/vllm-openai:v0.20.0-ubuntu2404 acme/demo"
        " --disable-log-requests\n```"
    )
    [finding] = _findings(tmp_path, body, "0.16.0")["RL605"]
    assert finding.line == _line_of(tmp_path, "v0.20.0-ubuntu2404")
    assert finding.message == (
        "the guide's serve command passes `--disable-log-requests`, which vLLM 0.20.0 refuses: "
        "the image `vllm/vllm-openai:v0.20.0-ubuntu2404` runs that release"
    )


def test_a_latest_or_nightly_image_runs_the_newest_release_or_a_later_build(
    tmp_path: Path,
) -> None:
    """`--disable-log-requests` is refused from 0.17.0 to 0.32.0 and taken again after: the
    `latest` image runs the newest release, not the recipe's minimum (PR 476's `-rocm:latest`
    commands); `--device` is gone from every recent release, nightly builds too."""
    body = (
        "```bash\ndocker run vllm/vllm-openai:latest acme/demo --disable-log-requests\n"
        "docker run vllm/vllm-openai-rocm:nightly acme/demo --device cuda\n"
        "docker run vllm/vllm-openai:nightly acme/demo --moe-backend not_yet_a_backend\n```"
    )
    [finding] = _findings(tmp_path, body, "0.16.0")["RL605"]
    assert finding.line == _line_of(tmp_path, "--device cuda")
    newest = available_versions()[-1]
    assert finding.message.endswith(
        f"which vLLM {newest} refuses: the image `vllm/vllm-openai-rocm:nightly` runs vLLM "
        f"{newest} or newer"
    )


def test_a_guide_of_a_recipe_that_installs_vllm_from_a_clone_runs_main(tmp_path: Path) -> None:
    body = "```bash\nvllm serve acme/demo --moe-backend not_yet_a_backend\n```"
    assert _findings(tmp_path / "a", body)["RL605"] != []
    clone = (
        '  install:\n    pip:\n      command: "git clone https://github.com/vllm-project/vllm'
        ' && cd vllm && uv pip install -e ."\n'
    )
    recipe = _guide(body).text.replace("model:\n", "model:\n" + clone, 1)
    found = findings_by_code(tmp_path / "b", {RECIPE: Fragment(recipe)})
    assert found.get("RL605", []) == []


def test_a_nightly_recipe_s_guide_is_not_told_a_new_value_is_unknown(tmp_path: Path) -> None:
    """min_vllm_version "nightly" (upstream's add-recipe guide writes it): a backend the main
    branch added is no evidence against the recipe (PRs 419, 655, 767)."""
    body = "```bash\nvllm serve acme/demo --moe-backend not_yet_a_backend --device cuda\n```"
    found = _findings(tmp_path, body, "nightly")
    assert [f.message.split(",")[0] for f in found.get("RL605", [])] == [
        "the guide's serve command passes `--device`"
    ]


def _with_args(body: str, minimum: str, base_args: str) -> Fragment:
    indented = "".join(f"  {line}\n" if line else "\n" for line in body.split("\n"))
    return Fragment(
        f'model:\n  min_vllm_version: "{minimum}"\n  base_args: {base_args}\nguide: |\n{indented}'
    )


def test_a_guide_option_the_recipe_s_args_pass_for_the_same_cause_is_left_to_them(
    tmp_path: Path,
) -> None:
    """RL358 reports `--attention-backend` (0.13.0 on) in base_args: the guide's copy is not
    reported again; its `--tool-server` (0.10.1 on), which no args pass, still is."""
    body = (
        "```bash\nvllm serve acme/demo --attention-backend FLASH_ATTN\n"
        "vllm serve acme/demo --tool-server demo\n```"
    )
    recipe = _with_args(body, "0.10.0", '["--attention-backend", "FLASH_ATTN"]')
    found = findings_by_code(tmp_path, {RECIPE: recipe})
    assert [d.message for d in found.get("RL358", [])] == [
        "`--attention-backend` needs vllm 0.13.0 or newer, but min_vllm_version is 0.10.0"
    ]
    [guide] = found.get("RL605", [])
    assert "`--tool-server`" in guide.message


def test_a_json_key_the_args_pass_is_the_same_cause_as_the_guide_s_dotted_key(
    tmp_path: Path,
) -> None:
    body = "```bash\nvllm serve acme/demo --attention-config.use_fp4_indexer_cache True\n```"
    args = '["--attention-config", "{\\"use_fp4_indexer_cache\\": true}"]'
    found = findings_by_code(tmp_path, {RECIPE: _with_args(body, "0.20.0", args)})
    assert [d.code for d in found.get("RL359", [])] == ["RL359"]
    assert found.get("RL605", []) == []


def test_the_same_option_refused_for_another_cause_is_still_reported(tmp_path: Path) -> None:
    """The args' `--attention-backend` is judged from 0.13.0 (a variant's minimum), the
    guide's from 0.10.0: the guide's refusal is its own."""
    body = "```bash\nvllm serve acme/demo --attention-backend FLASH_ATTN\n```"
    recipe = Fragment(
        'model:\n  min_vllm_version: "0.10.0"\nvariants:\n  fast:\n    precision: fp8\n'
        '    min_vllm_version: "0.13.0"\n    extra_args: ["--attention-backend", "FLASH_ATTN"]\n'
        "guide: |\n" + "".join(f"  {line}\n" for line in body.split("\n"))
    )
    found = findings_by_code(tmp_path, {RECIPE: recipe})
    assert found.get("RL358", []) == []
    assert len(found.get("RL605", [])) == 1


def test_a_guide_hint_says_what_acts_on_each_shape_of_refusal(tmp_path: Path) -> None:
    """Raising the minimum helps a flag that is younger than it, not one later releases
    refuse: the hint names the release to raise to, the one to raise past, or says to drop
    the option, as the releases say."""
    younger = "```bash\nvllm serve acme/demo --attention-backend FLASH_ATTN\n```"
    [finding] = _findings(tmp_path / "younger", younger, "0.11.0")["RL605"]
    assert finding.hint == (
        "raise min_vllm_version to 0.13.0, or write the form vLLM 0.11.0 accepts"
    )
    removed = "```bash\nvllm serve acme/demo --swap-space 4\n```"
    [finding] = _findings(tmp_path / "removed", removed, "0.10.0")["RL605"]
    assert finding.hint == (
        "drop it, or write the form later releases accept: no release after vLLM 0.17.1 "
        "runs it, so raising min_vllm_version does not help"
    )
    between = "```bash\nvllm serve acme/demo --disable-log-requests\n```"
    [finding] = _findings(tmp_path / "between", between, "0.16.0")["RL605"]
    assert finding.hint == (
        "raise min_vllm_version past 0.32.0, or write the form every release from 0.16.0 on accepts"
    )


# --- one reading of each guide -------------------------------------------------------------


def test_a_guide_is_read_once_and_not_kept_past_a_few_recent_ones(embedded_tree: Path) -> None:
    tree = load_tree(embedded_tree)
    guided = [doc for doc in tree.recipes if doc.usable and guide.guide_text(doc)]
    guide._recent_facts.cache_clear()
    engine.run_checks(tree)
    info = guide._recent_facts.cache_info()
    assert guided and info.hits + info.misses == len(guided)
    assert info.currsize <= 8


# --- RL603: a checkpoint the recipe does not offer -----------------------------------------


def _rl603(tmp_path: Path, served_in_guide: str) -> list[str]:
    text = (
        'model:\n  model_id: acme/Demo-7B\n  min_vllm_version: "0.20.0"\n'
        "variants:\n  fp8:\n    model_id: newpub/Demo-7B-FP8\n"
        f"guide: |\n  ```bash\n  vllm serve {served_in_guide}\n  ```\n"
    )
    found = findings_by_code(tmp_path, {RECIPE: Fragment(text)})
    return [d.message for d in found.get("RL603", [])]


def test_the_old_publisher_of_a_moved_variant_is_reported(tmp_path: Path) -> None:
    """The variant moved from oldpub to newpub; the guide still serves oldpub's checkpoint."""
    [message] = _rl603(tmp_path / "a", "oldpub/Demo-7B-FP8")
    assert "`vllm serve oldpub/Demo-7B-FP8`" in message


def test_the_served_models_own_quantisations_and_base_builds_are_exempt(
    tmp_path: Path,
) -> None:
    assert _rl603(tmp_path / "a", "acme/Demo-7B-AWQ") == []
    assert _rl603(tmp_path / "b", "newpub/Demo-7B-FP8") == []


# --- RL601, RL602: the guide's Python client -------------------------------------------------


CLIENT = """\
guide: |
  ## Using the API

  ```python
  from openai import OpenAI

  client = OpenAI()
  reply = client.chat.completions.create(
      model="{model}",
      messages=[{{"role": "user", "content": "Hello"}}{close}
  )
  ```
"""


def test_a_python_block_that_does_not_parse_is_reported_at_its_first_line(
    tmp_path: Path,
) -> None:
    broken = CLIENT.format(model="acme/demo", close="")
    [finding] = findings_of(tmp_path / "a", broken, "RL601")
    assert finding.pointer == ("guide",)
    assert finding.span.line == _line_of(tmp_path / "a", "from openai import OpenAI")
    assert finding.message.startswith("python block in the guide does not parse: ")
    assert finding.hint == "fix the snippet; mark illustrative fragments as ```text"
    assert findings_of(tmp_path / "b", CLIENT.format(model="acme/demo", close="],"), "RL601") == []
    text_block = 'guide: |\n  ```text\n  client.create(model="x"\n  ```\n'
    assert findings_of(tmp_path / "c", text_block, "RL601") == []


def test_a_client_model_no_command_serves_is_reported_at_the_name(tmp_path: Path) -> None:
    unknown = CLIENT.format(model="acme/demo-Instruct", close="],")
    [finding] = findings_of(tmp_path / "a", unknown, "RL602")
    assert finding.pointer == ("guide",)
    assert finding.span.line == _line_of(tmp_path / "a", 'model="acme/demo-Instruct"')
    assert finding.message == (
        "the guide's client asks for model `acme/demo-Instruct`, which no command of this "
        "recipe serves: the server answers 404"
    )
    assert finding.hint == "pass one of the served names: `acme/demo`"
    served = CLIENT.format(model="acme/demo", close="],")
    assert findings_of(tmp_path / "b", served, "RL602") == []
    variant = "variants:\n  fp8:\n    model_id: acme/demo-FP8\n    precision: fp8\n"
    variant += "    vram_minimum_gb: 10\n" + CLIENT.format(model="acme/demo-FP8", close="],")
    assert findings_of(tmp_path / "c", variant, "RL602") == []


def test_a_guide_beyond_the_catalogs_is_not_told_a_new_option_is_unknown(tmp_path: Path) -> None:
    body = (
        "## Launch\n\n```bash\nvllm serve acme/demo --an-option-of-a-later-release \\\n"
        "  --kv-cache-dtype fp9 --guided-decoding-backend xgrammar\n```"
    )
    at_catalogued = _findings(tmp_path / "a", body, "0.31.0")
    assert at_catalogued["RL604"] and len(at_catalogued["RL605"]) == 2
    beyond = _findings(tmp_path / "b", body, "99.0.0")
    # Removed before the newest catalog: still refused; unknown to every catalog: not judged.
    assert beyond["RL604"] == []
    assert [_written(tmp_path / "b", f) for f in beyond["RL605"]] == ["--guided-decoding-backend"]


def _rl603_findings(tmp_path: Path, recipe: str, served_in_guide: str) -> list[Diagnostic]:
    text = f"{recipe}guide: |\n  ```bash\n  vllm serve {served_in_guide}\n  ```\n"
    return findings_by_code(tmp_path, {RECIPE: Fragment(text)}).get("RL603", [])


def test_another_size_of_the_served_model_is_another_model(tmp_path: Path) -> None:
    [message] = _rl603(tmp_path / "a", "acme/Demo-13B")
    assert "`vllm serve acme/Demo-13B`" in message


def test_a_one_word_model_s_quantisations_are_builds_of_it(tmp_path: Path) -> None:
    recipe = "model:\n  model_id: acme/Demo-FP8\n"
    assert _rl603_findings(tmp_path / "a", recipe, "acme/Demo-AWQ") == []
    assert _rl603_findings(tmp_path / "b", recipe, "acme/Demo-INT4") == []


def test_a_name_of_release_words_alone_is_its_own_model(tmp_path: Path) -> None:
    [finding] = _rl603_findings(tmp_path, "model:\n  model_id: acme/Base\n", "acme/Chat")
    assert "`vllm serve acme/Chat`" in finding.message


def test_a_checkpoint_the_recipe_serves_under_two_publishers_is_served(tmp_path: Path) -> None:
    recipe = (
        "model:\n  model_id: acme/Demo-7B\n"
        "variants:\n  moved:\n    model_id: newpub/Demo-7B\n    precision: fp8\n"
    )
    assert _rl603_findings(tmp_path / "a", recipe, "acme/Demo-7B") == []
    assert _rl603_findings(tmp_path / "b", recipe, "newpub/Demo-7B") == []


def test_placeholders_options_and_other_languages_name_no_checkpoint(tmp_path: Path) -> None:
    recipe = "model:\n  model_id: acme/Demo-7B\n"
    for index, served in enumerate(("$MODEL", "<your-model>", "--model other/Model")):
        assert _rl603_findings(tmp_path / str(index), recipe, served) == []
    text = (
        f"{recipe}guide: |\n  ```python\n"
        "  # start the server first: vllm serve other/Model\n"
        '  subprocess.run("vllm serve other/Model --port 8000", shell=True)\n  ```\n'
    )
    assert findings_by_code(tmp_path / "python", {RECIPE: Fragment(text)}).get("RL603") is None


def test_the_hint_names_the_recipe_s_checkpoints_model_first(tmp_path: Path) -> None:
    [alone] = _rl603_findings(tmp_path / "a", "model:\n  model_id: acme/Demo-7B\n", "other/Model")
    assert alone.hint == "serve `acme/Demo-7B` here, or add a variant with `model_id: other/Model`"
    variants = "".join(
        f"  v{n}:\n    model_id: acme/Demo-7B-V{n}\n    precision: fp8\n" for n in range(1, 5)
    )
    recipe = f"model:\n  model_id: acme/Demo-7B\nvariants:\n{variants}"
    [many] = _rl603_findings(tmp_path / "b", recipe, "other/Model")
    assert many.hint == (
        "serve `acme/Demo-7B` here (or `acme/Demo-7B-V1`, `acme/Demo-7B-V2`, `acme/Demo-7B-V3`)"
        ", or add a variant with `model_id: other/Model`"
    )


def test_a_client_may_ask_for_a_name_the_recipe_s_args_serve(tmp_path: Path) -> None:
    names = '["--served-model-name", "alpha beta gamma delta", "--served-model-name=inline"]'
    recipe = _with_args("", "0.20.0", names).text
    for index, model in enumerate(("gamma", "inline")):
        client = CLIENT.format(model=model, close="],").replace("guide: |\n", "", 1)
        text = recipe.replace("guide: |\n", "guide: |\n" + client, 1)
        assert findings_of(tmp_path / str(index), text, "RL602") == [], model
    client = CLIENT.format(model="omega", close="],").replace("guide: |\n", "", 1)
    [finding] = findings_of(
        tmp_path / "x", recipe.replace("guide: |\n", "guide: |\n" + client), "RL602"
    )
    assert finding.hint == "pass one of the served names: `acme/demo`, `alpha`, `beta`, `delta`"


def test_the_guide_s_serve_options_are_judged_when_rl607_is_off(tmp_path: Path) -> None:
    body = "```bash\nvllm serve acme/demo --bogus-option\n```"
    found = findings_by_code(tmp_path, {RECIPE: _guide(body)}, Config(ignore=("RL607",)))
    assert [_written(tmp_path, f) for f in found.get("RL604", [])] == ["--bogus-option"]


def test_a_command_run_with_omni_is_judged_against_vllm_omni(tmp_path: Path) -> None:
    body = "```bash\nvllm serve acme/demo --omni --max-model-len 8192 --bogus-option\n```"
    found = _findings(tmp_path, body)
    assert [_written(tmp_path, f) for f in found["RL604"]] == ["--bogus-option"]
    assert found["RL604"][0].message.endswith("an option no vLLM release accepts")


def test_a_pinned_image_s_release_stands_in_a_section_asking_for_a_newer_one(
    tmp_path: Path,
) -> None:
    """The image runs 0.11.0 alone, whatever its section asks for: --attention-backend came
    with 0.13.0."""
    body = (
        "## Launch\n\nThis needs vLLM >= 0.13.0.\n\n```bash\n"
        "docker run vllm/vllm-openai:v0.11.0 acme/demo --attention-backend FLASH_ATTN\n```"
    )
    [finding] = _findings(tmp_path, body, "0.11.0")["RL605"]
    assert finding.message.endswith("the image `vllm/vllm-openai:v0.11.0` runs that release")
