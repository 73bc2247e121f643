"""Compile on small in-test trees: output paths, atomic replacement, determinism, provenance."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from recipelint.cli import main
from recipelint.compile.compiler import compile_tree, render_combination, unsafe_path_reason
from recipelint.compile.compilerun import CompileRun, read_tree
from recipelint.compile.emit import EmitError
from recipelint.read.load import LoadLimits

TAXONOMY = """\
hardware_profiles:
  h200: {brand: NVIDIA, generation: hopper, gpu_count: 8, vram_gb: 1128}
  b200: {brand: NVIDIA, generation: blackwell, gpu_count: 8, vram_gb: 1440}
  mi300x: {brand: AMD, generation: amd, gpu_count: 8, vram_gb: 1536}
"""
STRATEGIES = {
    "single_node_tp": "name: single_node_tp\ndeploy_type: single_node\nvllm_args: []\n",
    "multi_node_tp": "name: multi_node_tp\ndeploy_type: multi_node\nvllm_args: []\n",
}
KV = (
    "name: kv_store_centralized_mooncake\ndeploy_type: kv_store_lb\n"
    "vllm:\n  vllm_args: ['--kv-transfer-config', '{}']\n"
)
RECIPE = """\
meta: {{title: "{title}", provider: P, tasks: [text]}}
model: {{model_id: {hf_id}, base_args: ["--trust-remote-code"]}}
features: {{}}
variants:
  default: {{precision: bf16, vram_minimum_gb: 10}}
{extra}compatible_strategies: [single_node_tp, multi_node_tp]
"""


def make_tree(root: Path, recipes: dict[str, str] | None = None) -> Path:
    (root / "models").mkdir(parents=True)
    (root / "taxonomy.yaml").write_text(TAXONOMY)
    (root / "strategies").mkdir()
    for name, text in STRATEGIES.items():
        (root / "strategies" / f"{name}.yaml").write_text(text)
    (root / "kv_store").mkdir()
    (root / "kv_store" / "kv_store_centralized_mooncake.yaml").write_text(KV)
    for rel, text in (recipes or {"models/org/model.yaml": recipe_text("org/model")}).items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def recipe_text(hf_id: str, variants: str = "", title: str = "T") -> str:
    return RECIPE.format(hf_id=hf_id, title=title, extra=variants)


def snapshot(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def compile_cli(tree: Path, out: Path, *options: str) -> int:
    return main(["compile", str(tree), "-o", str(out), "-q", *options])


# ------------------------------------------------------------------ output paths


@pytest.mark.parametrize(
    "bad",
    [
        "../escape/evil",
        "/abs/local/path",
        "a/../../b",
        "a\\b/c",
        "a/\x00b",
        "a//b",
        "./a/b",
        "a/..",
    ],
)
def test_unsafe_ids_are_recognised(bad: str) -> None:
    assert unsafe_path_reason(bad) is not None


@pytest.mark.parametrize(
    "bad", ["../escape/evil", "/abs/local/path", "a/../../b", "a\\\\b/c", "a/\\0b"]
)
def test_unsafe_promoted_model_id_is_an_error_and_nothing_is_written(
    tmp_path: Path, bad: str
) -> None:
    variants = f'  evil: {{model_id: "{bad}", precision: fp8, vram_minimum_gb: 5}}\n'
    tree = make_tree(
        tmp_path / "tree", {"models/org/model.yaml": recipe_text("org/model", variants)}
    )
    result = compile_tree(tree)
    assert [(d.code, d.span.line) for d in result.diagnostics] == [("RL701", 6)]
    assert all(unsafe_path_reason(p) is None for p in result.files.paths())
    assert all("evil" not in p and "abs" not in p for p in result.files.paths())
    out = tmp_path / "out"
    assert compile_cli(tree, out) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tree"]  # nothing beside or outside OUT


def test_recipe_id_from_a_dot_dot_file_name_is_refused(tmp_path: Path) -> None:
    tree = make_tree(
        tmp_path / "tree",
        {"models/org/...yaml": recipe_text("org/x"), "models/org/ok.yaml": recipe_text("org/ok")},
    )
    result = compile_tree(tree)
    assert [d.code for d in result.diagnostics] == ["RL701"]
    assert "org/ok.json" in result.files


def test_recipe_directly_under_models_is_a_diagnostic_not_a_wipe(tmp_path: Path) -> None:
    tree = make_tree(tmp_path / "tree")
    out = tmp_path / "out"
    assert compile_cli(tree, out) == 0
    before = snapshot(out)
    (tree / "models" / "stray.yaml").write_text(recipe_text("stray"))
    assert compile_cli(tree, out) == 1
    assert snapshot(out) == before
    assert {d.code for d in compile_tree(tree).diagnostics} == {"RL014"}


# ------------------------------------------------------------------ write semantics


def test_second_promotion_of_an_id_replaces_the_first_sub_tree(tmp_path: Path) -> None:
    variants = (
        "  a: {model_id: zz/Same, precision: fp8, vram_minimum_gb: 5}\n"
        "  b: {model_id: zz/Same, precision: fp8, vram_minimum_gb: 5, supported_hardware: [b200]}\n"
    )
    tree = make_tree(
        tmp_path / "tree", {"models/org/model.yaml": recipe_text("org/model", variants)}
    )
    result = compile_tree(tree)
    same = [p for p in result.files.paths() if p.startswith("zz/Same/")]
    assert same and all(
        "/h200" not in p and "/mi300x" not in p for p in same
    )  # a's renderings were removed
    assert json.loads(result.files.serialize("zz/Same.json"))["meta"]["variant"] == "b"
    index = json.loads(result.files.serialize("models.json"))
    assert [e["hf_id"] for e in index].count("zz/Same") == 2
    assert [d.code for d in result.diagnostics] == ["RL707"]


def test_failed_compile_leaves_previous_output_intact(tmp_path: Path) -> None:
    tree = make_tree(tmp_path / "tree")
    out = tmp_path / "out"
    assert compile_cli(tree, out) == 0
    before = snapshot(out)
    (tree / "models" / "org" / "broken.yaml").write_text("meta: {title: x\n")
    assert compile_cli(tree, out) == 1
    assert snapshot(out) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "out",
        "tree",
    ]  # no staging folder left behind


def test_successful_compile_replaces_output_as_a_whole(tmp_path: Path) -> None:
    tree = make_tree(tmp_path / "tree")
    out = tmp_path / "out"
    assert compile_cli(tree, out) == 0
    (out / "stale.json").write_text("{}")
    assert compile_cli(tree, out) == 0
    assert not (out / "stale.json").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out", "tree"]


def test_refuses_to_replace_a_folder_that_is_not_compiled_output(tmp_path: Path) -> None:
    tree = make_tree(tmp_path / "tree")
    precious = tmp_path / "precious"
    precious.mkdir()
    (precious / "notes.txt").write_text("keep me")
    assert compile_cli(tree, precious) == 2
    assert (precious / "notes.txt").read_text() == "keep me"
    assert compile_cli(tree, tree) == 2
    assert compile_cli(tree, tmp_path) == 2
    assert (tree / "taxonomy.yaml").exists()


def test_dry_run_writes_nothing(tmp_path: Path) -> None:
    tree = make_tree(tmp_path / "tree")
    assert main(["compile", str(tree), "--dry-run", "-q"]) == 0
    assert main(["compile", str(tree), "-o", str(tmp_path / "out"), "--dry-run", "-q"]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tree"]


def test_dry_run_counts_the_bytes_a_compile_leaves(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Files a later promotion's `rm -rf` removes or a later write replaces are not counted."""
    variants = (
        "  a: {model_id: zz/Same, precision: fp8, vram_minimum_gb: 5}\n"
        "  b: {model_id: zz/Same, precision: fp8, vram_minimum_gb: 5, supported_hardware: [b200]}\n"
    )
    tree = make_tree(
        tmp_path / "tree", {"models/org/model.yaml": recipe_text("org/model", variants)}
    )
    assert main(["compile", str(tree), "--dry-run"]) == 0
    said = capsys.readouterr().err.splitlines()[-1]
    assert compile_cli(tree, tmp_path / "out") == 0
    written = snapshot(tmp_path / "out")
    size = sum(len(data) for data in written.values())
    assert said == (
        f"recipelint compile: {len(written)} files, {size} bytes rendered "
        "(dry run, nothing written)"
    )


