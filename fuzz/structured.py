"""Structure-aware mutation for the atheris harness: change a file's values, not its bytes.

Byte mutations mostly break the YAML syntax, so they rarely reach the rules and the
compiler. Half of the time the harness instead parses the input, changes one value
(a type change, a hostile string, a swap, a renamed or deleted key, a copied
subtree) and dumps it back, which keeps the file loadable and exercises everything
after the loader.
"""

from __future__ import annotations

import copy
import random
from typing import Any

import yaml
from mutations import HOSTILE_STRINGS, ODD_VALUES, _get, _paths, _set

from recipelint.read.load import parse_yaml

KEYS = (
    "meta",
    "model",
    "variants",
    "default",
    "model_id",
    "extra_args",
    "extra_env",
    "base_args",
    "base_env",
    "docker_image",
    "hardware_overrides",
    "strategy_overrides",
    "compatible_strategies",
    "default_strategy",
    "features",
    "opt_in_features",
    "hardware",
    "tasks",
    "precision",
    "vram_minimum_gb",
    "deploy_type",
    "name",
    "hardware_profiles",
    "gpu_count",
    "brand",
    "generation",
)


def _mutate(data: Any, rng: random.Random) -> Any:
    paths = _paths(data)
    path = rng.choice(paths)
    action = rng.randrange(7)
    if action == 0:
        return _set(data, path, copy.deepcopy(rng.choice(ODD_VALUES)))  # never share: no cycles
    if action == 1:
        return _set(data, path, rng.choice(HOSTILE_STRINGS))
    if action == 2:
        other = rng.choice(paths)
        if other[: len(path)] == path or path[: len(other)] == other:
            return data
        first, second = _get(data, path), _get(data, other)
        return _set(_set(data, path, second), other, first)
    if action == 3:  # copy a subtree somewhere else (a later alias-free duplicate)
        return _set(data, path, yaml.safe_load(yaml.safe_dump(_get(data, rng.choice(paths)))))
    parent = _get(data, path[:-1]) if path else None
    if not isinstance(parent, dict):
        return data
    if action == 4:
        parent[rng.choice(KEYS + HOSTILE_STRINGS[:8])] = parent.pop(path[-1])
    elif action == 5:
        del parent[path[-1]]
    else:
        parent[rng.choice(KEYS)] = copy.deepcopy(rng.choice(ODD_VALUES + HOSTILE_STRINGS))
    return data


def structured_mutation(data: bytes, rng: random.Random) -> bytes | None:
    """The input with one to three values changed, or None when it does not load."""
    text = data[1:].decode("utf-8", "replace")
    doc = parse_yaml(text)
    if not doc.usable:
        return None
    value = doc.data
    for _ in range(rng.randint(1, 3)):
        value = _mutate(value, rng)
    dumped = yaml.safe_dump(value, allow_unicode=rng.random() < 0.5, sort_keys=False)
    return data[:1] + dumped.encode("utf-8", "surrogatepass")
