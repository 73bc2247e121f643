"""RL380–RL383: the deployment a rendered command makes (recipelint.resolve.deployment).

It is long because RL380-RL383 share one planning pass over the combinations, and its memos;
the deployment model itself is recipelint.resolve.deployment.

For the combinations the compiler renders, the deployment model says how many ranks the
command starts against the GPUs its strategy allots (RL380), which architecture and platform
its image is built for against the hardware it lands on (RL381), and whether the weights and
the variant's declared VRAM fit the GPUs the command uses (RL382, RL383).

Most recipes set no parallel size of their own, pin no architecture-specific image and
declare variants that fit one GPU: those are not planned at all. The others are planned with
the compile's own choices (resolve.plan) and only the emitter's tokens are rendered, unless a
list of the recipe or of a strategy file sets a parallel size.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass, field

from recipelint.flags.catalog import Catalog
from recipelint.jsvalue import JsonValue, JsValue, get, is_number
from recipelint.read.load import Document
from recipelint.resolve import layers
from recipelint.resolve.command import (
    Combination,
    Emitted,
    Placement,
    RenderInputs,
    command_parts,
    emitted,
    rendered_args,
)
from recipelint.resolve.deployment import (
    EXPERT_PARALLEL,
    RANK_OPTIONS,
    Deployment,
    Ranks,
    deployment_of,
    image_facts,
    rank_problem,
    ranks_of,
    variant_weights_gb,
)
from recipelint.resolve.hardware import list_compatible_hardware
from recipelint.resolve.inputs import Memo
from recipelint.resolve.layers import PD_ROLES, Scope
from recipelint.resolve.plan import SYNTHESIS_ERRORS, planned_combinations
from recipelint.rules.args import multiplies_ranks
from recipelint.rules.common import ArgList, Pointer, as_dict, flag_catalog
from recipelint.rules.context import CheckContext
from recipelint.rules.registry import Finding, check
from recipelint.rules.versions import recipe_images

CODES = ("RL380", "RL381", "RL382", "RL383")
# Real recipes plan a few hundred commands at most; the cap bounds a hostile file's cost.
MAX_COMMANDS = 4000


class _Shared:
    """What every recipe of a run reads alike, worked out once per run: the strategy files'
    lists that set a parallel size (per flag catalog), the ranks of an emitter's tokens (most
    recipes' commands are sized by a handful of emitter outputs), each GPU's room."""

    def __init__(self, ctx: CheckContext) -> None:
        strategies = {id(spec) for spec in ctx.strategies.values()}
        self.strategy_lists = [a for a in ctx.shared_arg_lists if id(a.doc) in strategies]
        self._sizing: dict[int, tuple[Scope, ...]] = {}
        self._ranks: dict[tuple[int, tuple[object, ...]], Ranks] = {}
        self.rooms = {hw_id: _rooms(profile) for hw_id, profile in ctx.profiles.items()}

    def strategy_sizing(self, flags: Catalog) -> tuple[Scope, ...]:
        found = self._sizing.get(id(flags))
        if found is None:
            found = self._sizing[id(flags)] = _sizing_of(self.strategy_lists, flags)
        return found

    def emitter_ranks(self, tokens: list[JsValue], flags: Catalog) -> Ranks:
        """ranks_of, kept per token list: equal keys only for tokens of equal type and value
        (`1`, `1.0` and `true` read differently)."""
        key = (id(flags), tuple(t if type(t) is str else (type(t), t) for t in tokens))
        try:
            found = self._ranks.get(key)
        except TypeError:  # a token no scalar: read it every time
            return ranks_of(tokens, flags)
        if found is None:
            found = self._ranks[key] = ranks_of(tokens, flags)
        return found


def _sizing_scopes(
    ctx: CheckContext, shared: _Shared, doc: Document, flags: Catalog
) -> tuple[Scope, ...]:
    """The scopes of the lists that can join the recipe's commands and set a parallel size."""
    return _sizing_of(ctx.arg_lists_of(doc), flags) + shared.strategy_sizing(flags)


def _sizing_of(lists: list[ArgList], flags: Catalog) -> tuple[Scope, ...]:
    return tuple(
        listed.scope
        for listed in lists
        if any(flags.lookup(unit.flag).canonical in RANK_OPTIONS for unit in listed.units)
    )


