"""scripts/rule_map.py and scripts/new_rule.py: every rule findable, and a new rule
scaffolded into exactly the files the map names for it."""

from __future__ import annotations

import hashlib
import re
import shutil
import sys
from pathlib import Path

import pytest
import yaml

PROJECT_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT_ROOT / "scripts"))

import new_rule  # noqa: E402
import rule_map  # noqa: E402


def test_the_rule_map_page_is_current() -> None:
    assert rule_map.main(["--check"]) == 0, "run `python scripts/rule_map.py`"


def test_every_catalog_rule_is_made_by_some_function() -> None:
    homes = rule_map.rule_homes(PROJECT_ROOT)
    assert homes, "the catalog is empty"
    assert [home.code for home in homes if not home.producers] == []


def test_every_rule_a_rule_module_registers_is_tested_in_that_module_s_test_file() -> None:
    """A code registered with @check in recipelint/rules/<module>.py is named in
    tests/test_rules_<module>.py (outside its docstring): one rule's tests in one place."""
    homes = [home for home in rule_map.rule_homes(PROJECT_ROOT) if home.home_test]
    assert len(homes) > 80, "the rule modules' registered codes were not found"
    missing = [
        home.home_test for home in homes if not (PROJECT_ROOT / str(home.home_test)).is_file()
    ]
    assert missing == []
    assert [(home.code, home.home_test) for home in homes if not home.tested_at_home] == []


def _write(root: Path, files: dict[str, str]) -> None:
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def test_codes_are_followed_through_names_registrations_and_returns(tmp_path: Path) -> None:
    catalog = "rules:\n" + "".join(
        f"  - code: RL90{digit}\n    name: rule-{digit}\n" for digit in range(5)
    )
    _write(
        tmp_path,
        {
            "rules/RL90x-demo.yaml": catalog,
            "recipelint/rules/made.py": (
                'FIRST, SECOND = "RL900", "RL901"\n'
                "CODES = (FIRST, SECOND)\n"
                "def shared(ctx): return []\n"
            ),
            "recipelint/rules/registering.py": (
                "from recipelint.rules.made import CODES, shared\n"
                "check(*CODES)(shared)\n"
                '@check("RL902")\n'
                "def own(ctx):\n"
                '    return [Finding(code="RL902")]\n'
            ),
            "recipelint/schema.py": (
                'PICKED = "RL903"\n'
                "def pick(error):\n"
                "    return PICKED\n"
                "def ask(config):\n"
                '    return config.is_enabled("RL904")\n'
            ),
            "tests/test_made.py": "# RL900 and RL903\n",
        },
    )
    homes = {home.code: home for home in rule_map.rule_homes(tmp_path)}
    registered = {"@recipelint.rules.made:shared"}
    assert homes["RL900"].producers == registered == homes["RL901"].producers
    assert homes["RL902"].producers == {"@recipelint.rules.registering:own"}
    assert homes["RL903"].producers == {"recipelint.schema:pick"}
    assert homes["RL904"].producers == set()  # asking whether a rule is on makes no finding
    assert homes["RL900"].tests == {"tests/test_made.py"} == homes["RL903"].tests
    assert homes["RL900"].catalog == "rules/RL90x-demo.yaml"


def test_the_home_test_file_is_named_after_the_registering_module(tmp_path: Path) -> None:
    catalog = "rules:\n" + "".join(
        f"  - code: RL91{digit}\n    name: rule-{digit}\n" for digit in range(4)
    )
    _write(
        tmp_path,
        {
            "rules/RL91x-demo.yaml": catalog,
            "recipelint/rules/shared.py": 'CODES = ("RL910", "RL911")\ndef both(ctx): return []\n',
            "recipelint/rules/family.py": (
                "from recipelint.rules.shared import CODES, both\n"
                "check(*CODES)(both)\n"
                '@check("RL912")\n'
                "def own(ctx): return []\n"
            ),
            "recipelint/schema.py": 'def pick(error):\n    return "RL913"\n',
            "tests/test_rules_shared.py": '"""RL910 and RL911."""\n\ndef test_it():\n    "RL910"\n',
            "tests/test_rules_family.py": '"""RL912, named in the docstring alone."""\n',
            "tests/test_other.py": "# RL911 RL912\n",
        },
    )
    homes = {home.code: home for home in rule_map.rule_homes(tmp_path)}
    # A function registered elsewhere is at home where it is defined.
    assert homes["RL910"].home_test == "tests/test_rules_shared.py" == homes["RL911"].home_test
    assert homes["RL912"].home_test == "tests/test_rules_family.py"
    assert homes["RL913"].home_test is None  # made outside the rule registry
    assert [code for code, home in sorted(homes.items()) if home.tested_at_home] == ["RL910"]
    assert homes["RL911"].tests == {"tests/test_other.py"}  # a docstring tests nothing
    rows = {
        line.split(" | ")[0]: line for line in rule_map.render(list(homes.values())).split("\n")
    }
    assert rows["| RL910"].endswith("| **`tests/test_rules_shared.py`** |")
    assert rows["| RL911"].endswith(
        "| *home: none* (`tests/test_rules_shared.py`)<br>`tests/test_other.py` |"
    )
    assert rows["| RL913"].endswith("| — |")


def _digests(root: Path) -> dict[str, str]:
    return {
        path.relative_to(root).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


@pytest.fixture
def project_copy(tmp_path: Path) -> Path:
    for folder in ("rules", "recipelint", "tests"):
        shutil.copytree(
            PROJECT_ROOT / folder,
            tmp_path / folder,
            ignore=shutil.ignore_patterns("__pycache__", "*.pyc"),
        )
    return tmp_path


def _free_code(root: Path, family: str) -> str:
    text = new_rule.catalog_file(root, family).read_text(encoding="utf-8")
    taken = set(re.findall(r"code: (RL\d{3})", text))
    prefix = family.rstrip("x")
    return next(
        code
        for code in (f"{prefix}{n}" for n in range(10 ** (5 - len(prefix))))
        if code not in taken
    )


def test_a_scaffolded_rule_touches_the_files_the_map_names_and_nothing_else(
    project_copy: Path,
) -> None:
    code = _free_code(project_copy, "RL38x")
    before = _digests(project_copy)
    assert new_rule.main([code, "scaffold-demo", "RL38x", "--root", str(project_copy)]) == 0
    after = _digests(project_copy)
    touched = {path for path in after if before.get(path) != after[path]}
    [home] = [home for home in rule_map.rule_homes(project_copy) if home.code == code]
    named = {home.catalog, *home.tests}
    named |= {place.lstrip("@").split(":")[0].replace(".", "/") + ".py" for place in home.producers}
    assert touched == named
    assert home.producers == {"@recipelint.rules.deployment:scaffold_demo"}
    assert home.tests == {"tests/test_rules_deployment.py"}
    entries = yaml.safe_load((project_copy / home.catalog).read_text(encoding="utf-8"))["rules"]
    assert entries[-1]["code"] == code and entries[-1]["examples"]["failing"]["fragment"]


def test_the_scaffold_refuses_a_taken_code_or_an_unknown_family(
    project_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = ["--root", str(project_copy)]
    assert new_rule.main(["RL380", "anything-new", "RL38x", *root]) == 2
    assert "already has a rule RL380" in capsys.readouterr().err
    assert new_rule.main(["RL999", "anything-new", "RL99x", *root]) == 2
    assert "no catalog file rules/RL99x-*.yaml" in capsys.readouterr().err
