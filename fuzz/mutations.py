"""Hypothesis strategies that turn real recipe-tree files into hostile ones.

Byte level: flips, truncation, spliced YAML syntax, CRLF, BOM, odd unicode, tabs.
Value level: key and value swaps, type changes, hostile strings, deletions.
Shape level: huge and deep structures, anchor/alias bombs.
"""

from __future__ import annotations

import copy
import math
import os
from collections.abc import Callable
from typing import Any

import yaml
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from invariant import RECIPE_SLOT, Slot, seed_files

from recipelint.read.load import parse_yaml

Draw = Callable[[st.SearchStrategy[Any]], Any]

# RECIPELINT_FUZZ=long turns the CI-sized, fixed-seed runs into a random local soak.
PROFILE = os.environ.get("RECIPELINT_FUZZ", "ci")
LONG_FACTOR = int(os.environ.get("RECIPELINT_FUZZ_FACTOR", "1000"))
_QUIET = [
    HealthCheck.too_slow,
    HealthCheck.data_too_large,
    HealthCheck.filter_too_much,
    HealthCheck.large_base_example,
]


def fuzz_settings(ci_examples: int) -> settings:
    """Fixed seed and a small budget in CI; random and LONG_FACTOR times larger when soaking."""
    if PROFILE == "long":
        return settings(
            max_examples=ci_examples * LONG_FACTOR,
            deadline=None,
            derandomize=False,
            suppress_health_check=_QUIET,
        )
    return settings(
        max_examples=ci_examples,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=_QUIET,
    )


SEEDS: list[tuple[Slot, bytes]] = [(slot, path.read_bytes()) for slot, path in seed_files()]
RECIPE_SEEDS: list[bytes] = [data for slot, data in SEEDS if slot == RECIPE_SLOT]

# Things worth splicing into YAML text: syntax, tags, anchors, shell and terminal payloads.
TOKENS: tuple[bytes, ...] = (
    b"---\n",
    b"...\n",
    b"&a ",
    b"*a",
    b"<<: *a\n",
    b"!!str ",
    b"!!int ",
    b"!!float ",
    b"!!python/object/apply:os.system ['id']",
    b"!custom ",
    b"%YAML 1.1\n",
    b"? ",
    b": ",
    b"- ",
    b"[",
    b"]",
    b"{",
    b"}",
    b"|-\n",
    b">+\n",
    b"'",
    b'"',
    b"\\",
    b"#",
    b"\t",
    b"\r\n",
    b"\r",
    b"\xef\xbb\xbf",
    b"\x1b[31m",
    b"\x1b]8;;http://x\x07",
    b"$(id)",
    b"`id`",
    b"; rm -rf /",
    b"&& ",
    b" | ",
    b"::error file=x::",
    b"\n::add-mask::secret\n",
    b"<script>",
    b"|a|b|",
    b"../",
    b"/etc/passwd",
    b"\xe2\x80\xae",
    b"\xe2\x80\x8b",
    b"\xef\xbf\xbe",
    b"\xf0\x9f\x92\xa5",
    b"\xcc\x81" * 8,
    b"\xed\xa0\x80",
    b"\xc0\xaf",
    b"\x00",
    b".nan",
    b".inf",
    b"1e400",
    b"0x1F",
    b"2026-02-30",
    b"12345678901234567890",
    b"~",
    b"null",
    b"yes",
    b"-0",
)

