"""The schema stage: schema files, error -> diagnostic mapping, positions and messages."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from recipelint.diagnostics import Span
from recipelint.read.load import parse_yaml
from recipelint.schema.builtin import CODES, SCHEMA_FILES, load_schema
from recipelint.schema.check import schema_findings, validate_document

SCHEMAS = Path(__file__).resolve().parent.parent / "schemas"

RECIPE = """\
meta:
  title: Demo Model
  slug: demo-model
  provider: Acme
  description: A small dense demo model.
  date_added: 2026-05-01
  date_updated: 2026-05-02
  difficulty: beginner
  tasks: [text]
  hardware:
    h200: verified
model:
  model_id: acme/demo-model
  min_vllm_version: "0.20.0"
  architecture: dense
  parameter_count: "7B"
  active_parameters: "7B"
  context_length: 32768
  base_args: ["--trust-remote-code"]
  base_env:
    VLLM_USE_V1: "1"
features:
  tool_calling:
    description: Tool calls
    args: ["--enable-auto-tool-choice", "--tool-call-parser", "hermes"]
variants:
  default:
    precision: bf16
    vram_minimum_gb: 17
  fp8:
    model_id: acme/demo-model-FP8
    precision: fp8
    vram_minimum_gb: 9
    extra_args: ["--kv-cache-dtype", "fp8"]
compatible_strategies: [single_node_tp]
guide: |
  ## Overview
  A demo.
