"""Verdicts across a recipe's supported range, values argparse really accepts, and
`recipelint flags history FLAG` (facts read off each release's own parser code)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from recipelint.cli import cli
from recipelint.flags.catalog import available_versions, catalog_for, version_key
from recipelint.flags.support import (
    catalogs_from,
    first_with,
    flag_life,
    flag_support,
    json_key_support,
    value_support,
    worst,
)


def test_catalogs_reach_back_to_every_minimum_the_corpus_names() -> None:
    versions = available_versions()
    assert versions[0] == "0.4.0"
    for minimum in ("0.6.0", "0.6.1", "0.6.2", "0.7.0"):
        catalog = catalog_for(minimum)
        assert catalog is not None and version_key(catalog.version) <= version_key(minimum)
        assert catalog.version.split(".")[:2] == minimum.split(".")[:2]


def test_a_flag_newer_than_the_minimum_is_rejected_by_the_oldest_releases() -> None:
    statuses = flag_support("--language-model-only", "0.7.0")
    assert worst(statuses) == "rejected"
    first = first_with(statuses, "rejected")
    assert first is not None and first.version == catalog_for("0.7.0").version  # type: ignore[union-attr]
    accepted = first_with(statuses, "ok")
    assert accepted is not None and version_key(accepted.version) >= (0, 17)


def test_a_flag_every_release_accepts_is_ok_over_the_range() -> None:
    assert worst(flag_support("--tensor-parallel-size", "0.4.0")) == "ok"


def test_serve_rejecting_model_is_a_rejection_not_a_deprecation() -> None:
    statuses = flag_support("--model", "0.8.0")
    assert statuses[0].status == "rejected" and statuses[0].note
    assert statuses[-1].status == "deprecated"


def test_the_range_starts_at_the_catalog_standing_for_the_minimum() -> None:
    assert catalogs_from("0.8.5.post1")[0].version == "0.8.5"
    assert catalogs_from("0.1.0")[0].version == available_versions()[0]
    assert catalogs_from("99.0.0")[-1].version == available_versions()[-1]


def test_store_boolean_switches_take_an_optional_true_or_false() -> None:
    catalog = catalog_for("0.8.0")
    assert catalog is not None
    spec = catalog.flag("--enable-chunked-prefill")
    assert spec is not None and spec.value == "optional"
    assert catalog.value_status("--enable-chunked-prefill", "false") == "ok"
    assert catalog.value_status("--enable-chunked-prefill", "TRUE") == "ok"
    assert catalog.value_status("--enable-chunked-prefill", "maybe") == "bad"


def test_none_is_a_choice_where_the_converter_maps_it_to_none() -> None:
    old = catalog_for("0.8.0")
    assert old is not None and old.value_status("--quantization", "None") == "ok"
    statuses = value_support("--quantization", "None", "0.8.0")
    assert {s.status for s in statuses} <= {"ok", "rejected"}


def test_optimization_level_takes_the_integer_levels() -> None:
    catalog = catalog_for("0.17.0")
    assert catalog is not None
    found = catalog.lookup("-O3")
    assert found.canonical == "--optimization-level" and found.inline_value == "3"
    assert catalog.value_status("--optimization-level", "3") == "ok"
    assert catalog.value_status("--optimization-level", "O3") == "unknown"


def test_model_loader_extra_config_takes_any_mapping() -> None:
    catalog = catalog_for("0.17.0")
    assert catalog is not None
    assert catalog.json_key_status("--model-loader-extra-config", ("concurrency",)) == "free"
    # A `@config` class forbids other keys: its fields stay the keys.
    assert catalog.json_key_status("--compilation-config", ("no_such_key",)) == "unknown"


def test_a_key_that_supersedes_deprecated_ones_is_not_itself_deprecated() -> None:
    statuses = json_key_support("--attention-config", ("mla_prefill_backend",), "0.21.0")
    assert statuses[0].status == "ok"


def test_a_json_key_that_vanishes_is_rejected_from_the_release_where_it_goes() -> None:
    statuses = json_key_support("--compilation-config", ("use_cudagraph",), "0.8.0")
    assert statuses[0].status == "ok"
    gone = first_with(statuses, "rejected")
    deprecated = first_with(statuses, "deprecated")
    assert gone is not None and deprecated is not None
    assert version_key(deprecated.version) < version_key(gone.version)
    before = catalogs_from(gone.version)[0]
    assert before.json_key_status("--compilation-config", ("use_cudagraph",)) == "unknown"


def test_flag_life_covers_every_release_once() -> None:
    eras = flag_life("--enable-chunked-prefill")
    assert eras[0].first == available_versions()[0] and eras[-1].last == available_versions()[-1]
    assert any("choices false, true (any case)" in era.reading for era in eras)


def _history(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["flags", "history", *args])
    return result.exit_code, result.output


def test_flags_history_prints_a_flag_life() -> None:
    code, output = _history("--language_model_only")
    assert code == 0, output
    assert output.startswith("--language-model-only in vllm ")
    assert "not accepted" in output


def test_flags_history_of_a_json_key_prints_the_key_life() -> None:
    code, output = _history("--compilation-config.use_cudagraph")
    assert code == 0, output
    lines = output.splitlines()
    assert lines[0].startswith("--compilation-config.use_cudagraph in vllm ")
    assert any(line.endswith(": deprecated") for line in lines)
    assert lines[-1].endswith("not accepted (unknown key)")


@pytest.mark.parametrize("args", [["--enable-chunkd-prefill"], ["--moe-backend", "x", "y"]])
def test_flags_history_of_no_flag_says_so(args: list[str]) -> None:
    code, output = _history(*args)
    assert code in (1, 2) and "Traceback" not in output


def test_serve_refused_model_from_the_scripts_era_on() -> None:
    # vllm/scripts.py's `serve` raised on `--model` from 0.5.5; 0.5.2-0.5.4 ignored it.
    assert flag_support("--model", "0.5.5")[0].status == "rejected"
    assert flag_support("--model", "0.5.4")[0].status == "ok"


def test_a_deprecated_choice_in_a_list_of_options_does_not_deprecate_the_option() -> None:
    # 0.34.0's all2all docstring lists its backends, two of them "(deprecated; use ...)".
    from recipelint.flags.extract import _deprecation_note

    listing = (
        'All2All backend. Available options:\n\n- "allgather_reducescatter": based on '
        'allgather\n- "mori_low_latency": MoRI EP for multi-node\n  (deprecated; use "mori")\n'
    )
    assert _deprecation_note(listing) is None
    assert _deprecation_note("Deprecated with model runner V2.") is not None
    statuses = flag_support("--all2all-backend", "0.34.0")
    assert [status.status for status in statuses] == ["ok"]


def test_a_key_newer_than_a_refusing_release_stays_an_error(tmp_path: Path) -> None:
    # 0.9.0 builds the speculative config with `cls(**d)` from a plain dataclass: an
    # undeclared key is a TypeError there, so a key 0.9.0 lacks is refused, not dropped.
    spec = json_key_support("--speculative-config", ("enforce_eager",), "0.9.0")
    assert spec[0].status == "rejected"
    # 0.9.2's SpeculativeConfig is a pydantic dataclass: the same construction drops it.
    assert json_key_support("--speculative-config", ("enforce_eager",), "0.9.2")[0].status == (
        "ignored"
    )
