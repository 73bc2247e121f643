"""RL603: which other checkpoints a guide may serve without the recipe offering them."""

from __future__ import annotations

from pathlib import Path

from treehelp import Fragment, findings_by_code

RECIPE = "models/acme/demo.yaml"


def _rl603(tmp_path: Path, served_in_guide: str) -> list[str]:
    text = (
        'model:\n  model_id: acme/Demo-7B\n  min_vllm_version: "0.20.0"\n'
        "variants:\n  fp8:\n    model_id: newpub/Demo-7B-FP8\n"
        f"guide: |\n  ```bash\n  vllm serve {served_in_guide}\n  ```\n"
    )
    found = findings_by_code(tmp_path, {RECIPE: Fragment(text)})
    return [d.message for d in found.get("RL603", [])]


def test_the_old_publisher_of_a_moved_variant_is_reported(tmp_path: Path) -> None:
    """The variant moved from oldpub to newpub; the guide still serves oldpub's checkpoint."""
    [message] = _rl603(tmp_path / "a", "oldpub/Demo-7B-FP8")
    assert "`vllm serve oldpub/Demo-7B-FP8`" in message


def test_the_served_models_own_quantisations_and_base_builds_are_exempt(
    tmp_path: Path,
) -> None:
    assert _rl603(tmp_path / "a", "acme/Demo-7B-AWQ") == []
    assert _rl603(tmp_path / "b", "newpub/Demo-7B-FP8") == []
