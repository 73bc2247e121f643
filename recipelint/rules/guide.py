"""RL6xx: the markdown guide's code blocks.

Readers copy these blocks verbatim.  A python block must parse, a client call's
`model=` must name a model the server actually serves, and a `vllm serve`
line must serve one of the recipe's checkpoints.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from typing import Final

from recipelint.jsvalue import JsonValue
from recipelint.read.load import Document
from recipelint.resolve.layers import is_omni
from recipelint.rules.common import ArgList, as_dict, as_list, guide_span, guide_text
from recipelint.rules.context import CheckContext
from recipelint.rules.guide_flags import (
    REJECTED,
    UNDERSCORED,
    UNKNOWN_FLAG,
    Claim,
    Structured,
    command_judge,
    command_release,
    deployed_claim,
    repeats_structured,
    runs_main,
    section_claim,
    structured_causes,
)
from recipelint.rules.guide_markdown import (
    PLACEHOLDER,
    PYTHON,
    SERVE,
    SHELL,
    Block,
    fenced_blocks,
)
from recipelint.rules.guide_python import (
    PythonFacts,
    notebook_style,
    python_facts,
    syntax_verdict,
)
from recipelint.rules.guide_sections import GuideOutline, HardwareWords, hardware_words
from recipelint.rules.guide_shell import (
    GuideCommand,
    Spans,
    guide_commands_in,
    logical_line_spans,
    logical_lines,
    serve_names,
)
from recipelint.rules.registry import Finding, check

SERVED_MODEL_NAME = "--served-model-name"
# RL607 (recipelint.rules.guide_hardware) reads the same guides after these rules: each
# guide's facts are handed over to it in CheckContext.handed_over under this key.
GUIDE_FACTS: Final = "guide_facts"
# The code of RL607, whose check takes the facts handed over.
HARDWARE_SECTION = "RL607"


def served_models(data: dict[str, JsonValue], arg_lists: list[ArgList]) -> set[str]:
    """Model ids and --served-model-name values any command of the recipe serves."""
    names: list[JsonValue] = [as_dict(data.get("model")).get("model_id")]
    names += [as_dict(v).get("model_id") for v in as_dict(data.get("variants")).values()]
    names += [as_dict(t).get("model_id") for t in as_list(as_dict(data.get("omni")).get("tasks"))]
    for arg_list in arg_lists:
        for unit in arg_list.units:
            if unit.flag.startswith(SERVED_MODEL_NAME) and unit.name == SERVED_MODEL_NAME:
                value = unit.inline_value if unit.inline_value is not None else unit.value
                names += value.split() if isinstance(value, str) else []
    return {n for n in names if isinstance(n, str) and n}


def guide_facts(ctx: CheckContext, text: str) -> GuideFacts:
    """The facts of a guide that guide_blocks read (and handed over) this run, else new ones."""
    handed: dict[str, GuideFacts] = ctx.handed_over.get(GUIDE_FACTS, {})
    found = handed.pop(text, None)
    return found if found is not None else GuideFacts(text)


class GuideFacts:
    """What the guide rules read of one guide, each worked out when first asked.

    RL601-RL606 are one check (guide_blocks) that asks for these facts once per recipe
    and drops them with it, so a guide is read once per run and none outlives it.
    """

    def __init__(self, text: str) -> None:
        self.text = text
        self.logical_line_spans: dict[str, Spans] = {}

    def spans(self, code: str) -> Spans:
        """A block's logical lines, which RL603 and RL604-RL606 both read."""
        found = self.logical_line_spans.get(code)
        if found is None:
            found = self.logical_line_spans[code] = logical_line_spans(code)
        return found

    @functools.cached_property
    def blocks(self) -> tuple[Block, ...]:
        return fenced_blocks(self.text)

    @functools.cached_property
    def python(self) -> tuple[tuple[Block, PythonFacts], ...]:
        """The Python blocks meant to run as a module (not transcripts), with their facts."""
        return tuple(
            (block, python_facts(block.code))
            for block in self.blocks
            if block.language in PYTHON and not notebook_style(block.code)
        )

    @functools.cached_property
    def served(self) -> frozenset[str]:
        """Names the guide's own `vllm serve` lines make available (the model or --served-model-name)."""
        names: set[str] = set()
        for block in self.blocks:
            for command in logical_lines(block.code):
                names.update(serve_names(command))
        return frozenset(names)

    @functools.cached_property
    def commands(self) -> tuple[GuideCommand, ...]:
        return tuple(guide_commands_in(self.text, self.blocks, self.spans))


# The language server checks the buffer being typed in after every keystroke, its guide mostly
# unchanged: the last few guides' facts outlive their run. A check of a tree reads each guide
# once, so this never serves it.
@functools.lru_cache(maxsize=8)
def _recent_facts(guide: str) -> GuideFacts:
    return GuideFacts(guide)


