"""`recipelint check` on the upstream corpus: the reviewed error list of the families that
tests/test_schema_corpus.py and tests/test_rules_corpus.py do not pin (RL35x vLLM flags,
RL7xx compile and security), and the per-code totals of every family.

Each error below was checked by hand against vLLM's sources (RL35x) or the recipe (RL7xx);
a finding that appears or disappears fails the test until it is reviewed here.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from recipelint.cli import main

NEWER_THAN_MINIMUM = (
    "flag, value or JSON key added after the recipe's min_vllm_version (grep of both releases)"
)
KEY_GONE = "JSON key a later release's config class no longer declares, so it refuses it"

REVIEWED_ERRORS: dict[tuple[str, str], tuple[int, str]] = {
    ("models/MiniMaxAI/MiniMax-M2.1.yaml", "RL358"): (
        3,
        NEWER_THAN_MINIMUM + ": minimax_m2 parsers 0.11.1, --attention-backend 0.13.0",
    ),
    ("models/MiniMaxAI/MiniMax-M2.yaml", "RL358"): (
        3,
        NEWER_THAN_MINIMUM + ": minimax_m2 parsers 0.11.1, --attention-backend 0.13.0",
    ),
    ("models/MiniMaxAI/MiniMax-M3.yaml", "RL358"): (
        1,
        NEWER_THAN_MINIMUM + ": --attention-config key minimax_m3_msa_decode_backend 0.27.0",
    ),
    ("models/OpenGVLab/InternVL3_5-8B.yaml", "RL358"): (
        2,
        NEWER_THAN_MINIMUM + ": --mm-encoder-tp-mode 0.10.2, --language-model-only 0.17.0",
    ),
    ("models/PaddlePaddle/PaddleOCR-VL-1.5.yaml", "RL358"): (
        1,
        NEWER_THAN_MINIMUM + ": --language-model-only 0.17.0",
    ),
    ("models/PaddlePaddle/PaddleOCR-VL-1.6.yaml", "RL358"): (
        1,
        NEWER_THAN_MINIMUM + ": --language-model-only 0.17.0",
    ),
    ("models/Qwen/Qwen2.5-VL-7B-Instruct.yaml", "RL358"): (
        2,
        NEWER_THAN_MINIMUM + " 0.7.0: --mm-encoder-tp-mode 0.10.2, --language-model-only 0.17.0",
    ),
    ("models/Qwen/Qwen3-1.7B.yaml", "RL358"): (
        1,
        NEWER_THAN_MINIMUM + ": --reasoning-parser qwen3 0.9.0",
    ),
    ("models/Qwen/Qwen3-30B-A3B.yaml", "RL358"): (
        1,
        NEWER_THAN_MINIMUM + ": --reasoning-parser qwen3 0.9.0",
    ),
    ("models/Qwen/Qwen3-32B.yaml", "RL358"): (
        1,
        NEWER_THAN_MINIMUM + ": --reasoning-parser qwen3 0.9.0",
    ),
    ("models/Qwen/Qwen3-4B.yaml", "RL358"): (
        1,
        NEWER_THAN_MINIMUM + ": --reasoning-parser qwen3 0.9.0",
    ),
    ("models/Qwen/Qwen3-8B.yaml", "RL358"): (
        1,
        NEWER_THAN_MINIMUM + ": --reasoning-parser qwen3 0.9.0",
    ),
    ("models/Qwen/Qwen3-VL-235B-A22B-Instruct.yaml", "RL358"): (
        1,
        NEWER_THAN_MINIMUM + ": --language-model-only 0.17.0",
    ),
    ("models/Qwen/Qwen3.6-35B-A3B.yaml", "RL358"): (
        1,
        NEWER_THAN_MINIMUM + ": speculative-config key moe_backend 0.19.0",
    ),
    ("models/baidu/ERNIE-4.5-VL-28B-A3B-PT.yaml", "RL358"): (
        1,
        NEWER_THAN_MINIMUM + ": --language-model-only 0.17.0",
    ),
    ("models/deepseek-ai/DeepSeek-OCR.yaml", "RL358"): (
        1,
        NEWER_THAN_MINIMUM + ": --language-model-only 0.17.0",
    ),
    ("models/deepseek-ai/DeepSeek-V3.2-Exp.yaml", "RL358"): (
        2,
        NEWER_THAN_MINIMUM + ": deepseek_v32 tool parser and tokenizer mode 0.13.0",
    ),
    ("models/deepseek-ai/DeepSeek-V4-Flash.yaml", "RL359"): (
        6,
        KEY_GONE
        + ": attention-config use_fp4_indexer_cache, last in 0.29.0 (now indexer_kv_dtype)",
    ),
    ("models/deepseek-ai/DeepSeek-V4-Pro.yaml", "RL359"): (
        2,
        KEY_GONE
        + ": attention-config use_fp4_indexer_cache, last in 0.29.0 (now indexer_kv_dtype)",
    ),
    ("models/inclusionAI/Ring-1T-FP8.yaml", "RL359"): (
        1,
        KEY_GONE
        + ": compilation-config use_inductor, deprecated 0.11.1, dropped by 0.12.0, refused from 0.13.0",
    ),
    ("models/inclusionAI/Ling-3.0-flash.yaml", "RL358"): (
        2,
        NEWER_THAN_MINIMUM + ": ling3 parsers 0.28.0",
    ),
    ("models/internlm/Intern-S1.yaml", "RL358"): (
        2,
        NEWER_THAN_MINIMUM + ": --mm-encoder-tp-mode 0.10.2, --language-model-only 0.17.0",
    ),
    ("models/meta-models/Muse-Glimmer-30B.yaml", "RL358"): (
        2,
        NEWER_THAN_MINIMUM + ": muse_glimmer parsers 0.28.0",
    ),
    ("models/microsoft/Phi-4-mini-instruct.yaml", "RL358"): (
        2,
        NEWER_THAN_MINIMUM + " 0.7.0: --mm-encoder-tp-mode 0.10.2, --language-model-only 0.17.0",
    ),
    ("models/mistralai/Ministral-3-14B-Instruct-2512.yaml", "RL358"): (
        1,
        NEWER_THAN_MINIMUM + ": --language-model-only 0.17.0",
    ),
    ("models/moonshotai/Kimi-K2-Instruct.yaml", "RL359"): (
        1,
        "--disable-log-requests: gone in 0.17.0, back in 0.33.0 as --enable-log-requests' negation;"
        " min 0.12.0, so 0.17-0.32 refuse it",
    ),
    ("models/nvidia/NVIDIA-Nemotron-3.5-Lightning-30B-A3B-BF16.yaml", "RL373"): (
        1,
        "bf16 variant: --moe-backend flashinfer_cutlass for every hardware, AMD too; in 0.27.1"
        " the unquantized oracle maps it to FlashInferExperts (is_cuda() only) and raises",
    ),
    ("models/nvidia/NVIDIA-Nemotron-Nano-12B-v2-VL-BF16.yaml", "RL358"): (
        1,
        NEWER_THAN_MINIMUM + ": --language-model-only 0.17.0",
    ),
    ("models/nvidia/NVIDIA-Nemotron-Nano-9B-v2.yaml", "RL350"): (
        1,
        "--tool-call-parser-plugin is a typo of --tool-parser-plugin",
    ),
    ("models/openai/gpt-oss-120b.yaml", "RL358"): (
        4,
        NEWER_THAN_MINIMUM
        + ": -cc alias 0.12.0, openai tool parser 0.10.2, --attention-backend 0.13.0,"
        + " -cc key pass_config.fuse_rope_kvcache 0.17.0 (reported at the key alone: it is"
        + " later than the alias)",
    ),
    ("models/openai/gpt-oss-20b.yaml", "RL358"): (
        4,
        NEWER_THAN_MINIMUM
        + ": -cc alias 0.12.0, openai tool parser 0.10.2, --attention-backend 0.13.0,"
        + " -cc key pass_config.fuse_rope_kvcache 0.17.0 (reported at the key alone: it is"
        + " later than the alias)",
    ),
    ("models/stepfun-ai/Step-3.5-Flash.yaml", "RL358"): (
        2,
        NEWER_THAN_MINIMUM + ": step3p5 parsers 0.15.1",
    ),
    ("models/tencent/HunyuanOCR.yaml", "RL358"): (
        1,
        NEWER_THAN_MINIMUM + ": --language-model-only 0.17.0",
    ),
    ("models/zai-org/GLM-4.5V.yaml", "RL358"): (
        1,
        NEWER_THAN_MINIMUM + ": --language-model-only 0.17.0",
    ),
    ("models/zai-org/GLM-4.6V.yaml", "RL358"): (
        1,
        NEWER_THAN_MINIMUM + ": --language-model-only 0.17.0",
    ),
    ("models/zai-org/GLM-4.7.yaml", "RL358"): (
        1,
        NEWER_THAN_MINIMUM + ": glm47 tool parser 0.14.0",
    ),
}

# Totals per code and severity for every family, so no family drifts unnoticed.
# RL358 58 -> 63: the flag catalogs now reach back to 0.4.0, so recipes claiming 0.6/0.7 are
# judged too. RL361, RL412, RL413: the env-variable and convention rules, each finding reviewed
# (docs/rules-environment-and-conventions.md).
# RL304 26 -> 21: repeated items of one list are one finding. RL102 2 -> 0: the two unquoted
# kv_store env values are reported once each, as the fixable RL551 warning.
# Every release of the range judged: RL358 63 -> 68 (gpt-oss -cc key younger than the alias,
# DeepSeek-V4-Flash b12x under a --linear-backend younger than the minimum), RL359 0 -> 10
# errors (keys later releases refuse, a flag 0.17-0.32 refuse; RL359 is an error now that it
# reports only what vLLM refuses at start-up). RL372: the backend rule's findings. RL604-RL606:
# the guide-command rules' (tests/test_rules_corpus.py lists them by file). RL373: the MoE
# backend rule's one finding, reviewed in REVIEWED_ERRORS. RL342 and RL607: reviewed in
# tests/test_rules_corpus.py.
# RL358 68 -> 63: a flag younger than the minimum whose value or JSON key is younger still is
# reported once, at the value or key (DeepSeek-V4-Flash's three --linear-backend b12x, the two
# gpt-oss -cc.pass_config.fuse_rope_kvcache); each removed finding named a release the kept one
# supersedes, so no cause goes unreported.
# RL353 8 -> 7, RL360 1 -> 2: `--tool-call-parser nemotron_json` beside the misspelt
# `--tool-call-parser-plugin` (NVIDIA-Nemotron-Nano-9B-v2) names the plugin's parser, not a typo
# of a built-in one; the misspelt flag stays RL350's error.
# RL753 1 -> 0: MiniMax-M3's docker_image holding a whole `docker pull …` command has a space
# and no shell syntax: it is no image reference, which RL404 (kept, 1) reports; RL753 repeated it.
# RL706 warning 2 -> 1: Phi-4-multimodal-instruct's file-level copy of the finding on
# Phi-4-mini-instruct's 'multimodal' variant is left out where the variant's is shown.
# RL353 7 -> 6, RL360 2 -> 3: `--quantization ascend` in Qwen3.8-27B's ascend_w8a8 variant,
# whose supported_hardware is only the Ascend NPU (no built-in platform; vllm-ascend registers
# that method).
TOTALS: dict[tuple[str, str], int] = {
    ("RL101", "error"): 2,
    ("RL103", "error"): 3,
    ("RL104", "error"): 3,
    ("RL105", "error"): 1,
    ("RL107", "error"): 3,
    ("RL201", "error"): 4,
    ("RL208", "warning"): 41,
    ("RL209", "error"): 5,
    ("RL303", "info"): 17,
    ("RL304", "info"): 21,
    ("RL306", "error"): 1,
    ("RL310", "error"): 12,
    ("RL312", "warning"): 12,
    ("RL314", "warning"): 1,
    ("RL340", "info"): 83,
    ("RL341", "warning"): 2,
    ("RL342", "warning"): 1,
    ("RL350", "error"): 1,
    # RL350 2 -> 1, RL353 2 -> 1, RL365 0 -> 6: Qwen-Image builds vllm-omni from a clone of main
    # (--ignored-layers, --quantization int8: notices now), and DeepSeek-V4-Flash's four
    # B12X_MLA_SPARSE under the community image below are notices, not silence.
    # RL353 6 -> 2, RL358 59 -> 51: DeepSeek-V4-Flash's dgx_spark_gb10 overrides pin a community
    # image (its own build: b12x backends no vLLM release judges); RL605 27 -> 25: Ministral-3's
    # guide commands run vllm-openai-rocm:latest, the newest release, which takes --max-model-len auto.
    # RL353 1 -> 0, RL358 51 -> 49, RL365 6 -> 8, RL360 3 -> 2: an override is judged by the
    # images of the deployments it reaches. DeepSeek-V4-Flash's multi_node_tp blackwell override
    # (granted only to dgx_spark_gb10, whose every variant pins eugr/spark-vllm-b12x) runs that
    # build: its b12x backends (2 RL358) and B12X_MLA_SPARSE (RL353, now RL365) are a build of
    # its own's. Qwen3.8-27B's ascend_w8a8 args run only quay.io/ascend/vllm-ascend: RL365 in
    # place of RL360 (both notices; a community image outranks the plugin, as when pinned).
    # RL358 49 -> 48: Llama-3.1-8B's opt-in EAGLE3 feature says "requires vLLM >= 0.9.0": its
    # --speculative-config (0.8.2) is judged from 0.9.0, not the model's 0.6.0.
    ("RL355", "warning"): 8,
    ("RL358", "error"): 48,
    ("RL359", "error"): 10,
    ("RL361", "warning"): 1,
    # RL372 3 -> 0: `--quantization awq` for trillium/ironwood (Qwen2.5-VL-7B, Qwen3-32B,
    # Llama-3.1-8B) was judged by the in-tree TPU platform of the recipes' 0.6-0.8 minimums,
    # but TPU hardware runs vllm/vllm-tpu:latest, whose release takes the TPU platform from the
    # tpu-inference plugin (which lists awq): no catalog reads it.
    ("RL373", "error"): 1,
    ("RL380", "error"): 1,
    ("RL382", "error"): 9,
    ("RL383", "warning"): 14,
    ("RL360", "info"): 2,
    # Reviewed: --generation-config auto (Muse-Glimmer-30B, 0.27.0+) and --tokenizer-mode auto
    # (Kimi-K2-Instruct, 0.12.0+) are the default of every release of their range.
    ("RL364", "info"): 6,
    ("RL365", "info"): 8,
    ("RL404", "error"): 1,
    # RL405 3 -> 2: Llama-3.1-8B's >= 0.9.0 is in its EAGLE3 section (a feature's, not the model's).
    ("RL405", "warning"): 2,
    ("RL406", "warning"): 17,
    ("RL412", "warning"): 5,
    ("RL413", "warning"): 6,
    ("RL553", "info"): 24,
    ("RL551", "warning"): 2,
    ("RL554", "warning"): 4,
    ("RL603", "warning"): 3,
    # RL605 25 -> 20: guide commands judged at their section's build: Kimi-K2.5/K2.7-Code's
    # flydsl and DeepSeek-V4-Flash's triton_unfused under AMD headings run the recipe's
    # -rocm:nightly, and Qwen3-32B's Ironwood section names the nightly TPU image it needs.
    # (Qwen3-VL-235B's three --attention-backend under AMD headings on a pinned -rocm:v0.22.1
    # stay: a pinned release leaves the section to the minimum a reader may pip-install.)
    ("RL605", "warning"): 20,
    ("RL606", "info"): 29,
    ("RL607", "warning"): 3,
    ("RL706", "info"): 3,
    ("RL706", "warning"): 1,
    ("RL707", "warning"): 1,
}


@pytest.fixture(scope="module")
def findings(corpus_tree: Path) -> list[dict]:
    import contextlib
    import io

    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        status = main(["check", "-q", "--format", "json", str(corpus_tree)])
    assert status == 1
    records = json.loads(buffer.getvalue())
    for record in records:
        record["file"] = (
            Path(record["path"]).resolve().relative_to(corpus_tree.resolve()).as_posix()
        )
    return records


def test_flag_and_compile_errors_are_the_reviewed_ones(findings: list[dict]) -> None:
    errors = Counter(
        (r["file"], r["code"])
        for r in findings
        if r["severity"] == "error"
        and (r["code"][:4] in ("RL35", "RL70", "RL75") or r["code"] == "RL373")
    )
    assert dict(errors) == {key: count for key, (count, _why) in REVIEWED_ERRORS.items()}


def test_totals_per_code(findings: list[dict]) -> None:
    assert dict(Counter((r["code"], r["severity"]) for r in findings)) == TOTALS