# What a rendering's args read but the hardware id (Placement.sharing_key), with the role.
SharingKey = tuple[tuple[Hashable, ...], str | None]
# The authored list item that set a command's last parallel size: its document, where, the
# flag as written and its value.
Setter = tuple[Document, Pointer, str, JsValue]


@dataclass
class _Recipe:
    """What the rules ask of one recipe's deployments.

    ``sizing``: the scopes of the lists (of the recipe or of a strategy file) that set a
    parallel size; every command they may join is judged for RL380. ``heavy``: the variants
    that may outgrow their GPUs and where, judged on each such hardware's recommended command.
    ``imaged``: the recipe pins an image naming a platform, judged once per variant and
    hardware.
    """

    ctx: CheckContext
    shared: _Shared
    inputs: RenderInputs
    doc: Document
    flags: Catalog
    sizing: tuple[Scope, ...]
    heavy: dict[str, frozenset[str]]  # variant -> hardware it may outgrow
    imaged: bool
    admitted: dict[tuple[str, str, str], bool] = field(default_factory=dict)
    last_key: tuple[Combination, str | None, SharingKey | None] | None = None
    placements: dict[tuple[str, str], Placement] = field(default_factory=dict)
    runs: Memo = field(default_factory=dict)
    rendered: dict[SharingKey, tuple[Ranks, Emitted]] = field(default_factory=dict)
    experts: dict[str, list[str]] = field(default_factory=dict)

    @property
    def recipe(self) -> dict[str, JsonValue]:
        return as_dict(self.doc.data)

    @property
    def ranked(self) -> bool:
        return bool(self.sizing)

    def sized(self, combo: Combination) -> bool:
        """Whether a list that sets a parallel size may join the combination's commands (asked
        for each of its commands and roles, worked out once)."""
        if not self.sizing:
            return False
        key = (combo.variant_key, combo.strategy, combo.hw_id)
        found = self.admitted.get(key)
        if found is None:
            found = self.admitted[key] = any(self._admits(scope, combo) for scope in self.sizing)
        return found

    def _admits(self, scope: Scope, combo: Combination) -> bool:
        if scope.variant is not None and scope.variant != combo.variant_key:
            return False
        if scope.strategy is not None and scope.strategy != combo.strategy:
            return False
        members = self.ctx.hardware_members(scope.hardware)
        return members is None or combo.hw_id in members

    def placement(self, combo: Combination) -> Placement:
        key = (combo.variant_key, combo.hw_id)
        found = self.placements.get(key)
        if found is None:
            found = self.placements[key] = Placement(
                self.inputs, self.recipe, combo.variant_key, combo.hw_id, self.runs
            )
        return found

    def outgrows(self, combo: Combination) -> bool:
        return combo.hw_id in self.heavy.get(combo.variant_key, ())

    def variants(self) -> list[str]:
        if self.ranked or self.imaged:
            return list(as_dict(self.recipe.get("variants")))
        return [name for name in as_dict(self.recipe.get("variants")) if name in self.heavy]

    def _sizing_of(self, variant: str) -> tuple[Scope, ...]:
        return tuple(scope for scope in self.sizing if scope.variant in (None, variant))

    def _judged_hardware(
        self, variant: str, sizing: tuple[Scope, ...]
    ) -> Callable[[str], bool] | None:
        """Which hardware of a variant any rule judges: planning the others is wasted work."""
        if self.imaged:
            return None
        outgrown = self.heavy.get(variant, frozenset())
        members = [self.ctx.hardware_members(scope.hardware) for scope in sizing]
        if any(found is None for found in members):
            return None
        reached = outgrown.union(*(found for found in members if found is not None))
        return reached.__contains__

    def deployments(self) -> Iterator[tuple[Combination, Deployment, bool]]:
        """(combination, deployment, whether the plan recommends it) of every command judged."""
        count = 0
        for variant in self.variants():
            seen: set[str] = set()
            sizing = self._sizing_of(variant)
            for combo, recommended in planned_combinations(
                self.inputs,
                self.recipe,
                variant,
                self.runs,
                alternatives=bool(sizing),
                hardware=self._judged_hardware(variant, sizing),
                hardware_of=self.ctx.variant_hardware,
            ):
                first = combo.hw_id not in seen
                seen.add(combo.hw_id)
                wanted = (
                    self.sized(combo)
                    or (recommended and self.outgrows(combo))
                    or (first and self.imaged)
                )
                if not wanted:
                    continue
                pd = self.inputs.deploy_type_of(combo.strategy) == "pd_cluster"
                for role in PD_ROLES if pd else (None,):
                    count += 1
                    if count > MAX_COMMANDS:
                        return
                    found = self._deployment(combo, role)
                    if found is not None:
                        yield combo, found, recommended

    def _experts(self, strategy: str) -> list[str]:
        """The expert-parallel switch, when a list of the recipe or of the strategy file may
        turn it on (read generously: more ranks hold the weights with it)."""
        found = self.experts.get(strategy)
        if found is None:
            spec = self.ctx.strategies.get(strategy)
            lists = [*self.ctx.arg_lists_of(self.doc)]
            lists += [a for a in self.ctx.shared_arg_lists if spec is not None and a.doc is spec]
            switched = any(
                self.flags.lookup(unit.flag).canonical == EXPERT_PARALLEL
                for listed in lists
                for unit in listed.units
            )
            found = self.experts[strategy] = [EXPERT_PARALLEL] if switched else []
        return found

    def _deployment(self, combo: Combination, role: str | None) -> Deployment | None:
        placement = self.placement(combo)
        try:
            ranks, allotted = self._rendered(combo, role)
            return deployment_of(self.inputs, self.recipe, combo, role, ranks, placement, allotted)
        except SYNTHESIS_ERRORS:
            return None  # the compile reports what it cannot render

    def _rendered(self, combo: Combination, role: str | None) -> tuple[Ranks, Emitted]:
        """The ranks of the command's argv and what the emitter allots it, worked out once per
        rendering that reads alike (Placement.sharing_key)."""
        key = self.sharing_key(combo, role)
        found = None if key is None else self.rendered.get(key)
        if found is None:
            found = self._read_ranks(combo, role)
            if key is not None:
                self.rendered[key] = found
        return found

    def _read_ranks(self, combo: Combination, role: str | None) -> tuple[Ranks, Emitted]:
        placement = self.placement(combo)
        allotted = emitted(self.inputs, self.recipe, combo, role, placement)
        if not self.sized(combo):  # no list sets a size: the emitter's are the command's
            tokens = allotted.tokens + self._experts(combo.strategy)
            return self.shared.emitter_ranks(tokens, self.flags), allotted
        args = rendered_args(self.inputs, self.recipe, combo, role, placement)
        return ranks_of(args, self.flags), allotted

    def sharing_key(self, combo: Combination, role: str | None) -> SharingKey | None:
        """What the command's args read but the hardware id (Placement.sharing_key); None when
        the hardware is named, or the key holds no scalar. The judge asks again for the
        command just read: the last answer is kept."""
        last = self.last_key
        if last is not None and last[0] is combo and last[1] == role:
            return last[2]
        key = self._sharing_key(combo, role)
        self.last_key = (combo, role, key)
        return key

    def _sharing_key(self, combo: Combination, role: str | None) -> SharingKey | None:
        try:
            key = self.placement(combo).sharing_key(combo)
            hash(key)
        except SYNTHESIS_ERRORS:
            return None
        return None if key is None else (key, role)


