"""Typed access to recipe-tree documents (pydantic v2).

The JSON Schemas in schemas/ are the source of truth.  These models mirror them
field for field: strict types (no coercion of "8" to 8), unknown keys forbidden,
explicit nulls rejected unless the schema allows null, and every pattern read from
the schema file itself so the two cannot disagree on a regular expression.
tests/test_model.py proves that schema and models accept and reject the same
documents on the corpus, on fixtures and on systematic mutations of them.

Use ``parse_document(doc)`` for a validated model, or the classes directly:
``Recipe.model_validate(data)``.
"""

from __future__ import annotations

import datetime
from typing import Annotated, Any, ClassVar, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationError,
    model_validator,
)

from recipelint.load import Document
from recipelint.schema import load_schema


def _pattern(kind: str, pointer: str) -> str:
    """A ``pattern`` from the schema file, addressed by a JSON pointer to its subschema."""
    node: Any = load_schema(kind)
    for part in pointer.strip("/").split("/"):
        node = node[int(part)] if isinstance(node, list) else node[part]
    return node["pattern"]


def _unique(items: list[Any]) -> list[Any]:
    seen: list[Any] = []
    for item in items:
        if item in seen:
            raise ValueError("items must be unique")
        seen.append(item)
    return items


def _calendar_day(text: str) -> str:
    datetime.date.fromisoformat(text)
    return text


def _false_only(value: bool) -> bool:
    if value is not False:
        raise ValueError("only false is allowed here")
    return value


def _not_empty(model: BaseModel) -> BaseModel:
    if not model.model_fields_set:
        raise ValueError("at least one key is required")
    return model


# ----------------------------------------------------------------------------- scalar types

Identifier = Annotated[str, StringConstraints(pattern=_pattern("recipe", "$defs/identifier"))]
VariantKey = Annotated[str, StringConstraints(pattern=_pattern("recipe", "$defs/variantKey"))]
EnvName = Annotated[str, StringConstraints(pattern=_pattern("recipe", "$defs/env/propertyNames"))]
Version = Annotated[str, StringConstraints(pattern=_pattern("recipe", "$defs/version"))]
Date = Annotated[
    str, StringConstraints(pattern=_pattern("recipe", "$defs/date")), AfterValidator(_calendar_day)
]
ParameterCount = Annotated[
    str, StringConstraints(pattern=_pattern("recipe", "$defs/parameterCount"))
]
HfId = Annotated[
    str, StringConstraints(pattern=_pattern("recipe", "$defs/model/properties/model_id"))
]
RelatedId = Annotated[
    str,
    StringConstraints(pattern=_pattern("recipe", "$defs/meta/properties/related_recipes/items")),
]
Slug = Annotated[str, StringConstraints(pattern=_pattern("recipe", "$defs/meta/properties/slug"))]
Flag = Annotated[str, StringConstraints(pattern=_pattern("strategy", "properties/parallel_flag"))]
HttpUrl = Annotated[
    str, StringConstraints(pattern=_pattern("platforms", "$defs/platform/properties/url"))
]
PlatformId = Annotated[
    str, StringConstraints(pattern=_pattern("platforms", "$defs/platform/properties/id"))
]
NonEmpty = Annotated[str, StringConstraints(min_length=1)]
PositiveInt = Annotated[int, Field(ge=1)]
Port = Annotated[int, Field(ge=1, le=65535)]

# Literal[False] would also take 0 (0 == False in Python); JSON Schema's const false does not.
FalseOnly = Annotated[bool, AfterValidator(_false_only)]
Args = list[str]
Env = dict[EnvName, str]

