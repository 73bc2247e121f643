"""`recipelint check --format sarif` validates against the SARIF 2.1.0 schema.

The schema file is the OASIS one (tests/data/README.md says where it comes from).
It is draft-04, whose validator does not check `uri-reference`, the format of every
artifact location; rfc3986-validator checks that one, so a file name holding `%`,
`:` or a space cannot produce an invalid URI unnoticed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any
from urllib.parse import unquote, unquote_to_bytes

import jsonschema
import pytest
from conftest import EMBEDDED_TREE
from test_github_format import _hostile_tree

from recipelint.diagnostics import Diagnostic, Related, Severity, Span
from recipelint.report.sarif import build_sarif
from recipelint.rulebook.catalog import load_rulebook

SCHEMA = Path(__file__).parent / "data" / "sarif-schema-2.1.0.json"
Hostile = tuple[dict[str, Any], list[dict[str, Any]], Path]
LEVELS = {"error": "error", "warning": "warning", "info": "note"}


def _validator() -> jsonschema.Draft4Validator:
    rfc3986 = pytest.importorskip(
        "rfc3986_validator", reason="rfc3986-validator is in the test extra"
    )
    checker = jsonschema.FormatChecker()
    for name, rule in (("uri", "URI"), ("uri-reference", "URI_reference")):
        checker.checks(name)(
            lambda value, rule=rule: (
                not isinstance(value, str) or bool(rfc3986.validate_rfc3986(value, rule=rule))
            )
        )
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    return jsonschema.Draft4Validator(schema, format_checker=checker)


def _problems(document: dict[str, Any]) -> list[str]:
    return [f"{list(e.absolute_path)}: {e.message}" for e in _validator().iter_errors(document)]


def _check(where: Path, *args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-c", "from recipelint.cli import run; run()", "check", *args]
    # Artifacts are relative to the repository root: here the folder the check runs in.
    env = {**os.environ, "GITHUB_WORKSPACE": str(where)}
    env.pop("RECIPELINT_DOCS_URL", None)
    return subprocess.run(
        command, cwd=where, capture_output=True, text=True, timeout=120, check=False, env=env
    )


@pytest.fixture(scope="module")
def hostile(
    tmp_path_factory: pytest.TempPathFactory,
) -> Hostile:
    tree = _hostile_tree(tmp_path_factory.mktemp("sarif"))
    sarif = _check(tree, ".", "--format", "sarif")
    report = _check(tree, ".", "--format", "json")
    assert sarif.returncode == 1 and "Traceback" not in sarif.stderr
    again = _check(tree, ".", "--format", "sarif")
    assert again.stdout == sarif.stdout, "SARIF output must be deterministic"
    return json.loads(sarif.stdout), json.loads(report.stdout), tree


def test_findings_validate(hostile: Hostile) -> None:
    document, records, tree = hostile
    assert document["runs"][0]["results"], "the hostile tree has findings"
    assert _problems(document) == []


def test_embedded_tree_validates() -> None:
    done = _check(EMBEDDED_TREE.parent, "recipes", "--format", "sarif")
    assert done.returncode in (0, 1) and "Traceback" not in done.stderr, done.stderr
    assert _problems(json.loads(done.stdout)) == []


def test_results_match_the_json_report(
    hostile: Hostile,
) -> None:
    document, records, tree = hostile
    run = document["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    assert len(run["results"]) == len(records)
    for result, record in zip(run["results"], records, strict=True):
        assert result["ruleId"] == record["code"] == rules[result["ruleIndex"]]["id"]
        assert result["level"] == LEVELS[record["severity"]]
        assert result["message"]["text"].startswith(record["message"])
        location = result["locations"][0]["physicalLocation"]
        assert location["artifactLocation"]["uriBaseId"] == "%SRCROOT%"
        # the URI names the real file, byte for byte; the JSON report shows it escaped
        real = unquote_to_bytes(location["artifactLocation"]["uri"])
        assert (tree / os.fsdecode(real)).is_file()
        if real.isascii() and real.decode().isprintable():
            assert real.decode() == record["path"]
        region = location["region"]
        assert (region["startLine"], region["startColumn"]) == (record["line"], record["column"])
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"].startswith("file:///")
    assert run["columnKind"] == "unicodeCodePoints"


def test_rule_metadata_comes_from_the_catalog(
    hostile: Hostile,
) -> None:
    document, _, _ = hostile
    by_id = {rule["id"]: rule for rule in document["runs"][0]["tool"]["driver"]["rules"]}
    catalog = load_rulebook()
    assert set(catalog) <= set(by_id)
    for code, info in catalog.items():
        rule = by_id[code]
        assert rule["name"] == info.name
        assert rule["shortDescription"]["text"] == (info.summary or info.name)
        assert rule["fullDescription"]["text"] and rule["help"]["text"]
        assert rule["defaultConfiguration"]["level"] == LEVELS[str(info.severity)]


def test_paths_outside_the_base_are_absolute_file_uris(tmp_path: Path) -> None:
    outside = tmp_path / "other tree" / "a:b%#c.yaml"
    diag = Diagnostic(outside, Span(1, 1), "RL001", Severity.ERROR, "x")
    document = build_sarif([diag], base=tmp_path / "checkout")
    artifact = document["runs"][0]["results"][0]["locations"][0]["physicalLocation"][
        "artifactLocation"
    ]
    assert artifact == {"uri": outside.as_uri()}
    assert unquote(artifact["uri"]) == "file://" + outside.as_posix()
    assert _problems(document) == []


def test_a_colon_in_a_relative_path_is_not_a_scheme(tmp_path: Path) -> None:
    diag = Diagnostic(tmp_path / "a:b.yaml", Span(1, 1), "RL001", Severity.ERROR, "x")
    artifact = build_sarif([diag], base=tmp_path)["runs"][0]["results"][0]["locations"][0][
        "physicalLocation"
    ]["artifactLocation"]
    assert artifact["uri"] == "a%3Ab.yaml"


def test_a_name_that_is_not_utf8_keeps_its_bytes(tmp_path: Path) -> None:
    name = os.fsdecode(b"bad\xff name.yaml")
    diag = Diagnostic(tmp_path / "models" / name, Span(1, 1), "RL001", Severity.ERROR, "x")
    document = build_sarif([diag], base=tmp_path)
    artifact = document["runs"][0]["results"][0]["locations"][0]["physicalLocation"][
        "artifactLocation"
    ]
    assert artifact["uri"] == "models/bad%FF%20name.yaml"
    json.dumps(document, ensure_ascii=False).encode("utf-8")  # printable as UTF-8
    assert _problems(document) == []


def test_without_a_documentation_base_nothing_links_to_a_placeholder(hostile: Hostile) -> None:
    document, _, _ = hostile
    driver = document["runs"][0]["tool"]["driver"]
    assert "informationUri" not in driver
    assert not any("helpUri" in rule for rule in driver["rules"])
    assert "OWNER" not in json.dumps(document)
    assert _problems(document) == []


def test_the_tool_and_each_rule_link_the_configured_documentation(tmp_path: Path) -> None:
    diag = Diagnostic(tmp_path / "models" / "a.yaml", Span(1, 1), "RL002", Severity.ERROR, "x")
    base = "https://github.com/acme/recipelint/blob/v1.2.0/docs"
    document = build_sarif([diag], base=tmp_path, docs_url=base)
    driver = document["runs"][0]["tool"]["driver"]
    assert driver["informationUri"] == f"{base}/rules.md"
    catalog = load_rulebook()
    for rule in driver["rules"]:
        if rule["id"] in catalog:
            assert rule["helpUri"] == f"{base}/rules.md#{rule['id'].lower()}"
    assert _problems(document) == []


def test_related_locations_and_fingerprints_validate(tmp_path: Path) -> None:
    """Every optional part a result can carry, at once, against the OASIS schema."""
    here, there = tmp_path / "models" / "a b.yaml", tmp_path / "strategies" / "x%y.yaml"
    related = (
        Related(there, Span(3, 5, 3, 9), "the other copy"),
        Related(tmp_path.parent / "outside.yaml", Span(1, 1), "outside the base"),
    )
    diag = Diagnostic(
        here, Span(2, 3, 2, 8), "RL301", Severity.WARNING, "twice", "drop one", related=related
    )
    document = build_sarif([diag], base=tmp_path, fingerprints=["0123abcd"])
    assert _problems(document) == []
    result = document["runs"][0]["results"][0]
    assert result["partialFingerprints"] == {"recipelintFingerprint/v2": "0123abcd"}
    places = result["relatedLocations"]
    assert [place["id"] for place in places] == [1, 2]
    assert places[0]["physicalLocation"]["artifactLocation"] == {
        "uri": "strategies/x%25y.yaml",
        "uriBaseId": "%SRCROOT%",
    }
    assert places[0]["physicalLocation"]["region"] == {
        "startLine": 3,
        "startColumn": 5,
        "endLine": 3,
        "endColumn": 9,
    }
    assert places[1]["physicalLocation"]["artifactLocation"]["uri"].startswith("file:///")
    assert places[0]["message"] == {"text": "the other copy"}


def test_the_cli_report_with_related_locations_validates(
    tmp_path: Path, embedded_tree: Path
) -> None:
    """A real finding with related locations (RL304 repeated in one list is one finding
    with the other copy related) through `check --format sarif --output-file`."""
    import shutil

    tree = tmp_path / "tree"
    shutil.copytree(embedded_tree, tree)
    from test_fix import RECIPE, recipe
    from treehelp import write_file

    write_file(
        tree / RECIPE,
        recipe(
            '  base_args:\n    - "--enforce_eager"\n    - "--max-model-len"\n'
            '    - "8192"\n    - "--enforce_eager"\n'
        ),
    )
    done = _check(tree, "models", "--format", "sarif", "--output-file", "out.sarif")
    assert done.returncode in (0, 1) and done.stdout == "", done.stderr
    document = json.loads((tree / "out.sarif").read_text(encoding="utf-8"))
    results = [r for r in document["runs"][0]["results"] if r["ruleId"] == "RL304"]
    assert len(results) == 1 and "partialFingerprints" in results[0]
    assert results[0]["relatedLocations"][0]["physicalLocation"]["region"]["startLine"] == 22
    assert _problems(document) == []


def test_artifacts_are_relative_to_the_repository_root_from_a_subfolder(
    tmp_path: Path, embedded_tree: Path
) -> None:
    """Code scanning resolves %SRCROOT% to the checkout: a check run in a subfolder of
    the repository (no GITHUB_WORKSPACE) still names files from the git top level."""
    import shutil

    shutil.copytree(embedded_tree, tmp_path / "recipes")
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True, timeout=60)
    from test_report_github import RECIPE, UNDERSCORE
    from treehelp import write_documents

    write_documents(tmp_path / "recipes", {RECIPE: UNDERSCORE})
    command = [sys.executable, "-c", "from recipelint.cli import run; run()", "check"]
    env = {k: v for k, v in os.environ.items() if k != "GITHUB_WORKSPACE"}
    done = subprocess.run(
        [*command, "acme", "--format", "sarif"],
        cwd=tmp_path / "recipes" / "models",
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    document = json.loads(done.stdout)
    run = document["runs"][0]
    [result] = [r for r in run["results"] if r["ruleId"] == "RL304"]
    artifact = result["locations"][0]["physicalLocation"]["artifactLocation"]
    assert artifact == {"uri": f"recipes/{RECIPE}", "uriBaseId": "%SRCROOT%"}
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == tmp_path.resolve().as_uri() + "/"
    assert _problems(document) == []
