"""`recipelint show`: the rendered commands of one combination, each token with its list.

Through the real CLI on the embedded tree and on small trees: the commands are the ones
`compile` publishes, each token names its list and the line it is written on, a value a
later layer replaces names that layer, a PD strategy shows each role, and whatever was
asked for but does not exist is a usage error listing the choices. On the upstream corpus,
every recipe's recommended command is the compiled one.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import EMBEDDED_TREE
from treehelp import Fragment, build_tree

from recipelint.cli import main
from recipelint.compile.compiler import OutputMap, compile_tree
from recipelint.lsp.cursor import cursor_at, split_lines
from recipelint.lsp.hover import hover_text
from recipelint.read.tree import load_tree, recipe_hf_id
from recipelint.report.showing import CommandSection, Loaded, build_view, choose, find_recipe

RECIPE = "models/acme/demo.yaml"
HF_ID = "acme/demo"
# A variant that sets a value, a Hopper override (H200 is a Hopper) that replaces it, a
# falsy item, an env variable the Hopper override replaces too.
OVERRIDDEN = Fragment("""\
model:
  base_args: ["--trust-remote-code", "--max-model-len", "8192"]
  base_env:
    VLLM_LOGGING_LEVEL: "INFO"
variants:
  default:
    precision: bf16
    vram_minimum_gb: 20
    extra_args: ["--moe-backend", "cutlass", ""]
hardware_overrides:
  hopper:
    extra_args: ["--moe-backend", "marlin"]
    extra_env:
      VLLM_LOGGING_LEVEL: "DEBUG"
""")
PD = Fragment("""\
compatible_strategies: [single_node_tp, pd_cluster]
strategy_overrides:
  pd_cluster:
    prefill:
      vllm_args: ["--max-num-batched-tokens", "16384"]
""")


def _show(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    status = main(["show", *args])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def _json(args: list[str], capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    status, out, err = _show([*args, "--format", "json"], capsys)
    assert status == 0, err
    found: dict[str, Any] = json.loads(out)
    return found


def _line_of(path: Path, needle: str, after: str = "") -> int:
    """The 1-based line where ``needle`` is first written after the line holding ``after``:
    an oracle read from the text, not from the loader's spans."""
    lines = path.read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if after in line) if after else 0
    return next(i for i in range(start, len(lines)) if needle in lines[i]) + 1


def _published(files: OutputMap, hf_id: str, hardware: str, strategy: str) -> Any:
    """The compiled rendering of a strategy on a hardware: the hardware's own document when
    it is the recommended one there, else the alternative's."""
    recommended = files.document(f"{hf_id}/hw/{hardware}.json")
    if recommended["strategy"] == strategy:
        return recommended
    return files.document(f"{hf_id}/hw/{hardware}/strategies/{strategy}.json")


def _commands(shown: dict[str, Any]) -> list[dict[str, Any]]:
    return [section for section in shown["sections"] if section["kind"] == "command"]


def _deployments(shown: dict[str, Any]) -> list[dict[str, Any]]:
    return [section for section in shown["sections"] if section["kind"] == "deployment"]


def _unit_with(section: dict[str, Any], token: str) -> list[dict[str, Any]]:
    return [u for u in section["args"] if any(t["token"] == token for t in u["tokens"])]


# ------------------------------------------------------------------ the embedded tree