"""


def findings(text: str, kind: str = "recipe") -> list[tuple[str, tuple, Any]]:
    doc = parse_yaml(text, kind=kind)
    assert doc.usable, doc.problems
    return [(f.code, f.pointer, f.diagnostic) for f in schema_findings(doc)]


def edit(old: str, new: str, base: str = RECIPE) -> str:
    assert old in base, old
    return base.replace(old, new, 1)


def only(text: str, kind: str = "recipe"):
    found = findings(text, kind)
    assert len(found) == 1, [(c, p, d.message) for c, p, d in found]
    return found[0]


# ----------------------------------------------------------------------------- the schema files


@pytest.mark.parametrize("kind", sorted(SCHEMA_FILES))
def test_schema_files_are_valid_2020_12_with_ids(kind: str) -> None:
    schema = load_schema(kind)
    Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["$id"] == f"https://recipelint.dev/schemas/{SCHEMA_FILES[kind]}"
    assert schema["title"] and schema["description"]
    assert (SCHEMAS / SCHEMA_FILES[kind]).is_file()


def _walk(node: Any, path: str = ""):
    if isinstance(node, dict):
        yield path, node
        for key, value in node.items():
            yield from _walk(value, f"{path}/{key}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _walk(value, f"{path}/{index}")


def _documented(root: dict, schema: dict) -> bool:
    if schema.get("title") or schema.get("description"):
        return True
    ref = schema.get("$ref", "")
    return ref.startswith("#/$defs/") and _documented(root, root["$defs"][ref.rsplit("/", 1)[1]])


@pytest.mark.parametrize("kind", sorted(SCHEMA_FILES))
def test_every_object_property_has_a_title_or_description(kind: str) -> None:
    """Editors show these; a property without text is a hole in the documentation."""
    root = load_schema(kind)
    bare = [
        f"{path}/properties/{name}"
        for path, node in _walk(root)
        if isinstance(node.get("properties"), dict)
        for name, sub in node["properties"].items()
        if isinstance(sub, dict) and not _documented(root, sub)
    ]
    assert bare == []


@pytest.mark.parametrize("kind", sorted(SCHEMA_FILES))
def test_every_fixed_key_object_is_closed(kind: str) -> None:
    """additionalProperties: false wherever an object lists its keys."""
    open_objects = [
        path
        for path, node in _walk(load_schema(kind))
        if "properties" in node
        and isinstance(node["properties"], dict)
        and node.get("additionalProperties") is not False
        and not path.endswith("/properties")  # a property literally named "properties"
    ]
    assert open_objects == []


def test_shared_definitions_are_identical_across_files() -> None:
    """The files are self-contained (editors resolve no cross-file refs), so copies must agree."""
    for name in ("identifier", "version", "args", "env", "positiveInteger"):
        copies = {
            kind: load_schema(kind)["$defs"][name]
            for kind in SCHEMA_FILES
            if name in load_schema(kind).get("$defs", {})
        }
        assert len(copies) >= 2, name
        assert len({json.dumps(c, sort_keys=True) for c in copies.values()}) == 1, (
            name,
            sorted(copies),
        )


def test_installed_schemas_match_the_top_level_folder() -> None:
    for kind, name in SCHEMA_FILES.items():
        assert load_schema(kind) == json.loads((SCHEMAS / name).read_text(encoding="utf-8"))


# ----------------------------------------------------------------------------- clean and inapplicable


def test_a_complete_recipe_has_no_findings() -> None:
    assert findings(RECIPE) == []


def test_unusable_documents_and_other_kinds_are_skipped() -> None:
    broken = parse_yaml("meta: [unclosed\n", kind="recipe")
    assert not broken.usable and validate_document(broken) == []
    assert validate_document(parse_yaml("anything: 1\n", kind="other")) == []


# ----------------------------------------------------------------------------- RL101 unknown-key


def test_unknown_key_points_at_the_key_and_suggests_the_closest() -> None:
    text = edit(
        '    extra_args: ["--kv-cache-dtype", "fp8"]', '    extra_argz: ["--kv-cache-dtype", "fp8"]'
    )
    code, pointer, diag = only(text)
    assert code == "RL101" and pointer == ("variants", "fp8", "extra_argz")
    assert diag.message == "unknown key 'extra_argz' in variant 'fp8' (did you mean 'extra_args'?)"
    assert diag.hint == "rename it to 'extra_args'"
    assert diag.span == Span(34, 5, 34, 15)


def test_unknown_key_without_a_close_match_lists_the_allowed_keys() -> None:
    text = edit("  base_env:\n", "  maintainer: me\n  base_env:\n")
    code, pointer, diag = only(text)
    assert (code, pointer) == ("RL101", ("model", "maintainer"))
    assert diag.message == "unknown key 'maintainer' in model"
    assert diag.hint.startswith(
        "the schema does not know it (allowed here: active_parameters, architecture"
    )
    # A new field may well be read by a newer site: the hint does not claim nothing reads it.
    assert "nothing reads" not in diag.hint
    assert diag.hint.endswith("otherwise remove it")


def test_every_unknown_key_of_one_mapping_is_reported() -> None:
    text = edit("  tasks: [text]\n", "  tasks: [text]\n  titel: X\n  owner: me\n")
    assert [(c, p) for c, p, _ in findings(text)] == [
        ("RL101", ("meta", "titel")),
        ("RL101", ("meta", "owner")),
    ]


def test_feature_level_hardware_gate_is_unknown_but_mode_level_is_allowed() -> None:
    feature_gate = edit(
        "    description: Tool calls\n",
        "    description: Tool calls\n    hardware:\n      h100: unsupported\n",
    )
    found = findings(feature_gate)
    assert [(c, p) for c, p, _ in found] == [("RL101", ("features", "tool_calling", "hardware"))]
    assert (
        found[0][2].hint
        == "'hardware' is a key of mode and of recipe metadata, not of this mapping: move it or remove it"
    )
    mode_gate = edit(
        '    args: ["--enable-auto-tool-choice", "--tool-call-parser", "hermes"]\n',
        '    modes:\n      hermes:\n        args: ["--tool-call-parser", "hermes"]\n        hardware: {hopper: unsupported}\n',
    )
    assert findings(mode_gate) == []


def test_unknown_key_inside_an_anyof_branch_is_found_through_the_branch() -> None:
    text = edit(
        "  base_env:\n", '  docker_image:\n    nvdia: "vllm/vllm-openai:v0.20.0"\n  base_env:\n'
    )
    code, pointer, diag = only(text)
    assert (code, pointer) == ("RL101", ("model", "docker_image", "nvdia"))
    assert "did you mean 'nvidia'?" in diag.message


# ----------------------------------------------------------------------------- RL102 invalid-type


def test_env_number_is_an_invalid_type_with_a_quoting_hint() -> None:
    code, pointer, diag = only(edit('VLLM_USE_V1: "1"', "VLLM_USE_V1: 1"))
    assert (code, pointer) == ("RL102", ("model", "base_env", "VLLM_USE_V1"))
    assert diag.message == "'VLLM_USE_V1' in model.base_env must be a string, not the number 1"
    assert diag.hint == 'quote it: "1"'
    assert diag.span == Span(21, 18, 21, 19)


def test_number_in_args_list_names_the_item() -> None:
    code, pointer, diag = only(edit('"--tool-call-parser", "hermes"]', '"--max-num-seqs", 256]'))
    assert (code, pointer) == ("RL102", ("features", "tool_calling", "args", 2))
    assert diag.message == "`features.tool_calling.args[2]` must be a string, not the number 256"


def test_args_written_as_one_string_suggests_a_list() -> None:
    code, pointer, diag = only(
        edit('extra_args: ["--kv-cache-dtype", "fp8"]', 'extra_args: "--enforce-eager"')
    )
    assert (code, pointer) == ("RL102", ("variants", "fp8", "extra_args"))
    assert diag.hint == 'write a list: ["--enforce-eager"], one token per item'


def test_alternatives_of_the_wrong_shape_collapse_to_one_type_error() -> None:
    text = edit("    vram_minimum_gb: 9\n", '    vram_minimum_gb: 9\n    tp: "2"\n')
    code, pointer, diag = only(text)
    assert (code, pointer) == ("RL102", ("variants", "fp8", "tp"))
    assert (
        diag.message == "'tp' in variant 'fp8' must be a mapping or an integer, not the string '2'"
    )
    assert diag.hint == "remove the quotes: 2"


def test_error_inside_the_fitting_alternative_wins() -> None:
    text = edit("  base_env:\n", "  docker_image:\n    nvidia: 5\n  base_env:\n")
    code, pointer, diag = only(text)
    assert (code, pointer) == ("RL102", ("model", "docker_image", "nvidia"))


def test_null_feature_is_a_type_error() -> None:
    text = edit("features:\n", "features:\n  empty:\n")
    code, pointer, diag = only(text)
    assert (code, pointer) == ("RL102", ("features", "empty"))
    assert diag.hint == "give it a value, or delete the key"


# ----------------------------------------------------------------------------- RL103 missing-required-key


def test_missing_key_points_at_the_mapping_that_lacks_it() -> None:
    code, pointer, diag = only(edit("  date_added: 2026-05-01\n", ""))
    assert (code, pointer) == ("RL103", ("meta",))
    assert diag.message == "missing required key 'date_added' in meta"
    assert diag.hint.startswith("add 'date_added': Day the recipe entered the catalog")
    assert (diag.span.line, diag.span.column) == (2, 3)


def test_missing_default_variant() -> None:
    text = edit("  default:\n    precision: bf16\n    vram_minimum_gb: 17\n", "")
    code, pointer, diag = only(text)
    assert (code, pointer) == ("RL103", ("variants",))
    assert diag.message == "missing required key 'default' in variants"


def test_missing_top_level_key_names_the_recipe() -> None:
    code, pointer, diag = only(RECIPE.split("guide:")[0])
    assert (code, pointer, diag.message) == (
        "RL103",
        (),
        "missing required key 'guide' in the recipe",
    )


# ----------------------------------------------------------------------------- RL104 invalid-enum-value


def test_enum_value_lists_choices_and_suggests() -> None:
    code, pointer, diag = only(edit("precision: fp8", "precision: fp08"))
    assert (code, pointer) == ("RL104", ("variants", "fp8", "precision"))
    assert "expected one of: bf16, fp16, fp8" in diag.message
    assert diag.hint == "did you mean 'fp8'?"


@pytest.mark.parametrize(
    "old,new,pointer",
    [
        ("difficulty: beginner", "difficulty: hard", ("meta", "difficulty")),
        ("tasks: [text]", "tasks: [chat]", ("meta", "tasks", 0)),
        ("architecture: dense", "architecture: Dense", ("model", "architecture")),
        ("h200: verified", "h200: tested", ("meta", "hardware", "h200")),
    ],
)
def test_enum_fields(old: str, new: str, pointer: tuple) -> None:
    code, found_pointer, _ = only(edit(old, new))
    assert (code, found_pointer) == ("RL104", pointer)


def test_case_only_difference_is_suggested() -> None:
    _, _, diag = only(edit("architecture: dense", "architecture: MoE"))
    assert diag.hint == "did you mean 'moe'?"


# ----------------------------------------------------------------------------- RL105 invalid-version


@pytest.mark.parametrize(
    "version", ["nightly", "0.20", "v0.20.0", ">=0.20.0", "0.20.0-rc1", "latest"]
)
def test_versions_that_are_not_versions(version: str) -> None:
    code, pointer, diag = only(edit('min_vllm_version: "0.20.0"', f'min_vllm_version: "{version}"'))
    assert (code, pointer) == ("RL105", ("model", "min_vllm_version"))
    assert diag.message.endswith("not a version X.Y.Z")
    assert "nightly_required" in diag.hint


@pytest.mark.parametrize(
    "version", ["0.20.0", "0.26.0rc1", "0.20.1.post1", "0.21.0.dev3", "1.0.0rc2.dev4", "10.12.3"]
)
def test_real_versions_pass(version: str) -> None:
    assert findings(edit('min_vllm_version: "0.20.0"', f'min_vllm_version: "{version}"')) == []


def test_unquoted_version_number_is_a_type_error() -> None:
    code, pointer, diag = only(edit('min_vllm_version: "0.20.0"', "min_vllm_version: 0.2"))
    assert (code, pointer) == ("RL102", ("model", "min_vllm_version"))
    assert diag.hint == 'quote it: "0.2"'


# ----------------------------------------------------------------------------- RL106 invalid-date


def test_impossible_unquoted_date_rolls_over_and_is_reported() -> None:
    code, pointer, diag = only(edit("date_added: 2026-05-01", "date_added: 2026-02-30"))
    assert (code, pointer) == ("RL106", ("meta", "date_added"))
    assert (
        diag.message
        == "'date_added' is 2026-02-30, which is not a calendar day (the compiler reads it as 2026-03-02)"
    )
    assert diag.span == Span(6, 15, 6, 25)


@pytest.mark.parametrize("value", ['"30/04/2026"', '"2026-13-01"', '"2026-4-1"'])
def test_quoted_non_dates(value: str) -> None:
    code, pointer, diag = only(edit("date_added: 2026-05-01", f"date_added: {value}"))
    assert (code, pointer) == ("RL106", ("meta", "date_added"))
    assert "not a calendar date YYYY-MM-DD" in diag.message


def test_timestamp_is_reported_with_the_day_it_becomes() -> None:
    code, _, diag = only(edit("date_added: 2026-05-01", "date_added: 2026-04-20T23:30:00-05:00"))
    assert code == "RL106" and "2026-04-21" in diag.message


def test_quoted_valid_date_passes() -> None:
    assert findings(edit("date_added: 2026-05-01", 'date_added: "2026-05-01"')) == []


# ----------------------------------------------------------------------------- RL107 invalid-value


def test_pattern_failure_explains_the_expected_form() -> None:
    code, pointer, diag = only(edit('parameter_count: "7B"', 'parameter_count: "Undisclosed"'))
    assert (code, pointer) == ("RL107", ("model", "parameter_count"))
    assert 'a number with a K/M/B/T suffix, e.g. "671B"' in diag.message


@pytest.mark.parametrize(
    "old,new,pointer,phrase",
    [
        (
            "vram_minimum_gb: 9",
            "vram_minimum_gb: 0",
            ("variants", "fp8", "vram_minimum_gb"),
            "must be at least 1",
        ),
        (
            "context_length: 32768",
            "context_length: -1",
            ("model", "context_length"),
            "must be at least 0",
        ),
        ("tasks: [text]", "tasks: []", ("meta", "tasks"), "needs at least 1 item"),
        ("tasks: [text]", "tasks: [text, text]", ("meta", "tasks"), "same item more than once"),
        ("title: Demo Model", 'title: ""', ("meta", "title"), "is empty"),
    ],
)
def test_range_and_length_constraints(old: str, new: str, pointer: tuple, phrase: str) -> None:
    code, found_pointer, diag = only(edit(old, new))
    assert (code, found_pointer) == ("RL107", pointer)
    assert phrase in diag.message


def test_invalid_map_key_points_at_the_key() -> None:
    code, pointer, diag = only(edit("h200: verified", "H200: verified"))
    assert (code, pointer) == ("RL107", ("meta", "hardware", "H200"))
    assert diag.message.startswith("invalid key 'H200' in meta.hardware")
    assert diag.span == Span(11, 5, 11, 9)


def test_env_name_must_be_a_shell_name() -> None:
    code, pointer, _ = only(edit('VLLM_USE_V1: "1"', '"VLLM USE": "1"'))
    assert (code, pointer) == ("RL107", ("model", "base_env", "VLLM USE"))


# ----------------------------------------------------------------------------- the other document kinds


STRATEGY = """\
name: single_node_tp
deploy_type: single_node
display_name: Tensor Parallel
orientation: latency
description: Single-node tensor parallel.
hardware_match: {min_gpus: 1, max_gpus: 8, multi_node: false}
vllm_args: []
parallel_flag: "--tensor-parallel-size"
"""


def test_strategy_schema() -> None:
    assert findings(STRATEGY, "strategy") == []
    assert [
        (c, p)
        for c, p, _ in findings(
            edit("orientation: latency", "orientation: fast", STRATEGY), "strategy"
        )
    ] == [("RL104", ("orientation",))]
    assert [(c, p) for c, p, _ in findings(STRATEGY + "env:\n  NCCL_DEBUG: 1\n", "strategy")] == [
        ("RL102", ("env", "NCCL_DEBUG"))
    ]
    assert [(c, p) for c, p, _ in findings(STRATEGY + "vllm_arg: []\n", "strategy")] == [
        ("RL101", ("vllm_arg",))
    ]


KV_STORE = """\
name: kv_store_demo
deploy_type: kv_store_lb
display_name: Demo store
description: A demo.
vllm:
  vllm_args: ["--kv-transfer-config", '{"kv_connector":"MooncakeStoreConnector"}']
  env: {PYTHONHASHSEED: "0"}
