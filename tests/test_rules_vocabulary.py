"""RL221 (listed strategy without a file) and RL222 (a toggle that adds nothing)."""

from __future__ import annotations

from pathlib import Path

from treehelp import CONTEXT, Fragment, base_recipe, check_tree, checked, findings_by_code

from recipelint.diagnostics import Severity

RECIPE = "models/acme/demo.yaml"
LAST_LISTED = "  - pd_cluster\n"


def _taxonomy_listing(*extra: str) -> str:
    text = (CONTEXT / "taxonomy.yaml").read_text(encoding="utf-8")
    assert LAST_LISTED in text
    return text.replace(LAST_LISTED, LAST_LISTED + "".join(f"  - {name}\n" for name in extra))


def _rl221(tmp_path: Path, *extra: str) -> list[tuple[str, str | None]]:
    found = findings_by_code(tmp_path, {"taxonomy.yaml": _taxonomy_listing(*extra)})
    return [(d.message, d.hint) for d in found.get("RL221", [])]


def test_the_embedded_vocabulary_names_only_existing_strategies(tmp_path: Path) -> None:
    assert _rl221(tmp_path) == []


def test_a_listed_id_without_a_file_is_reported_at_the_item(tmp_path: Path) -> None:
    found = findings_by_code(tmp_path, {"taxonomy.yaml": _taxonomy_listing("multi_node_tpp")})
    (diag,) = found["RL221"]
    assert diag.severity is Severity.WARNING
    assert diag.pointer[0] == "strategies"
    assert diag.message == (
        "taxonomy.yaml lists strategy `multi_node_tpp`, but no file in strategies/ defines it: "
        "the builder offers a strategy nothing can render"
    )
    assert diag.hint == "did you mean `multi_node_tp`?"


def test_a_kv_store_id_is_not_a_serving_strategy(tmp_path: Path) -> None:
    ((_, hint),) = _rl221(tmp_path, "kv_store_centralized_mooncake")
    assert hint is not None and "kv_store deployment" in hint


def test_an_id_like_no_file_asks_for_one(tmp_path: Path) -> None:
    assert _rl221(tmp_path, "expert_swarm") == [
        (
            "taxonomy.yaml lists strategy `expert_swarm`, but no file in strategies/ defines it: "
            "the builder offers a strategy nothing can render",
            "add strategies/expert_swarm.yaml, or remove `expert_swarm` from the list",
        )
    ]


def test_a_check_of_one_recipe_leaves_the_taxonomy_alone(tmp_path: Path) -> None:
    documents = {"taxonomy.yaml": _taxonomy_listing("expert_swarm"), RECIPE: base_recipe()}
    recipe = tmp_path / RECIPE
    found = checked(tmp_path, documents, focus=lambda path: path == recipe)
    assert [d for d in found if d.code == "RL221"] == []


def test_a_tree_without_a_taxonomy_has_no_vocabulary_to_judge(tmp_path: Path) -> None:
    findings_by_code(tmp_path, {RECIPE: base_recipe()})
    (tmp_path / "taxonomy.yaml").unlink()
    found = check_tree(tmp_path)
    assert [d.code for d in found if d.code in {"RL221", "RL001"}] == []


def test_a_vocabulary_that_is_no_list_is_left_to_the_schema(tmp_path: Path) -> None:
    text = _taxonomy_listing()
    start = text.index("strategies:\n")
    end = text.index(LAST_LISTED) + len(LAST_LISTED)
    found = findings_by_code(
        tmp_path, {"taxonomy.yaml": text[:start] + "strategies: expert_swarm\n" + text[end:]}
    )
    assert "RL221" not in found


def _rl222(tmp_path: Path, fragment: str) -> list[tuple[tuple[str | int, ...], str]]:
    found = findings_by_code(tmp_path, {RECIPE: Fragment(fragment)})
    return [(d.pointer, d.message) for d in found.get("RL222", [])]


def test_a_feature_with_empty_args_is_reported(tmp_path: Path) -> None:
    fragment = 'features:\n  reasoning:\n    description: "r"\n    args: []\n'
    assert _rl222(tmp_path, fragment) == [
        (
            ("features", "reasoning", "args"),
            "feature `reasoning` has an empty `args` list: turning it on adds nothing to the command",
        )
    ]


def test_a_mode_with_empty_args_is_reported(tmp_path: Path) -> None:
    fragment = (
        "features:\n  spec_decoding:\n    description: s\n    modes:\n"
        "      none:\n        args: []\n"
        '      mtp:\n        args: ["--speculative-config", \'{"method":"mtp"}\']\n'
    )
    assert [pointer for pointer, _ in _rl222(tmp_path, fragment)] == [
        ("features", "spec_decoding", "modes", "none", "args")
    ]


def test_a_modal_feature_is_judged_by_its_modes_not_its_own_empty_args(tmp_path: Path) -> None:
    fragment = (
        "features:\n  spec_decoding:\n    description: s\n    args: []\n    modes:\n"
        '      mtp:\n        args: ["--speculative-config", \'{"method":"mtp"}\']\n'
    )
    assert _rl222(tmp_path, fragment) == []


def test_a_toggle_that_adds_something_elsewhere_is_left_alone(tmp_path: Path) -> None:
    fragment = (
        "features:\n"
        "  fast_blackwell:\n    description: b\n    args: []\n    hardware_overrides:\n"
        '      blackwell:\n        args: ["--enforce-eager"]\n'
        "  helper:\n    description: h\n    args: []\n"
        "    companion:\n      label: Helper\n      command: helper serve\n"
    )
    assert _rl222(tmp_path, fragment) == []


def test_a_missing_args_list_is_left_to_the_modes_rules(tmp_path: Path) -> None:
    fragment = "features:\n  reasoning:\n    description: r\n"
    assert _rl222(tmp_path, fragment) == []