Precision = Literal[
    "bf16", "fp16", "fp8", "mxfp8", "int8", "awq", "gptq", "int4", "nvfp4", "fp4", "mxfp4"
]
Architecture = Literal["dense", "moe"]
Difficulty = Literal["beginner", "intermediate", "advanced"]
Task = Literal["text", "multimodal", "omni", "embedding"]
HardwareStatus = Literal["verified", "supported", "unsupported"]
KvOffloadStatus = Literal["verified", "unsupported"]
SupportStatus = Literal["supported", "unsupported"]
PoolParallelism = Literal["tp", "tep", "dep"]
OmniTaskId = Literal["t2i", "i2i", "t2v", "i2v", "ti2v", "t2a"]

HardwareKeyedInt = PositiveInt | Annotated[dict[Identifier, PositiveInt], Field(min_length=1)]


class Strict(BaseModel):
    """Closed, non-coercing model; a key written as null is an error unless listed in ``nullable``."""

    model_config = ConfigDict(strict=True, extra="forbid", protected_namespaces=(), frozen=True)
    nullable: ClassVar[frozenset[str]] = frozenset()

    @model_validator(mode="before")
    @classmethod
    def reject_written_nulls(cls, data: Any) -> Any:
        if isinstance(data, dict):
            written_null = sorted(
                k
                for k, v in data.items()
                if v is None and k in cls.model_fields and k not in cls.nullable
            )
            if written_null:
                raise ValueError(f"{', '.join(written_null)} must not be null")
        return data


# ----------------------------------------------------------------------------- recipe parts


class CudaImages(Strict):
    cu129: NonEmpty | None = None
    cu130: NonEmpty | None = None

    check_not_empty = model_validator(mode="after")(_not_empty)


class BrandImages(Strict):
    nvidia: NonEmpty | CudaImages | None = None
    amd: NonEmpty | None = None
    tpu: NonEmpty | None = None
    intel: NonEmpty | None = None

    check_not_empty = model_validator(mode="after")(_not_empty)


DockerImage = NonEmpty | BrandImages | CudaImages


class PlatformOverride(Strict):
    id: NonEmpty
    name: str | None = None
    url: str | None = None
    blurb: str | None = None
    install: str | None = None
    script: str | None = None


class Meta(Strict):
    title: NonEmpty
    slug: Slug
    provider: NonEmpty
    description: NonEmpty
    date_added: Date
    date_updated: Date
    difficulty: Difficulty | None = None
    tasks: Annotated[list[Task], Field(min_length=1), AfterValidator(_unique)]
    performance_headline: str | None = None
    related_recipes: list[RelatedId] | None = None
    default_hardware: Identifier | None = None
    hardware: dict[Identifier, HardwareStatus] | None = None
    platforms: list[NonEmpty | PlatformOverride] | None = None


class InstallTabConfig(Strict):
    command: NonEmpty | None = None
    note: str | None = None


class Install(Strict):
    nullable: ClassVar[frozenset[str]] = frozenset({"pip", "docker"})

    pip: FalseOnly | InstallTabConfig | None = None
    docker: FalseOnly | InstallTabConfig | None = None


class Model(Strict):
    model_id: HfId
    min_vllm_version: Version
    nightly_required: bool | None = None
    docker_image: DockerImage | None = None
    install: Install | None = None
    architecture: Architecture
    parameter_count: ParameterCount
    active_parameters: ParameterCount
    context_length: Annotated[int, Field(ge=0)]
    supports_dcp: bool | None = None
    flashinfer_autotune: bool | None = None
    base_args: Args | None = None
    base_env: Env | None = None


class Dependency(Strict):
    command: NonEmpty
    note: str | None = None
    optional: bool | None = None
    brand: NonEmpty | Annotated[list[NonEmpty], Field(min_length=1)] | None = None
    install_modes: (
        Annotated[list[Literal["pip", "docker"]], Field(min_length=1), AfterValidator(_unique)]
        | None
    ) = None


class ArgsOverride(Strict):
    args: Args | None = None


class ArgsEnvOverride(Strict):
    extra_args: Args | None = None
    extra_env: Env | None = None


class VariantHardwareOverride(ArgsEnvOverride):
    docker_image: DockerImage | None = None


