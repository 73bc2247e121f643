"""JavaScript value semantics the upstream compiler relies on, and its JSON writer.

The recipe data arrives as plain Python values (dict/list/str/bool/None/int/float).
The upstream compiler is JavaScript, so wherever it branches on truthiness, formats
a value with ``String()`` or serialises with ``JSON.stringify(v, null, 2)`` we must
reproduce the JS result, not Python's: ``{}`` and ``[]`` are truthy, ``1.0`` prints
as ``1``, ``NaN`` serialises as ``null``, integer-like object keys come first
(docs/upstream-behaviour.md#js-values; the writer: #json-output).

:data:`JsonValue` is the type of such data as mypy sees it: whatever a YAML document may
hold, with nothing assumed about its shape; :data:`JsValue` adds ``undefined``, what reading
a missing key (:func:`get`) gives. The helpers take ``object``: they answer for any value.
:data:`JsOut` and :data:`JsonDocument` type what the compiler builds from them and writes.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final, TypeAlias, TypeGuard, TypeVar, cast

import orjson  # serialises ~50x faster than json's pure-Python indent path

if TYPE_CHECKING:
    from typing_extensions import TypeIs


class _Undefined:
    """JavaScript ``undefined``: distinct from ``null`` (None) where upstream tests ``!== undefined``."""

    _instance: _Undefined | None = None

    def __new__(cls) -> _Undefined:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __bool__(self) -> bool:
        return False

    def __repr__(self) -> str:
        return "undefined"


UNDEFINED: Final = _Undefined()
Undefined: TypeAlias = _Undefined  # the type of UNDEFINED, for annotations

# A value read from a YAML document (js-yaml's values: YAML 1.2 core types, mappings with
# string keys). Recipe data may hold any of them anywhere, whatever the format says.
JsonValue: TypeAlias = "None | bool | int | float | str | list[JsonValue] | dict[str, JsonValue]"
# A value read from such data the JavaScript way: a missing key reads as undefined.
JsValue: TypeAlias = "JsonValue | Undefined"
# What the compiler writes: its own mappings and lists around such values (undefined among them:
# JSON.stringify leaves it out of an object and writes null for it in an array). Read-only
# containers, so that a part built as dict[str, JsValue] or list[str] fits where it is nested.
JsOut: TypeAlias = "JsValue | Sequence[JsOut] | Mapping[str, JsOut]"
# A JSON document the compiler builds (a rendering, a recipe's JSON, models.json's entries).
JsonDocument: TypeAlias = "dict[str, JsOut]"
_T = TypeVar("_T")
MAX_SAFE_INTEGER: Final = 2**53

# What Python raises where JavaScript, reading data of a shape the code did not expect, throws
# a TypeError (`x.startsWith is not a function`, `Cannot read properties of undefined`) or, on
# data nested too deep, a RangeError. Upstream's try/catch around command synthesis turns one
# into a dropped rendering (resolve/plan.py); one outside it stops the build, which recipelint
# reports as an unrenderable recipe (publication.py). docs/upstream-behaviour.md#error-handling
JS_TYPE_ERRORS: Final = (
    TypeError,
    AttributeError,
    ValueError,
    KeyError,
    IndexError,
    ArithmeticError,
    RecursionError,
)


def truthy(value: object) -> bool:
    """JS ToBoolean: only undefined, null, false, 0, -0, NaN and "" are falsy."""
    if value is None or value is False or value is UNDEFINED:
        return False
    kind = type(value)
    if kind is str or kind is int or kind is bool:
        return bool(value)  # "" and 0 are falsy in both languages
    if kind is float:
        return bool(value) and not math.isnan(cast(float, value))
    return True


def js_or(*values: _T) -> _T:
    """``a || b || c``: the first truthy operand, else the last one."""
    for value in values:  # (the last one is returned either way)
        # truthy(), inlined: the renderer evaluates tens of thousands of these
        if value is None or value is False or value is UNDEFINED:
            continue
        kind = type(value)
        if kind is float:
            if value and value == value:  # NaN is falsy
                return value
        elif kind is str or kind is int or kind is bool:
            if value:
                return value
        else:
            return value
    return values[-1]


def nullish(value: object) -> TypeIs[None | Undefined]:
    return value is None or value is UNDEFINED


def coalesce(*values: _T) -> _T:
    """``a ?? b ?? c``: the first operand that is neither null nor undefined."""
    for value in values[:-1]:
        if not nullish(value):
            return value
    return values[-1]


def is_number(value: object) -> TypeGuard[int | float]:
    """``typeof v === "number"`` (booleans are not numbers in JS)."""
    kind = type(value)
    return kind is int or kind is float


def is_object(value: object) -> TypeGuard[dict[str, JsonValue] | list[JsonValue]]:
    """``v && typeof v === "object"`` for parsed YAML: a mapping or a sequence."""
    return isinstance(value, (dict, list))


def get(obj: object, key: str) -> JsValue:
    """``obj?.[key]`` on parsed data: UNDEFINED when obj is not a mapping or lacks the key."""
    if type(obj) is dict:
        return obj.get(key, UNDEFINED)  # type: ignore[no-any-return]  # a parsed mapping's value
    return UNDEFINED


def js_in(key: str, obj: object) -> bool:
    """``key in obj`` for a parsed mapping (a list answers for its indices)."""
    if isinstance(obj, dict):
        return key in obj
    if isinstance(obj, list):
        return _is_array_index(key) and int(key) < len(obj)
    raise TypeError(f"cannot use 'in' to search for '{key}' in {js_string(obj)}")


_SHORTEST = re.compile(r"^(\d+)(?:\.(\d+))?(?:e([+-]?\d+))?$")


def js_number_string(value: int | float) -> str:
    """ECMAScript Number::toString(10) for a finite or non-finite double."""
    if type(value) is int:
        value = _integer_as_double(value)
        if type(value) is int:
            return str(value)
    if value != value:
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0:
        return "0"
    sign = "-" if value < 0 else ""
    match = _SHORTEST.match(repr(abs(value)))
    assert match is not None, repr(value)
    whole, frac, exp = match.group(1), match.group(2) or "", int(match.group(3) or 0)
    digits = (whole + frac).lstrip("0")
    point = len(whole) + exp - (len(whole + frac) - len((whole + frac).lstrip("0")))
    digits = digits.rstrip("0")
    return sign + _format_decimal(digits, point)


def _format_decimal(digits: str, n: int) -> str:
    """Lay out the digits s with value 0.s x 10^n as ECMAScript prescribes."""
    k = len(digits)
    if k <= n <= 21:
        return digits + "0" * (n - k)
    if 0 < n <= 21:
        return digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return "0." + "0" * (-n) + digits
    e = n - 1
    exponent = ("+" if e >= 0 else "-") + str(abs(e))
    if k == 1:
        return digits + "e" + exponent
    return digits[0] + "." + digits[1:] + "e" + exponent


def js_string(value: object) -> str:
    """``String(value)`` / template-literal interpolation."""
    kind = type(value)
    if kind is str:
        return cast(str, value)
    if kind is int and -MAX_SAFE_INTEGER < cast(int, value) < MAX_SAFE_INTEGER:
        return str(value)  # the renderer's GPU and node counts: exact as a double, printed alike
    if isinstance(value, str):
        return value
    if value is None:
        return "null"
    if value is UNDEFINED:
        return "undefined"
    if kind is bool:
        return "true" if value else "false"
    if kind is int or kind is float:
        return js_number_string(cast("int | float", value))
    if kind is list:
        items = cast("list[object]", value)
        return ",".join("" if nullish(item) else js_string(item) for item in items)
    return "[object Object]"


def js_number(value: object) -> float | int:
    """``Number(value)`` for the value kinds YAML produces."""
    if value is None:
        return 0
    if value is UNDEFINED:
        return math.nan
    if type(value) is bool:
        return int(value)
    if isinstance(value, (int, float)):
        return value
    if isinstance(value, str):
        return _string_to_number(value)
    if type(value) is list:  # through its String(): [] is 0, [" 7 "] is 7, [null] is 0
        return _string_to_number(js_string(value))
    return math.nan


# WhiteSpace and LineTerminator: what Number() and String.prototype.trim() strip.
JS_WHITESPACE: Final = (
    " \t\n\r\x0b\x0c\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008"
    "\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)
# ASCII digits only: Python's \d and float() also accept other scripts' digits, JS does not.
_DECIMAL_LITERAL = re.compile(r"[+-]?(?:Infinity|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)")
_RADIX_LITERAL = re.compile(r"0(?:[xX][0-9a-fA-F]+|[oO][0-7]+|[bB][01]+)")
_RADIX = {"x": 16, "o": 8, "b": 2}


def _string_to_number(value: str) -> float | int:
    """StringToNumber: a decimal or unsigned 0x/0o/0b literal inside JS whitespace; "" is 0."""
    text = value.strip(JS_WHITESPACE)
    if not text:
        return 0
    if _DECIMAL_LITERAL.fullmatch(text):
        return _integral(float(text))
    if _RADIX_LITERAL.fullmatch(text):
        return _integer_as_double(int(text[2:], _RADIX[text[1].lower()]))
    return math.nan


def _integer_as_double(number: int) -> float | int:
    """An exact integer rounded to the double JS holds for it (an int while that is exact)."""
    if -MAX_SAFE_INTEGER < number < MAX_SAFE_INTEGER:
        return number
    try:
        return float(number)
    except OverflowError:
        return math.inf if number > 0 else -math.inf


def _integral(value: float) -> float | int:
    if math.isfinite(value) and value.is_integer() and -MAX_SAFE_INTEGER < value < MAX_SAFE_INTEGER:
        return int(value)
    return value


def normalize_number(value: float | int) -> float | int:
    """Collapse a computed double to an int whenever JS would print it without a point."""
    if type(value) is float:
        return _integral(value)
    return value


def js_floor(value: float | int) -> float | int:
    if type(value) is int:
        return value
    if value != value or math.isinf(value):
        return value
    return math.floor(value)


def js_ceil(value: float | int) -> float | int:
    if type(value) is int:
        return value
    if value != value or math.isinf(value):
        return value
    return math.ceil(value)


def js_max(*values: float | int) -> float | int:
    """``Math.max``: NaN wins, unlike Python's ``max``, and +0 is larger than -0."""
    result: float | int = -math.inf
    for value in values:
        if value != value:
            return math.nan
        if value > result or (value == result == 0 and math.copysign(1.0, value) > 0):
            result = value
    return result