def _compile_run(tree: Path) -> CompileRun:
    loaded, recipe_files = read_tree(tree, LoadLimits())
    return CompileRun(loaded, recipe_files, None, 5000)


def test_a_compile_run_measures_the_output_it_publishes(tmp_path: Path) -> None:
    tree = make_tree(tmp_path / "tree")
    measured, size = _compile_run(tree).measure()
    published, written = _compile_run(tree).publish(tmp_path / "out")
    files = snapshot(tmp_path / "out")
    assert measured.ok and published.ok
    assert (written, size) == (len(files), sum(len(data) for data in files.values()))


def test_a_compile_run_that_cannot_write_raises_and_leaves_nothing(tmp_path: Path) -> None:
    tree = make_tree(tmp_path / "tree")
    (tmp_path / "file").write_text("not a folder")
    with pytest.raises(EmitError):
        _compile_run(tree).publish(tmp_path / "file" / "out")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file", "tree"]


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    tree = make_tree(tmp_path / "tree")
    assert main(["compile", str(tree)]) == 2
    assert main(["compile", str(tmp_path), "-o", str(tmp_path / "out")]) == 2
    assert (
        main(
            [
                "compile",
                str(tree),
                "-o",
                str(tmp_path / "o"),
                "--no-provenance",
                "--source-ref",
                "x",
            ]
        )
        == 2
    )