@check(*CODES)
def deployments(ctx: CheckContext) -> Iterator[Finding]:
    enabled = {code for code in CODES if ctx.config.is_enabled(code)}
    if not enabled:
        return
    inputs = ctx.render_inputs
    shared = _Shared(ctx)
    sizes = [rooms[0] for rooms in shared.rooms.values()]
    smallest = min((size for size in sizes if size is not None), default=0.0)
    for doc in ctx.recipes:
        if not isinstance(doc.data, dict) or layers.is_omni(doc.data):
            continue
        flags = flag_catalog(doc.data)
        sizing = _sizing_scopes(ctx, shared, doc, flags) if "RL380" in enabled else ()
        imaged = "RL381" in enabled and _names_a_platform(doc.data)
        heavy = (
            _heavy_variants(doc.data, ctx.profiles, shared.rooms, smallest)
            if enabled & {"RL382", "RL383"}
            else {}
        )
        if not (sizing or imaged or heavy):
            continue
        recipe = _Recipe(ctx, shared, inputs, doc, flags, sizing, heavy, imaged)
        judge = _Judge(recipe, enabled)
        for combo, found, recommended in recipe.deployments():
            judge.add(combo, found, recommended)
        yield from judge.findings()


def _names_a_platform(recipe: dict[str, JsonValue]) -> bool:
    """Whether an image the recipe pins names a CPU architecture or a platform. One under a
    brand key may still run elsewhere: the `nvidia` key serves every brand the image table
    does not name, the `amd` key an AMD CPU."""
    return any(
        facts.arch or facts.platform
        for facts in (image_facts(image.reference) for image in recipe_images(recipe))
    )


