"""The synthetic edge fixtures: upstream's bytes where the input is valid, errors where it is not.

Every fixture renders exactly as upstream does, so the in-memory output equals the
upstream build for all 546 files. Three fixtures are invalid on purpose; for those
the compile reports an error (and so `recipelint compile` writes nothing):

* edge/numarg.yaml   - an unquoted number in base_args: upstream's synthesis throws and
                       drops every rendering; we report RL704 at the number.
* edge/tpdp.yaml     - a PD role `tp: 0`: upstream renders Infinity/NaN sizes; RL705.
* edge/docker.yaml   - nightly on Intel CPU (xeon6) has no image: upstream prints
                       `undefined` in the docker command; RL705.

Valid-but-notable input gets a warning or info only: two variants publishing one id
(edge/promote, RL707) and a variant naming its own recipe (RL706).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_compile_parity import _expected, _mismatches

from recipelint.cli import main
from recipelint.compile.compiler import CompileResult, compile_tree
from recipelint.diagnostics import Severity


@pytest.fixture(scope="module")
def edge_result(edge_tree: Path) -> CompileResult:
    return compile_tree(edge_tree)


def _findings(result: CompileResult, name: str) -> list[tuple[str, Severity, int]]:
    return [(d.code, d.severity, d.span.line) for d in result.diagnostics if d.path.name == name]


def test_every_edge_file_matches_upstream_in_memory(
    edge_result: CompileResult, shared_dir: Path
) -> None:
    expected = _expected(shared_dir / "corpus" / "edge" / "expected.tar.xz")
    assert len(expected) == 546
    assert _mismatches(dict(edge_result.files.items()), expected) == ([], [], [])


def test_numeric_argument_is_an_error_at_the_number(edge_result: CompileResult) -> None:
    findings = _findings(edge_result, "numarg.yaml")
    assert findings == [("RL704", Severity.ERROR, 7)]
    assert "recommended_command" not in edge_result.files.document("edge/numarg.json")


def test_pd_role_tp_zero_is_an_error(edge_result: CompileResult) -> None:
    assert _findings(edge_result, "tpdp.yaml") == [("RL705", Severity.ERROR, 21)]
    decode = edge_result.files.document("edge/tpdp/strategies/pd_cluster.json")["decode"]
    assert "Infinity" in decode["argv"]  # rendered exactly as upstream, but reported


def test_missing_nightly_cpu_image_is_an_error(edge_result: CompileResult) -> None:
    findings = _findings(edge_result, "docker.yaml")
    assert [(code, sev) for code, sev, _ in findings] == [("RL705", Severity.ERROR)]
    xeon = edge_result.files.document("edge/docker/hw/xeon6.json")
    assert "docker_image" not in xeon and None in xeon["docker_argv"]


def test_valid_fixtures_compile_without_errors(edge_result: CompileResult) -> None:
    invalid = {"numarg.yaml", "tpdp.yaml", "docker.yaml"}
    errors = {d.path.name for d in edge_result.diagnostics if d.severity is Severity.ERROR}
    assert errors == invalid
    assert [(c, s) for c, s, _ in _findings(edge_result, "nodefault.yaml")] == [
        ("RL711", Severity.WARNING)
    ]
    promote = _findings(edge_result, "promote.yaml")
    assert sorted((code, sev) for code, sev, _ in promote) == [
        ("RL706", Severity.INFO),
        ("RL707", Severity.WARNING),
    ]


def test_cli_writes_nothing_for_the_edge_tree(edge_tree: Path, tmp_path: Path) -> None:
    out = tmp_path / "api"
    assert main(["compile", str(edge_tree), "-o", str(out), "-q"]) == 1
    assert not out.exists()