@check("RL601", "RL602", "RL603", "RL604", "RL605", "RL606")
def guide_blocks(ctx: CheckContext) -> Iterator[Finding]:
    """RL601-RL606 from one reading of each guide: its blocks, Python facts and serve commands
    are worked out once, for every rule, and handed over to RL607 when it runs (none outlives
    the run)."""
    enabled = ctx.config.is_enabled
    parse, names = enabled("RL601"), enabled("RL602") or enabled("RL603")
    flags = any(enabled(code) for code in (UNKNOWN_FLAG, REJECTED, UNDERSCORED))
    # A guide may show a related recipe's command.
    siblings = {hf_id.lower() for hf_id in ctx.hf_ids} if names else set()
    handed = ctx.handed_over.setdefault(GUIDE_FACTS, {}) if enabled(HARDWARE_SECTION) else None
    words = functools.cache(functools.partial(hardware_words, ctx))
    for doc in ctx.recipes:
        text = guide_text(doc)
        if not text:
            continue
        guide = _recent_facts(text)
        if handed is not None:
            handed[text] = guide
        if parse:
            yield from _parse_failures(doc, guide)
        if names:
            served = served_models(as_dict(doc.data), ctx.arg_lists_of(doc))
            yield from _client_model_names(doc, guide, served)
            yield from _serve_lines(doc, guide, served, siblings)
        if flags:
            scope = SectionScope(ctx, doc, guide, words)
            yield from _serve_flag_verdicts(doc, guide, ctx.arg_lists_of(doc), scope)


def _parse_failures(doc: Document, guide: GuideFacts) -> Iterator[Finding]:
    """RL601: a python block that does not parse."""
    for block, (refusal, _models) in guide.python:
        error = syntax_verdict(block.code, refusal)
        if error is not None:
            yield Finding(
                doc,
                ("guide",),
                f"python block in the guide does not parse: {error[0]}",
                "fix the snippet; mark illustrative fragments as ```text",
                code="RL601",
                span=guide_span(doc, block.line + error[1] - 1),
            )


def _client_model_names(doc: Document, guide: GuideFacts, served: set[str]) -> Iterator[Finding]:
    for block, (_refusal, models) in guide.python:
        for model, line in models:
            if model in served or PLACEHOLDER.search(model) or model in guide.served:
                continue
            yield Finding(
                doc,
                ("guide",),
                f"the guide's client asks for model `{model}`, which no command of this recipe "
                "serves: the server answers 404",
                f"pass one of the served names: {', '.join(f'`{n}`' for n in sorted(served)[:4])}",
                code="RL602",
                span=guide_span(doc, block.line + line - 1, model),
            )


# Name parts that make a repository another build of the same model, not another model:
# a quantisation, or the instruct/base/chat release of the same weights.
ALTERNATIVE_WORDS = frozenset(
    {
        "nvfp4",
        "mxfp4",
        "fp4",
        "fp8",
        "bf16",
        "fp16",
        "int4",
        "int8",
        "awq",
        "gptq",
        "w4a16",
        "w8a8",
        "w4a8",
        "dynamic",
        "block",
        "instruct",
        "base",
        "chat",
        "it",
    }
)


# Weight/activation bit widths (`W4A4`, `W8A8`) and number formats (`FP8`, `INT4`, `NVFP4`).
QUANT_WORD = re.compile(r"w\d+a\d+|(?:nv|mx)?fp\d+|int\d+|bf\d+")


def _stem(repo_name: str) -> str:
    """A repository name without its trailing quantisation and release words (`X-Instruct-FP8` -> `x`)."""
    words = re.split(r"[-_]", repo_name.lower())
    while len(words) > 1 and (words[-1] in ALTERNATIVE_WORDS or QUANT_WORD.fullmatch(words[-1])):
        words.pop()
    return "-".join(words)


def _alternative_checkpoint(model: str, served: set[str]) -> bool:
    """Whether ``model`` is another build of a model the recipe serves: the same repository name
    but for quantisation and release words. Third-party quantisations (a publisher's NVFP4 build
    of the model) count too: a guide names them on purpose, as the alternative to try. The very
    checkpoint the recipe serves, under another publisher, does not: that is a variant moved to
    a new publisher while the guide still serves the old one."""
    publisher, _, name = model.lower().partition("/")
    if not name:
        return False
    builds = [s.lower().partition("/") for s in served if "/" in s]
    if any(own == name and owner != publisher for owner, _, own in builds):
        return False
    return _stem(name) in {_stem(own) for _, _, own in builds}


