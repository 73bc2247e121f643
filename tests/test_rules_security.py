"""RL750–RL754: values that stay dangerous in published commands are reported where they are.

The catalog examples (tests/test_catalog.py) show one failing and one passing case
per rule; these tests pin the boundaries: quoted versus bare argument positions,
strategy and kv_store files, every env layer, image maps, and inert messages. The entries
the rules read are those they would pick from every entry, on data of any shape.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from propertyprofile import property_profile
from rulehelp import DOCUMENTS
from treehelp import CONTEXT, build_tree, check_tree, checked, context_text

from recipelint.configuration.config import Config
from recipelint.read.tree import load_tree
from recipelint.rules.common import Pointer
from recipelint.rules.context import CheckContext
from recipelint.rules.security import CONTROL, WORD_KEYS, _collect, _read, shell_hazards

pytestmark = pytest.mark.skipif(
    not (CONTEXT / "taxonomy.yaml").is_file(), reason="recipes/ context tree missing"
)

SEED = (
    context_text("models/Qwen/Qwen2.5-7B-Instruct.yaml")
    if (CONTEXT / "taxonomy.yaml").is_file()
    else ""
)
RECIPE = "models/acme/demo.yaml"


def findings(root: Path, files: dict[str, str]) -> set[tuple[str, str, tuple]]:
    """(code, file, pointer) of every RL75x finding in a context tree holding ``files``."""
    return {
        (d.code, d.path.relative_to(root).as_posix(), d.pointer)
        for d in checked(root, files)
        if d.code.startswith("RL75")
    }


def recipe(
    base_args: list[str] | None = None,
    base_env: dict[str, str] | None = None,
    variant_extra: str = "",
) -> str:
    text = SEED.replace("  base_args: []\n", f"  base_args: {json.dumps(base_args or [])}\n", 1)
    text = text.replace("  base_env: {}\n", f"  base_env: {json.dumps(base_env or {})}\n", 1)
    return text.replace(
        '    description: "Original BF16 weights"\n',
        '    description: "Original BF16 weights"\n' + variant_extra,
        1,
    )


def test_embedded_tree_has_no_security_findings(tmp_path: Path) -> None:
    assert not {d for d in check_tree(CONTEXT) if d.code.startswith("RL75")}


@pytest.mark.parametrize("token", ["$(id)", "`id`", "a;id", "a&&id", "a|id", "a>x", "a<x", "a\nid"])
def test_bare_argument_positions_are_reported(tmp_path: Path, token: str) -> None:
    args = [f"--flag{token}", "--pair", "value", token]  # a flag, then a positional after a pair
    found = findings(tmp_path, {RECIPE: recipe(base_args=args)})
    assert {p for code, _, p in found if code == "RL750"} == {
        ("model", "base_args", 0),
        ("model", "base_args", 3),
    }


@pytest.mark.parametrize("value", ["$(id)", "`id`", "a; id", "a && b", "a | b", "x > /etc/passwd"])
def test_values_after_a_flag_are_quoted_and_not_reported(tmp_path: Path, value: str) -> None:
    assert not findings(tmp_path, {RECIPE: recipe(base_args=["--served-model-name", value])})


def test_line_break_in_a_quoted_value_is_reported(tmp_path: Path) -> None:
    found = findings(tmp_path, {RECIPE: recipe(base_args=["--chat-template", "a\nb"])})
    assert found == {("RL750", RECIPE, ("model", "base_args", 1))}


@pytest.mark.parametrize(
    "value", ["1 -v /:/host", "$(id)", "`id`", "a;b", "'x", '"x', "a\\b", "a\nb", "a|b"]
)
def test_env_values_are_reported_in_every_layer(tmp_path: Path, value: str) -> None:
    variant_env = f"    extra_env: {{VARIANT_ENV: {json.dumps(value)}}}\n"
    found = findings(
        tmp_path, {RECIPE: recipe(base_env={"BASE_ENV": value}, variant_extra=variant_env)}
    )
    assert {p for code, _, p in found if code == "RL751"} == {
        ("model", "base_env", "BASE_ENV"),
        ("variants", "default", "extra_env", "VARIANT_ENV"),
    }


@pytest.mark.parametrize(
    "value", ["1", "$IFACE_NAME", "${HOME}", "/dev/shm:/dev/shm", "a=b,c=d", "0.95"]
)
def test_ordinary_env_values_pass(tmp_path: Path, value: str) -> None:
    assert not findings(tmp_path, {RECIPE: recipe(base_env={"SAFE": value})})


@pytest.mark.parametrize("name", ["X;id;Y", "1ABC", "A B", "A=B", "A-B", "$(id)"])
def test_env_names_must_be_identifiers(tmp_path: Path, name: str) -> None:
    found = findings(tmp_path, {RECIPE: recipe(base_env={name: "1"})})
    assert ("RL752", RECIPE, ("model", "base_env", name)) in found


def test_images_and_model_ids_in_every_form(tmp_path: Path) -> None:
    extra = (
        '    model_id: "acme/x;id"\n'
        '    docker_image: {nvidia: "img:1 --privileged", amd: "ok/rocm:1", cu130: "a$(id)"}\n'
    )
    found = findings(tmp_path, {RECIPE: recipe(variant_extra=extra)})
    assert {p for code, _, p in found if code == "RL753"} == {
        ("variants", "default", "model_id"),
        ("variants", "default", "docker_image", "cu130"),
    }


def test_an_image_that_is_only_split_is_rl404s_finding(tmp_path: Path) -> None:
    # A space and no shell syntax: the image is no image reference, which RL404 reports;
    # RL753 would repeat that cause. With RL404 off, RL753 still reports it.
    extra = '    docker_image: {nvidia: "docker pull vllm/vllm-openai:v0.20.0"}\n'
    pointer = ("variants", "default", "docker_image", "nvidia")
    diags = [
        d
        for d in checked(tmp_path / "on", {RECIPE: recipe(variant_extra=extra)})
        if d.code in ("RL404", "RL753")
    ]
    assert [(d.code, d.pointer) for d in diags] == [("RL404", pointer)]
    root = tmp_path / "off"
    checked(root, {RECIPE: recipe(variant_extra=extra)})
    diags = check_tree(root, Config(ignore=("RL404",)))
    assert [(d.code, d.pointer) for d in diags if d.code in ("RL404", "RL753")] == [
        ("RL753", pointer)
    ]


def test_strategy_and_kv_store_files_are_checked(tmp_path: Path) -> None:
    strategy = (
        "name: evil_tp\ndeploy_type: single_node\n"
        "vllm_args: ['--x;id']\nenv: {NCCL_DEBUG: 'INFO;id'}\n"
    )
    kv_store = context_text("kv_store/kv_store_centralized_mooncake.yaml")
    kv_store = kv_store.replace("name: kv_store_centralized_mooncake", "name: kv_evil", 1)
    kv_store += "\nextra: {vllm_args: ['`id`']}\n"
    found = findings(
        tmp_path, {"strategies/evil_tp.yaml": strategy, "kv_store/kv_evil.yaml": kv_store}
    )
    assert ("RL750", "strategies/evil_tp.yaml", ("vllm_args", 0)) in found
    assert ("RL751", "strategies/evil_tp.yaml", ("env", "NCCL_DEBUG")) in found
    assert ("RL750", "kv_store/kv_evil.yaml", ("extra", "vllm_args", 0)) in found


def test_control_characters_anywhere_are_reported(tmp_path: Path) -> None:
    text = SEED.replace('  title: "Qwen2.5-7B-Instruct"', '  title: "Qwen\\e[8mhidden\\e[0m"', 1)
    text += '\nnotes: {"key\\e]8;;x\\a": "ok"}\n'
    found = findings(tmp_path, {RECIPE: text})
    assert {p for code, _, p in found if code == "RL754"} >= {
        ("meta", "title"),
        ("notes", "key\x1b]8;;x\x07"),
    }


def test_messages_quote_values_inertly(tmp_path: Path) -> None:
    documents = {RECIPE: recipe(base_env={"E": "\x1b[2J$(id)\n"})}
    messages = [d.message for d in checked(tmp_path, documents) if d.code in ("RL751", "RL754")]
    assert messages and all("\x1b" not in m and "\n" not in m for m in messages)
    assert any("\\x1b[2J$(id)\\n" in m for m in messages)


# --- the entries the rules read ------------------------------------------------------------


def _has_control(entry: tuple[Pointer, Any, Any]) -> bool:
    _pointer, key, value = entry
    return any(isinstance(text, str) and CONTROL.search(text) for text in (key, value))


@property_profile(300)
@given(DOCUMENTS)
def test_the_command_rules_read_the_entries_they_would_pick_from_every_entry(data: Any) -> None:
    every = _collect(data, (), [])
    read: list[tuple[Pointer, Any, Any]] = []
    texts: list[str] = []
    _read(data, (), read, texts)
    picked = [
        entry for entry in every if isinstance(entry[2], (dict, list)) or (entry[1] in WORD_KEYS)
    ]
    assert read == picked
    assert bool(CONTROL.search("".join(texts))) == any(_has_control(e) for e in every)


# --- what the rules read, and where ---------------------------------------------------------


def test_a_first_positional_argument_is_unquoted_whatever_ends_the_list(tmp_path: Path) -> None:
    # The token before the first is none: the last flag of the list quotes nothing there.
    found = findings(tmp_path, {RECIPE: recipe(base_args=["a;id", "--enforce-eager"])})
    assert found == {("RL750", RECIPE, ("model", "base_args", 0))}


def test_an_env_mapping_at_an_undeclared_place_is_still_read_by_its_key(tmp_path: Path) -> None:
    found = findings(tmp_path, {RECIPE: recipe(variant_extra='    env: {STRAY: "a;id"}\n')})
    assert ("RL751", RECIPE, ("variants", "default", "env", "STRAY")) in found


@pytest.mark.parametrize(
    ("rel", "original", "changed", "pointer"),
    [
        (
            "taxonomy.yaml",
            'display_name: "Simple (CPU offload)"',
            'display_name: "Simple\\e[8m (CPU offload)"',
            ("kv_offload", "simple", "display_name"),
        ),
        ("platforms.yaml", "name: Modal\n", 'name: "Modal\\e[8m"\n', ("platforms", 0, "name")),
    ],
)
def test_control_characters_in_the_taxonomy_and_platforms_are_reported(
    tmp_path: Path, rel: str, original: str, changed: str, pointer: Pointer
) -> None:
    text = context_text(rel)
    assert original in text
    found = findings(tmp_path, {rel: text.replace(original, changed, 1)})
    assert {(code, path, p) for code, path, p in found if path == rel} == {("RL754", rel, pointer)}


def test_a_check_of_one_recipe_walks_no_tree_wide_file(tmp_path: Path) -> None:
    taxonomy = context_text("taxonomy.yaml").replace(
        'display_name: "Simple (CPU offload)"', 'display_name: "Simple\\e[8m (CPU offload)"', 1
    )
    root = build_tree(tmp_path, {"taxonomy.yaml": taxonomy, RECIPE: recipe(base_args=["a;id"])})
    tree = load_tree(root)
    target = root / RECIPE

    focused = list(shell_hazards(CheckContext(tree, focus=lambda path: path == target)))
    every = list(shell_hazards(CheckContext(tree)))

    assert [(f.code, f.doc.path, f.pointer) for f in focused] == [
        ("RL750", target, ("model", "base_args", 0))
    ]
    assert ("RL754", root / "taxonomy.yaml", ("kv_offload", "simple", "display_name")) in {
        (f.code, f.doc.path, f.pointer) for f in every
    }


# --- messages -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "quoted"),
    [
        ("a;" + "b" * 58, "a;" + "b" * 58),  # sixty characters are quoted whole
        ("a;" + "b" * 59, "a;" + "b" * 58 + "\u2026"),  # a longer value is cut after sixty
    ],
)
def test_messages_quote_at_most_sixty_characters_of_a_value(
    tmp_path: Path, value: str, quoted: str
) -> None:
    (message,) = [
        d.message
        for d in checked(tmp_path, {RECIPE: recipe(base_env={"E": value})})
        if d.code == "RL751"
    ]
    assert message.startswith(f"env `E` = `{quoted}`: ")


# --- images that would only be split: RL404's where it judges the field ---------------------

SPLIT_IMAGE = '"docker pull vllm/vllm-openai:v0.20.0"'


def test_a_model_id_that_would_only_be_split_is_reported(tmp_path: Path) -> None:
    found = findings(tmp_path, {RECIPE: recipe(variant_extra='    model_id: "acme/x y"\n')})
    assert found == {("RL753", RECIPE, ("variants", "default", "model_id"))}


def _image_codes(root: Path, text: str) -> list[tuple[str, Pointer]]:
    return [
        (d.code, d.pointer) for d in checked(root, {RECIPE: text}) if d.code in ("RL404", "RL753")
    ]


def test_a_variant_hardware_override_image_is_rl404s_to_judge(tmp_path: Path) -> None:
    extra = f"    hardware_overrides:\n      h100:\n        docker_image: {SPLIT_IMAGE}\n"
    pointer = ("variants", "default", "hardware_overrides", "h100", "docker_image")
    assert _image_codes(tmp_path, recipe(variant_extra=extra)) == [("RL404", pointer)]


def test_an_image_map_in_a_variant_hardware_override_is_rl753s(tmp_path: Path) -> None:
    # RL404 judges a hardware override's image only as a string: RL753 reports the map's.
    extra = (
        f"    hardware_overrides:\n      h100:\n        docker_image: {{nvidia: {SPLIT_IMAGE}}}\n"
    )
    pointer = ("variants", "default", "hardware_overrides", "h100", "docker_image", "nvidia")
    assert _image_codes(tmp_path, recipe(variant_extra=extra)) == [("RL753", pointer)]


def test_a_recipe_hardware_override_image_is_rl753s(tmp_path: Path) -> None:
    text = recipe().replace("  amd:\n", f"  amd:\n    docker_image: {SPLIT_IMAGE}\n", 1)
    pointer = ("hardware_overrides", "amd", "docker_image")
    assert _image_codes(tmp_path, text) == [("RL753", pointer)]