def js_divide(a: float | int, b: float | int) -> float | int:
    if b == 0:
        if a == 0 or a != a:
            return math.nan
        return math.inf if (a > 0) == (math.copysign(1, b) > 0) else -math.inf
    return normalize_number(a / b)


# Upstream compares and multiplies values straight from the YAML (`vram_minimum_gb || 0`,
# `default_instances > 1`): a quoted number or a list is coerced there, never refused.


def js_less_than(a: object, b: object) -> bool | None:
    """``a < b`` before its undefined becomes false: IsLessThan on YAML values, None when a
    side is NaN. Two strings (a list or a mapping is its String() here) compare by UTF-16 code
    units; anything else compares as numbers."""
    if type(a) in _NUMBERS and type(b) in _NUMBERS:  # the usual case: two numbers
        x, y = _double(a), _double(b)  # type: ignore[arg-type]
        return None if x != x or y != y else x < y
    left, right = _primitive(a), _primitive(b)
    if isinstance(left, str) and isinstance(right, str):
        return _code_units(left) < _code_units(right)
    x, y = _double(js_number(left)), _double(js_number(right))
    return None if x != x or y != y else x < y


def js_lt(a: object, b: object) -> bool:
    """``a < b``."""
    return js_less_than(a, b) is True


def js_gt(a: object, b: object) -> bool:
    """``a > b``."""
    return js_less_than(b, a) is True


