"""RL390 (memory and count against the words), RL391 (unrestricted desktop), RL392 (duplicate):
the rules of recipelint/rules/hardware_profiles.py.

Each profile here is a fragment merged into the catalog's base taxonomy, whose one profile
is an H200 node ("141 GB HBM3e · 8-GPU HGX node", 8 GPUs, 1128 GB).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from treehelp import Fragment, build_tree, check_tree, findings_by_code

from recipelint.cli import main
from recipelint.diagnostics import Diagnostic, Severity
from recipelint.rules.hardware_profiles import count_claims, memory_claims

TAXONOMY = "taxonomy.yaml"


def _profile(hw_id: str, **fields: object) -> Fragment:
    lines = [f"    {key}: {json.dumps(value)}" for key, value in fields.items()]
    return Fragment("hardware_profiles:\n  " + f"{hw_id}:\n" + "\n".join(lines) + "\n")


def _findings(tmp_path: Path, code: str, fragment: Fragment) -> list[Diagnostic]:
    return findings_by_code(tmp_path, {TAXONOMY: fragment}).get(code, [])


def _node(description: str, gpus: int, vram: float, display: str = "Node") -> dict[str, object]:
    return {
        "brand": "NVIDIA",
        "generation": "hopper",
        "display_name": display,
        "description": description,
        "gpu_count": gpus,
        "vram_gb": vram,
        "multi_node": False,
    }


# --------------------------------------------------------------------- reading the words


@pytest.mark.parametrize(
    ("display", "description", "counts"),
    [
        ("H200", "NVIDIA H200 SXM 141 GB HBM3e · 8-GPU HGX node", {8}),
        ("GB200 NVL4", "192 GB HBM3e/GPU · 4 Blackwell GPUs (NVL72 tray unit)", {4}),
        ("RTX Pro 6000 8x", "NVIDIA RTX Pro 6000 · 8× RTX Pro 6000 GPU · 768 GB VRAM", {8}),
        ("RTX 4090", "NVIDIA RTX 4090 · 2× RTX 4090 GPU · 24 GB VRAM/GPU", {2}),
        ("Arc Pro B60", "Intel Arc Pro B60 24 GB · 4-card node", {4}),
        ("TPU v6e", "Google Cloud TPU v6e host · 8 Trillium chips, 32 GB HBM each", {8}),
        # model numbers are no counts: "MI300X", "Gaudi 2", "RTX 4090 GPU", "2x faster"
        ("MI300X", "AMD Instinct MI300X 192 GB HBM3 (CDNA 3)", set()),
        ("Intel Gaudi 2", "Intel Gaudi 2 accelerators", set()),
        ("RTX 4090", "NVIDIA RTX 4090 GPU, up to 2x faster", set()),
        ("Xeon 6", "Intel Xeon 6 CPU NUMA node · x86 CPU backend", set()),
    ],
)
def test_counts_the_words_state(display: str, description: str, counts: set[int]) -> None:
    assert set(count_claims(display, description)) == counts


def test_memory_figures_and_how_they_relate_to_the_gpus() -> None:
    [per_gpu] = memory_claims("192 GB HBM3e/GPU · 4 Blackwell GPUs")
    assert (per_gpu.gb, per_gpu.per_gpu) == (192.0, True)
    [multiplied] = memory_claims("NVIDIA RTX PRO 5000 Blackwell · 4× 72 GB VRAM · PCIe")
    assert (multiplied.gb, multiplied.per_gpu, multiplied.count) == (72.0, True, 4)
    [unsaid] = memory_claims("NVIDIA H100 80GB NVLink (8-GPU node)")
    assert (unsaid.gb, unsaid.per_gpu) == (80.0, None)
    # a product name is no figure; host memory says nothing about the accelerators
    assert memory_claims("1× GB300 Grace-Blackwell Ultra Superchip") == []
    assert memory_claims("2 Grace CPUs with 960 GB LPDDR5X · 1 TB DDR5 host memory") == []


def test_memory_in_terabytes_and_in_total() -> None:
    [total] = memory_claims("8× H200 GPUs · 1.128 TB HBM3e in total")
    assert (total.text, total.gb, total.per_gpu) == ("1.128 TB HBM3e in total", 1128.0, False)
    [binary] = memory_claims("1 TiB HBM combined")
    assert (binary.gb, binary.per_gpu) == (1024.0, False)


# --------------------------------------------------------------------------------- RL390


def test_vram_off_the_stated_per_gpu_memory_is_an_error_at_vram_gb(tmp_path: Path) -> None:
    [finding] = _findings(
        tmp_path, "RL390", Fragment("hardware_profiles:\n  h200:\n    vram_gb: 640\n")
    )
    assert finding.severity is Severity.ERROR
    assert finding.pointer == ("hardware_profiles", "h200", "vram_gb")
    assert finding.message == (
        "profile `h200` has vram_gb 640, but its description states `141 GB HBM3e` per GPU"
    )
    assert finding.hint is not None and "141 × 8 GPUs = 1128" in finding.hint


def test_a_count_the_words_contradict_is_reported_at_gpu_count(tmp_path: Path) -> None:
    fragment = _profile("h100", **_node("NVIDIA H100 80GB · 8-GPU node", 4, 640))
    [finding] = _findings(tmp_path, "RL390", fragment)
    assert finding.pointer == ("hardware_profiles", "h100", "gpu_count")
    assert "gpu_count 4, but its words say 8 (`8-GPU`)" in finding.message


@pytest.mark.parametrize(
    ("description", "gpus", "vram"),
    [
        ("NVIDIA H200 SXM 141 GB HBM3e · 8-GPU HGX node", 8, 1128),
        ("NVIDIA H200 141 GB · 8-GPU node", 8, 1050),  # binary gigabytes
        ("NVIDIA RTX Pro 6000 · 2× RTX Pro 6000 GPU · 192 GB VRAM", 2, 192),  # a total
        ("NVIDIA RTX PRO 5000 Blackwell · 4× 72 GB VRAM", 4, 288),
        ("NVIDIA DGX Spark · 1× GB10 Grace Blackwell Superchip · 128 GB unified memory", 1, 128),
        ("Intel Xeon 6 CPU NUMA node · x86 CPU backend", 4, 1024),  # states nothing
        ("NVIDIA node · 4 GPUs · 8 GPUs · 80 GB each", 4, 320),  # two counts: unclear, not judged
    ],
)
def test_profiles_whose_numbers_agree_with_their_words_are_silent(
    tmp_path: Path, description: str, gpus: int, vram: float
) -> None:
    assert _findings(tmp_path, "RL390", _profile("node", **_node(description, gpus, vram))) == []


# --------------------------------------------------------------------------------- RL391


def _desktop(**extra: object) -> Fragment:
    fields = {
        "brand": "NVIDIA",
        "generation": "ada",
        "display_name": "RTX 4080",
        "description": "NVIDIA GeForce RTX 4080 · 1× RTX 4080 GPU · 16 GB VRAM",
        "gpu_count": 1,
        "vram_gb": 16,
        "multi_node": False,
        **extra,
    }
    return _profile("rtx_4080", **fields)


def test_an_unrestricted_single_gpu_desktop_is_reported_at_its_id(tmp_path: Path) -> None:
    [finding] = _findings(tmp_path, "RL391", _desktop())
    assert finding.severity is Severity.WARNING
    assert finding.pointer == ("hardware_profiles", "rtx_4080")
    assert finding.message.startswith(
        "profile `rtx_4080` is a single-GPU desktop or workstation machine (`RTX`)"
    )
    assert finding.hint is not None
    assert finding.hint.startswith("add `restricted: true` and `scalable: false`")


def test_restricted_false_is_reported_at_the_value(tmp_path: Path) -> None:
    [finding] = _findings(tmp_path, "RL391", _desktop(restricted=False, scalable=False))
    assert finding.pointer == ("hardware_profiles", "rtx_4080", "restricted")
    assert finding.hint is not None and finding.hint.startswith("set `restricted: true`,")


@pytest.mark.parametrize(
    "change",
    [
        {"restricted": True, "scalable": False},
        # a linked pair of desktops can serve one model: restricted alone is enough
        {"restricted": True},
        {"gpu_count": 2, "vram_gb": 32, "description": "NVIDIA RTX 4080 · 2× RTX 4080 GPU"},
        {"display_name": "L40S", "description": "NVIDIA L40S 48 GB", "vram_gb": 48},
        {"description": "NVIDIA RTX PRO 6000 Blackwell Server Edition · 96 GB", "vram_gb": 96},
    ],
)
def test_restricted_multi_gpu_or_datacenter_profiles_are_silent(
    tmp_path: Path, change: dict[str, object]
) -> None:
    assert _findings(tmp_path, "RL391", _desktop(**change)) == []


# --------------------------------------------------------------------------------- RL392


def test_a_second_profile_of_the_same_machine_is_reported_with_the_first(tmp_path: Path) -> None:
    fragment = _profile(
        "h200_sxm", **_node("NVIDIA H200 SXM 141 GB HBM3e · 8-GPU HGX node", 8, 1128, "H200 SXM")
    )
    [finding] = _findings(tmp_path, "RL392", fragment)
    assert finding.pointer == ("hardware_profiles", "h200_sxm")
    assert finding.message.startswith("profile `h200_sxm` describes the same machine as `h200`")
    [related] = finding.related
    assert related.pointer == ("hardware_profiles", "h200")
    written = (tmp_path / TAXONOMY).read_text(encoding="utf-8").splitlines()
    assert written[related.span.line - 1] == "  h200:"


@pytest.mark.parametrize(
    ("display", "gpus", "vram"),
    [
        ("H200 4x", 4, 564),  # another node size
        ("H100", 8, 1128),  # another GPU model
    ],
)
def test_other_machines_are_no_duplicates(
    tmp_path: Path, display: str, gpus: int, vram: float
) -> None:
    fragment = _profile("other", **_node("NVIDIA node", gpus, vram, display))
    assert _findings(tmp_path, "RL392", fragment) == []


def _cpu_nodes(names: dict[str, str]) -> Fragment:
    """Same-sized four-socket CPU profiles, by id, with these display names."""
    cpu = {"brand": "Intel", "generation": "cpu", "gpu_count": 4, "vram_gb": 1024}
    return Fragment(
        "hardware_profiles:\n"
        + "".join(
            f"  {hw_id}:\n"
            + "".join(
                f"    {k}: {json.dumps(v)}\n" for k, v in {**cpu, "display_name": name}.items()
            )
            for hw_id, name in names.items()
        )
    )


def test_same_sized_nodes_of_other_models_are_no_duplicates(tmp_path: Path) -> None:
    fragment = _cpu_nodes({"xeon6": "Xeon 6", "xeon5": "Xeon 5"})
    assert _findings(tmp_path, "RL392", fragment) == []


# ----------------------------------------------------------------------------------- CLI


def test_check_reports_the_taxonomy_findings_and_exits_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = build_tree(tmp_path / "tree", {TAXONOMY: _desktop(vram_gb=48)})
    code = main(["check", str(root), "--select", "RL390,RL391,RL392", "--format", "json"])
    found = json.loads(capsys.readouterr().out)
    lines = (root / TAXONOMY).read_text(encoding="utf-8").splitlines()
    assert code == 1
    assert sorted((d["code"], lines[d["line"] - 1].strip()) for d in found) == [
        ("RL390", "vram_gb: 48"),
        ("RL391", "rtx_4080:"),
    ]
    assert {Path(d["path"]).name for d in found} == {TAXONOMY}


def test_check_of_a_consistent_taxonomy_exits_0(tmp_path: Path) -> None:
    root = build_tree(tmp_path / "tree", {TAXONOMY: _desktop(restricted=True, scalable=False)})
    assert main(["check", str(root), "--select", "RL390,RL391,RL392", "-q"]) == 0


def test_hostile_profiles_are_judged_without_a_traceback(tmp_path: Path) -> None:
    huge = "9" * 5000
    profiles = {
        "digits": _node(f"{huge} GB · {huge}-GPU node · {huge}× {huge} GB", 8, 1e300),
        "long": _node("2 Grace CPUs · " * 3000 + "80 GB each · 4 GPUs", 4, 320),
        **{f"same_{n}": _node("NVIDIA node", 8, 640, f"Model {n}") for n in range(1500)},
        "not_a_profile": "text",
    }
    text = "hardware_profiles: " + json.dumps(profiles) + "\n"
    found = findings_by_code(tmp_path, {TAXONOMY: text})
    assert not any(code in found for code in ("RL390", "RL391", "RL392"))


def test_two_same_sized_nodes_of_one_name_without_model_words_are_one_machine(
    tmp_path: Path,
) -> None:
    fragment = _cpu_nodes({"xeon_a": "Xeon", "xeon_b": "Xeon"})
    [finding] = _findings(tmp_path, "RL392", fragment)
    assert finding.message.startswith("profile `xeon_b` describes the same machine as `xeon_a`")


def test_what_follows_a_figure_is_read_for_forty_characters() -> None:
    # A phrase around the figure, never the whole text: host memory named within 40 characters
    # of the figure makes it no accelerator figure; named further on, it is another phrase's.
    within = " of fast memory next to the board's DDR5"
    assert len(within) == 40
    assert memory_claims("80 GB" + within) == []
    [claim] = memory_claims("80 GB " + within)
    assert claim.gb == 80.0


def test_profiles_without_a_positive_vram_are_not_compared(tmp_path: Path) -> None:
    # vram_gb 0 is the schema stage's error (RL1xx); two such profiles are no known machine.
    cpu = {"brand": "Intel", "generation": "cpu", "gpu_count": 4, "vram_gb": 0}
    cpu["display_name"] = "Xeon"
    fragment = Fragment(
        "hardware_profiles:\n"
        + "".join(
            f"  {hw_id}:\n" + "".join(f"    {k}: {json.dumps(v)}\n" for k, v in cpu.items())
            for hw_id in ("xeon_a", "xeon_b")
        )
    )
    found = findings_by_code(tmp_path, {TAXONOMY: fragment})
    assert "RL392" not in found and "RL390" not in found
    assert any(code.startswith("RL1") for code in found)  # the schema stage's own report


def test_a_tree_without_a_taxonomy_has_no_profile_findings(tmp_path: Path) -> None:
    root = build_tree(tmp_path / "tree", {})
    (root / TAXONOMY).unlink()
    found = check_tree(root)
    assert not any(d.code in ("RL390", "RL391", "RL392") for d in found)