class Mode(Strict):
    label: NonEmpty | None = None
    description: str | None = None
    args: Args
    variants: list[NonEmpty] | None = None
    hardware_overrides: dict[Identifier, ArgsOverride] | None = None
    hardware: dict[Identifier, SupportStatus] | None = None


class Companion(Strict):
    label: str | None = None
    description: str | None = None
    command: NonEmpty


class Feature(Strict):
    description: NonEmpty
    label: NonEmpty | None = None
    args: Args | None = None
    env: Env | None = None
    default_mode: NonEmpty | None = None
    modes: Annotated[dict[Identifier, Mode], Field(min_length=1)] | None = None
    strategies: list[NonEmpty] | None = None
    companion: Companion | None = None
    hardware_overrides: dict[Identifier, ArgsOverride] | None = None


class PrecisionHardware(Strict):
    brand: NonEmpty | None = None
    generation: NonEmpty | None = None


class Variant(Strict):
    model_id: NonEmpty | None = None
    label: NonEmpty | None = None
    description: str | None = None
    precision: Precision
    precision_hardware: PrecisionHardware | None = None
    supported_hardware: list[NonEmpty] | None = None
    vram_minimum_gb: PositiveInt
    extra_args: Args | None = None
    extra_env: Env | None = None
    default_modes: dict[Identifier, NonEmpty] | None = None
    min_vllm_version: Version | None = None
    nightly_required: bool | None = None
    docker_image: DockerImage | None = None
    tp: HardwareKeyedInt | None = None
    hardware_overrides: dict[Identifier, VariantHardwareOverride] | None = None


class PdRole(Strict):
    nodes: HardwareKeyedInt | None = None
    parallelism: PoolParallelism | None = None
    tp: PositiveInt | None = None
    parallel_flag: Flag | None = None
    vllm_args: Args | None = None
    extra_args: Args | None = None
    env: Env | None = None
    hardware_overrides: dict[Identifier, ArgsEnvOverride] | None = None


class PdRouterOverride(Strict):
    intra_node_data_parallel_size: PositiveInt | None = None


class StrategyOverride(Strict):
    tp: HardwareKeyedInt | None = None
    extra_args: Args | None = None
    vllm_args: Args | None = None
    env: Env | None = None
    extra_env: Env | None = None
    hardware_overrides: dict[Identifier, ArgsEnvOverride] | None = None
    prefill: PdRole | None = None
    decode: PdRole | None = None
    router: PdRouterOverride | None = None
    pool_modes: (
        Annotated[list[PoolParallelism], Field(min_length=1), AfterValidator(_unique)] | None
    ) = None


class OmniTaskHardwareOverride(Strict):
    label: str | None = None
    endpoint: str | None = None
    model_id: NonEmpty | None = None
    vram_minimum_gb: PositiveInt | None = None
    description: str | None = None
    extra_args: Args | None = None
    curl: str | None = None


class OmniTask(OmniTaskHardwareOverride):
    id: OmniTaskId
    key: NonEmpty | None = None
    axes: dict[str, str] | None = None
    hardware_overrides: dict[Identifier, OmniTaskHardwareOverride] | None = None


class OmniAxisOption(Strict):
    id: NonEmpty
    label: str | None = None
    description: str | None = None


class OmniAxis(Strict):
    id: NonEmpty
    label: str | None = None
    hint: str | None = None
    options: list[OmniAxisOption]


class Omni(Strict):
    serve_binary: NonEmpty | None = None
    port: Port | None = None
    task_label: str | None = None
    task_hint: str | None = None
    variant_label: str | None = None
    variant_hint: str | None = None
    tasks: list[OmniTaskId | OmniTask] | None = None
    task_axes: list[OmniAxis] | None = None


class HardwareLink(Strict):
    label: str | None = None
    href: NonEmpty


class HardwareNoteDetail(Strict):
    title: str | None = None
    body: str | None = None
    description: str | None = None
    link: HardwareLink | None = None


