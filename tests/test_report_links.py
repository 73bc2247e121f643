"""Where reports link a rule's documentation: nowhere until a real home is known.

The documentation base (the folder holding rules.md) is the configuration's `docs-url`,
else RECIPELINT_DOCS_URL (the GitHub Action sets it to the docs of the recipelint it
runs). Without either, the JSON `url` is null and SARIF leaves out its optional links,
instead of pointing at the `OWNER/recipelint` placeholder.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from treehelp import Fragment, write_documents

from recipelint.cli import cli
from recipelint.rulebook.catalog import DOCS_URL_VARIABLE

RECIPE = "models/acme/demo.yaml"
UNDERSCORE = Fragment('model:\n  base_args: ["--max_model_len", "8192"]\n')
FROM_ENVIRONMENT = "https://github.com/acme/recipelint/blob/v1.2.0/docs"
CONFIGURED = "https://docs.example.org/recipelint/docs/"


@pytest.fixture
def tree(tmp_path: Path, embedded_tree: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "tree"
    shutil.copytree(embedded_tree, root)
    write_documents(root, {RECIPE: UNDERSCORE})
    monkeypatch.chdir(root)
    monkeypatch.delenv(DOCS_URL_VARIABLE, raising=False)
    return root


def run(*args: str, docs_url: str | None = None) -> Result:
    env = {DOCS_URL_VARIABLE: docs_url}
    return CliRunner().invoke(cli, list(args), catch_exceptions=False, env=env)


def urls(done: Result) -> set[object]:
    return {record["url"] for record in json.loads(done.stdout)}


def test_no_documentation_base_no_url(tree: Path) -> None:
    done = run("check", "models/acme", "--format", "json")
    assert done.exit_code == 0 and urls(done) == {None}
    assert "OWNER" not in done.stdout


def test_the_environment_gives_the_base(tree: Path) -> None:
    done = run("check", "models/acme", "--format", "json", docs_url=FROM_ENVIRONMENT)
    assert urls(done) == {f"{FROM_ENVIRONMENT}/rules.md#rl304"}


def test_the_configuration_overrides_the_environment(tree: Path) -> None:
    write_documents(tree, {".recipelint.toml": f'docs-url = "{CONFIGURED}"\n'})
    done = run("check", "models/acme", "--format", "json", docs_url=FROM_ENVIRONMENT)
    assert urls(done) == {"https://docs.example.org/recipelint/docs/rules.md#rl304"}
    shown = run("check", "models/acme", "--show-settings").stdout
    assert f'docs-url = "{CONFIGURED}"' in shown and ".recipelint.toml" in shown


@pytest.mark.parametrize("value", ['"docs/rules"', '"javascript:alert(1)"', "3"])
def test_a_configured_base_that_is_no_web_address_is_rl016(tree: Path, value: str) -> None:
    write_documents(tree, {".recipelint.toml": f"docs-url = {value}\n"})
    done = run("check", "models/acme")
    assert done.exit_code == 1
    assert "RL016" in done.stdout and "'docs-url' must be an http(s) URL" in done.stdout


def test_an_environment_value_that_is_no_web_address_is_not_linked(tree: Path) -> None:
    done = run("check", "models/acme", "--format", "json", docs_url="not a url")
    assert urls(done) == {None}


def test_sarif_leaves_out_its_optional_links_without_a_base(tree: Path) -> None:
    driver = json.loads(run("check", "models/acme", "--format", "sarif").stdout)["runs"][0]["tool"][
        "driver"
    ]
    assert "informationUri" not in driver
    assert not any("helpUri" in rule for rule in driver["rules"])


def test_sarif_links_the_base_from_the_environment(tree: Path) -> None:
    done = run("check", "models/acme", "--format", "sarif", docs_url=FROM_ENVIRONMENT)
    driver = json.loads(done.stdout)["runs"][0]["tool"]["driver"]
    assert driver["informationUri"] == f"{FROM_ENVIRONMENT}/rules.md"
    rule = next(rule for rule in driver["rules"] if rule["id"] == "RL304")
    assert rule["helpUri"] == f"{FROM_ENVIRONMENT}/rules.md#rl304"


def test_rules_json_links_only_with_a_base(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(DOCS_URL_VARIABLE, raising=False)
    assert urls(run("rules", "--format", "json")) == {None}
    linked = urls(run("rules", "--format", "json", docs_url=FROM_ENVIRONMENT + "/"))
    assert f"{FROM_ENVIRONMENT}/rules.md#rl201" in linked and None not in linked
