"""The shapes of a recipe tree's data as mypy sees them: what the renderer and the rules may assume.

A document is read with js-yaml's semantics (``read/load.py``), so any field may hold any YAML
value, whatever the format (``schema/model.py``) says: the compiler must do with a wrong type
what upstream's JavaScript does, a TypeError included. These types therefore promise only
what is checked before a value reaches the code that reads it:

- :data:`JsonValue` (from ``jsvalue``): any value a YAML document holds, and :data:`JsValue`,
  that or ``undefined`` (what reading a missing key gives).
- :class:`Recipe`: a recipe document that is a mapping (the compiler renders nothing else;
  ``compile/publication.py`` reports the rest), as the resolver reads it: by the format's
  top-level keys (:data:`RecipeKey`), each read the JavaScript way (``recipe.get(key,
  UNDEFINED)``). mypy rejects reading a key the format does not have
  (``recipe.get("variant", UNDEFINED)``), and what a read gives is a :data:`JsValue`, so the
  code must narrow it before it uses it as a mapping, a list or a number: a ``variants``
  that is a list or a string is still possible.

``Recipe`` is a Protocol rather than a TypedDict so that a caller holding the document as
``dict[str, Any]`` (the rules, the language server) passes it as it stands; a TypedDict
would make each of them retype its own reads first.

They are not the format: the pydantic models in ``schema/model.py`` are, and say what a valid
document holds. Nothing here is checked at run time.
"""

from __future__ import annotations

from typing import Literal, Protocol

from recipelint.jsvalue import JsonValue, JsValue, Undefined

__all__ = ["JsValue", "JsonValue", "Recipe", "RecipeKey"]

# The top-level keys of a recipe (schema/model.py's Recipe); `hf_id` and
# `recommended_command` are added by the compiler to the published copy.
RecipeKey = Literal[
    "meta",
    "model",
    "dependencies",
    "features",
    "opt_in_features",
    "hardware_opt_in_features",
    "variants",
    "compatible_strategies",
    "default_strategy",
    "strategy_min_gpus",
    "strategy_hardware",
    "kv_cache_strategy_hardware",
    "kv_offload_support",
    "hardware_overrides",
    "strategy_overrides",
    "omni",
    "hardware_notes",
    "advanced_options",
    "guide",
    "hf_id",
    "recommended_command",
]


class Recipe(Protocol):
    """A recipe document that is a mapping, read one top-level key at a time."""

    def get(self, key: RecipeKey, default: Undefined, /) -> JsValue: ...
