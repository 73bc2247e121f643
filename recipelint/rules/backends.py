"""RL370–RL373: attention backends, quantization methods and MoE backends selected for hardware that cannot run them.

Every command the compiler can render (resolved.command_choices) is assembled from its
layers (resolved_commands plans and assembles them once, for these rules and RL340/RL341); the attention backend it selects (``--attention-backend``, the ``backend`` key of
``--attention-config``, ``VLLM_ATTENTION_BACKEND``), its ``--quantization`` method and its
``--moe-backend`` are judged, for each hardware profile the command is rendered for, against what each vLLM
release from the recipe's minimum on says of them (:mod:`recipelint.flags.hardware`): which platform
modules select a backend, which CUDA capabilities it states, which quantization methods a
platform accepts, which platforms and capabilities a MoE backend's kernels run on. The platform and the CUDA capabilities of a profile come from its
taxonomy entry: ``compute_arch`` (``sm100``, ``gfx942``) when given, else its brand and
generation. A hardware is judged only where the image its commands run in runs platform code
the catalog reads (catalogued_platform): not a build of its own, nor a release whose platform
for it is an out-of-tree plugin's.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

import orjson

from recipelint.flags.catalog import Catalog as FlagCatalog
from recipelint.flags.catalog import newest_catalog, version_key
from recipelint.flags.catalogfiles import HardwareEra
from recipelint.flags.env_catalog import env_spec
from recipelint.flags.hardware_catalog import (
    attention_backend,
    attention_selector,
    backend_runs_on,
    load_hardware_catalog,
    moe_backend,
    moe_backend_runs_on,
    quantization_on,
)
from recipelint.jsvalue import get
from recipelint.read.load import Document
from recipelint.resolve import layers
from recipelint.resolve.command import RenderInputs
from recipelint.resolve.deployment import image_facts
from recipelint.resolve.docker import is_other_build
from recipelint.resolve.plan import SYNTHESIS_ERRORS
from recipelint.rules.commandplan import EXACT_STEPS, Assembler, CommandChoice
from recipelint.rules.common import ArgList, ArgUnit, Pointer, as_dict
from recipelint.rules.context import CheckContext
from recipelint.rules.environment import minimum_release
from recipelint.rules.registry import Finding

WRONG_PLATFORM, WRONG_HARDWARE, QUANTIZATION, MOE = "RL370", "RL371", "RL372", "RL373"
CODES = (WRONG_PLATFORM, WRONG_HARDWARE, QUANTIZATION, MOE)
BACKEND_ENV = "VLLM_ATTENTION_BACKEND"
# What a command selects: a backend by option, a backend by the variable, a quantization method.
ATTENTION, ATTENTION_ENV, QUANTIZATION_KIND = "attention", "attention-env", "quantization"
MOE_KIND = "moe"
SELECTING = frozenset(
    {"--attention-backend", "--attention-config", "--quantization", "--moe-backend"}
)
# Platforms whose MoE oracles validate an explicit --moe-backend and raise when its kernel
# does not support the device; CPU and TPU skip the choice for their own kernels.
MOE_PLATFORMS = frozenset({"cuda", "rocm"})

# Accelerator generations named in taxonomies, as the CUDA capabilities their GPUs report.
# A generation spanning several (Blackwell: SM100 data-centre, SM120 workstation parts)
# is judged only where every one of them disagrees; `compute_arch` settles the rest.
GENERATION_CAPABILITIES: dict[str, tuple[tuple[int, int], ...]] = {
    "volta": ((7, 0),),
    "turing": ((7, 5),),
    "ampere": ((8, 0), (8, 6), (8, 7)),
    "ada": ((8, 9),),
    "hopper": ((9, 0),),
    "blackwell": ((10, 0), (10, 3), (11, 0), (12, 0), (12, 1)),
}
# Taxonomy generations that are themselves a vLLM platform.
PLATFORM_GENERATIONS = frozenset({"cpu", "tpu", "xpu"})
BRAND_PLATFORMS = {"NVIDIA": "cuda", "AMD": "rocm"}
# Where the hardware catalog has no per-platform reading of the release's selector (vLLM
# before per-platform selectors), the platforms known to log "Cannot use <backend> backend"
# and run their own backend: a selection there misleads rather than breaks (a warning).
# Every release with platform selectors says so itself (selector/<platform> in the catalog).
FALLBACK_PLATFORMS = frozenset({"cpu", "tpu", "xpu"})
_SM = re.compile(r"^sm_?(\d+)(\d)[a-z]?$")


@dataclass(frozen=True)
class Target:
    """How vLLM sees one hardware profile: its platform and, on CUDA, the capabilities it may report."""

    platform: str
    capabilities: tuple[tuple[int, int], ...] = ()


def target_of(profile: object) -> Target | None:
    """The vLLM platform of a taxonomy profile; None where no built-in platform runs it (a plugin's)."""
    arch, brand = get(profile, "compute_arch"), get(profile, "brand")
    generations = _generations(profile)
    if isinstance(arch, str) and (found := _SM.match(arch)):
        return Target("cuda", ((int(found[1]), int(found[2])),))
    if isinstance(arch, str) and arch.startswith("gfx"):
        return Target("rocm")
    platforms = generations & PLATFORM_GENERATIONS
    if len(platforms) == 1:
        return Target(next(iter(platforms)))
    platform = BRAND_PLATFORMS.get(brand) if isinstance(brand, str) else None
    if platform is None or platforms:
        return None
    capabilities = [c for g in sorted(generations) for c in GENERATION_CAPABILITIES.get(g, ())]
    known = all(g in GENERATION_CAPABILITIES for g in generations) and platform == "cuda"
    return Target(platform, tuple(dict.fromkeys(capabilities)) if known else ())


def _generations(profile: object) -> set[str]:
    gen = get(profile, "generation")
    if gen is None or not isinstance(gen, (str, list)):
        gen = get(profile, "gpu_generation")
    items = gen if isinstance(gen, list) else [gen]
    return {item.lower() for item in items if isinstance(item, str)}


@dataclass(frozen=True)
class BackendChoice:
    """A backend or quantization method a command selects, and where it is written."""

    kind: str  # ATTENTION, ATTENTION_ENV, QUANTIZATION_KIND or MOE_KIND
    name: str
    doc: Document
    pointer: Pointer
    spelled: str  # how the command selects it, for the message


# What a list's units select, before the list places it: (kind, name, item index, spelled).
UnitSelection = tuple[str, str, int, str]


def _arg_selections(catalog: FlagCatalog, layer: ArgList) -> Iterator[BackendChoice]:
    return _placed(layer, _unit_selections(catalog, layer.units))


def _placed(layer: ArgList, selections: Iterable[UnitSelection]) -> Iterator[BackendChoice]:
    """What a list's units select, at the list's own items."""
    for kind, name, index, spelled in selections:
        yield BackendChoice(kind, name, layer.doc, layer.at(index), spelled)


def _unit_selections(catalog: FlagCatalog, units: list[ArgUnit]) -> Iterator[UnitSelection]:
    for unit in units:
        hit = catalog.lookup(unit.name)
        if hit.canonical not in SELECTING:
            continue  # most options select nothing: their value and place are not worked out
        value = unit.inline_value if unit.inline_value is not None else unit.text_value
        if value is None:
            continue
        at = unit.index if unit.value_index is None else unit.value_index
        if hit.canonical == "--attention-backend":
            yield ATTENTION, value, at, f"--attention-backend {value}"
        elif hit.canonical == "--quantization":
            yield QUANTIZATION_KIND, value, at, f"{unit.name} {value}"
        elif hit.canonical == "--moe-backend":
            # vLLM's parser lower-cases the choice and turns dashes into underscores.
            yield MOE_KIND, value.lower().replace("-", "_"), at, f"{unit.name} {value}"
        elif hit.canonical == "--attention-config":
            backend = _config_backend(hit.json_path, value)
            if backend is not None:
                yield ATTENTION, backend, at, f"{unit.name} backend {backend}"


def _config_backend(path: tuple[str, ...], value: str) -> str | None:
    """The backend of `--attention-config.backend X` or of `--attention-config '{"backend": X}'`."""
    if path == ("backend",):
        return value
    if path:
        return None
    try:
        data = orjson.loads(value)
    except orjson.JSONDecodeError:
        return None  # bad JSON is RL308's finding
    backend = data.get("backend") if isinstance(data, dict) else None
    return backend if isinstance(backend, str) else None


def _env_selections(layer: layers.Layer, doc: Document) -> Iterator[BackendChoice]:
    items = layer.items
    value = items.get(BACKEND_ENV) if isinstance(items, dict) else None
    if isinstance(value, str) and value:
        pointer = (*layer.pointer, BACKEND_ENV)
        yield BackendChoice(ATTENTION_ENV, value, doc, pointer, f"{BACKEND_ENV}={value}")


# The env steps whose lists can be the recipe's (the strategy file's are judged with no
# hardware), each with the names it reads, in the order Assembler.reads keys its parts by.
ENV_RULE_STEPS = tuple(
    (step, tuple(sorted(step.reads)))
    for step in layers.ENV_STEPS
    if step is not layers.EMITTER
    and "kv" not in step.reads
    and any(place.document == layers.RECIPE for place in step.places)
)


@dataclass
class SelectionMemo:
    """What one recipe's lists select, read once for all its combinations.

    ``lists``: what a recipe list's units select, by the identity of the units (they are kept, so
    the id is not reused): the combinations share their lists, and reading a list's flags is the
    cost. Lists of equal items share their units, so each list places what they select itself.
    ``env_steps``: an env step's selections under (step, what the step reads)."""

    lists: dict[int, tuple[list[ArgUnit], list[UnitSelection]]] = field(default_factory=dict)
    env_steps: dict[tuple[object, ...], list[BackendChoice]] = field(default_factory=dict)


def _selections(
    assembler: Assembler, combo: CommandChoice, flags: FlagCatalog, memo: SelectionMemo
) -> Iterator[BackendChoice]:
    """What the combination's own recipe layers select (strategy files are judged with no hardware)."""
    for arg_layer in assembler.layers(combo):
        if arg_layer.doc is assembler.doc:
            units = arg_layer.units
            cached = memo.lists.get(id(units))
            if cached is None or cached[0] is not units:
                cached = memo.lists[id(units)] = (units, list(_unit_selections(flags, units)))
            yield from _placed(arg_layer, cached[1])
    yield from _env_step_selections(assembler, combo, memo)


def _env_step_selections(
    assembler: Assembler, combo: CommandChoice, memo: SelectionMemo
) -> Iterator[BackendChoice]:
    """What the recipe's env layers select, each step's read once per what that step reads."""
    hw_class = assembler.layer_class(combo.hw_id)
    reads = assembler.reads(combo, hw_class)
    # Without the strategy's own generation table, the generation layers are the recipe's and
    # the variant's whatever the strategy.
    by_strategy = assembler.has_generation_table(combo.strategy)
    selection: layers.Selection | None = None
    for step, names in ENV_RULE_STEPS:
        if type(hw_class) is not str and step.name in EXACT_STEPS:
            continue  # a hardware of a class is named by no hardware table
        if step.name == "generation" and not by_strategy:
            key: tuple[object, ...] = ("generation", reads["variant"], reads["generation"])
        else:
            key = (step.name, *[reads[name] for name in names])
        found = memo.env_steps.get(key)
        if found is None:
            selection = selection or assembler.selection(combo)
            found = memo.env_steps[key] = [
                chosen
                for env_layer in layers.step_layers(step, selection, combo.role)
                if env_layer.document == layers.RECIPE
                for chosen in _env_selections(env_layer, assembler.doc)
            ]
        yield from found


@dataclass(frozen=True)
class Verdict:
    code: str
    reason: str
    version: str  # the first release of the recipe's range that cannot run it
    fallback: bool = False  # the platform runs its own backend instead: the choice does nothing


def judge(chosen: BackendChoice, target: Target, release: str) -> Verdict | None:
    """Why a release from ``release`` on cannot run the selection on ``target``, the first
    one that cannot; None when every one can, or the catalog cannot tell."""
    return _first_verdict(chosen.kind, chosen.name, target, release)


@functools.lru_cache(maxsize=4096)
def _first_verdict(kind: str, name: str, target: Target, release: str) -> Verdict | None:
    """The first release that refuses the selection; else the first that only ignores it or
    may not run it (a platform falling back in one release can refuse in a later one)."""
    first: Verdict | None = None
    for version in _releases_from(release):
        verdict = _verdict(kind, name, target, version)
        if verdict is None:
            continue
        if verdict.code != WRONG_HARDWARE:
            return verdict
        first = first or verdict
    return first


@functools.cache
def _releases_from(release: str) -> tuple[str, ...]:
    """``release`` and every catalogued release after it: the range a recipe claims."""
    later = [
        r for r in load_hardware_catalog()["releases"] if version_key(r) > version_key(release)
    ]
    return (release, *later)


@functools.lru_cache(maxsize=4096)
def _verdict(kind: str, name: str, target: Target, release: str) -> Verdict | None:
    if kind == QUANTIZATION_KIND:
        if quantization_on(name, release, target.platform) == "no":
            reason = f"vLLM's {target.platform} platform does not list it"
            return Verdict(QUANTIZATION, reason, release)
        return None
    if kind == MOE_KIND:
        return _moe_verdict(name, target, release)
    if kind == ATTENTION_ENV and env_spec(BACKEND_ENV, release) is None:
        return None  # a release that does not read the variable ignores it (RL361's finding)
    entry = attention_backend(name, release)
    selector = attention_selector(target.platform, release)
    if entry is None or (selector is not None and selector.get("out_of_tree")):
        return None  # unknown to the release (RL351/RL353's), or a plugin platform selects
    platforms = entry.get("platforms")
    if not platforms and not {"majors", "min", "max"} & entry.keys():
        return None  # selected by models only, and no GPU limit stated
    if platforms and backend_runs_on(name, release, target.platform) == "no":
        names = ", ".join(platforms)
        fallback = _falls_back(selector, name, target.platform)
        code = WRONG_HARDWARE if fallback else WRONG_PLATFORM
        return Verdict(code, f"only the {names} platform selects it", release, fallback)
    if target.platform != "cuda" or not target.capabilities:
        return None
    runs = {backend_runs_on(name, release, "cuda", c) for c in target.capabilities}
    if runs == {"no"}:
        return Verdict(WRONG_HARDWARE, f"it supports `{entry.get('capability')}` only", release)
    return None


def _falls_back(selector: HardwareEra | None, name: str, platform: str) -> bool:
    """Whether the platform's selector runs its own backend for one it does not handle (MLA
    backends go through its MLA branch, which may refuse where the other branch does not)."""
    if selector is None:
        return platform in FALLBACK_PLATFORMS
    return bool(selector.get("mla" if "MLA" in name.upper() else "unsupported") == "fallback")


def _moe_verdict(name: str, target: Target, release: str) -> Verdict | None:
    if target.platform not in MOE_PLATFORMS:
        return None
    entry = moe_backend(name, release)
    if entry is None:
        return None
    if moe_backend_runs_on(name, release, target.platform) == "no":
        names = ", ".join(entry["platforms"])
        return Verdict(MOE, f"its kernels run on the {names} platform only", release)
    if target.platform != "cuda" or not target.capabilities:
        return None
    runs = {moe_backend_runs_on(name, release, "cuda", c) for c in target.capabilities}
    if runs == {"no"}:
        listed = ", ".join(entry["capabilities"])
        return Verdict(MOE, f"its kernels support CUDA capabilities {listed} only", release)
    return None


def _release_of(recipe: object, variant: str) -> str:
    found = minimum_release(recipe, ("variants", variant, "extra_args"))
    return found or load_hardware_catalog()["releases"][-1]


@dataclass
class Reported:
    verdict: Verdict
    chosen: BackendChoice
    release: str
    hardware: list[str]


class BackendJudge:
    """RL370-RL373 over the commands resolved_commands plans: a recipe's commands are planned
    and assembled once for both families."""

    def __init__(self, inputs: RenderInputs) -> None:
        self.flags = newest_catalog()
        self.inputs = inputs
        self.targets: dict[str, Target | None] = {}  # hw_id -> target_of(its profile)

    @functools.cached_property
    def every_target(self) -> frozenset[Target]:
        """The targets of every profile (and of a hardware no profile describes)."""
        profiles = [*self.inputs.profiles.values(), {}]
        return frozenset(t for t in map(target_of, profiles) if t is not None)

    def refusing(self, ctx: CheckContext, doc: Document) -> frozenset[Target]:
        """The targets that cannot run something the recipe selects, at some release it
        claims (most recipes select nothing at all): only commands rendered for one of
        these can be reported, and a recipe without any is not judged command by command."""
        chosen = _written_selections(ctx, doc, self.flags)
        if not chosen:
            return frozenset()
        variants = as_dict(as_dict(doc.data).get("variants"))
        releases = {_release_of(doc.data, variant) for variant in variants}
        return frozenset(
            target
            for target in self.every_target
            if any(
                judge(selection, target, release) is not None
                for selection in chosen
                for release in releases
            )
        )

    def wants(self, ctx: CheckContext, doc: Document) -> bool:
        """Whether some of the recipe's commands can be reported (see refusing)."""
        return bool(self.refusing(ctx, doc))

    def findings(
        self,
        assembler: Assembler,
        combos: list[CommandChoice],
        refusing: frozenset[Target] | None = None,
    ) -> Iterator[Finding]:
        """The recipe's findings; with ``refusing`` (its refusing targets), a command rendered
        for none of them is not read."""
        return _recipe_findings(assembler, combos, self.flags, self.inputs, self.targets, refusing)


def backend_judge(ctx: CheckContext, inputs: RenderInputs) -> BackendJudge | None:
    """The judge of this run's commands, None when none of its rules is enabled."""
    return BackendJudge(inputs) if any(ctx.config.is_enabled(c) for c in CODES) else None


def _recipe_findings(
    assembler: Assembler,
    combos: list[CommandChoice],
    flags: FlagCatalog,
    inputs: RenderInputs,
    targets: dict[str, Target | None],
    refusing: frozenset[Target] | None = None,
) -> Iterator[Finding]:
    found: dict[tuple[Pointer, str, str], Reported] = {}
    releases: dict[str, str] = {}
    memo = SelectionMemo()
    # Combinations of one layer class select the very same: their selections are read once.
    commands: dict[tuple[object, ...], list[BackendChoice]] = {}
    for combo in combos:
        members = [
            (member, target)
            for member in combo.members or (combo.hw_id,)
            if (target := _target(member, inputs, targets)) is not None
            and catalogued_platform(assembler.image(combo.variant, member), target)
        ]
        if refusing is not None and not any(target in refusing for _, target in members):
            continue  # no hardware of it refuses anything the recipe selects
        release = releases.get(combo.variant)
        if release is None:
            release = releases[combo.variant] = _release_of(assembler.recipe, combo.variant)
        command = (combo.variant, assembler.layer_class(combo.hw_id), combo.strategy, combo.role)
        chosen = commands.get(command)
        if chosen is None:
            try:
                chosen = commands[command] = list(_selections(assembler, combo, flags, memo))
            except SYNTHESIS_ERRORS:
                continue
        if not chosen:
            continue
        for member, target in members:
            _judge_member(found, chosen, target, member, release)
    for entry in found.values():
        yield _finding(entry)


@functools.lru_cache(maxsize=256)
def catalogued_platform(image: str | None, target: Target) -> bool:
    """Whether the platform code that runs a hardware in its image is what the catalogs read:
    not in an image of another build (its own platform code), nor where the release the image
    runs (its version tag; the newest catalogued for `latest`, `nightly` and the like) takes
    the hardware's platform from an out-of-tree plugin (TPU from 0.14 on: tpu-inference).
    Then what the in-tree platform of older releases lists is not what runs. No image: the
    recipe's range is judged as written."""
    if image is None:
        return True
    if is_other_build(image):
        return False
    release = image_facts(image).vllm_release or load_hardware_catalog()["releases"][-1]
    selector = attention_selector(target.platform, release)
    return not (selector is not None and selector.get("out_of_tree"))


UNKNOWN_TARGET = Target("")  # a hardware whose target is not worked out yet


def _target(member: str, inputs: RenderInputs, targets: dict[str, Target | None]) -> Target | None:
    target = targets.get(member, UNKNOWN_TARGET)
    if target is UNKNOWN_TARGET:
        target = targets[member] = target_of(inputs.profiles.get(member, {}))
    return target


def _judge_member(
    found: dict[tuple[Pointer, str, str], Reported],
    chosen: list[BackendChoice],
    target: Target | None,
    member: str,
    release: str,
) -> None:
    if target is None:
        return
    for selection in chosen:
        verdict = judge(selection, target, release)
        if verdict is not None:
            key = (selection.pointer, selection.name, verdict.code)
            entry = found.setdefault(key, Reported(verdict, selection, release, []))
            if member not in entry.hardware:
                entry.hardware.append(member)


def _written_selections(
    ctx: CheckContext, doc: Document, flags: FlagCatalog
) -> list[BackendChoice]:
    """What the recipe's own lists select, wherever they sit: every command's selections
    are among these (_selections reads the recipe's lists the same way)."""
    chosen = [
        selection
        for arg_list in ctx.arg_lists_of(doc)
        for selection in _arg_selections(flags, arg_list)
    ]
    for pointer, values in ctx.env_mappings_of(doc):
        value = values.get(BACKEND_ENV)
        if isinstance(value, str) and value:
            shown = f"{BACKEND_ENV}={value}"
            chosen.append(BackendChoice(ATTENTION_ENV, value, doc, (*pointer, BACKEND_ENV), shown))
    return chosen


def _claim(minimum: str, version: str) -> str:
    return "" if version == minimum else f" (the recipe claims {minimum} on)"


def _finding(entry: Reported) -> Finding:
    chosen, verdict = entry.chosen, entry.verdict
    hardware = ", ".join(entry.hardware)
    what = {QUANTIZATION_KIND: "quantization method", MOE_KIND: "MoE backend"}.get(
        chosen.kind, "attention backend"
    )
    if verdict.fallback:
        consequence = "vLLM runs its own backend instead, so the choice does nothing there"
    elif verdict.code == WRONG_HARDWARE:
        consequence = "vLLM refuses it or runs another backend"
    else:
        consequence = "vLLM refuses to start"
    return Finding(
        chosen.doc,
        chosen.pointer,
        f"`{chosen.spelled}` selects the {what} `{chosen.name}` for {hardware}, but in vLLM "
        f"{verdict.version}{_claim(entry.release, verdict.version)} {verdict.reason}: {consequence}",
        f"move it to a hardware_overrides entry of hardware that runs {chosen.name}, "
        "or select one this hardware supports",
        code=verdict.code,
    )
