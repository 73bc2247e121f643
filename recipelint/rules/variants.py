"""RL500–RL549: variants and speculative decoding.

A variant owns the served checkpoint; a spec_decoding mode owns only the
`--speculative-config`.  A draft model trained for one checkpoint (an NVFP4
draft, an EAGLE head for a particular quantisation) must therefore be offered
only to the variants that serve that checkpoint.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass

from recipelint.jsvalue import JsonValue
from recipelint.read.load import Document
from recipelint.rules.common import Pointer, Tokeniser, arg_units, as_dict, as_list
from recipelint.rules.context import CheckContext
from recipelint.rules.registry import Finding, check

# Precision words that appear in checkpoint names; aliases map to the recipe's precision names.
PRECISION_WORDS = {
    "nvfp4": "nvfp4",
    "mxfp4": "mxfp4",
    "fp4": "fp4",
    "fp8": "fp8",
    "bf16": "bf16",
    "fp16": "fp16",
    "int4": "int4",
    "int8": "int8",
    "awq": "awq",
    "gptq": "gptq",
    "w4a16": "int4",
    "w8a8": "int8",
}


@dataclass(frozen=True)
class Draft:
    pointer: Pointer  # the value item holding the --speculative-config JSON
    model: str | None  # the external draft checkpoint, None when the draft is fused
    method: str | None


def _spec_configs(args: object, pointer: Pointer, tokenise: Tokeniser) -> Iterator[Draft]:
    items = as_list(args)
    for unit in tokenise(items):
        if unit.base != "--speculative-config":
            continue
        raw = unit.inline_value if unit.inline_value is not None else unit.value
        index = unit.index if unit.inline_value is not None else unit.value_index
        try:
            config = json.loads(raw) if isinstance(raw, str) else None
        except (ValueError, RecursionError):
            continue  # RL308 reports it
        if isinstance(config, dict) and index is not None:
            model, method = config.get("model"), config.get("method")
            yield Draft(
                pointer + (index,),
                model if isinstance(model, str) else None,
                method if isinstance(method, str) else None,
            )


@dataclass(frozen=True)
class Offer:
    """A set of spec-decoding args and the variants that can receive them."""

    feature: str
    mode: str | None
    pointer: Pointer  # the mode (or feature) the offer belongs to
    variants: list[str]
    restricted: bool
    drafts: list[Draft]


def spec_offers(data: dict[str, JsonValue], tokenise: Tokeniser = arg_units) -> Iterator[Offer]:
    """Every feature (or mode) whose args hold a --speculative-config, with its drafts."""
    variants = list(as_dict(data.get("variants")))
    for feature, spec in as_dict(data.get("features")).items():
        spec = as_dict(spec)
        base: Pointer = ("features", feature)
        modes = as_dict(spec.get("modes"))
        if not modes:
            drafts = list(_spec_configs(spec.get("args"), base + ("args",), tokenise))
            for hw, override in as_dict(spec.get("hardware_overrides")).items():
                drafts += _spec_configs(
                    as_dict(override).get("args"),
                    base + ("hardware_overrides", hw, "args"),
                    tokenise,
                )
            if drafts:
                yield Offer(feature, None, base, variants, False, drafts)
            continue
        for mode, mode_spec in modes.items():
            mode_spec = as_dict(mode_spec)
            pointer = base + ("modes", mode)
            drafts = list(_spec_configs(mode_spec.get("args"), pointer + ("args",), tokenise))
            for hw, override in as_dict(mode_spec.get("hardware_overrides")).items():
                drafts += _spec_configs(
                    as_dict(override).get("args"),
                    pointer + ("hardware_overrides", hw, "args"),
                    tokenise,
                )
            allow = [v for v in as_list(mode_spec.get("variants")) if isinstance(v, str)]
            yield Offer(feature, mode, pointer, allow or variants, bool(allow), drafts)


def precision_words(name: str) -> set[str]:
    words = re.split(r"[-_/.\s]+", name.lower())
    return {PRECISION_WORDS[w] for w in words if w in PRECISION_WORDS}


def _checkpoint(data: dict[str, JsonValue], variant: str) -> str:
    spec = as_dict(as_dict(data.get("variants")).get(variant))
    model_id = spec.get("model_id") or as_dict(data.get("model")).get("model_id") or ""
    return str(model_id).rsplit("/", 1)[-1].lower()


def _precision(data: dict[str, JsonValue], variant: str) -> str | None:
    precision = as_dict(as_dict(data.get("variants")).get(variant)).get("precision")
    return precision.lower() if isinstance(precision, str) else None


def _draft_target(data: dict[str, JsonValue], draft: str) -> str | None:
    """The quantised checkpoint a draft's name says it was made for, if any."""
    base = str(as_dict(data.get("model")).get("model_id") or "").rsplit("/", 1)[-1].lower()
    name = draft.rsplit("/", 1)[-1].lower()
    names = {_checkpoint(data, v) for v in as_dict(data.get("variants"))} - {base, ""}
    matches = [c for c in names if c in name]
    return max(matches, key=len) if matches else None