def _gpu_vram(profile: object) -> float | None:
    vram, gpus = get(profile, "vram_gb"), get(profile, "gpu_count")
    return vram / gpus if is_number(vram) and is_number(gpus) and gpus > 0 else None


def _rooms(profile: object) -> tuple[float | None, bool]:
    """(one GPU's VRAM, whether the profile is offered only where declared)."""
    return _gpu_vram(profile), get(profile, "restricted") is True


def _heavy_variants(
    recipe: dict[str, JsonValue],
    profiles: dict[str, JsonValue],
    rooms: dict[str, tuple[float | None, bool]],
    smallest: float,
) -> dict[str, frozenset[str]]:
    """Variants whose vram_minimum_gb (their weights, without one) may exceed the room a
    command gives them, with the hardware where it may: both fit rules need the figure above
    the room (``smallest`` is the taxonomy's smallest GPU).

    A command may hold as little as one GPU (a declared TP size, a list that sets one, a PD
    pool's `tp`, a co-located pool on a node of three GPUs), so the room is one GPU's VRAM.
    """
    declared_hardware = as_dict(as_dict(recipe.get("meta")).get("hardware"))
    found: dict[str, frozenset[str]] = {}
    for name, variant in as_dict(recipe.get("variants")).items():
        declared = get(variant, "vram_minimum_gb")
        if not is_number(declared):  # with no figure of its own, the weights are the one
            declared = variant_weights_gb(recipe, variant)
        if declared is None or declared <= smallest:
            continue
        outgrown = set()
        for hw_id in list_compatible_hardware(profiles, variant, recipe):
            gpu, restricted = rooms[hw_id]
            if restricted and hw_id not in declared_hardware:
                continue  # offered only to recipes that declare it (resolve.plan.variant_hardware)
            if gpu is not None and declared > gpu:
                outgrown.add(hw_id)
        if outgrown:
            found[name] = frozenset(outgrown)
    return found


# --- judging -------------------------------------------------------------------------------


@dataclass
class _Report:
    """One finding, with every hardware it holds on."""

    doc: Document
    pointer: Pointer
    code: str
    message: str  # with {hardware} where the hardware list goes (replaced, never formatted)
    hint: str
    hardware: list[str] = field(default_factory=list)
    at_key: bool = False
    # the variants it holds for, where the message names them ({variants})
    variants: list[str] = field(default_factory=list)