# ------------------------------------------------------------------ determinism


def test_output_does_not_depend_on_directory_listing_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    recipes = {
        f"models/{org}/{name}.yaml": recipe_text(f"{org}/{name}", title=name)
        for org in ("b-org", "a-org", "A-org")
        for name in ("m-2", "m.1", "M", "m-1")
    }
    tree = make_tree(tmp_path / "tree", recipes)
    first = dict(compile_tree(tree).files.items())
    real_listdir = os.listdir
    monkeypatch.setattr(os, "listdir", lambda path=".": list(reversed(real_listdir(path))))
    second = dict(compile_tree(tree).files.items())
    assert first == second
    order = [e["hf_id"] for e in json.loads(first["models.json"])]
    assert order[:4] == ["A-org/M", "A-org/m-1", "A-org/m-2", "A-org/m.1"]


# ------------------------------------------------------------------ provenance


def _git(folder: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-C", str(folder), *args],
        check=True,
        capture_output=True,
        env={
            **os.environ,
            "GIT_AUTHOR_NAME": "t",
            "GIT_AUTHOR_EMAIL": "t@t",
            "GIT_COMMITTER_NAME": "t",
            "GIT_COMMITTER_EMAIL": "t@t",
        },
    )


def test_source_options_add_a_trailing_block(tmp_path: Path) -> None:
    variants = "  fp8: {model_id: zz/Model-FP8, precision: fp8, vram_minimum_gb: 5}\n"
    tree = make_tree(
        tmp_path / "tree", {"models/org/model.yaml": recipe_text("org/model", variants)}
    )
    out = tmp_path / "out"
    assert (
        compile_cli(
            tree,
            out,
            "--source-name",
            "s",
            "--source-repo",
            "o/r",
            "--source-ref",
            "main",
            "--source-sha",
            "abc",
        )
        == 0
    )
    for name in ("org/model.json", "zz/Model-FP8.json"):
        document = json.loads((out / name).read_text())
        assert list(document)[-1] == "source"
        assert document["source"] == {
            "source": "s",
            "repo": "o/r",
            "ref": "main",
            "sha": "abc",
            "path": "models/org/model.yaml",
            "edit_url": "https://github.com/o/r/edit/main/models/org/model.yaml",
            "overlays": [],
        }
    assert "source" not in json.loads((out / "org/model/hw/h200.json").read_text())


def test_no_block_outside_git_or_with_no_provenance(tmp_path: Path) -> None:
    tree = make_tree(tmp_path / "tree")
    assert compile_cli(tree, tmp_path / "out") == 0
    assert "source" not in json.loads((tmp_path / "out" / "org/model.json").read_text())


needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