class AdvancedOption(Strict):
    id: NonEmpty
    label: str | None = None
    description: str | None = None
    args: Args


StrategyMinGpus = PositiveInt | dict[Identifier, PositiveInt | dict[Identifier, PositiveInt]]


class Recipe(Strict):
    """models/<hf_org>/<hf_repo>.yaml"""

    meta: Meta
    model: Model
    dependencies: list[Dependency] | None = None
    features: dict[Identifier, Feature] | None = None
    opt_in_features: list[NonEmpty] | None = None
    hardware_opt_in_features: dict[Identifier, list[NonEmpty]] | None = None
    variants: dict[VariantKey, Variant]
    compatible_strategies: list[NonEmpty] | None = None
    default_strategy: NonEmpty | None = None
    strategy_min_gpus: StrategyMinGpus | None = None
    strategy_hardware: dict[Identifier, dict[Identifier, SupportStatus]] | None = None
    kv_cache_strategy_hardware: dict[Identifier, dict[Identifier, SupportStatus]] | None = None
    kv_offload_support: dict[Identifier, KvOffloadStatus] | None = None
    hardware_overrides: dict[Identifier, ArgsEnvOverride] | None = None
    strategy_overrides: dict[Identifier, StrategyOverride] | None = None
    omni: Omni | None = None
    hardware_notes: dict[Identifier, NonEmpty | HardwareNoteDetail] | None = None
    advanced_options: list[AdvancedOption] | None = None
    guide: NonEmpty

    @model_validator(mode="after")
    def has_default_variant(self) -> Recipe:
        if "default" not in self.variants:
            raise ValueError("variants must include 'default'")
        return self

    @property
    def default_variant(self) -> Variant:
        return self.variants["default"]


# ----------------------------------------------------------------------------- strategies


class HardwareMatch(Strict):
    min_gpus: PositiveInt | None = None
    max_gpus: PositiveInt | None = None
    multi_node: bool | None = None
    architecture: Architecture | None = None


class StrategyRole(Strict):
    vllm_args: Args | None = None
    env: Env | None = None
    parallelism: PoolParallelism | None = None
    tp: PositiveInt | None = None
    parallel_flag: Flag | None = None


class StrategyRouter(Strict):
    policy: NonEmpty | None = None


class Strategy(Strict):
    """strategies/<name>.yaml"""

    name: Identifier
    deploy_type: Literal["single_node", "multi_node", "pd_cluster"]
    display_name: NonEmpty
    short_label: NonEmpty | None = None
    orientation: Literal["latency", "throughput", "balanced", "production"] | None = None
    description: NonEmpty
    hardware_match: HardwareMatch | None = None
    parallelism: Literal["tp_pp", "tp_dp"] | None = None
    parallel_flag: Flag | None = None
    vllm_args: Args | None = None
    env: Env | None = None
    prefill: StrategyRole | None = None
    decode: StrategyRole | None = None
    router: StrategyRouter | None = None


# ----------------------------------------------------------------------------- kv_store


MooncakeConfig = dict[str, str | int | float | bool]


class KvRouter(Strict):
    policy: NonEmpty | None = None
    install: NonEmpty | None = None
    port: Port | None = None


class BrandInstall(Strict):
    nvidia: NonEmpty | None = None
    amd: NonEmpty | None = None

    check_not_empty = model_validator(mode="after")(_not_empty)


class KvVllm(Strict):
    vllm_args: Args | None = None
    env: Env | None = None
    install: NonEmpty | BrandInstall | None = None
    port: Port | None = None


class KvPdRole(Strict):
    args: Args | None = None
    env: Env | None = None


class KvPd(Strict):
    prefill: KvPdRole | None = None
    decode: KvPdRole | None = None


class MooncakeMaster(Strict):
    command: NonEmpty
    description: str | None = None


class MooncakeStoreConfig(Strict):
    command: NonEmpty
    description: str | None = None
    note: str | None = None
    config: MooncakeConfig | None = None