@check("RL501", "RL502")
def speculative_drafts(ctx: CheckContext) -> Iterator[Finding]:
    """RL501: a draft offered to a checkpoint it was not made for; RL502: a variant serving a
    fused draft without selecting its mode. Both read each recipe's offers."""
    for doc in ctx.recipes:
        data = doc.data if isinstance(doc.data, dict) else {}
        offers = list(spec_offers(data, ctx.units))
        for offer in offers:
            for draft in offer.drafts:
                if draft.model is not None:
                    yield from _mismatches(doc, data, offer, draft, offers)
        yield from _variant_drafts(doc, data, ctx.units)
        yield from _fused_drafts_without_default_modes(doc, data, offers)


def _mismatch(data: dict[str, JsonValue], variant: str, draft: str) -> str | None:
    """Why ``draft`` does not fit the checkpoint ``variant`` serves, or None when it does."""
    words = precision_words(draft)
    target = _draft_target(data, draft)
    precision, checkpoint = _precision(data, variant), _checkpoint(data, variant)
    if (
        words
        and precision is not None
        and precision not in words
        and not _same_family(precision, words)
    ):
        return f"a {'/'.join(sorted(words))} draft served next to a {precision} checkpoint"
    if target and checkpoint != target:
        return f"it was made for `{target}`, not `{checkpoint}`"
    return None


def _mismatches(
    doc: Document, data: dict[str, JsonValue], offer: Offer, draft: Draft, offers: list[Offer]
) -> Iterator[Finding]:
    where = f"mode `{offer.mode}` of {offer.feature}" if offer.mode else f"feature {offer.feature}"
    model = draft.model or ""
    fitting = [v for v in as_dict(data.get("variants")) if _mismatch(data, v, model) is None]
    for variant in offer.variants:
        reason = _mismatch(data, variant, model)
        if reason is None:
            continue
        pointer = offer.pointer + ("variants",) if offer.restricted else draft.pointer
        yield Finding(
            doc,
            pointer,
            f"{where} offers draft `{draft.model}` to variant `{variant}`: {reason}",
            _offer_fix(offer, variant, fitting, offers),
            code="RL501",
        )


def _offer_fix(offer: Offer, variant: str, fitting: list[str], offers: list[Offer]) -> str:
    """A fix that passes RL501 and the rules it leads to: every variant keeps a mode (RL213, RL702)."""
    if not fitting:
        return "name a draft made for the checkpoints this recipe serves, or remove this --speculative-config"
    keep = f"`variants: [{', '.join(fitting)}]`"
    no_draft = (
        'a mode whose --speculative-config names no draft `model` (e.g. `{"method":"ngram",'
        '"num_speculative_tokens":3,"prompt_lookup_max":4}`)'
    )
    if offer.mode is None:
        return (
            f"split {offer.feature}'s `args` into `modes`: one with this draft and {keep}, and {no_draft} "
            "for the other variants (`variants:` is read only on a mode, and every variant needs one)"
        )
    others = [o for o in offers if o.feature == offer.feature and o.mode != offer.mode]
    stranded = [
        v for v in offer.variants if v not in fitting and not any(v in o.variants for o in others)
    ]
    step = (
        f"remove `{variant}` from the mode's `variants`"
        if offer.restricted
        else f"add {keep} to mode `{offer.mode}`"
    )
    if stranded:
        step += f", and add {no_draft} for {', '.join(f'`{v}`' for v in stranded)}, which would have no mode left"
    return step