HOSTILE_STRINGS: tuple[Any, ...] = (
    "$(touch /tmp/pwned)",
    "`id`",
    "a; rm -rf /",
    "a && b",
    "a | b",
    "line\nnext",
    "x\r\ny",
    "\x1b[2J\x1b[31mred",
    "\n::error file=a.yaml::forged",
    "::add-mask::x",
    "<img src=x onerror=1>",
    "| a | b |",
    "../../etc/passwd",
    "/abs/path",
    "a/../../b",
    "a\\b",
    "nul\x00byte",
    "\u202eevil",
    "\ufeffbom",
    "\u0000",
    "",
    " ",
    "-",
    "--",
    "--flag",
    "0",
    "é" * 50,
    "💥" * 10,
    "x" * 5000,
    "${HOME}",
    "$HOME",
    "it's",
    '"q"',
    "{a: 1}",
    "[1, 2]",
)
ODD_VALUES: tuple[Any, ...] = (
    None,
    True,
    False,
    0,
    -1,
    1,
    2**53 + 1,
    10**30,
    1.5,
    -0.0,
    math.nan,
    math.inf,
    -math.inf,
    [],
    {},
    [None],
    {"": None},
    [[[]]],
    {"a": {"b": {"c": None}}},
)


# ------------------------------------------------------------------ byte level


def _index(draw: Draw, data: bytes) -> int:
    return draw(st.integers(0, len(data)))


def flip(draw: Draw, data: bytes) -> bytes:
    if not data:
        return data
    at = draw(st.integers(0, len(data) - 1))
    return data[:at] + bytes([data[at] ^ (1 << draw(st.integers(0, 7)))]) + data[at + 1 :]


def truncate(draw: Draw, data: bytes) -> bytes:
    return data[: _index(draw, data)]


def splice(draw: Draw, data: bytes) -> bytes:
    at = _index(draw, data)
    return data[:at] + draw(st.sampled_from(TOKENS)) + data[at:]


def erase(draw: Draw, data: bytes) -> bytes:
    start = _index(draw, data)
    return data[:start] + data[start + draw(st.integers(1, 64)) :]


def duplicate_lines(draw: Draw, data: bytes) -> bytes:
    lines = data.splitlines(keepends=True)
    if not lines:
        return data
    start = draw(st.integers(0, len(lines) - 1))
    stop = draw(st.integers(start + 1, min(len(lines), start + 8)))
    at = draw(st.integers(0, len(lines)))
    return b"".join(lines[:at] + lines[start:stop] + lines[at:])


def swap_lines(draw: Draw, data: bytes) -> bytes:
    lines = data.splitlines(keepends=True)
    if len(lines) < 2:
        return data
    a, b = draw(st.integers(0, len(lines) - 1)), draw(st.integers(0, len(lines) - 1))
    lines[a], lines[b] = lines[b], lines[a]
    return b"".join(lines)


def crlf(draw: Draw, data: bytes) -> bytes:
    return data.replace(b"\n", draw(st.sampled_from([b"\r\n", b"\r", b"\n\r"])))


def bom(draw: Draw, data: bytes) -> bytes:
    return draw(st.sampled_from([b"\xef\xbb\xbf", b"\xff\xfe", b"\xef\xbb\xbf\xef\xbb\xbf"])) + data


def odd_unicode(draw: Draw, data: bytes) -> bytes:
    text = draw(
        st.text(st.characters(codec="utf-8", exclude_categories=()), min_size=1, max_size=8)
    )
    at = _index(draw, data)
    return data[:at] + text.encode("utf-8", "surrogatepass") + data[at:]


def tabs(draw: Draw, data: bytes) -> bytes:
    return data.replace(b"  ", b"\t", draw(st.integers(1, 4)))


BYTE_MUTATIONS = (
    flip,
    truncate,
    splice,
    erase,
    duplicate_lines,
    swap_lines,
    crlf,
    bom,
    odd_unicode,
    tabs,
)


@st.composite
def mutated_files(draw: Draw, seeds: list[tuple[Slot, bytes]] = SEEDS) -> tuple[Slot, bytes]:
    """A real tree file after one to five byte-level mutations, with the slot it belongs in."""
    slot, data = draw(st.sampled_from(seeds))
    for _ in range(draw(st.integers(1, 5))):
        data = draw(st.sampled_from(BYTE_MUTATIONS))(draw, data)
    return slot, data


# ------------------------------------------------------------------ value level


