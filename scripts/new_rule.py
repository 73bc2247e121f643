#!/usr/bin/env python3
"""Scaffold a new rule, as ruff's add_rule.py does: its catalog entry, a check stub in
the family's rule module and a test stub in that module's test file.

    python scripts/new_rule.py RL389 gpu-count-odd RL38x

FAMILY is the catalog file's prefix (``rules/RL38x-deployment.yaml`` is RL38x). The rule
module is the one whose registered checks make most of the family's rules (the rule map,
scripts/rule_map.py); the tests go to ``tests/test_rules_<module>.py``. The stubs say
what to write next: the entry's summary, rationale and examples, the check's logic, the
test's assertions. Then follow CONTRIBUTING.md from "Run the examples" on (regenerate
docs/rules.md and docs/rule-map.md).
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter
from pathlib import Path

import yaml
from rule_map import PROJECT_ROOT, rule_homes

CODE = re.compile(r"^RL\d{3}$")
NAME = re.compile(r"^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$")
MODULE_NAMES = ("CheckContext", "Finding", "check")


class ScaffoldError(Exception):
    """The rule cannot be scaffolded as asked; the message says why."""


def catalog_file(root: Path, family: str) -> Path:
    """The family's catalog file, checked to be one file of that prefix."""
    found = sorted((root / "rules").glob(f"{family}-*.yaml"))
    if len(found) != 1:
        known = sorted(path.name.split("-")[0] for path in (root / "rules").glob("RL*.yaml"))
        raise ScaffoldError(f"no catalog file rules/{family}-*.yaml; families: {', '.join(known)}")
    return found[0]


def rule_module(root: Path, catalog: Path) -> Path:
    """The module whose registered checks make most of the rules documented in ``catalog``."""
    relative = catalog.relative_to(root).as_posix()
    votes: Counter[str] = Counter()
    for home in rule_homes(root):
        if home.catalog == relative:
            votes.update(
                place[1:].split(":")[0] for place in home.producers if place.startswith("@")
            )
    if not votes:
        raise ScaffoldError(
            f"the rules of {relative} are made outside the rule registry; add this one by hand"
        )
    module = votes.most_common(1)[0][0]
    return root.joinpath(*module.split(".")).with_suffix(".py")


def catalog_entry(code: str, name: str, indent: str) -> str:
    """The entry's text, its `- code:` at ``indent`` as the catalog file writes its rules."""
    entry = f"""- code: {code}
  name: {name}
  severity: warning
  summary: TODO one sentence saying what {code} finds.
  rationale: |
    TODO why it matters: what vLLM or the compiler does with such a recipe.
  fix: TODO how to fix it.
  autofix: false
  examples:
    failing:
      fragment: |
        model:
          context_length: 0  # TODO the smallest keys that show {code}
    passing:
      fragment: |
        model:
          context_length: 0  # TODO the same keys, fixed
"""
    return "".join(indent + line for line in entry.splitlines(keepends=True))


def _entry_indent(text: str) -> str:
    found = re.search(r"^( *)- code: ", text, re.MULTILINE)
    return found.group(1) if found else "  "


def check_stub(code: str, name: str) -> str:
    function = name.replace("-", "_")
    return f'''

@check("{code}")
def {function}(ctx: CheckContext) -> list[Finding]:
    """{code} {name}: TODO what it finds, read from ctx (see CONTRIBUTING.md)."""
    return []
'''


def test_stub(code: str, name: str, module: str, new_file: bool) -> str:
    head = (
        f'"""Tests of the rules in recipelint/rules/{module}.py."""\n\n'
        "from __future__ import annotations\n\n"
        "from pathlib import Path\n\n"
        "from treehelp import Fragment, findings_by_code\n"
        if new_file
        else ""
    )
    function = name.replace("-", "_")
    return f'''{head}

def test_{code.lower()}_{function}(tmp_path: Path) -> None:
    """{code}: TODO the case the catalog examples do not show."""
    recipe = Fragment("model: {{}}\\n")  # TODO the keys that make {code} fire
    findings = findings_by_code(tmp_path, {{"models/acme/demo.yaml": recipe}}).get("{code}", [])
    assert findings, "TODO assert the finding's place and message"
'''


def scaffold(root: Path, code: str, name: str, family: str) -> list[Path]:
    """Writes the three stubs; returns the files touched."""
    if not CODE.match(code) or not NAME.match(name):
        raise ScaffoldError("CODE is RL and three digits, NAME is lower-case words joined by -")
    catalog = catalog_file(root, family)
    if not code.startswith(family.rstrip("x")):
        raise ScaffoldError(f"{code} is not a code of family {family}")
    rules = (yaml.safe_load(catalog.read_text(encoding="utf-8")) or {}).get("rules") or []
    taken = {str(rule.get("code")) for rule in rules} | {str(rule.get("name")) for rule in rules}
    if code in taken or name in taken:
        raise ScaffoldError(f"{catalog.name} already has a rule {code} or {name}")
    module = rule_module(root, catalog)
    source = module.read_text(encoding="utf-8")
    missing = [word for word in MODULE_NAMES if not re.search(rf"\b{word}\b", source)]
    if missing:
        raise ScaffoldError(f"{module.name} does not import {', '.join(missing)}")
    test_file = root / "tests" / f"test_rules_{module.stem}.py"
    new_test = not test_file.exists()
    _append(catalog, catalog_entry(code, name, _entry_indent(catalog.read_text(encoding="utf-8"))))
    _append(module, check_stub(code, name))
    _append(test_file, test_stub(code, name, module.stem, new_test))
    return [catalog, module, test_file]


def _append(path: Path, text: str) -> None:
    current = path.read_text(encoding="utf-8") if path.exists() else ""
    if current and not current.endswith("\n"):
        current += "\n"
    path.write_text(current + text, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("code", help="the new code, e.g. RL389")
    parser.add_argument("name", help="the rule's name, e.g. gpu-count-odd")
    parser.add_argument("family", help="the catalog file's prefix, e.g. RL38x")
    parser.add_argument("--root", type=Path, default=PROJECT_ROOT, help=argparse.SUPPRESS)
    options = parser.parse_args(argv)
    try:
        touched = scaffold(options.root, options.code.upper(), options.name, options.family)
    except ScaffoldError as error:
        print(f"new_rule: {error}", file=sys.stderr)
        return 2
    for path in touched:
        print(f"wrote {path.relative_to(options.root).as_posix()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