def _variant_drafts(
    doc: Document, data: dict[str, JsonValue], tokenise: Tokeniser
) -> Iterator[Finding]:
    """A draft written into a variant's own args: it is served with that variant's checkpoint only."""
    for name, spec in as_dict(data.get("variants")).items():
        spec = as_dict(spec)
        sources: list[tuple[Pointer, JsonValue]] = [
            (("variants", name, "extra_args"), spec.get("extra_args"))
        ]
        sources += [
            (
                ("variants", name, "hardware_overrides", hw, "extra_args"),
                as_dict(o).get("extra_args"),
            )
            for hw, o in as_dict(spec.get("hardware_overrides")).items()
        ]
        for pointer, args in sources:
            for draft in _spec_configs(args, pointer, tokenise):
                reason = _mismatch(data, name, draft.model) if draft.model else None
                if reason is None or not precision_words(draft.model or ""):
                    continue
                yield Finding(
                    doc,
                    draft.pointer,
                    f"variant `{name}` runs draft `{draft.model}` from its own args: {reason}",
                    "name a draft made for this variant's checkpoint, or move the "
                    "--speculative-config into a spec_decoding mode with `variants:` listing the "
                    "variants it was made for",
                    code="RL501",
                )


def _same_family(precision: str, words: set[str]) -> bool:
    # nvfp4 checkpoints are often labelled plain fp4 and vice versa.
    return {precision, *words} <= {"fp4", "nvfp4"}


def _fused_drafts_without_default_modes(
    doc: Document, data: dict[str, JsonValue], offers: list[Offer]
) -> Iterator[Finding]:
    variants = as_dict(data.get("variants"))
    for offer in offers:
        if offer.mode is None or not offer.restricted or any(d.model for d in offer.drafts):
            continue
        tokens = _mode_tokens(offer)
        for variant in offer.variants:
            spec = as_dict(variants.get(variant))
            if offer.feature in as_dict(spec.get("default_modes")) or not _names_draft(
                variant, spec, tokens
            ):
                continue
            yield Finding(
                doc,
                ("variants", variant),
                f"variant `{variant}` serves a checkpoint with a fused {offer.mode} draft, but sets no "
                f"default_modes: it opens with {offer.feature}'s default mode (or off, when opt-in)",
                f"add `default_modes: {{{offer.feature}: {offer.mode}}}` to the variant",
                at_key=True,
                code="RL502",
            )


def _mode_tokens(offer: Offer) -> set[str]:
    tokens = {_alnum(offer.mode or "")}
    tokens.update(_alnum(d.method) for d in offer.drafts if d.method)
    return {t for t in tokens if t}


def _alnum(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


def _names_draft(variant: str, spec: dict[str, JsonValue], tokens: set[str]) -> bool:
    """Whether the variant's own names mention the mode's draft method."""
    if not isinstance(spec.get("model_id"), str):
        return False  # same checkpoint as the recipe: nothing fused into it
    words = set(
        re.split(
            r"[^a-z0-9]+",
            " ".join(str(spec.get(k) or "") for k in ("model_id", "label")).lower()
            + " "
            + variant.lower(),
        )
    )
    return bool(words & tokens)


@check("RL503")
def retired_mtp_feature(ctx: CheckContext) -> Iterator[Finding]:
    for doc in ctx.recipes:
        features = as_dict(doc.data.get("features")) if isinstance(doc.data, dict) else {}
        if "mtp" in features:
            yield Finding(
                doc,
                ("features", "mtp"),
                "feature key `mtp` was retired: the site and tools look for `spec_decoding`",
                "rename the feature to `spec_decoding` (and its opt_in_features entry)",
                at_key=True,
            )