def _paths(value: Any, prefix: tuple = ()) -> list[tuple]:
    found = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            found += _paths(item, prefix + (key,))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += _paths(item, prefix + (index,))
    return found


def _get(value: Any, path: tuple) -> Any:
    for step in path:
        value = value[step]
    return value


def _set(root: Any, path: tuple, new: Any) -> Any:
    if not path:
        return new
    _get(root, path[:-1])[path[-1]] = new
    return root


def _mutate_value(draw: Draw, data: Any) -> Any:
    paths = _paths(data)
    path = draw(st.sampled_from(paths))
    action = draw(st.sampled_from(("type", "hostile", "swap", "rename", "delete", "nest")))
    if action == "type":
        return _set(
            data, path, copy.deepcopy(draw(st.sampled_from(ODD_VALUES)))
        )  # shared objects make cycles
    if action == "hostile":
        return _set(data, path, draw(st.sampled_from(HOSTILE_STRINGS)))
    if action == "swap":
        other = draw(st.sampled_from(paths))
        if other[: len(path)] == path or path[: len(other)] == other:
            return data  # one encloses the other: swapping would build a cycle
        first, second = _get(data, path), _get(data, other)
        data = _set(data, path, second)
        return _set(data, other, first)
    parent = _get(data, path[:-1]) if path else None
    if not isinstance(parent, dict):
        return data
    if action == "rename":
        parent[draw(st.sampled_from(HOSTILE_STRINGS + ("meta", "model", "variants", "name")))] = (
            parent.pop(path[-1])
        )
    elif action == "delete":
        del parent[path[-1]]
    else:
        parent[path[-1]] = {"x": [parent[path[-1]]]}
    return data


@st.composite
def mutated_values(draw: Draw, seeds: list[tuple[Slot, bytes]] = SEEDS) -> tuple[Slot, bytes]:
    """A real tree file whose values were swapped, retyped, renamed or replaced, dumped as YAML."""
    slot, raw = draw(st.sampled_from(seeds))
    data = parse_yaml(raw.decode("utf-8")).data
    for _ in range(draw(st.integers(1, 6))):
        data = _mutate_value(draw, data)
    text = yaml.safe_dump(data, allow_unicode=draw(st.booleans()), sort_keys=False)
    return slot, text.encode("utf-8", "surrogatepass")


# ------------------------------------------------------------------ shape level


@st.composite
def deep_documents(draw: Draw) -> bytes:
    """Nesting from harmless to far beyond both our limit and libyaml's, flow or block."""
    depth = draw(st.integers(1, 1500))
    if draw(st.booleans()):
        opener, closer = draw(st.sampled_from([(b"[", b"]"), (b"{a: ", b"}")]))
        return b"k: " + opener * depth + b"x" + closer * depth + b"\n"
    depth = min(depth, 400)
    return b"".join(b"  " * level + b"k:\n" for level in range(depth)) + b"  " * depth + b"v\n"


@st.composite
def alias_bombs(draw: Draw) -> bytes:
    """Anchor chains whose expansion ranges from small to astronomically large."""
    width = draw(st.integers(1, 12))
    levels = draw(st.integers(1, 14))
    lines = [b"l0: &l0 [" + b", ".join([b"x"] * width) + b"]"]
    for level in range(1, levels):
        refs = b", ".join([b"*l%d" % (level - 1)] * width)
        lines.append(b"l%d: &l%d [%s]" % (level, level, refs))
    if draw(st.booleans()):
        lines.append(b"m: &m {a: 1}\nn:\n  <<: [*m, *m]\n  b: *l0")
    return b"\n".join(lines) + b"\n"


@st.composite
def wide_documents(draw: Draw) -> bytes:
    """Many keys or items: large but within the size limit, or just over it."""
    count = draw(st.integers(1, 60_000))
    if draw(st.booleans()):
        return b"items:\n" + b"".join(b"  - %d\n" % i for i in range(count))
    return b"".join(b"k%d: v\n" % i for i in range(count))