class _Judge:
    def __init__(self, recipe: _Recipe, codes: set[str]) -> None:
        self.recipe, self.codes = recipe, codes
        self.reports: dict[tuple[str, Pointer, str, str], _Report] = {}
        self.imaged: set[tuple[str, str]] = set()
        # the list item that sized a command, per rendering that reads alike
        self.setters: dict[SharingKey, Setter | None] = {}

    def add(self, combo: Combination, found: Deployment, recommended: bool) -> None:
        recipe = self.recipe
        if "RL380" in self.codes and recipe.sized(combo):
            self._ranks(combo, found)
        placed = (combo.variant_key, combo.hw_id)
        if "RL381" in self.codes and recipe.imaged and placed not in self.imaged:
            self.imaged.add(placed)
            self._image(found)
        if recommended and recipe.outgrows(combo) and found.ranks.known:
            self._fit(found)

    def _report(self, report: _Report, hardware: str, variant: str | None = None) -> None:
        # A finding gathers the hardware (and variants) whose problem reads and is fixed alike.
        # Each hardware id is backticked: a fingerprint by cause counts what a message quotes,
        # so a change that extends the problem to another hardware is a new finding.
        key = (report.code, report.pointer, report.message, report.hint)
        kept = self.reports.setdefault(key, report)
        if hardware not in kept.hardware:
            kept.hardware.append(hardware)
        if variant is not None and variant not in kept.variants:
            kept.variants.append(variant)

    def findings(self) -> Iterator[Finding]:
        for report in self.reports.values():
            hardware = ", ".join(report.hardware)
            message = report.message.replace("{hardware}", hardware, 1)
            if report.variants:
                names = ", ".join(f"`{name}`" for name in report.variants)
                plural = "s" if len(report.variants) > 1 else ""
                message = message.replace("{variants}", f"variant{plural} {names}", 1)
            yield Finding(
                report.doc,
                report.pointer,
                message,
                report.hint,
                at_key=report.at_key,
                code=report.code,
            )

    # RL380 -------------------------------------------------------------------------------

    def _ranks(self, combo: Combination, found: Deployment) -> None:
        problem = rank_problem(found)
        if problem is None:
            return
        key = self.recipe.sharing_key(combo, found.role)
        if key is not None and key in self.setters:
            blamed = self.setters[key]
        else:
            blamed = self._setter(combo, found.role)
            if key is not None:
                self.setters[key] = blamed
        if blamed is None:
            return  # the emitter sized it alone
        doc, pointer, spelled, value = blamed
        ranks = found.ranks
        # One item sizes the command of every variant it reaches: one finding names them all.
        where = f"the {found.strategy}{_role(found)} command of {{variants}}"
        self._report(
            _Report(
                doc,
                pointer,
                "RL380",
                f"`{spelled if '=' in spelled else f'{spelled} {value}'}` makes {where} start {ranks.total} ranks ({ranks.formula()}), "
                f"but {problem} on {{hardware}}",
                _rank_hint(self.recipe, combo, found),
            ),
            f"`{found.hardware}`",
            found.variant,
        )

    def _setter(self, combo: Combination, role: str | None) -> Setter | None:
        """The authored list item that set the last parallel size of the command, if any."""
        recipe = self.recipe
        try:
            before, emitted, after = command_parts(recipe.inputs, recipe.recipe, combo, role)
        except SYNTHESIS_ERRORS:
            return None
        tokens: list[JsValue] = []
        origins: list[tuple[layers.Layer, int] | None] = []
        for layer in before:
            _spread(layer, tokens, origins)
        tokens += emitted
        origins += [None] * len(emitted)
        for layer in after:
            _spread(layer, tokens, origins)
        setters = sorted(ranks_of(tokens, recipe.flags).set_by, key=lambda item: item[1].position)
        for _option, flag in reversed(setters):
            origin = origins[flag.position]
            if origin is None:
                continue
            layer, index = origin
            doc = self._document(layer, combo.strategy)
            if doc is None or self._left_to_rl310(layer, flag.spelled):
                return None
            return doc, (*layer.pointer, index), flag.spelled, flag.value
        return None

    def _left_to_rl310(self, layer: layers.Layer, spelled: str) -> bool:
        """Whether RL310 already reports the item as multiplying ranks: one problem, one finding."""
        ctx = self.recipe.ctx
        return (
            layer.document == layers.RECIPE
            and ctx.config.is_enabled("RL310")
            and multiplies_ranks(ctx, self.recipe.recipe, layer.scope, spelled)
        )

    def _document(self, layer: layers.Layer, strategy: str) -> Document | None:
        if layer.document == layers.RECIPE:
            return self.recipe.doc
        if layer.document == layers.STRATEGY_FILE:
            doc = self.recipe.ctx.strategies.get(strategy)
            return doc if doc is not None and self.recipe.ctx.in_focus(doc) else None
        return None

    # RL381 -------------------------------------------------------------------------------

    def _image(self, found: Deployment) -> None:
        image = found.image
        if image is None:
            return
        clash = None
        if image.arch and found.arch and image.arch != found.arch:
            clash = f"{found.arch} hosts"
        elif image.platform and found.platform and image.platform != found.platform:
            clash = f"{found.platform.upper()} accelerators"
        if clash is None:
            return
        pin = _pin(self.recipe.recipe, found.variant, found.hardware, image.reference)
        if pin is None:
            return  # upstream's default image for the hardware
        built = image.arch or image.platform
        scope = ".".join(str(part) for part in pin)
        self._report(
            _Report(
                self.recipe.doc,
                pin,
                "RL381",
                f"image `{image.reference}` is built for {built}, but {scope} also runs it on "
                f"{{hardware}} ({clash})",
                f"pin it only where it runs (variants.{found.variant}.hardware_overrides.<hw>."
                "docker_image, or a brand key of docker_image), or use a multi-architecture tag",
            ),
            f"`{found.hardware}`",
        )

    # RL382, RL383 --------------------------------------------------------------------------

    def _fit(self, found: Deployment) -> None:
        room = found.weights_room_gb
        if room is None:
            return
        problem = fit_problem(found)
        if problem is None or problem not in self.codes:
            return
        # One variant outgrowing several hardware is one finding: each hardware with its room.
        shards = "the whole box" if not found.scalable else _gpus(found)[len("the ") :]
        place = f"`{found.hardware}` ({room:.0f} GB of {shards}, {found.strategy}{_role(found)})"
        if problem == "RL382":
            weights = found.weights_gb or 0.0
            report = _Report(
                self.recipe.doc,
                ("variants", found.variant),
                "RL382",
                f"the weights of variant `{found.variant}` take {weights:.0f} GB "
                "(parameter_count × bytes per parameter), more than its recommended command "
                "gives them on {hardware}",
                _fit_hint(found),
                at_key=True,
            )
        else:
            report = _Report(
                self.recipe.doc,
                ("variants", found.variant, "vram_minimum_gb"),
                "RL383",
                f"vram_minimum_gb {found.vram_minimum_gb:g} of variant `{found.variant}` is more "
                "than its recommended command gives it on {hardware}",
                _fit_hint(found),
            )
        self._report(report, place)