def test_the_default_is_the_recommended_command_as_compiled(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    compiled = compile_tree(EMBEDDED_TREE).files
    monkeypatch.chdir(EMBEDDED_TREE)
    for doc in load_tree(EMBEDDED_TREE).recipes:
        hf_id = recipe_hf_id(doc.rel)
        recommended = compiled.document(f"{hf_id}.json").get("recommended_command")
        if recommended is None or "argv" not in recommended:
            continue  # omni, or a shape with more than one command (asserted below)
        shown = _json([str(hf_id)], capsys)
        [section] = _commands(shown)
        assert section["argv"] == recommended["argv"]
        assert section["command"] == recommended["command"]
        assert section["docker_command"] == recommended["docker_command"]
        assert (shown["hardware"], shown["strategy"]) == (
            recommended["hardware"],
            recommended["strategy"],
        )
        status, out, _err = _show([str(hf_id)], capsys)
        assert status == 0 and recommended["command"] in out


def test_each_token_names_its_list_and_the_line_it_is_written_on(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(EMBEDDED_TREE)
    rel = "models/deepseek-ai/DeepSeek-V3.1.yaml"
    shown = _json([rel], capsys)  # MODEL as the recipe file's path
    [section] = _commands(shown)
    [unit] = _unit_with(section, "--tool-call-parser")
    source = unit["tokens"][0]["from"]
    assert source["layer"] == "features.tool_calling.args"
    assert source["file"] == rel
    assert source["line"] == _line_of(EMBEDDED_TREE / rel, "--tool-call-parser", "tool_calling:")
    assert source["path"][:3] == ["features", "tool_calling", "args"]
    [emitted] = _unit_with(section, "--tensor-parallel-size")
    assert emitted["tokens"][0]["from"] == {"origin": "strategy emitter"}
    strategy_file = EMBEDDED_TREE / "strategies" / f"{shown['strategy']}.yaml"
    from_file = [
        t["from"]
        for u in section["args"]
        for t in u["tokens"]
        if t["from"].get("file") == f"strategies/{shown['strategy']}.yaml"
    ]
    assert from_file, "the strategy file's own vllm_args join the command"
    for source in from_file:
        assert source["layer"].startswith(f"strategy {shown['strategy']} ")
        written = strategy_file.read_text(encoding="utf-8").splitlines()[source["line"] - 1]
        assert str(source["path"][-2]) in source["layer"] and written.strip().startswith("-")


# ------------------------------------------------------------------ small trees


def test_a_replaced_value_names_the_layer_that_replaced_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = build_tree(tmp_path / "tree", {RECIPE: OVERRIDDEN})
    recipe = root / RECIPE
    shown = _json([HF_ID, "--tree", str(root), "--hardware", "h200"], capsys)
    [section] = _commands(shown)
    kept, dropped = (
        [u for u in _unit_with(section, "--moe-backend") if u["kept"] is state]
        for state in (True, False)
    )
    assert [t["token"] for t in kept[0]["tokens"]] == ["--moe-backend", "marlin"]
    assert kept[0]["tokens"][0]["from"]["layer"] == "hardware_overrides.hopper.extra_args"
    assert kept[0]["tokens"][0]["from"]["line"] == _line_of(recipe, "marlin", "hopper:")
    assert [t["token"] for t in dropped[0]["tokens"]] == ["--moe-backend", "cutlass"]
    assert dropped[0]["tokens"][0]["from"]["layer"] == "variants.default.extra_args"
    assert dropped[0]["replaced_by"] == kept[0]["tokens"]
    assert [t["token"] for t in section["falsy"]] == [""]
    env = {(e["name"], e["value"]): e for e in section["env"]}
    replaced = env[("VLLM_LOGGING_LEVEL", "INFO")]
    assert not replaced["kept"] and replaced["replaced_by"]["layer"] == (
        "hardware_overrides.hopper.extra_env"
    )
    assert env[("VLLM_LOGGING_LEVEL", "DEBUG")]["kept"]
    # The same answer as text: the reviewer's "why does H200 get --moe-backend marlin?"
    status, out, _err = _show([HF_ID, "--tree", str(root), "--hardware", "h200"], capsys)
    assert status == 0
    marlin_line = _line_of(recipe, "marlin", "hopper:")
    assert f"hardware_overrides.hopper.extra_args ({RECIPE}:{marlin_line})" in out
    assert "dropped by a later layer (last wins):" in out
    assert "replaced by `--moe-backend marlin` from hardware_overrides.hopper.extra_args" in out


def test_on_other_hardware_the_variants_value_is_kept(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = build_tree(tmp_path / "tree", {RECIPE: OVERRIDDEN})
    shown = _json([HF_ID, "--tree", str(root), "--hardware", "mi300x"], capsys)
    [section] = _commands(shown)
    [unit] = _unit_with(section, "--moe-backend")
    assert unit["kept"] and unit["tokens"][1]["token"] == "cutlass"
    assert section["argv"][3:] == [
        t["token"] for u in section["args"] if u["kept"] for t in u["tokens"]
    ]


def test_a_pd_strategy_shows_each_role(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = build_tree(tmp_path / "tree", {RECIPE: PD})
    shown = _json([HF_ID, "--tree", str(root), "--strategy", "pd_cluster"], capsys)
    assert [s["label"] for s in _commands(shown)] == ["prefill", "decode"]
    prefill, decode = _commands(shown)
    [own] = _unit_with(prefill, "--max-num-batched-tokens")
    assert own["tokens"][0]["from"]["layer"] == "strategy_overrides.pd_cluster.prefill.vllm_args"
    assert _unit_with(decode, "--max-num-batched-tokens") == []
    ports = {s["label"]: _unit_with(s, "--port")[0]["tokens"] for s in _commands(shown)}
    assert ports["prefill"][0]["from"]["layer"] == "strategy pd_cluster prefill.vllm_args"
    assert ports["decode"][0]["from"]["file"] == "strategies/pd_cluster.yaml"
    pinned = [e for e in prefill["env"] if e["name"] == "CUDA_VISIBLE_DEVICES"]
    assert pinned and pinned[-1]["from"] == {"origin": "PD device pinning"}
    status, out, _err = _show([HF_ID, "--tree", str(root), "--strategy", "pd_cluster"], capsys)
    assert status == 0
    assert "== vllm serve (prefill) ==" in out and "== vllm serve (decode) ==" in out


def test_a_multi_node_strategy_shows_the_head_and_each_worker(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(EMBEDDED_TREE)
    args = ["deepseek-ai/DeepSeek-V3.1", "--hardware", "h100", "--strategy", "multi_node_tep"]
    shown = _json(args, capsys)
    labels = [s["label"] for s in _commands(shown)]
    assert labels[0] == "head" and labels[1:] == [
        f"worker {n}" for n in range(1, shown["node_count"])
    ]
    compiled = _published(
        compile_tree(EMBEDDED_TREE).files, "deepseek-ai/DeepSeek-V3.1", "h100", "multi_node_tep"
    )
    assert [s["argv"] for s in _commands(shown)] == [
        compiled["head_argv"],
        *compiled["worker_argvs"],
    ]


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["acme/nope"], "no recipe acme/nope"),
        ([HF_ID, "--variant", "fp4"], "unknown variant fp4; choose one of: default"),
        ([HF_ID, "--hardware", "nohw"], "unknown hardware nohw; choose one of: "),
        ([HF_ID, "--strategy", "nope"], "unknown strategy nope; choose one of: single_node_tp"),
    ],
)
def test_what_does_not_exist_is_a_usage_error_listing_the_choices(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], named: str
) -> None:
    root = build_tree(tmp_path / "tree", {RECIPE: PD})
    status, out, err = _show([*args, "--tree", str(root)], capsys)
    assert status == 2 and out == ""
    assert named in err and "Traceback" not in err
    if "--hardware" in args:
        assert "h200" in err


def test_outside_a_tree_and_an_omni_recipe_are_usage_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    status, _out, err = _show([HF_ID], capsys)
    assert status == 2 and "not in a recipe tree" in err
    omni = Fragment("meta:\n  tasks: [omni]\n")
    root = build_tree(tmp_path / "tree", {RECIPE: omni})
    status, _out, err = _show([HF_ID, "--tree", str(root)], capsys)
    assert status == 2 and "renders no command" in err and "Traceback" not in err


# ------------------------------------------------------------------ the upstream corpus


def _argvs(doc: dict[str, Any]) -> list[list[Any]]:
    """Every `vllm serve` argv of a published rendering, in the order the renderer lays them out."""
    if doc["deploy_type"] == "pd_cluster":
        return [doc[role]["argv"] for role in ("prefill", "decode")]
    if doc["deploy_type"] == "kv_store_lb":
        return [doc["vllm_argv"], *(doc.get("vllm_worker_argvs") or [])]
    if "head_argv" in doc:
        return [doc["head_argv"], *doc["worker_argvs"]]
    return [doc["argv"]]


def test_every_recommended_command_of_the_corpus_is_the_compiled_one(
    corpus_tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    compiled = compile_tree(corpus_tree).files
    tree = load_tree(corpus_tree)
    first = find_recipe(tree.recipes[0].rel, corpus_tree, corpus_tree)
    shown = 0
    for doc in tree.recipes:
        hf_id = str(recipe_hf_id(doc.rel))
        path = f"{hf_id}.json"
        recommended = (
            compiled.document(path).get("recommended_command") if path in compiled else None
        )
        if recommended is None:
            continue  # omni recipes and recipes without a default variant publish none
        loaded = Loaded(first.tree, first.inputs, doc, hf_id)
        view = build_view(loaded, choose(loaded, None, None, None))
        commands = [
            section.command for section in view.sections if isinstance(section, CommandSection)
        ]
        assert [c.argv for c in commands] == _argvs(recommended), hf_id
        for command in commands:
            assert command.args.deduped() == command.argv[3:], (hf_id, command.label)
        shown += 1
    assert shown > 100
    status, out, err = _show([tree.recipes[0].rel, "--tree", str(corpus_tree)], capsys)
    assert status == 0 and "where each token comes from:" in out, err


# ------------------------------------------------------------------ the language server's hover


def _hover_on(root: Path, needle: str, after: str) -> str | None:
    """The hover text with the cursor on ``needle``, on the first line holding it after ``after``."""
    tree = load_tree(root)
    [doc] = [d for d in tree.recipes if d.rel == RECIPE]
    lines = split_lines(doc.text)
    line = _line_of(root / RECIPE, needle, after) - 1
    character = lines[line].index(needle) + 1
    return hover_text(tree, doc, lines, cursor_at(lines, line, character), character)


def test_hover_on_an_args_item_says_where_it_lands_and_what_drops_it(tmp_path: Path) -> None:
    root = build_tree(tmp_path / "tree", {RECIPE: OVERRIDDEN})
    marlin_line = _line_of(root / RECIPE, "marlin", "hopper:")
    dropped = _hover_on(root, "cutlass", "variants:")
    assert dropped is not None
    assert "**in the commands of variant `default` on `h200` with `single_node_tp`**" in dropped
    assert (
        "- `vllm serve`: `--moe-backend cutlass` dropped, replaced by `--moe-backend marlin` "
        f"from hardware_overrides.hopper.extra_args ({RECIPE}:{marlin_line})"
    ) in dropped
    kept = _hover_on(root, "--trust-remote-code", "base_args")
    assert kept is not None and "- `vllm serve`: kept as `--trust-remote-code`" in kept


def test_hover_on_a_pd_roles_item_names_the_role_it_lands_in(tmp_path: Path) -> None:
    root = build_tree(tmp_path / "tree", {RECIPE: PD})
    shown = _hover_on(root, "--max-num-batched-tokens", "prefill:")
    assert shown is not None and "with `pd_cluster`**" in shown
    assert "- `vllm serve` (prefill): kept as `--max-num-batched-tokens 16384`" in shown
    assert "(decode)" not in shown


def test_hostile_shapes_are_shown_as_the_compiler_renders_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A string where a list belongs is spread by character, as upstream spreads it; a number
    listed as a strategy is chosen by its text."""
    odd = Fragment('model:\n  base_args: "--x"\ncompatible_strategies: [single_node_tp, 5]\n')
    root = build_tree(tmp_path / "tree", {RECIPE: odd})
    shown = _json([HF_ID, "--tree", str(root), "--strategy", "5"], capsys)
    assert shown["strategy"] == 5 and 5 in shown["choices"]["strategies"]
    [section] = _commands(shown)
    kept = [t for u in section["args"] if u["kept"] for t in u["tokens"]]
    assert [t["token"] for t in kept] == section["argv"][3:]
    # "-" "-" "x": the first "-" is a bare flag the second (with its value "x") replaces
    assert [t["token"] for t in kept[:2]] == ["-", "x"]
    assert {t["from"]["layer"] for t in kept[:2]} == {"model.base_args"}
    [dropped] = [u for u in section["args"] if not u["kept"]]
    assert [t["token"] for t in dropped["tokens"]] == ["-"]
    assert dropped["replaced_by"] == kept[:2]
    status, out, err = _show([HF_ID, "--tree", str(root), "--strategy", "5"], capsys)
    assert status == 0 and "Traceback" not in err and "strategy 5" in out


# ------------------------------------------------------------------ the deployment section


def _product_of_sizes(argv: list[str]) -> int:
    """Tensor × pipeline × data parallel, as the last setting of each long flag gives them."""
    sizes = {"--tensor-parallel-size": 1, "--pipeline-parallel-size": 1, "--data-parallel-size": 1}
    for flag, value in zip(argv, argv[1:], strict=False):
        if flag in sizes:
            sizes[flag] = int(value)
    return (
        sizes["--tensor-parallel-size"]
        * sizes["--pipeline-parallel-size"]
        * sizes["--data-parallel-size"]
    )


def test_each_command_a_head_starts_is_followed_by_its_deployment(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(EMBEDDED_TREE)
    cases = [
        ["deepseek-ai/DeepSeek-V3.1"],
        ["deepseek-ai/DeepSeek-V3.1", "--hardware", "h100", "--strategy", "multi_node_tep"],
        ["deepseek-ai/DeepSeek-V3.1", "--hardware", "h200", "--strategy", "pd_cluster"],
    ]
    for args in cases:
        shown = _json(args, capsys)
        heads = [c for c in _commands(shown) if not c["label"].startswith("worker")]
        deployments = _deployments(shown)
        assert [d["label"] for d in deployments] == [c["label"] for c in heads], args
        for command, deployment in zip(heads, deployments, strict=True):
            assert deployment["gpus_used"] == _product_of_sizes(command["argv"]), args
            assert deployment["nodes"] >= 1 and deployment["gpus_per_node"] >= 1
            assert deployment["platform"] == "cuda" and deployment["arch"] == "x86_64"
        status, out, _err = _show(args, capsys)
        assert status == 0 and out.count("== deployment") == len(heads)
        assert "GPUs: " in out and "allotted" in out