mooncake_master: {command: mooncake_master}
mooncake_vllm_config:
  mode: embedded
  template: {mode: embedded, global_segment_size: "100GB", enable_offload: false}
min_vllm_version: "0.21.0"
default_instances: 1
"""


def test_kv_store_schema() -> None:
    assert findings(KV_STORE, "kv_store") == []
    found = findings(
        edit('env: {PYTHONHASHSEED: "0"}', "env: {PYTHONHASHSEED: 0}", KV_STORE), "kv_store"
    )
    assert [(c, p) for c, p, _ in found] == [("RL102", ("vllm", "env", "PYTHONHASHSEED"))]
    assert found[0][2].message == "'PYTHONHASHSEED' in vllm.env must be a string, not the number 0"
    found = findings(
        edit("deploy_type: kv_store_lb", "deploy_type: single_node", KV_STORE), "kv_store"
    )
    assert [(c, p) for c, p, _ in found] == [("RL104", ("deploy_type",))]


TAXONOMY = """\
hardware_profiles:
  h200:
    brand: NVIDIA
    generation: hopper
    compute_arch: sm90
    display_name: H200
    description: 8-GPU node
    gpu_count: 8
    vram_gb: 1128
    multi_node: false
tasks:
  - {id: text, display_name: Text}
strategies: [single_node_tp]
"""


def test_taxonomy_schema() -> None:
    assert findings(TAXONOMY, "taxonomy") == []
    found = findings(edit("gpu_count: 8", 'gpu_count: "8"', TAXONOMY), "taxonomy")
    assert [(c, p) for c, p, _ in found] == [("RL102", ("hardware_profiles", "h200", "gpu_count"))]
    found = findings(
        edit("    multi_node: false\n", "    multi_node: false\n    vram: 1\n", TAXONOMY),
        "taxonomy",
    )
    assert [(c, p) for c, p, _ in found] == [("RL101", ("hardware_profiles", "h200", "vram"))]
    # 'vram_gb' is three edits away: a did-you-mean offers near-identical spellings only
    assert found[0][2].message == "unknown key 'vram' in hardware profile 'h200'"
    assert (
        "declare it in the tree: schemas/taxonomy.schema.json or [tool.recipelint.schema]"
        in found[0][2].hint
    )


def test_platforms_schema() -> None:
    text = "platforms:\n  - id: modal\n    name: Modal\n    url: https://modal.com/docs\n"
    assert findings(text, "platforms") == []
    found = findings(text.replace("https://modal.com/docs", "modal.com"), "platforms")
    assert [(c, p) for c, p, _ in found] == [("RL107", ("platforms", 0, "url"))]


# ----------------------------------------------------------------------------- codes


def test_every_code_has_a_kebab_case_name() -> None:
    assert sorted(CODES) == [f"RL10{i}" for i in range(1, 9)]
    for name in CODES.values():
        assert name == name.lower() and " " not in name and "_" not in name


def test_findings_are_sorted_and_deterministic() -> None:
    text = (
        textwrap.dedent(RECIPE)
        .replace("difficulty: beginner", "difficulty: hard")
        .replace('VLLM_USE_V1: "1"', "VLLM_USE_V1: 1")
        .replace("precision: fp8", "precision: fp9")
    )
    first = findings(text)
    assert first == findings(text)
    lines = [d.span.line for _, _, d in first]
    assert lines == sorted(lines) and len(first) == 3


def test_hardware_statuses() -> None:
    """meta.hardware takes verified/supported/unsupported; kv_offload_support only verified/unsupported."""
    assert findings(edit("h200: verified", "h200: supported")) == []
    assert findings(edit("h200: verified", "h200: unsupported")) == []
    text = edit(
        "compatible_strategies:",
        "kv_offload_support: {offloading_cpu: supported}\ncompatible_strategies:",
    )
    code, pointer, _ = only(text)
    assert (code, pointer) == ("RL104", ("kv_offload_support", "offloading_cpu"))


@pytest.mark.parametrize(
    "text,message",
    [
        (
            edit(
                "    vram_minimum_gb: 9\n",
                "    vram_minimum_gb: 9\n    hardware_overrides:\n      hopper:\n"
                "        extra_argz: []\n",
            ),
            "unknown key 'extra_argz' in hardware override 'hopper' in variant 'fp8' (did you mean 'extra_args'?)",
        ),
        (
            edit(
                '    args: ["--enable-auto-tool-choice", "--tool-call-parser", "hermes"]\n',
                "    modes:\n      a:\n        args: []\n        labl: x\n",
            ),
            "unknown key 'labl' in mode 'a' in feature 'tool_calling' (did you mean 'label'?)",
        ),
        (
            RECIPE + "strategy_hardware:\n  multi_node_tp:\n    h100: off\n",
            "'h100' in strategy_hardware.multi_node_tp is the string 'off'; expected one of: supported, unsupported",
        ),
        (
            RECIPE + "strategy_overrides:\n  pd_cluster:\n    decode:\n      nodez: 1\n",
            "unknown key 'nodez' in decode in strategy override 'pd_cluster' (did you mean 'nodes'?)",
        ),
        (
            RECIPE + "omni:\n  tasks:\n    - id: t2x\n",
            "'id' in omni.tasks[0] is the string 't2x'; expected one of: t2i, i2i, t2v, i2v, ti2v, t2a",
        ),
    ],
)
def test_messages_name_the_nested_place(text: str, message: str) -> None:
    assert only(text)[2].message == message


def test_invalid_key_name_inside_an_alternative() -> None:
    """A key-name error found inside an anyOf branch still points at the key."""
    text = edit("  base_env:\n", "  docker_image:\n    nvidia:\n      CU130: x\n  base_env:\n")
    code, pointer, _ = only(text)
    assert (code, pointer) == ("RL101", ("model", "docker_image", "nvidia", "CU130"))
    text = (
        RECIPE
        + "omni:\n  tasks:\n    - id: t2i\n      hardware_overrides:\n        H100: {label: x}\n"
    )
    code, pointer, diag = only(text)
    assert (code, pointer) == ("RL107", ("omni", "tasks", 0, "hardware_overrides", "H100"))
    assert diag.span.line == RECIPE.count("\n") + 5