def js_le(a: object, b: object) -> bool:
    """``a <= b``: not ``b < a``, and false where that is undefined."""
    return js_less_than(b, a) is False


def js_ge(a: object, b: object) -> bool:
    """``a >= b``."""
    return js_less_than(a, b) is False


def js_times(a: object, b: object) -> float | int:
    """``a * b`` of any two values (each through Number())."""
    return _integral(float(_double(js_number(a))) * float(_double(js_number(b))))


_NUMBERS: Final = (int, float)


def _double(number: float | int) -> float | int:
    """The number as JS holds it: an integer past 2**53 rounds to a double."""
    if type(number) is float or -MAX_SAFE_INTEGER < number < MAX_SAFE_INTEGER:
        return number
    return _integer_as_double(int(number))


def _primitive(value: object) -> object:
    """ToPrimitive with the number hint: a list or a mapping becomes its String()."""
    return js_string(value) if type(value) in (list, dict) else value


def _code_units(text: str) -> bytes:
    """A string's UTF-16 code units, big-endian: their byte order is JS's string order."""
    return text.encode("utf-16-be", "surrogatepass")


# ---------------------------------------------------------------- JSON writer


def _is_array_index(key: str) -> bool:
    """Canonical array index keys ("0".."4294967294", no leading zeros) sort first in JS objects."""
    if not key or not key.isascii() or not key.isdigit():
        return False
    if len(key) > 1 and key[0] == "0":
        return False
    return int(key) < 4294967295


