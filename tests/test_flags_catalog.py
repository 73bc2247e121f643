"""Regression list: hand-checked facts about `vllm serve` asserted against the COMMITTED catalogs.

Each fact was checked by reading that release's own source (engine/arg_utils.py,
the server's cli_args.py, config dataclasses). One block per extraction era.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from recipelint.flags.catalog import (
    available_versions,
    catalog_for,
    closest_flags,
    flag_span,
    load_catalog,
    newest_catalog,
    value_span,
    version_key,
)

RULES = Path(__file__).resolve().parent.parent / "rules" / "vllm"

# The doc's sanity figures (canonical flags, aliases and negations not counted).
SANITY_COUNTS = {
    "0.8.5": 137,
    "0.11.0": 183,
    "0.17.0": 222,
    "0.22.0": 261,
    "0.28.0": 284,
    "0.33.0": 320,
    "0.34.0": 327,
}


def test_coverage_and_sanity_counts() -> None:
    versions = available_versions()
    assert len(versions) >= 25
    minors = {tuple(v.split(".")[:2]) for v in versions}
    assert {("0", str(m)) for m in range(8, 34)} <= minors
    for version, count in SANITY_COUNTS.items():
        assert len(load_catalog(version).flags) == count, version
    # 0.27.1 has no catalog of its own: it equals 0.27.0, which the lookup falls back to.
    assert len(catalog_for("0.27.1").flags) == 282


# The environment catalog folds every release's variables into eras, so it grows with each
# release vLLM makes: it is held lean per era instead of as a whole.
FOLDED_ERA_BYTES = 160


def test_committed_files_are_lean_and_canonical() -> None:
    for path in sorted(RULES.glob("*.json")):
        text = path.read_text()
        if path.name == "vllm-env.json":
            eras = sum(len(runs) for runs in json.loads(text)["variables"].values())
            assert len(text) < FOLDED_ERA_BYTES * eras, path.name
        else:
            assert len(text) < 80_000, path.name
        assert (
            text
            == json.dumps(
                json.loads(text), sort_keys=True, separators=(",", ":"), ensure_ascii=False
            )
            + "\n"
        )


def test_version_selection() -> None:
    assert catalog_for("0.17.0").version == "0.17.0"
    assert catalog_for("0.17.5").version == "0.17.1"
    assert catalog_for("0.9.0.1").version == "0.9.0"
    assert catalog_for("0.8.5.post1").version == "0.8.5"
    assert catalog_for("0.7.3").version == "0.7.3"
    assert catalog_for("0.6.1.post2").version == "0.6.1.post1"
    assert catalog_for("0.3.3") is None
    assert newest_catalog().version == "0.34.0"
    assert version_key("0.10.1.1") > version_key("0.10.1")


# -- 0.8: explicit add_argument calls -------------------------------------------------


def test_era_explicit_0_8_5() -> None:
    cat = load_catalog("0.8.5")
    tp = cat.flags["--tensor-parallel-size"]
    assert tp.aliases == ("-tp",) and tp.type == "int" and tp.value == "yes"
    assert "gguf" in cat.flags["--quantization"].choices and cat.flags[
        "--quantization"
    ].aliases == ("-q",)
    assert cat.flags["--reasoning-parser"].choices == ("deepseek_r1", "granite")
    assert cat.flags["--tokenizer-mode"].choices == ("auto", "custom", "mistral", "slow")
    assert cat.flags["--max-model-len"].type == "human_int"
    assert cat.flags["--use-v2-block-manager"].deprecated  # help says [DEPRECATED]
    assert cat.flags["--trust-remote-code"].value == "no"
    assert cat.flags["--enable-prefix-caching"].negations == ("--no-enable-prefix-caching",)
    cc = cat.flags["--compilation-config"]
    assert cc.aliases == ("-O",) and cc.type == "json"  # CompilationConfig.from_cli
    assert cat.spelling["underscores"] == "all" and not cat.spelling["dotted_json"]
    assert "hermes" in cat.flags["--tool-call-parser"].values


# -- 0.9-0.11: get_kwargs over vllm/config.py, deprecated=True ------------------------------


def test_era_get_kwargs_0_11_0() -> None:
    cat = load_catalog("0.11.0")
    assert cat.flags["--task"].deprecated  # add_argument(..., deprecated=True)
    assert cat.flags["--guided-decoding-backend"].deprecated
    assert cat.flags["--disable-log-requests"].deprecated
    assert cat.flags["--enable-log-requests"].value == "no"
    assert cat.flags["--compilation-config"].aliases == ("-O",)
    assert "level" in cat.flags["--compilation-config"].json_keys
    # QuantizationMethods is Any at run time (TYPE_CHECKING import): soft values only.
    quant = cat.flags["--quantization"]
    assert quant.choices is None and "fp8" in quant.values
    assert cat.flags["--hf-token"].value == "optional"
    assert cat.flags["--api-server-count"].aliases == ("-asc",)
    assert cat.spelling["underscores"] == "before_dot" and cat.spelling["dotted_json"]


# -- 0.12-0.28: config package, -cc alias, human-readable ints ----------------------------


def test_era_config_package_0_17_0() -> None:
    cat = load_catalog("0.17.0")
    assert cat.flags["--max-model-len"].type == "human_int_or_auto"
    assert cat.flags["--max-num-batched-tokens"].type == "human_int"
    cc = cat.flags["--compilation-config"]
    assert cc.aliases == ("-cc",)
    assert {"mode", "pass_config", "cudagraph_capture_sizes"} <= set(cc.json_keys)
    assert "keys" in cc.json_keys["pass_config"]
    assert cat.flags["--kv-cache-dtype"].choices == (
        "auto",
        "bfloat16",
        "fp8",
        "fp8_ds_mla",
        "fp8_e4m3",
        "fp8_e5m2",
        "fp8_inc",
    )
    assert cat.flags["--dtype"].choices == (
        "auto",
        "bfloat16",
        "float",
        "float16",
        "float32",
        "half",
    )
    assert (
        "hf" in cat.flags["--tokenizer-mode"].values
        and cat.flags["--tokenizer-mode"].choices is None
    )
    assert "kv_connector" in cat.flags["--kv-transfer-config"].json_keys
    assert cat.flags["--hf-overrides"].type == "json_or_str"
    assert cat.flags["--middleware"].repeatable
    assert (
        cat.flags["--allowed-origins"].type == "json"
        and cat.flags["--allowed-origins"].nargs is None
    )
    assert "--disable-prefix-caching" not in cat.option_strings()  # pairs arrive in 0.33


def test_model_flag_with_serve() -> None:
    # parse_args raises on `--model` up to 0.11.0 (serve's cmd() before 0.8.3), warns after.
    assert load_catalog("0.8.0").flags["--model"].serve_error
    assert load_catalog("0.11.0").flags["--model"].serve_error
    later = load_catalog("0.11.1").flags["--model"]
    assert later.serve_error is None and later.deprecated
    assert load_catalog("0.33.0").spelling["serve_model_flag"] == "deprecated"


def test_patch_release_differs_0_17_1() -> None:
    assert set(load_catalog("0.17.1").flags["--reasoning-parser"].values) != set(
        load_catalog("0.17.0").flags["--reasoning-parser"].values
    )


# -- 0.29-0.33: launchers / common cli_args, deprecation actions, --enable/--disable pairs ----


def test_era_common_cli_args_0_33_0() -> None:
    cat = load_catalog("0.33.0")
    assert cat.lookup("--disable-prefix-caching").canonical == "--enable-prefix-caching"
    assert cat.lookup("--disable-prefix-caching").negated
    assert cat.lookup("--enable-cascade-attn").canonical == "--disable-cascade-attn"
    assert cat.flags["--disable-cascade-attn"].deprecated
    assert cat.flags["--log-config-file"].deprecated  # DeprecatedLogConfigFileAction
    assert "will be removed in v0.33.0" in cat.flags["--log-config-file"].deprecation
    assert cat.flags["--gpu-memory-utilization"].aliases == ("--device-memory-utilization",)
    assert cat.flags["--speculative-config"].aliases == ("-sc",)
    assert cat.spelling["omni_handoff"] and cat.spelling["enable_disable_pairs"]
    assert "qwen3_xml" in cat.flags["--tool-call-parser"].values


def test_vllm_omni_catalog() -> None:
    omni = load_catalog("0.30.0", "vllm-omni")
    vllm = load_catalog("0.30.0")
    assert set(vllm.flags) < set(omni.flags)  # omni starts from vLLM's own parser
    assert "--omni" in omni.flags and "--stage-overrides" in omni.flags
    assert "--omni" not in vllm.flags


# -- spellings -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("version", "spelled", "canonical", "via"),
    [
        ("0.17.0", "--tensor_parallel_size", "--tensor-parallel-size", "exact"),
        ("0.17.0", "-tp", "--tensor-parallel-size", "alias"),
        ("0.17.0", "-cc.mode=3", "--compilation-config", "alias"),
        (
            "0.17.0",
            "--compilation-config.pass_config.fuse_norm_quant",
            "--compilation-config",
            "exact",
        ),
        ("0.17.0", "--no-enable-prefix-caching", "--enable-prefix-caching", "negation"),
        ("0.17.0", "--gpu-memory-util", "--gpu-memory-utilization", "abbreviation"),
        ("0.17.0", "-O3", "--optimization-level", "alias"),
        ("0.8.5", "-O3", "--compilation-config", "alias"),
        ("0.8.5", "--max_model_len", "--max-model-len", "exact"),
    ],
)
def test_lookup_spellings(version: str, spelled: str, canonical: str, via: str) -> None:
    found = load_catalog(version).lookup(spelled)
    assert (found.canonical, found.via) == (canonical, via)


def test_lookup_details() -> None:
    cat = load_catalog("0.17.0")
    dotted = cat.lookup("--kv_transfer_config.kv_connector=NixlConnector")
    assert (
        dotted.underscored
        and dotted.json_path == ("kv_connector",)
        and dotted.inline_value == "NixlConnector"
    )
    assert cat.lookup("--compilation-config.compile_sizes+").list_append
    assert cat.json_key_status("--compilation-config", ("mode",)) == "known"
    assert cat.json_key_status("--compilation-config", ("nope",)) == "unknown"
    assert cat.json_key_status("--hf-overrides", ("anything",)) == "free"
    ambiguous = cat.lookup("--enable")
    assert not ambiguous.known and "--enable-prefix-caching" in ambiguous.candidates
    assert not cat.lookup("--tensor-paralel-size").known
    assert closest_flags(cat, "--tensor-paralel-size")[0] == "--tensor-parallel-size"
    assert cat.value_status("--dtype", "bf16") == "bad"
    assert cat.value_status("--max-model-len", "128k") == "ok"
    assert cat.value_status("--tensor-parallel-size", "two") == "bad"
    assert cat.value_status("--tokenizer-mode", "mistrall") == "unknown"


def test_history() -> None:
    assert flag_span("--guided-decoding-backend") == ("0.4.1", "0.11.1")
    assert flag_span("--structured-outputs-config") == ("0.11.0", "0.34.0")
    assert flag_span("--async-scheduling") == ("0.10.0", "0.34.0")
    assert value_span("--tool-call-parser", "hermes") == ("0.6.0", "0.34.0")
    assert flag_span("--no-such-flag") is None


def test_serve_config_flag_from_scripts_era() -> None:
    # 0.6.0-0.7.2: vllm/scripts.py's serve subparser added `--config` itself; it is a flag,
    # not an abbreviation of `--config-format` (0.7.x) nor unknown (0.6.x).
    for version in ("0.6.0", "0.7.2"):
        hit = load_catalog(version).lookup("--config")
        assert hit.via == "exact" and hit.canonical == "--config", version
    assert load_catalog("0.5.5").lookup("--config").via != "exact"


def test_quantization_none_where_the_converter_maps_it() -> None:
    # 0.8.4 nullable_str and 0.8.5 optional_type(str) turn "None" into None, which is among the
    # choices; 0.9.0's get_kwargs appends the text "None", which the converted None never equals.
    for version, passes in (("0.8.4", True), ("0.8.5", True), ("0.9.0", False)):
        assert ("None" in load_catalog(version).flags["--quantization"].choices) is passes, version


def test_choices_from_a_nested_enum_0_4_0() -> None:
    # choices=[t.name.lower() for t in VisionLanguageConfig.ImageInputType]: a class nested in
    # another, read from the release's own config.
    for version in ("0.4.0", "0.5.0.post1"):
        flag = load_catalog(version).flags["--image-input-type"]
        assert flag.choices == ("image_features", "pixel_values"), version


def test_collect_detailed_traces_values_per_release() -> None:
    # 0.9.0-0.30.0 add every ordered pair of the Literal's values, comma-joined, to the
    # choices at run time (itertools.permutations); from 0.31.0 a list of the Literal with
    # None appended beside optional_type, so "None" passes and pairs do not.
    for version in ("0.9.0", "0.30.0"):
        choices = load_catalog(version).flags["--collect-detailed-traces"].choices
        assert "model,worker" in choices and "None" not in choices, version
    for version in ("0.31.0", "0.33.0"):
        choices = load_catalog(version).flags["--collect-detailed-traces"].choices
        assert "None" in choices and "model,worker" not in choices, version


@pytest.mark.parametrize(
    ("version", "flag", "extra"),
    [
        # pydantic BaseModel validated by from_cli: undeclared keys dropped
        ("0.8.0", "--compilation-config", "ignore"),
        # PoolerConfig.from_json is `PoolerConfig(**json.loads(...))` on a plain dataclass
        ("0.6.6", "--override-pooler-config", "forbid"),
        ("0.8.5", "--override-pooler-config", "forbid"),
        # SpeculativeConfig.from_dict(d) is `cls(**d)`: plain dataclass to 0.9.1 ...
        ("0.8.5", "--speculative-config", "forbid"),
        # ... get_kwargs' `f(**json.loads(x))` in 0.9.0, a from_cli ending in `cls(**...)`
        ("0.9.0", "--override-pooler-config", "forbid"),
        ("0.9.0", "--compilation-config", "forbid"),
        # ... and a pydantic dataclass from 0.9.2 (the same `cls(**d)` drops keys)
        ("0.9.2", "--speculative-config", "ignore"),
        ("0.9.2", "--compilation-config", "ignore"),
        ("0.12.0", "--compilation-config", "ignore"),
        # CompilationConfig states extra="forbid" from 0.13.0; other configs do not yet
        ("0.13.0", "--compilation-config", "forbid"),
        ("0.15.1", "--kv-transfer-config", "ignore"),
        # 0.16.0's @config decorator merges extra="forbid" into every config class
        ("0.16.0", "--kv-transfer-config", "forbid"),
        ("0.16.0", "--speculative-config", "forbid"),
        ("0.34.0", "--pooler-config", "forbid"),
    ],
)
def test_undeclared_json_keys_per_release(version: str, flag: str, extra: str) -> None:
    spec = load_catalog(version).flags[flag]
    assert spec.json_keys and spec.json_extra == extra


def test_nested_config_keys_follow_their_own_class() -> None:
    keys = load_catalog("0.13.0").flags["--compilation-config"].json_keys
    assert keys is not None and keys["pass_config"]["extra"] == "forbid"
    keys = load_catalog("0.12.0").flags["--compilation-config"].json_keys
    assert keys is not None and keys["pass_config"]["extra"] == "ignore"


@pytest.mark.parametrize(
    ("version", "flag", "default"),
    [
        ("0.8.5", "--gpu-memory-utilization", 0.9),  # CacheConfig field, through get_kwargs
        ("0.20.0", "--gpu-memory-utilization", 0.92),  # Field(default=0.92, ...)
        ("0.34.0", "--gpu-memory-utilization", None),
        ("0.6.0", "--port", 8000),  # add_argument(default=8000)
        ("0.34.0", "--tensor-parallel-size", 1),
        ("0.34.0", "--dtype", "auto"),
        ("0.34.0", "--enforce-eager", False),
    ],
)
def test_flag_defaults_per_release(version: str, flag: str, default: object) -> None:
    spec = load_catalog(version).flags[flag]
    assert spec.has_default and spec.default == default and type(spec.default) is type(default)


def test_flags_history_names_each_default() -> None:
    from click.testing import CliRunner

    from recipelint.commands.flags import flags_group

    result = CliRunner().invoke(flags_group, ["history", "--gpu-memory-utilization"])
    assert result.exit_code == 0
    assert "default 0.9" in result.output and "default 0.92" in result.output
    assert "default null" in result.output


def test_close_options_are_difflibs_and_kept_per_catalog() -> None:
    import difflib

    cat = load_catalog("0.11.0")
    pool = [o for o in cat.option_strings() if o.startswith("--")]
    first = cat.close_options("--tensor-paralel-size", 3, 0.6)
    assert first == difflib.get_close_matches("--tensor-paralel-size", pool, 3, 0.6)
    first.append("--changed-by-the-caller")
    again = cat.close_options("--tensor-paralel-size", 3, 0.6)
    assert again == first[:-1]  # the kept answer is the catalog's, not the caller's list
    assert cat.close_options("--tensor-paralel-size", 3, 0.99) == []  # its own cutoff