@needs_git
def test_block_is_filled_from_git(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    tree = make_tree(repo / "recipes")
    _git(repo, "init", "-q", "-b", "trunk")
    _git(repo, "remote", "add", "origin", "git@github.com:acme/recipes.git")
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "x")
    sha = subprocess.run(
        ["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    out = tmp_path / "out"
    assert compile_cli(tree, out) == 0
    source = json.loads((out / "org/model.json").read_text())["source"]
    assert source == {
        "source": "recipes",
        "repo": "acme/recipes",
        "ref": "trunk",
        "sha": sha,
        "path": "recipes/models/org/model.yaml",
        "edit_url": "https://github.com/acme/recipes/edit/trunk/recipes/models/org/model.yaml",
        "overlays": [],
    }
    assert compile_cli(tree, out, "--no-provenance") == 0
    assert "source" not in json.loads((out / "org/model.json").read_text())


# ------------------------------------------------------------------ library call


def test_render_combination_matches_the_compiled_file(tmp_path: Path) -> None:
    tree = make_tree(tmp_path / "tree")
    compiled = json.loads(
        compile_tree(tree).files.serialize("org/model/strategies/multi_node_tp.json")
    )
    single = render_combination(tree, "org/model", "default", "h200", "multi_node_tp")
    assert single == compiled
    with pytest.raises(LookupError):
        render_combination(tree, "org/nope", "default", "h200", "single_node_tp")
    recipe = tree / "models/org/model.yaml"
    recipe.write_text(
        recipe.read_text().replace('"--trust-remote-code"', '"--trust-remote-code", "--edited"')
    )
    edited = render_combination(tree, "org/model", "default", "h200", "single_node_tp")
    assert "--edited" in edited["argv"]


@pytest.mark.parametrize(
    ("url", "slug"),
    [
        ("https://github.com/vllm-project/vllm.git", "vllm-project/vllm"),
        ("git@github.com:acme/recipes.git", "acme/recipes"),
        ("ssh://git@github.com/a/b", "a/b"),
        ("https://github.com/a/b/", "a/b"),
        ("/srv/clones/main", None),
        ("https://gitlab.com/a/b", None),
    ],
)
def test_origin_remote_to_repo_slug(url: str, slug: str | None) -> None:
    from recipelint.compile.compiler import repo_slug

    assert repo_slug(url) == slug


@needs_git
def test_checkout_whose_origin_is_not_github_gets_no_block(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    tree = make_tree(repo / "recipes")
    _git(repo, "init", "-q")
    _git(repo, "remote", "add", "origin", "/srv/clones/main")
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "x")
    assert compile_cli(tree, tmp_path / "out") == 0
    assert "source" not in json.loads((tmp_path / "out" / "org/model.json").read_text())


def test_index_like_keys_are_iterated_in_javascript_order(tmp_path: Path) -> None:
    variants = (
        '  "2": {model_id: zz/two, precision: fp8, vram_minimum_gb: 5}\n'
        '  "1": {model_id: zz/one, precision: fp8, vram_minimum_gb: 5}\n'
    )
    tree = make_tree(
        tmp_path / "tree", {"models/org/model.yaml": recipe_text("org/model", variants)}
    )
    (tree / "taxonomy.yaml").write_text(
        TAXONOMY + '  "4090": {brand: NVIDIA, generation: ada, gpu_count: 1}\n'
    )
    result = compile_tree(tree)
    index = json.loads(result.files.serialize("models.json"))
    assert [e["hf_id"] for e in index] == ["org/model", "zz/one", "zz/two"]
    parent = json.loads(result.files.serialize("org/model.json"))
    assert list(parent["variants"]) == ["1", "2", "default"]
    assert list(parent["recommended_command"]["by_hardware"]) == ["4090", "h200", "b200", "mi300x"]


def test_unwritable_destination_is_reported_and_nothing_changes(tmp_path: Path) -> None:
    tree = make_tree(tmp_path / "tree")
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    assert compile_cli(tree, blocker / "out") == 2
    assert blocker.read_text() == "not a folder"


def test_quickstart_files_are_published_by_hardware_profile(tmp_path: Path) -> None:
    tree = make_tree(tmp_path / "tree")
    (tree / "quickstart").mkdir()
    (tree / "quickstart" / "b.yaml").write_text("hardware_profile: h200\ntitle: q\n")
    (tree / "quickstart" / "a.yml").write_text("hardware_profile: ignored\n")  # only .yaml is read
    result = compile_tree(tree)
    assert json.loads(result.files.serialize("quickstart/h200.json")) == {
        "hardware_profile": "h200",
        "title": "q",
    }
    assert not [p for p in result.files.paths() if "ignored" in p]


def test_two_files_with_one_hf_id_and_namespace_collisions_are_warned(tmp_path: Path) -> None:
    recipes = {
        "models/org/model.yaml": recipe_text("org/model", title="first"),
        "models/org/deeper/model.yaml": recipe_text("org/model", title="second"),
        "models/strategies/single_node_tp.yaml": recipe_text("strategies/single_node_tp"),
    }
    tree = make_tree(tmp_path / "tree", recipes)
    result = compile_tree(tree)
    warnings = sorted(
        (d.message.split(" ")[0], d.path.relative_to(tree).as_posix())
        for d in result.diagnostics
        if d.code == "RL707"
    )
    # Both recipes writing org/model.json hear of it; a strategy file is no recipe to annotate.
    assert warnings == [
        ("org/model.json", "models/org/deeper/model.yaml"),
        ("org/model.json", "models/org/model.yaml"),
        ("strategies/single_node_tp.json", "models/strategies/single_node_tp.yaml"),
    ]
    assert (
        json.loads(result.files.serialize("org/model.json"))["meta"]["title"] == "first"
    )  # walked last
    assert "hf_id" in json.loads(
        result.files.serialize("strategies/single_node_tp.json")
    )  # recipe wins


def test_strategy_without_name_and_missing_folders_are_errors(tmp_path: Path) -> None:
    tree = make_tree(tmp_path / "tree")
    (tree / "strategies" / "nameless.yaml").write_text("deploy_type: single_node\n")
    shutil.rmtree(tree / "kv_store")
    codes = sorted(d.code for d in compile_tree(tree).diagnostics)
    assert codes == ["RL708", "RL710"]


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab./\\\x00\x1f\x7f\u2028 é")), max_size=8))
def test_the_fast_safe_path_check_never_admits_what_the_careful_one_refuses(path: str) -> None:
    from recipelint.compile import outputpaths

    if outputpaths._plainly_safe(path):
        assert (
            outputpaths._BAD_SEGMENT.search(path) is None
            and outputpaths._CONTROL.search(path) is None
        )
        assert path and not path.startswith("/") and "\\" not in path
