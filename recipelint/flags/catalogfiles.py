"""The layouts of the catalog files under ``rules/vllm/``, as mypy sees them.

recipelint writes these files itself (``recipelint flags extract``, ``env extract``, ``flags
hardware``, ``flags history``) and the readers in this package load them with orjson, which
gives untyped data. The TypedDicts here say what the writers put in them, so that a reader
that asks for a key the layout lacks, or uses a value as the wrong kind, fails mypy. Nothing is
checked at run time: a file is trusted to be one recipelint wrote (tests/test_flags_catalog.py
and the re-extraction tests hold the committed files to their writers).

- :class:`FlagCatalogFile`: one release's ``serve`` flags (``vllm-X.json``), each a
  :class:`FlagEntry`, with its parser's ``spelling`` behaviour (:class:`Spelling`).
- :class:`HistoryFile`: the first and last release of each flag, value and JSON key
  (``vllm-history.json``).
- :class:`EnvCatalogFile`: the environment variables of every release, by eras
  (``vllm-env.json``).
- :class:`HardwareCatalogFile`: the platforms of each attention backend, MoE backend and
  quantization method, by eras (``vllm-hardware.json``).
"""

from __future__ import annotations

from typing import Literal, NotRequired, TypedDict

from recipelint.jsvalue import JsonValue


class JsonKey(TypedDict):
    """A key of a flag's JSON config (``--compilation-config``'s ``mode``), and its own keys."""

    deprecated: NotRequired[bool]
    extra: NotRequired[Literal["forbid", "ignore"]]  # what the sub-config does with other keys
    keys: NotRequired[dict[str, JsonKey]]


class FlagEntry(TypedDict):
    """One canonical flag of one release (catalog.FlagSpec is built from it)."""

    value: Literal["yes", "no", "optional"]
    type: NotRequired[str]
    aliases: NotRequired[list[str]]
    negations: NotRequired[list[str]]
    choices: NotRequired[list[str]]
    choices_any_case: NotRequired[bool]
    values: NotRequired[list[str]]
    nargs: NotRequired[str | int]
    repeatable: NotRequired[bool]
    deprecated: NotRequired[bool | str]  # the release's own wording, when it gives one
    serve_error: NotRequired[str]
    json_keys: NotRequired[dict[str, JsonKey]]
    json_extra: NotRequired[Literal["forbid", "ignore"]]
    default: NotRequired[JsonValue]  # argparse's default (present even when it is None)


class Spelling(TypedDict, total=False):
    """How the release's parser reads a spelled option (docs/flags.md)."""

    abbreviations: bool
    config_file: bool
    dotted_json: bool
    enable_disable_pairs: bool
    list_append: bool
    omni_handoff: bool
    optimization_shorthand: bool
    serve_model_flag: str
    underscores: str


class FlagCatalogFile(TypedDict):
    format: int
    package: str
    version: str
    spelling: Spelling
    flags: dict[str, FlagEntry]


class Span(TypedDict):
    """The first and the last release that have something."""

    first: str
    last: str


class HistoryFile(TypedDict):
    format: int
    package: str
    releases: list[str]
    flags: dict[str, Span]  # by canonical flag
    values: dict[str, dict[str, Span]]  # flag -> choice or known value -> span
    json_keys: dict[str, dict[str, Span]]  # flag -> dotted key -> span


class EnvEra(Span):
    """What one variable is over a run of releases (env_catalog.EnvSpec is built from it)."""

    type: str
    source: str
    default: NotRequired[str]
    default_expr: NotRequired[str]
    choices: NotRequired[list[str]]
    case_insensitive: NotRequired[bool]
    true: NotRequired[list[str]]
    negated: NotRequired[bool]
    required: NotRequired[bool]


class EnvCatalogFile(TypedDict):
    format: int
    package: str
    releases: list[str]
    variables: dict[str, list[EnvEra]]  # name -> its eras, oldest first


class HardwareEra(Span):
    """One hardware catalog entry over a run of releases; which keys it has depends on its kind
    (``attention/``, ``moe/``, ``quantization/``, ``selector/``)."""

    platforms: NotRequired[list[str]]
    capability: NotRequired[str]  # the backend's own capability test, as written
    majors: NotRequired[list[int]]
    min: NotRequired[str]
    max: NotRequired[str]
    capabilities: NotRequired[list[str]]
    methods: NotRequired[list[str]]
    excluded: NotRequired[list[str]]
    mla: NotRequired[str]
    unsupported: NotRequired[str]
    out_of_tree: NotRequired[bool]


class HardwareCatalogFile(TypedDict):
    format: int
    package: str
    releases: list[str]
    entries: dict[str, list[HardwareEra]]  # "<kind>/<name>" -> its eras, oldest first