class MooncakeVllmConfig(Strict):
    mode: Literal["embedded", "standalone-store"] | None = None
    note: str | None = None
    template: MooncakeConfig


class KvStore(Strict):
    """kv_store/<name>.yaml"""

    name: Identifier
    deploy_type: Literal["kv_store_lb"]
    display_name: NonEmpty
    label: NonEmpty | None = None
    order: int | None = None
    description: NonEmpty
    router: KvRouter | None = None
    vllm: KvVllm
    pd: KvPd | None = None
    mooncake_master: MooncakeMaster
    mooncake_store_config: MooncakeStoreConfig | None = None
    mooncake_vllm_config: MooncakeVllmConfig
    min_vllm_version: Version | None = None
    default_instances: PositiveInt | None = None


# ----------------------------------------------------------------------------- taxonomy


Generation = Identifier | Annotated[list[Identifier], Field(min_length=1)]


class HardwareProfile(Strict):
    brand: NonEmpty
    generation: Generation
    gpu_generation: Generation | None = None
    compute_arch: (
        Annotated[
            str,
            StringConstraints(
                pattern=_pattern("taxonomy", "$defs/hardwareProfile/properties/compute_arch")
            ),
        ]
        | None
    ) = None
    display_name: NonEmpty
    description: str | None = None
    gpu_count: PositiveInt
    vram_gb: Annotated[float, Field(gt=0)]
    multi_node: bool | None = None
    scalable: bool | None = None
    restricted: bool | None = None


class TaxonomyTask(Strict):
    id: Identifier
    display_name: NonEmpty
    description: str | None = None


DocsUrl = Annotated[
    str, StringConstraints(pattern=_pattern("taxonomy", "$defs/kvOffloadGroup/properties/docs_url"))
]


class KvOffloadGroup(Strict):
    display_name: NonEmpty
    label: str | None = None
    order: int | None = None
    sub_row_label: str | None = None
    docs_url: DocsUrl | None = None
    tooltip: str | None = None
    description: str | None = None


class KvOffloadOption(Strict):
    display_name: NonEmpty
    label: str | None = None
    order: int | None = None
    group: Identifier | None = None
    description: str | None = None
    args: Args
    env: Env | None = None
    strategies: list[Identifier] | None = None
    brands: list[NonEmpty] | None = None
    requires_opt_in: bool | None = None
    install: NonEmpty | None = None
    docs_url: DocsUrl | None = None
    companion: Companion | None = None


class Taxonomy(Strict):
    """taxonomy.yaml"""

    hardware_profiles: Annotated[dict[Identifier, HardwareProfile], Field(min_length=1)]
    tasks: Annotated[list[TaxonomyTask], Field(min_length=1)]
    strategies: Annotated[list[Identifier], Field(min_length=1), AfterValidator(_unique)]
    kv_offload_groups: dict[Identifier, KvOffloadGroup] | None = None
    kv_offload: dict[Identifier, KvOffloadOption] | None = None


# ----------------------------------------------------------------------------- platforms


class Platform(Strict):
    id: PlatformId
    name: NonEmpty
    url: HttpUrl
    blurb: str | None = None
    install: str | None = None
    script: str | None = None


class Platforms(Strict):
    """platforms.yaml"""

    platforms: list[Platform]


# ----------------------------------------------------------------------------- entry points


MODELS: dict[str, type[Strict]] = {
    "recipe": Recipe,
    "strategy": Strategy,
    "kv_store": KvStore,
    "taxonomy": Taxonomy,
    "platforms": Platforms,
}


def parse_document(doc: Document) -> Strict | None:
    """The typed model of a usable document, or None when it is unusable, of another kind, or invalid."""
    model = MODELS.get(doc.kind)
    if model is None or not doc.usable:
        return None
    try:
        return model.model_validate(doc.data)
    except ValidationError:
        return None
