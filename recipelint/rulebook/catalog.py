"""The rulebook: every rule's metadata, read from the top-level rules/ folder (shipped
as recipelint._catalog).

Each ``rules/RL*.yaml`` file holds one family. The rulebook is the single source of
rule metadata (name, default severity, documentation, examples); check functions
only produce findings. (Not to be confused with the flag catalogs of vLLM releases,
:mod:`recipelint.flags.catalog`.)
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass, field
from typing import Any

import yaml

from recipelint.diagnostics import Severity
from recipelint.packagedata import RULE_CATALOG, data_folder


@dataclass(frozen=True)
class Example:
    """One file of a rule's example, as the catalog writes it.

    ``text`` is the whole document, or with ``is_fragment`` only the keys that matter,
    merged into the base document of the file's kind (:mod:`recipelint.rulebook.examples`).
    ``also`` names the other codes the example reports by design; the catalog test
    expects exactly those besides the rule's own code. ``beside`` holds the other files
    a rule about several files needs in the tree (a second recipe, a broken strategy);
    only the example's own file is judged.
    """

    path: str
    text: str
    is_fragment: bool = False
    also: tuple[str, ...] = ()
    beside: tuple[Example, ...] = ()

    @functools.cached_property
    def content(self) -> str:
        """The file written into a tree: the document, or the fragment merged into its base."""
        if not self.is_fragment:
            return self.text
        from recipelint.rulebook.examples import merged_document

        return merged_document(self.path, self.text)


@dataclass(frozen=True)
class RuleInfo:
    code: str
    name: str
    severity: Severity
    summary: str
    rationale: str = ""
    fix: str = ""
    autofix: bool = False
    family: str = ""
    family_title: str = ""
    failing: tuple[Example, ...] = ()
    passing: tuple[Example, ...] = ()
    # Why the rule has no failing example, when no file of a small tree can show it.
    no_example: str = ""
    extra: dict[str, Any] = field(default_factory=dict, hash=False, compare=False)


# The recipe path whose hf id is the base recipe's model_id (rules/base-recipe.yaml).
DEFAULT_EXAMPLE_PATH = "models/acme/demo.yaml"

# The package metadata's links (pyproject.toml's [project.urls]; tests/test_cli_output.py
# keeps the two equal). `OWNER/recipelint` is the placeholder for the repository that
# publishes recipelint: reports never link there (see docs_url).
PROJECT_URL = "https://github.com/OWNER/recipelint"
DOCS_URL = f"{PROJECT_URL}/blob/main/docs"

# The documentation base when the configuration gives none (its `docs-url`): the GitHub
# Action sets it to the docs of the recipelint it runs.
DOCS_URL_VARIABLE = "RECIPELINT_DOCS_URL"


def is_docs_url(text: str) -> bool:
    """An absolute http(s) URL without white space: what a report may link to."""
    from urllib.parse import urlsplit

    if not text.isprintable() or " " in text:
        return False
    try:
        parts = urlsplit(text)
    except ValueError:  # an unbalanced IPv6 bracket
        return False
    return parts.scheme in ("http", "https") and bool(parts.netloc)


def docs_url(configured: str | None = None) -> str | None:
    """The documentation base, the folder holding rules.md: the configured one, else
    RECIPELINT_DOCS_URL when it is an http(s) URL, else None: without a real home a
    report carries no link rather than a dead one."""
    if configured:
        return configured.rstrip("/")
    given = os.environ.get(DOCS_URL_VARIABLE, "").strip()
    return given.rstrip("/") if is_docs_url(given) else None


def rules_page_url(configured: str | None = None) -> str | None:
    """The rules page under the documentation base (docs_url), or None."""
    base = docs_url(configured)
    return f"{base}/rules.md" if base else None


def rule_url(code: str, configured: str | None = None) -> str | None:
    """The rule's entry in the rules page (anchors are lower-case codes), or None."""
    page = rules_page_url(configured)
    return f"{page}#{code.lower()}" if page else None


def _examples(raw: Any) -> tuple[Example, ...]:
    if raw is None:
        return ()
    items = raw if isinstance(raw, list) else [raw]
    return tuple(_example(item) for item in items)


def _example(item: dict[str, Any]) -> Example:
    if ("fragment" in item) == ("content" in item):
        raise ValueError(f"an example gives `content` or `fragment`, exactly one: {item}")
    beside = tuple(_example(other) for other in item.get("beside") or ())
    if any("path" not in other for other in item.get("beside") or ()):
        raise ValueError(f"a file beside an example names its path: {item}")
    return Example(
        path=str(item.get("path") or DEFAULT_EXAMPLE_PATH),
        text=str(item["fragment"] if "fragment" in item else item["content"]),
        is_fragment="fragment" in item,
        also=tuple(str(code) for code in item.get("also") or ()),
        beside=beside,
    )


def _rule(entry: dict[str, Any], family: str, title: str) -> RuleInfo:
    examples = entry.get("examples") or {}
    known = {
        "code",
        "name",
        "severity",
        "summary",
        "rationale",
        "fix",
        "autofix",
        "examples",
        "no_example",
    }
    return RuleInfo(
        code=str(entry["code"]),
        name=str(entry["name"]),
        severity=Severity.parse(str(entry.get("severity", "error"))),
        summary=str(entry.get("summary", "")).strip(),
        rationale=str(entry.get("rationale", "")).strip(),
        fix=str(entry.get("fix", "")).strip(),
        autofix=bool(entry.get("autofix", False)),
        family=family,
        family_title=title,
        failing=_examples(examples.get("failing")),
        passing=_examples(examples.get("passing")),
        no_example=" ".join(str(entry.get("no_example", "")).split()),
        extra={k: v for k, v in entry.items() if k not in known},
    )


def catalog_files() -> list[tuple[str, str]]:
    """(name, text) of every family file, in name order."""
    root = data_folder(RULE_CATALOG)
    files = [
        item
        for item in root.iterdir()
        if item.name.startswith("RL") and item.name.endswith(".yaml")
    ]
    return [
        (item.name, item.read_text(encoding="utf-8"))
        for item in sorted(files, key=lambda i: i.name)
    ]


@functools.cache
def load_rulebook() -> dict[str, RuleInfo]:
    """Every rule by code; parsed once per catalog text and kept in the user's cache, which
    a one-file check would otherwise spend a good part of its time on."""
    from recipelint.checkcache import kept_value

    files = catalog_files()
    kept = kept_value(b"rule-catalog", repr(files).encode(), lambda: _parsed_catalog(files))
    return kept if isinstance(kept, dict) else _parsed_catalog(files)


def _parsed_catalog(files: list[tuple[str, str]]) -> dict[str, RuleInfo]:
    """The catalog is our own trusted data, so a plain YAML load is fine."""
    rules: dict[str, RuleInfo] = {}
    for name, text in files:
        data = yaml.load(text, Loader=yaml.CSafeLoader) or {}
        family, title = str(data.get("family", name)), str(data.get("title", ""))
        for entry in data.get("rules") or []:
            info = _rule(entry, family, title)
            if info.code in rules:
                raise ValueError(f"rule {info.code} is defined twice in the catalog ({name})")
            rules[info.code] = info
    return rules


def rule_info(code: str) -> RuleInfo | None:
    return load_rulebook().get(code.upper())


def find_rule(code_or_name: str) -> RuleInfo | None:
    wanted = code_or_name.strip()
    info = rule_info(wanted)
    if info:
        return info
    return next((r for r in load_rulebook().values() if r.name == wanted.lower()), None)