def fit_problem(found: Deployment) -> str | None:
    """RL382 when the weights exceed the room the command gives them and the declared
    vram_minimum_gb agrees they are that large; RL383 when only vram_minimum_gb exceeds it.

    A vram_minimum_gb below the weights contradicts the precision's estimate (RL554's concern):
    which of the two is wrong cannot be told, so the weights alone decide nothing. A variant
    without a vram_minimum_gb (the schema's RL103) has the estimate alone: RL382 when it
    exceeds the room (PRs 412/427 added the figure to variants whose weights never fitted).
    """
    room, weights, declared = found.weights_room_gb, found.weights_gb, found.vram_minimum_gb
    if room is None:
        return None
    if declared is None:  # no figure to contradict the estimate: the weights decide alone
        return "RL382" if weights is not None and weights > room else None
    if declared <= room:
        return None
    if weights is not None and weights > room and declared >= weights:
        return "RL382"
    return "RL383"


def _fit_hint(found: Deployment) -> str:
    if not found.scalable:
        return "keep the variant off that hardware (supported_hardware, meta.hardware)"
    if found.multi_node:
        return (
            "raise strategy_min_gpus for that hardware so the plan gives the command enough "
            "nodes, or keep the variant off it"
        )
    return (
        "size the command over more GPUs (the variant's tp), keep the strategy off that "
        "hardware (strategy_hardware), or correct vram_minimum_gb"
    )


def _rank_hint(recipe: _Recipe, combo: Combination, found: Deployment) -> str:
    try:
        alone = ranks_of(
            emitted(recipe.inputs, recipe.recipe, combo, found.role).tokens, recipe.flags
        )
    except SYNTHESIS_ERRORS:
        alone = Ranks()
    return (
        f"drop it and let the {found.strategy} strategy size the command ({alone.formula()}), "
        "or key it to the hardware and strategy it fits"
    )


def _gpus(found: Deployment) -> str:
    shards = min(found.ranks.weight_shards, max(found.gpus_allotted, 1))
    return f"the {shards} GPU{'s' if shards != 1 else ''}"


def _role(found: Deployment) -> str:
    return f" {found.role}" if found.role else ""


def _spread(
    layer: layers.Layer, tokens: list[JsValue], origins: list[tuple[layers.Layer, int] | None]
) -> None:
    items = layer.items
    if isinstance(items, list):
        tokens += items
        origins += [(layer, index) for index in range(len(items))]


def _pin(recipe: dict[str, JsonValue], variant: str, hw_id: str, reference: str) -> Pointer | None:
    """Where the recipe pins the image a variant runs on a hardware: that hardware's override,
    else the variant's docker_image, else the model's."""
    ranked: list[tuple[int, Pointer]] = []
    for image in recipe_images(recipe):
        if image.reference != reference or image.variant not in (None, variant):
            continue
        pointer = image.pointer
        if len(pointer) > 3 and pointer[2] == "hardware_overrides":
            rank = 0 if pointer[3] == hw_id else 9
        else:
            rank = 1 if image.variant is not None else 2
        ranked.append((rank, pointer))
    ranked = [item for item in ranked if item[0] < 9]
    return min(ranked, key=lambda item: item[0])[1] if ranked else None
