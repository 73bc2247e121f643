"""The reviewed findings of the RL2xx–RL6xx rule families on the upstream corpus.

Every error and warning below was read against the recipe and judged (docs/rules-design.md
gives the verdicts). A rule that starts missing one of them, or reports a new one,
fails here: either direction is a behaviour change that needs a new review.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from recipelint.check.engine import run_checks
from recipelint.diagnostics import Severity
from recipelint.read.tree import load_tree

# Codes owned by these families; RL35x–RL39x are the vLLM flag catalog's.
FAMILY = re.compile(r"^RL(2\d\d|3[0-4]\d|[456]\d\d)$")

# (code, why it is right, {file: count})
REVIEWED: list[tuple[str, str, dict[str, int]]] = [
    (
        "RL412",
        "--chat-template examples/tool_chat_template_*.jinja under the default pip (wheel) install:"
        " the wheel has no examples/ folder, vLLM stops at start-up",
        {
            "models/Google/gemma-4-12B-it.yaml": 1,
            "models/Google/gemma-4-26B-A4B-it.yaml": 1,
            "models/Google/gemma-4-31B-it.yaml": 1,
            "models/deepseek-ai/DeepSeek-R1.yaml": 1,
            "models/deepseek-ai/DeepSeek-V3.yaml": 1,
        },
    ),
    (
        "RL413",
        "nightly_required on a min_vllm_version that a catalogued release has since shipped",
        {
            "models/OpenMOSS-Team/MOSS-Transcribe-Diarize.yaml": 1,
            "models/dots-studio/dots3-note-prev.yaml": 1,
            "models/inclusionAI/Ling-3.0-flash.yaml": 1,
            "models/meta-models/Muse-Glimmer-30B.yaml": 1,
            "models/tencent/Hy3.yaml": 1,
            "models/thinkingmachines/Inkling-Small.yaml": 1,
        },
    ),
    (
        "RL201",
        "meta.hardware names GPUs the taxonomy does not have (h20, a100, mi350x): the badge is dropped",
        {
            "models/inclusionAI/Ling-3.0-flash.yaml": 1,
            "models/nvidia/Cosmos3-Nano.yaml": 1,
            "models/nvidia/Cosmos3-Super.yaml": 1,
            "models/tencent/Hy3-preview.yaml": 1,
        },
    ),
    (
        "RL208",
        "related_recipes: google/… where the recipes are Google/… (case), or ids absent from this tree",
        {
            "models/Google/gemma-4-12B-it.yaml": 3,
            "models/Google/gemma-4-26B-A4B-it.yaml": 3,
            "models/LiquidAI/LFM2.5-1.2B-Base.yaml": 1,
            "models/LiquidAI/LFM2.5-1.2B-JP.yaml": 2,
            "models/LiquidAI/LFM2.5-1.2B-Thinking.yaml": 1,
            "models/LiquidAI/LFM2.5-230M.yaml": 1,
            "models/LiquidAI/LFM2.5-350M.yaml": 1,
            "models/LiquidAI/LFM2.5-8B-A1B.yaml": 1,
            "models/LiquidAI/LFM2.5-VL-450M.yaml": 1,
            "models/PaddlePaddle/PaddleOCR-VL-1.5.yaml": 1,
            "models/PaddlePaddle/PaddleOCR-VL-1.6.yaml": 1,
            "models/Qwen/Qwen2.5-VL-7B-Instruct.yaml": 1,
            "models/Qwen/Qwen3.5-27B.yaml": 1,
            "models/Qwen/Qwen3.5-4B.yaml": 1,
            "models/deepseek-ai/DeepSeek-OCR.yaml": 1,
            "models/deepseek-ai/DeepSeek-R1.yaml": 1,
            "models/deepseek-ai/DeepSeek-V3.2-Exp.yaml": 1,
            "models/deepseek-ai/DeepSeek-V3.yaml": 1,
            "models/jinaai/jina-embeddings-v5-text-small.yaml": 1,
            "models/meta-llama/Llama-3.2-3B-Instruct.yaml": 1,
            "models/mistralai/Ministral-3-14B-Instruct-2512.yaml": 2,
            "models/mistralai/Mistral-Medium-3.5-128B.yaml": 2,
            "models/mistralai/Mistral-Small-4-119B-2603.yaml": 1,
            "models/nvidia/Cosmos3-Nano.yaml": 1,
            "models/nvidia/Cosmos3-Super-Text2Image.yaml": 1,
            "models/nvidia/Cosmos3-Super.yaml": 1,
            "models/nvidia/NVIDIA-Nemotron-3-Nano-4B-BF16.yaml": 1,
            "models/nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-BF16.yaml": 1,
            "models/nvidia/NVIDIA-Nemotron-3.5-Lightning-30B-A3B-BF16.yaml": 1,
            "models/nvidia/NVIDIA-Nemotron-Nano-12B-v2-VL-BF16.yaml": 1,
            "models/nvidia/NVIDIA-Nemotron-Nano-9B-v2.yaml": 1,
            "models/poolside/Laguna-S-2.1.yaml": 1,
            "models/poolside/Laguna-XS-2.1.yaml": 1,
            "models/thinkingmachines/Inkling-Small.yaml": 1,
        },
    ),
    (
        "RL209",
        "model_id google/… in models/Google/, and Inkling-Small serving an -NVFP4 id",
        {
            "models/Google/gemma-4-12B-it.yaml": 1,
            "models/Google/gemma-4-26B-A4B-it.yaml": 1,
            "models/Google/gemma-4-31B-it.yaml": 1,
            "models/Google/translategemma-27b-it.yaml": 1,
            "models/thinkingmachines/Inkling-Small.yaml": 1,
        },
    ),
    (
        "RL306",
        'MiMo-V2.5-Pro: "--max-model-len auto" as one argv item',
        {
            "models/XiaomiMiMo/MiMo-V2.5-Pro.yaml": 1,
        },
    ),
    (
        "RL310",
        "--tensor-parallel-size in base/variant/AMD layers next to DEP, multi-node or DEP-pool PD",
        {
            "models/MiniMaxAI/MiniMax-M2.1.yaml": 1,
            "models/MiniMaxAI/MiniMax-M2.5.yaml": 1,
            "models/MiniMaxAI/MiniMax-M2.7.yaml": 1,
            "models/MiniMaxAI/MiniMax-M2.yaml": 1,
            "models/XiaomiMiMo/MiMo-V2-Flash.yaml": 1,
            "models/baidu/ERNIE-4.5-21B-A3B-PT.yaml": 1,
            "models/baidu/ERNIE-4.5-VL-28B-A3B-PT.yaml": 2,
            "models/inclusionAI/Ling-2.6-1T.yaml": 1,
            "models/inclusionAI/Ling-2.6-flash.yaml": 1,
            "models/inclusionAI/Ring-1T-FP8.yaml": 1,
            "models/inclusionAI/Ring-2.6-1T.yaml": 1,
        },
    ),
    (
        "RL312",
        "omni recipes writing --omni in base_args, which the omni path injects itself",
        {
            "models/OpenMOSS-Team/MOSS-SoundEffect.yaml": 1,
            "models/OpenMOSS-Team/MOSS-TTS-Realtime.yaml": 1,
            "models/OpenMOSS-Team/MOSS-TTS.yaml": 1,
            "models/OpenMOSS-Team/MOSS-TTSD-v1.0.yaml": 1,
            "models/OpenMOSS-Team/MOSS-VoiceGenerator.yaml": 1,
            "models/Qwen/Qwen3-TTS-12Hz-1.7B-CustomVoice.yaml": 1,
            "models/bosonai/higgs-audio-v3-tts-4b.yaml": 1,
            "models/fishaudio/s2-pro.yaml": 1,
            "models/inclusionAI/Ming-omni-tts-0.5B.yaml": 1,
            "models/mistralai/Voxtral-4B-TTS-2603.yaml": 1,
            "models/openbmb/VoxCPM2.yaml": 1,
            "models/zai-org/GLM-TTS.yaml": 1,
        },
    ),
    (
        "RL314",
        "MiMo-V2.5-Pro: variant --tensor-parallel-size 8 always replaced by the emitter",
        {
            "models/XiaomiMiMo/MiMo-V2.5-Pro.yaml": 1,
        },
    ),
    (
        "RL341",
        "overrides that keep nothing they replace: Inkling-Small's multi_node_tp_dp hopper drops the bf16 "
        "nvidia autotune opt-out, DeepSeek-V4-Pro's single_node_tp hopper the H200 context caps "
        "(the DeepSeek-V4 blackwell ones keep the FP4 indexer cache: replacements)",
        {
            "models/deepseek-ai/DeepSeek-V4-Pro.yaml": 1,
            "models/thinkingmachines/Inkling-Small.yaml": 1,
        },
    ),
    (
        "RL342",
        "DeepSeek-V4-Flash: a multi_node_dep override for rtx_pro_6000_8x, which cannot scale out",
        {
            "models/deepseek-ai/DeepSeek-V4-Flash.yaml": 1,
        },
    ),
    (
        "RL404",
        'MiniMax-M3: docker_image "docker pull vllm/…"',
        {
            "models/MiniMaxAI/MiniMax-M3.yaml": 1,
        },
    ),
    (
        "RL405",
        "guide asks for a newer vLLM than any min_vllm_version (the NVFP4 variant's section; "
        "Llama-3.1-8B's >= 0.9.0 in its EAGLE3 feature section is that feature's)",
        {
            "models/Qwen/Qwen3.6-35B-A3B.yaml": 1,
            "models/nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-BF16.yaml": 1,
        },
    ),
    (
        "RL406",
        "guide tells readers to run an image tag the docker commands never use (the release of the "
        "recipe's own min_vllm_version, as Ling/Ring-2.6 name, is accepted)",
        {
            "models/Google/gemma-4-26B-A4B-it.yaml": 1,
            "models/Google/gemma-4-31B-it.yaml": 1,
            "models/MiniMaxAI/MiniMax-M2.1.yaml": 1,
            "models/MiniMaxAI/MiniMax-M2.7.yaml": 1,
            "models/MiniMaxAI/MiniMax-M2.yaml": 1,
            "models/Qwen/Qwen3.5-397B-A17B.yaml": 1,
            "models/Qwen/Qwen3.6-35B-A3B.yaml": 1,
            "models/XiaomiMiMo/MiMo-V2.5-Pro.yaml": 1,
            "models/XiaomiMiMo/MiMo-V2.5.yaml": 1,
            "models/mistralai/Mistral-Medium-3.5-128B.yaml": 1,
            "models/moonshotai/Kimi-K3.yaml": 1,
            "models/nvidia/NVIDIA-Nemotron-3-Nano-4B-BF16.yaml": 1,
            "models/nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-BF16.yaml": 1,
            "models/nvidia/NVIDIA-Nemotron-Nano-12B-v2-VL-BF16.yaml": 1,
            "models/poolside/Laguna-XS.2.yaml": 1,
            "models/tencent/Hy3-preview.yaml": 1,
            "models/zai-org/GLM-5.2.yaml": 1,
        },
    ),
    (
        "RL605",
        "guide serve commands pass what a release from min_vllm_version on refuses: newer than the"
        " minimum (--tool-server 0.10.1, --deploy-config 0.20.0, …) or gone later"
        " (--disable-log-requests 0.17-0.32, --swap-space 0.18, --guided-decoding-backend 0.12);"
        " the guide-command rules' findings, grouped as read, the same catalog facts as RL35x's."
        " A guide option the recipe's own args pass for the same cause is left to RL358/RL359/RL350"
        " (MiniMax-M2/M2.1 and Step-3.5 parsers, gpt-oss -cc keys and --tool-call-parser openai,"
        " DeepSeek use_fp4_indexer_cache, Llama-3.1 --speculative-config, Kimi-K2"
        " --disable-log-requests, Nemotron-Nano-9B --tool-call-parser-plugin's RL604). A command"
        " is judged at its section's build: the image the recipe deploys on its hardware"
        " (Kimi-K2.5/K2.7-Code flydsl and DeepSeek-V4-Flash triton_unfused on -rocm:nightly; a"
        " pinned release such as Qwen3-VL-235B's -rocm:v0.22.1 leaves --attention-backend to the"
        " minimum) or the build its words ask for (Qwen3-32B's Ironwood section and the nightly"
        " TPU image)",
        {
            "models/Qwen/Qwen2.5-VL-7B-Instruct.yaml": 3,
            "models/Qwen/Qwen3-235B-A22B-Instruct-2507.yaml": 4,
            "models/Qwen/Qwen3-VL-235B-A22B-Instruct.yaml": 3,
            "models/Qwen/Qwen3-32B.yaml": 1,
            "models/Qwen/Qwen3-4B.yaml": 1,
            "models/baidu/ERNIE-4.5-VL-28B-A3B-PT.yaml": 1,
            "models/fishaudio/s2-pro.yaml": 1,
            "models/meta-llama/Llama-3.1-8B-Instruct.yaml": 1,
            "models/meta-llama/Llama-3.3-70B-Instruct.yaml": 1,
            "models/meta-llama/Llama-4-Scout-17B-16E-Instruct.yaml": 1,
            "models/openai/gpt-oss-120b.yaml": 1,
            "models/openai/gpt-oss-20b.yaml": 1,
            "models/zai-org/GLM-4.7.yaml": 1,
        },
    ),
    (
        "RL607",
        "guide commands for other hardware than their section: MiniMax-M2.5's generic Docker "
        "command carries the hopper-only triton MoE and FLASHINFER attention backends; "
        "gpt-oss-20b runs the CUDA image with --gpus all under its Intel Xeon 6 heading",
        {
            "models/MiniMaxAI/MiniMax-M2.5.yaml": 2,
            "models/openai/gpt-oss-20b.yaml": 1,
        },
    ),
    # The schema's RL102 at the same values gives way to this more precise, fixable finding.
    (
        "RL551",
        "kv_store files set PYTHONHASHSEED: 0 (a number)",
        {
            "kv_store/kv_store_centralized_mooncake.yaml": 1,
            "kv_store/kv_store_distributed_mooncake.yaml": 1,
        },
    ),
    (
        "RL554",
        "VRAM off the formula: ASR below it, ERNIE-21B, Hunyuan-A13B and GLM-ASR-Nano (bf16) above"
        " the 16-bit band (the DeepSeek-V4 releases' fp8 checkpoints are FP4+FP8, as their"
        " recipes' headlines say: not judged)",
        {
            "models/Qwen/Qwen3-ASR-1.7B.yaml": 1,
            "models/baidu/ERNIE-4.5-21B-A3B-PT.yaml": 1,
            "models/tencent/Hunyuan-A13B-Instruct.yaml": 1,
            "models/zai-org/GLM-ASR-Nano-2512.yaml": 1,
        },
    ),
    (
        "RL603",
        "guide serves a checkpoint the recipe does not offer (gemma siblings absent from this subset; "
        "another quantisation of a served model, from any publisher, is accepted; Qwen3.8-27B's guide"
        " serves unsloth's NVFP4 build while its nvfp4 variant is Inferact's checkpoint of that name)",
        {
            "models/Google/gemma-4-31B-it.yaml": 2,
            "models/Qwen/Qwen3.8-27B.yaml": 1,
        },
    ),
]
# Informational findings are not reviewed one by one; their totals are pinned.
# RL304 26 -> 21: MiniMax-M3 repeats `--attention_config` on 4 and 3 items of two lists, one finding each.
# RL606: the guide's serve commands spelling options with underscores (Mistral guides' --tokenizer_mode,
# --config_format, --load_format; gpt-oss --tensor_parallel_size; …).
# RL553 is a notice since upstream's own date_added backfill (#686) wrote such dates.
INFO_TOTALS = {"RL303": 17, "RL304": 21, "RL340": 83, "RL553": 24, "RL606": 29}


@pytest.fixture(scope="module")
def findings(corpus_tree: Path) -> list:
    diagnostics = run_checks(load_tree(corpus_tree))
    return [d for d in diagnostics if FAMILY.match(d.code)]


def test_reviewed_errors_and_warnings_are_exactly_reported(
    findings: list, corpus_tree: Path
) -> None:
    actual = Counter(
        (d.code, d.path.relative_to(corpus_tree).as_posix())
        for d in findings
        if d.severity > Severity.INFO
    )
    expected = Counter(
        {(code, path): count for code, _why, files in REVIEWED for path, count in files.items()}
    )
    missing = expected - actual
    new = actual - expected
    assert not missing and not new, (
        f"no longer reported: {dict(missing)}; not reviewed yet: {dict(new)}"
    )


def test_info_totals(findings: list) -> None:
    totals = Counter(d.code for d in findings if d.severity == Severity.INFO)
    assert dict(totals) == INFO_TOTALS


def test_every_error_is_in_a_family_judged_real(findings: list) -> None:
    """Error-severity codes on the corpus are only those whose every finding was judged a real defect."""
    judged_real = {"RL201", "RL209", "RL306", "RL310", "RL404"}
    assert {d.code for d in findings if d.severity == Severity.ERROR} <= judged_real