def has_js_specials(value: object) -> bool:
    """Whether ``value`` holds anything orjson would print differently from JSON.stringify.

    That is: any float, an integer outside the exactly-representable range, or an
    object whose keys include array indices (JS lists those first).
    """
    stack: list[Any] = [value]  # (each item is told apart by its type() below)
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is dict:
            for key in item:
                if key[:1].isdigit() and _is_array_index(key):
                    return True
            stack.extend(item.values())
        elif kind is list:
            stack.extend(item)
        elif kind is float or kind is int and not -MAX_SAFE_INTEGER < item < MAX_SAFE_INTEGER:
            return True
    return False


def js_key_order(keys: list[str]) -> list[str]:
    """The order JS objects enumerate keys in: array indices ascending, then insertion order."""
    indexed = [k for k in keys if _is_array_index(k)]
    if not indexed:
        return keys
    return sorted(indexed, key=int) + [k for k in keys if not _is_array_index(k)]


def js_ordered(value: Any) -> Any:
    """A copy of parsed data whose mappings enumerate their keys as JS objects would.

    Upstream iterates objects (variants, features, hardware profiles...) in that order,
    so data with index-like keys must be reordered before it is compiled.
    """
    kind = type(value)
    if kind is dict:
        return {k: js_ordered(value[k]) for k in js_key_order(list(value))}
    if kind is list:
        return [js_ordered(item) for item in value]
    return value


def to_json_value(value: Any, raw: type | None = None) -> Any:
    """A copy of ``value`` that orjson serialises exactly as JSON.stringify would.

    Only needed for documents where :func:`has_js_specials` is true; every other
    document is serialised as it stands. ``raw`` wraps preformatted numbers.
    """
    kind = type(value)
    if kind is dict:
        keys = list(value)
        if any(_is_array_index(k) for k in keys):
            indexed = sorted((k for k in keys if _is_array_index(k)), key=int)
            keys = indexed + [k for k in keys if not _is_array_index(k)]
        return {k: to_json_value(value[k], raw) for k in keys if value[k] is not UNDEFINED}
    if kind is list:
        return [None if item is UNDEFINED else to_json_value(item, raw) for item in value]
    if kind is float or (kind is int and not -MAX_SAFE_INTEGER < value < MAX_SAFE_INTEGER):
        return json_number(value, raw)
    return value


class RawNumber:
    """A preformatted JSON number literal, for the stdlib writer (lone surrogates)."""

    __slots__ = ("contents",)

    def __init__(self, contents: str) -> None:
        self.contents = contents


def json_number(value: float | int, raw: type | None = None) -> Any:
    """The JSON form of a JS number: an int, None for non-finite, or a raw literal."""
    if type(value) is int and -MAX_SAFE_INTEGER < value < MAX_SAFE_INTEGER:
        return value
    text = js_number_string(value)
    if text in ("NaN", "Infinity", "-Infinity"):
        return None
    if re.fullmatch(r"-?\d+", text) and abs(int(text)) < MAX_SAFE_INTEGER:
        return int(text)
    if raw is None:
        raw = orjson.Fragment
    return raw(text.encode() if raw is not RawNumber else text)


_SURROGATE = re.compile(r"[\ud800-\udfff]")


def dumps(value: Any, *, special: bool = False) -> bytes:
    """``JSON.stringify(value, null, 2)`` as UTF-8 bytes, no trailing newline (docs/upstream-behaviour.md#json-output).

    ``special`` says the document may hold floats, huge integers or index-like keys
    (see :func:`has_js_specials`); it is then rewritten first.
    """
    try:
        return orjson.dumps(to_json_value(value) if special else value, option=orjson.OPT_INDENT_2)
    except TypeError:
        pass  # lone surrogates (legal in JS strings, not in UTF-8): take the exact slow path
    return _dumps_python(to_json_value(value, RawNumber))


def _dumps_python(value: Any) -> bytes:
    """Stdlib encoder; raw numbers and lone surrogates are patched into the text."""
    text = json.dumps(value, indent=2, ensure_ascii=False, default=_raw_marker)
    text = _RAW_MARK.sub(lambda m: m.group(1), text)
    text = _SURROGATE.sub(lambda m: f"\\u{ord(m.group(0)):04x}", text)
    return text.encode("utf-8")


_RAW_MARK = re.compile('"\ue000NUM:([^"]*)\ue000"')


def _raw_marker(obj: Any) -> str:
    if isinstance(obj, RawNumber):
        return "\ue000NUM:" + obj.contents + "\ue000"
    raise TypeError(f"Object of type {type(obj).__name__} is not JSON serializable")