def _serve_lines(
    doc: Document, guide: GuideFacts, served: set[str], siblings: set[str]
) -> Iterator[Finding]:
    reported: set[str] = set()
    for block in guide.blocks:
        if block.language not in SHELL and block.language or "vllm" not in block.code:
            continue  # not shell, or no `vllm serve` in it
        for start, _end, command in guide.spans(block.code):
            match = SERVE.search(command) if "vllm" in command else None  # SERVE needs the word
            model = match.group(1).strip("'\"") if match else None
            if (
                not model
                or model.startswith("-")
                or PLACEHOLDER.search(model)
                or model in served
                or model.lower() in siblings
                or model in reported
                or _alternative_checkpoint(model, served)
            ):
                continue
            reported.add(model)
            ids = _recipe_ids(as_dict(doc.data))
            yield Finding(
                doc,
                ("guide",),
                f"the guide's `vllm serve {model}` serves a checkpoint this recipe does not offer "
                "(not model.model_id, a variant's model_id nor another recipe of the tree)",
                f"serve `{ids[0]}` here"
                + (f" (or {', '.join(f'`{i}`' for i in ids[1:4])})" if len(ids) > 1 else "")
                + f", or add a variant with `model_id: {model}`",
                code="RL603",
                span=guide_span(doc, block.line + start, model),
            )


def _recipe_ids(data: dict[str, JsonValue]) -> list[str]:
    """The recipe's own checkpoints, model first: what a guide's launch command should serve."""
    ids = [as_dict(data.get("model")).get("model_id")]
    ids += [as_dict(v).get("model_id") for v in as_dict(data.get("variants")).values()]
    found = [i for i in dict.fromkeys(ids) if isinstance(i, str) and i]
    return found or ["model.model_id"]


def _package(doc: Document, command: GuideCommand) -> str:
    omni = is_omni(doc.data) or "--omni" in command.words
    return "vllm-omni" if omni else "vllm"


class SectionScope:
    """What the section a guide command is written in says of the build it runs: the build
    its own words ask for (section_claim), else the one the recipe's image runs on the
    hardware it is about (deployed_claim). Read only for a command drawing a verdict."""

    def __init__(
        self,
        ctx: CheckContext,
        doc: Document,
        guide: GuideFacts,
        words: Callable[[], HardwareWords],
    ) -> None:
        self.ctx, self.doc, self.guide, self._words = ctx, doc, guide, words

    @functools.cached_property
    def outline(self) -> GuideOutline:
        return GuideOutline(self.guide.text, self.guide.blocks, self._words())

    def claim(self, command: GuideCommand, release: str, package: str) -> tuple[str, Claim] | None:
        if not command.lines:
            return None
        line = command.lines[0][0]
        text = self.outline.section_text(line)
        stated = section_claim(text, release, package) if text is not None else None
        if stated is not None or package != "vllm":
            return stated
        section = self.outline.section(line)
        if section is None:
            return None
        profiles = self.ctx.profiles
        hardware = [(hw_id, profiles.get(hw_id)) for hw_id in sorted(section.members)]
        return deployed_claim(as_dict(self.doc.data), hardware, command, release)


def _serve_flag_verdicts(
    doc: Document, guide: GuideFacts, arg_lists: list[ArgList], scope: SectionScope
) -> Iterator[Finding]:
    """RL604-RL606: the options of the guide's serve commands, each place reported once; a
    verdict the recipe's own args already earn for the same cause is left to their rule.

    A command drawing a verdict at the recipe's claim is judged again at its section's
    (SectionScope), which only narrows the releases it runs on: the verdicts there stand."""
    seen: set[tuple[int, int, str | None]] = set()
    structured: Structured | None = None
    main: dict[str, bool] = {}  # per package: whether the recipe runs its main branch
    for command in guide.commands:
        package = _package(doc, command)
        if package not in main:
            main[package] = runs_main(as_dict(doc.data), package)
        release, claim = command_release(as_dict(doc.data), command, package, main[package])
        verdicts = list(command_judge(release, package, claim).findings(command))
        if verdicts and claim.image is None and not claim.open_ended:
            scoped = scope.claim(command, release, package)
            if scoped is not None:
                judge = command_judge(scoped[0], package, scoped[1])
                verdicts = list(judge.findings(command))
        for verdict in verdicts:
            if verdict.cause is not None:
                if structured is None:
                    structured = structured_causes(as_dict(doc.data), arg_lists)
                if repeats_structured(verdict.cause, structured):
                    continue
            finding = verdict.placed(doc)
            key = (
                (finding.span.line, finding.span.column, finding.code)
                if finding.span
                else (0, 0, finding.code)
            )
            if key not in seen:
                seen.add(key)
                yield finding
