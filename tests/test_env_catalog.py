"""The committed environment catalog (rules/vllm/vllm-env.json), its lookups and `recipelint env`.

The facts pinned here were read off the releases' own ``vllm/envs.py``.
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from recipelint.cli import cli
from recipelint.flags.catalog import available_versions, version_key
from recipelint.flags.env_catalog import (
    EnvSpec,
    check_env_value,
    closest_env_names,
    covered_release,
    env_eras,
    env_names,
    env_releases,
    env_span,
    env_spec,
    load_env_catalog,
)


def test_every_flag_catalog_release_and_every_older_minimum_is_covered() -> None:
    releases = env_releases()
    assert releases == tuple(sorted(releases, key=version_key))
    assert set(available_versions()) <= set(releases)
    assert releases[0] == "0.4.0"


def test_eras_are_consecutive_runs_of_covered_releases() -> None:
    index = {version: i for i, version in enumerate(env_releases())}
    for name, eras in load_env_catalog()["variables"].items():
        spans = [(index[e["first"]], index[e["last"]]) for e in eras]
        assert all(first <= last for first, last in spans), name
        # Two eras touch only when the reading changes; otherwise they would be one.
        for (_, end), (start, _), before, after in zip(
            spans, spans[1:], eras, eras[1:], strict=False
        ):
            assert start > end, name
            if start == end + 1:
                strip = {"first", "last"}
                assert {k: v for k, v in before.items() if k not in strip} != {
                    k: v for k, v in after.items() if k not in strip
                }, name


def test_known_variables_have_their_source_reading() -> None:
    port = env_spec("VLLM_PORT", "0.17.0")
    assert port is not None and port.type == "int"
    v1 = env_spec("VLLM_USE_V1", "0.8.0")
    assert v1 is not None and (v1.type, v1.default) == ("bool", "1")
    modelscope = env_spec("VLLM_USE_MODELSCOPE", "0.8.0")
    assert modelscope is not None and modelscope.type == "switch"
    assert modelscope.true_words == ("true",) and modelscope.case_insensitive


def test_choices_computed_from_an_enum_imported_inline_are_read() -> None:
    backend = env_spec("VLLM_ATTENTION_BACKEND", "0.14.0")
    assert backend is not None and backend.type == "choice"
    assert "FLASH_ATTN" in backend.choices
    assert check_env_value(backend, "FLASH_ATTN").status == "ok"
    assert check_env_value(backend, "FLASH_ATTENTION").status == "bad"


def test_a_variable_that_was_removed_has_a_last_release() -> None:
    span = env_span("VLLM_USE_V1")
    assert span is not None
    assert version_key(span[1]) < version_key(env_releases()[-1])
    assert env_spec("VLLM_USE_V1", env_releases()[-1]) is None


def test_a_release_between_catalogued_ones_reads_as_the_closest_lower() -> None:
    assert covered_release("0.8.5.post7") == "0.8.5.post1"
    assert covered_release("0.3.0") is None
    assert env_spec("VLLM_PORT", "0.3.0") is None


def test_did_you_mean_finds_the_spelling_of_a_real_variable() -> None:
    assert "VLLM_ATTENTION_BACKEND" in closest_env_names("VLLM_ATENTION_BACKEND", "0.10.0")
    assert closest_env_names("vllm_use_modelscope") == ["VLLM_USE_MODELSCOPE"]


def test_names_of_one_release_are_a_subset_of_all() -> None:
    newest = env_names(env_releases()[-1])
    assert newest and set(newest) <= set(env_names())


def _spec(**fields: object) -> EnvSpec:
    base: dict[str, object] = {"name": "VLLM_X", "first": "0.8.0", "last": "0.8.0"}
    base.update({"type": "str", "source": "envs"}, **fields)
    return EnvSpec(**base)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("fields", "value", "status"),
    [
        ({"type": "int"}, "8", "ok"),
        ({"type": "int"}, " 8 ", "ok"),  # int() strips, as vLLM's int(os.getenv(...)) does
        ({"type": "int"}, "8k", "bad"),
        ({"type": "bool"}, "1", "ok"),
        ({"type": "bool"}, "true", "bad"),  # bool(int("true")) fails at startup
        ({"type": "float"}, "0.5", "ok"),
        ({"type": "float"}, "half", "bad"),
        ({"type": "json"}, '{"a": 1}', "ok"),
        ({"type": "json"}, "{a: 1}", "bad"),
        ({"type": "choice", "choices": ("naive", "pplx")}, "pplx", "ok"),
        ({"type": "choice", "choices": ("naive", "pplx")}, "PPLX", "bad"),
        ({"type": "choice", "choices": ("A", "B"), "case_insensitive": True}, "a", "ok"),
        ({"type": "list", "choices": ("a", "b")}, "a, b", "ok"),
        ({"type": "list", "choices": ("a", "b")}, "a,c", "bad"),
        ({"type": "switch", "true_words": ("1",)}, "1", "ok"),
        ({"type": "switch", "true_words": ("1",)}, "0", "ok"),
        ({"type": "switch", "true_words": ("1",)}, "true", "misread"),
        ({"type": "switch", "true_words": ("1", "true"), "case_insensitive": True}, "TRUE", "ok"),
        ({"type": "switch", "true_words": ("0",), "negated": True}, "false", "misread"),
        ({"type": "flag"}, "1", "ok"),
        ({"type": "flag"}, "0", "misread"),
        ({"type": "str"}, "anything", "ok"),
    ],
)
def test_check_env_value_follows_the_conversion(
    fields: dict[str, object], value: str, status: str
) -> None:
    result = check_env_value(_spec(**fields), value)
    assert result.status == status
    assert (result.reason == "") == (status == "ok")


def test_every_committed_reading_describes_itself() -> None:
    for name in env_names():
        for era in env_eras(name):
            assert era.describe()
            assert check_env_value(era, era.default or "").status in ("ok", "bad", "misread")


def _env(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["env", *args])
    return result.exit_code, result.output


def test_env_show_prints_a_life_across_releases() -> None:
    code, output = _env("show", "VLLM_USE_V1")
    assert code == 0, output
    first, last = env_span("VLLM_USE_V1") or ("", "")
    assert output.startswith(f"VLLM_USE_V1: read by vLLM {first} .. {last}\n")
    assert "an integer read as a boolean" in output


def test_env_show_json_lists_every_era() -> None:
    code, output = _env("show", "VLLM_PORT", "--format", "json")
    assert code == 0
    assert [row["first"] for row in json.loads(output)] == [e.first for e in env_eras("VLLM_PORT")]


def test_env_show_of_an_unknown_name_suggests_and_fails() -> None:
    code, output = _env("show", "VLLM_USE_MODLESCOPE")
    assert code == 1
    assert "did you mean VLLM_USE_MODELSCOPE" in output


def test_env_list_of_one_release() -> None:
    code, output = _env("list", "--release", "0.8.0")
    assert code == 0
    rows = dict(line.split("\t") for line in output.splitlines())
    assert rows["VLLM_USE_V1"] == "bool"
    assert "VLLM_USE_V1" not in _env("list", "--release", env_releases()[-1])[1].split()


@pytest.mark.parametrize("release", ["0.1.0", "banana"])
def test_env_list_of_an_uncovered_release_is_a_usage_error(release: str) -> None:
    code, output = _env("list", "--release", release)
    assert code == 2 and "Traceback" not in output


def test_the_committed_catalogs_unfold_and_fold_back_unchanged() -> None:
    from recipelint.flags.envs import build_env_catalog, unfold_eras
    from recipelint.flags.hardware import build_hardware_catalog, load_hardware_catalog

    env = load_env_catalog()
    assert build_env_catalog(unfold_eras(env, "variables")) == env
    hardware = load_hardware_catalog()
    assert build_hardware_catalog(unfold_eras(hardware, "entries")) == hardware
