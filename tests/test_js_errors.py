"""JavaScript's TypeError and RangeError, as recipelint catches them (docs/upstream-behaviour.md#error-handling).

Upstream wraps command synthesis in a try/catch: whatever it throws drops that one rendering;
a throw anywhere else stops the build, which recipelint reports as an unrenderable recipe.
Both catch the one list of Python exceptions that stand for those throws (jsvalue.JS_TYPE_ERRORS).
"""

from __future__ import annotations

from typing import Any

import pytest
from test_resolve import CATALOG, recipe

from recipelint.jsvalue import JS_TYPE_ERRORS
from recipelint.resolve.command import Combination, render_command
from recipelint.resolve.formatting import RenderError
from recipelint.resolve.plan import SYNTHESIS_ERRORS, Problems, build_variant_rendering


def _nested(depth: int) -> Any:
    value: Any = "x"
    for _ in range(depth):
        value = [value]
    return value


def test_synthesis_catches_the_javascript_errors_and_its_own() -> None:
    assert set(SYNTHESIS_ERRORS) == {RenderError, *JS_TYPE_ERRORS}


def test_a_rendering_that_recurses_too_deep_is_dropped_like_any_failed_synthesis() -> None:
    # upstream: a non-string token makes formatCommand throw inside the try/catch
    r = recipe(model={"model_id": "org/model", "base_args": ["--a", _nested(5000)]})
    combo = Combination("default", "single_node_tp", "h200")
    with pytest.raises(RecursionError):  # Python's stack ends sooner than V8's: the path under test
        render_command(CATALOG, r, combo)
    problems = Problems()
    assert build_variant_rendering(CATALOG, r, "default", "h200", problems) is None
    assert [failed[:3] for failed in problems.failed] == [("default", "single_node_tp", "h200")]
