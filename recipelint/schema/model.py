"""The recipe-tree format (pydantic v2): the one source of the JSON Schemas in schemas/.

It is long because it is the whole format: one model per mapping of five document kinds,
each field with the title and description the schemas carry; split by kind, the definitions
every kind shares (versions, dates, argument lists) would have no home.

Every document kind (recipe, strategy, kv_store, taxonomy, platforms) is a model here:
strict types (no coercion of "8" to 8), unknown keys forbidden, explicit nulls rejected
unless a field allows null, and each field's title and description, which the JSON
Schemas carry to editors and recipelint's messages quote. ``recipelint.schema.schemagen``
writes schemas/*.schema.json from these models (``python -m recipelint.schema.schemagen``);
tests/test_schemagen.py fails when a committed schema differs from what it writes, and
tests/test_model.py proves that schema and models accept and reject the same documents.

Shared definitions (``$defs`` in the schemas) are the ``TypeAliasType`` aliases and the
models; which of them a schema file keeps as named definitions, and under which names,
is decided per file by the generator.

Use ``parse_document(doc)`` for a validated model, or the classes directly:
``Recipe.model_validate(data)``.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from typing import Annotated, Any, ClassVar, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    GetCoreSchemaHandler,
    GetJsonSchemaHandler,
    StringConstraints,
    ValidationError,
    WithJsonSchema,
    model_validator,
)
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import core_schema
from typing_extensions import TypeAliasType

from recipelint.read.load import Document

# ----------------------------------------------------------------------------- schema markers


def _unique(items: list[Any]) -> list[Any]:
    seen: list[Any] = []
    for item in items:
        if item in seen:
            raise ValueError("items must be unique")
        seen.append(item)
    return items


@dataclass(frozen=True)
class _UniqueItems:
    """A list whose items differ: validated here, and ``uniqueItems`` in the schema."""

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        return core_schema.no_info_after_validator_function(_unique, handler(source))

    def __get_pydantic_json_schema__(
        self, schema: core_schema.CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        return {**handler(schema), "uniqueItems": True}


def _calendar_day(text: str) -> str:
    datetime.date.fromisoformat(text)
    return text


@dataclass(frozen=True)
class _CalendarDay:
    """A real day: validated here, and ``format: date`` in the schema (RL106 reads it)."""

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        return core_schema.no_info_after_validator_function(_calendar_day, handler(source))

    def __get_pydantic_json_schema__(
        self, schema: core_schema.CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        return {**handler(schema), "format": "date"}


@dataclass(frozen=True)
class _OneOf:
    """Alternatives that exclude each other: ``oneOf`` rather than pydantic's ``anyOf``."""

    def __get_pydantic_json_schema__(
        self, schema: core_schema.CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        generated = dict(handler(schema))
        generated["oneOf"] = generated.pop("anyOf")
        return generated


def _false_only(value: bool) -> bool:
    if value is not False:
        raise ValueError("only false is allowed here")
    return value


def _not_empty(model: BaseModel) -> BaseModel:
    if not model.model_fields_set:
        raise ValueError("at least one key is required")
    return model


def _described(
    title: str | None = None, description: str | None = None, **extra: Any
) -> ConfigDict:
    """Model-level schema metadata: title and description as the schema shows them."""
    schema_extra = {**extra, **({"description": description} if description else {})}
    return ConfigDict(title=title, json_schema_extra=schema_extra or None)


# ----------------------------------------------------------------------------- patterns

IDENTIFIER_PATTERN = "^[a-z0-9][a-z0-9_]*$"
VARIANT_KEY_PATTERN = "^[A-Za-z0-9][A-Za-z0-9_.-]*$"
ENV_NAME_PATTERN = "^[A-Za-z_][A-Za-z0-9_]*$"
VERSION_PATTERN = (
    r"^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)"
    r"(rc(0|[1-9][0-9]*))?(\.post(0|[1-9][0-9]*))?(\.dev(0|[1-9][0-9]*))?$"
)
DATE_PATTERN = "^[0-9]{4}-[0-9]{2}-[0-9]{2}$"
PARAMETER_COUNT_PATTERN = r"^[0-9]+(\.[0-9]+)?[KMBT]$"
HF_ID_PATTERN = r"^[^/\s]+/[^/\s]+$"
SLUG_PATTERN = "^[a-z0-9]+([.-][a-z0-9]+)*$"
FLAG_PATTERN = "^--[a-z0-9-]+$"
HTTP_URL_PATTERN = "^https?://"
PLATFORM_ID_PATTERN = "^[a-z0-9][a-z0-9_-]*$"
COMPUTE_ARCH_PATTERN = "^[a-z0-9_]+$"

# ----------------------------------------------------------------------------- scalar types

Identifier = TypeAliasType(
    "Identifier",
    Annotated[
        str,
        StringConstraints(pattern=IDENTIFIER_PATTERN),
        Field(title="Identifier", description="A lowercase id: letters, digits and underscores."),
    ],
)
VariantKey = TypeAliasType(
    "VariantKey",
    Annotated[
        str,
        StringConstraints(pattern=VARIANT_KEY_PATTERN),
        Field(
            title="Variant key",
            description="Variant name: letters, digits, '_', '-' or '.'.",
        ),
    ],
)
EnvName = Annotated[
    str, StringConstraints(pattern=ENV_NAME_PATTERN), Field(title="Environment variable name")
]
Version = TypeAliasType(
    "Version",
    Annotated[
        str,
        StringConstraints(pattern=VERSION_PATTERN),
        Field(
            title="vLLM version",
            description="A released or pre-release version X.Y.Z, optionally followed by rcN,"
            ' .postN and .devN (PEP 440 normal form), e.g. "0.25.0" or "0.26.0rc1".'
            ' Not "nightly": use nightly_required.',
        ),
    ],
)
Date = TypeAliasType(
    "Date",
    Annotated[
        str,
        StringConstraints(pattern=DATE_PATTERN),
        _CalendarDay(),
        Field(title="Date", description="A calendar date YYYY-MM-DD."),
    ],
)
ParameterCount = TypeAliasType(
    "ParameterCount",
    Annotated[
        str,
        StringConstraints(pattern=PARAMETER_COUNT_PATTERN),
        Field(
            title="Parameter count",
            description='A number with a K/M/B/T suffix, e.g. "671B", "0.9B", "1T".',
        ),
    ],
)
HfId = Annotated[str, StringConstraints(pattern=HF_ID_PATTERN)]
Slug = Annotated[str, StringConstraints(pattern=SLUG_PATTERN)]
Flag = Annotated[str, StringConstraints(pattern=FLAG_PATTERN)]
HttpUrl = Annotated[str, StringConstraints(pattern=HTTP_URL_PATTERN)]
PlatformId = Annotated[str, StringConstraints(pattern=PLATFORM_ID_PATTERN)]
NonEmpty = Annotated[str, StringConstraints(min_length=1)]
PositiveInteger = TypeAliasType("PositiveInteger", Annotated[int, Field(ge=1)])
Port = TypeAliasType("Port", Annotated[int, Field(ge=1, le=65535, title="Port")])

# null as a value of its own, where it means "the default" (Install.nullable): Annotated keeps
# it a branch of the union in its place, rather than the "unset" that pydantic and the
# schema generator treat a bare None as.
WrittenNull = Annotated[None, "a written null"]

# Literal[False] would also take 0 (0 == False in Python); JSON Schema's const false does not.
FalseOnly = Annotated[bool, AfterValidator(_false_only), WithJsonSchema({"const": False})]
Args = TypeAliasType(
    "Args",
    Annotated[
        list[str],
        Field(
            title="Arguments",
            description='vLLM command-line tokens, one per item, all strings: ["--max-model-len",'
            ' "8192"]. Quote numbers.',
        ),
    ],
)
Env = TypeAliasType(
    "Env",
    Annotated[
        dict[EnvName, str],
        Field(
            title="Environment variables",
            description='NAME: value pairs; values are strings (quote numbers: "1").',
        ),
    ],
)

Precision = TypeAliasType(
    "Precision",
    Annotated[
        Literal[
            "bf16", "fp16", "fp8", "mxfp8", "int8", "awq", "gptq", "int4", "nvfp4", "fp4", "mxfp4"
        ],
        Field(
            title="Precision",
            description="Checkpoint weight precision: bf16, fp16, fp8, mxfp8, int8, awq, gptq,"
            " int4, nvfp4, fp4 or mxfp4.",
        ),
    ],
)
Architecture = Literal["dense", "moe"]
Difficulty = Literal["beginner", "intermediate", "advanced"]
Task = Annotated[Literal["text", "multimodal", "omni", "embedding"], Field(title="Task")]
HardwareStatus = TypeAliasType(
    "HardwareStatus",
    Annotated[
        Literal["verified", "supported", "unsupported"],
        Field(
            title="Hardware status",
            description="verified = tested end to end (green badge); supported = declared"
            " runnable without the badge (it also unlocks a restricted profile); unsupported ="
            " confirmed not runnable today. Leave untested hardware out.",
        ),
    ],
)
KvOffloadStatus = Annotated[
    Literal["verified", "unsupported"],
    Field(
        title="KV offload support status",
        description="verified opts the recipe into an option that requires opt-in;"
        " unsupported opts it out.",
    ),
]
SupportStatus = TypeAliasType(
    "SupportStatus",
    Annotated[
        Literal["supported", "unsupported"],
        Field(
            title="Support status",
            description="supported opts a strategy/GPU in, unsupported opts it out.",
        ),
    ],
)
PoolParallelism = TypeAliasType(
    "PoolParallelism",
    Annotated[Literal["tp", "tep", "dep"], Field(title="Pool parallelism")],
)
OmniTaskId = TypeAliasType(
    "OmniTaskId",
    Annotated[Literal["t2i", "i2i", "t2v", "i2v", "ti2v", "t2a"], Field(title="Omni task")],
)

HardwareKeyedInteger = TypeAliasType(
    "HardwareKeyedInteger",
    Annotated[
        PositiveInteger | Annotated[dict[Identifier, PositiveInteger], Field(min_length=1)],
        _OneOf(),
        Field(
            title="Hardware-keyed number",
            description="A number, or a map keyed by exact GPU id, generation, brand or default.",
        ),
    ],
)


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
    model_config = _described("Per-CUDA Docker images", minProperties=1)

    cu129: NonEmpty | None = Field(None, title="CUDA 12.9 image")
    cu130: NonEmpty | None = Field(None, title="CUDA 13.0 image")

    check_not_empty = model_validator(mode="after")(_not_empty)


class BrandImages(Strict):
    model_config = _described("Per-brand Docker images", minProperties=1)

    nvidia: NonEmpty | CudaImages | None = Field(
        None, title="NVIDIA image", description="An image string, or a CUDA map {cu129, cu130}."
    )
    amd: NonEmpty | None = Field(None, title="AMD (ROCm) image")
    tpu: NonEmpty | None = Field(None, title="TPU image")
    intel: NonEmpty | None = Field(None, title="Intel image")

    check_not_empty = model_validator(mode="after")(_not_empty)


DockerImage = TypeAliasType(
    "DockerImage",
    Annotated[
        NonEmpty | BrandImages | CudaImages,
        Field(
            title="Docker image",
            description="A string (pins NVIDIA only), a per-brand map {nvidia, amd, tpu, intel},"
            " or a CUDA map {cu129, cu130}.",
        ),
    ],
)


class PlatformOverride(Strict):
    model_config = _described("Platform override")

    id: NonEmpty = Field(title="Platform id")
    name: str | None = Field(None, title="Display name")
    url: str | None = Field(None, title="Guide URL")
    blurb: str | None = Field(None, title="Blurb")
    install: str | None = Field(None, title="Install snippet")
    script: str | None = Field(None, title="Deploy script URL")


class Meta(Strict):
    model_config = _described("Recipe metadata", "Title, catalog dates, tasks and hardware badges.")

    title: NonEmpty = Field(title="Title", description="Display name.")
    slug: Slug = Field(title="Slug", description="kebab-case, consistent with the title.")
    provider: NonEmpty = Field(title="Provider", description="Human-readable provider label.")
    description: NonEmpty = Field(title="Description", description="One-sentence summary.")
    date_added: Date = Field(
        title="Date added",
        description="Day the recipe entered the catalog (YYYY-MM-DD); never change it. Drives"
        " the 'Latest recipes' ranking.",
    )
    date_updated: Date = Field(
        title="Date updated", description="Day of the latest material change (YYYY-MM-DD)."
    )
    difficulty: Difficulty | None = Field(
        None, title="Difficulty", description="beginner, intermediate or advanced."
    )
    tasks: Annotated[list[Task], Field(min_length=1), _UniqueItems()] = Field(
        title="Tasks", description="One or more of text, multimodal, omni, embedding."
    )
    performance_headline: str | None = Field(
        None, title="Performance headline", description="Optional pithy line for cards."
    )
    related_recipes: list[HfId] | None = Field(
        None, title="Related recipes", description='"<org>/<repo>" ids of related recipes.'
    )
    default_hardware: Identifier | None = Field(
        None,
        title="Default hardware",
        description="The hardware profile id the page and the JSON API open on; set it to the"
        " hardware the guide's numbers were taken on.",
    )
    hardware: dict[Identifier, HardwareStatus] | None = Field(
        None,
        title="Hardware badges",
        description="{<gpu id>: verified | supported | unsupported}. Only list hardware you"
        " actually ran; listing a restricted profile (workstations, TPUs, Xeon) is what offers"
        " it.",
    )
    platforms: list[NonEmpty | PlatformOverride] | None = Field(
        None,
        title="Deploy platforms",
        description='platforms.yaml ids ("modal"), or objects that override a platform\'s'
        " fields for this recipe.",
    )


class InstallTabConfig(Strict):
    command: NonEmpty | None = Field(None, title="Install command")
    note: str | None = Field(None, title="Note")


InstallTab = TypeAliasType(
    "InstallTab",
    Annotated[
        FalseOnly | WrittenNull | InstallTabConfig,
        Field(
            title="Install tab",
            description="false hides the tab; null or absent uses the default; an object"
            " replaces the command and/or adds a note.",
        ),
    ],
)


class Install(Strict):
    model_config = _described(
        "Install tabs",
        "Controls the Install block's pip and Docker tabs; key order sets the tab order.",
    )
    nullable: ClassVar[frozenset[str]] = frozenset({"pip", "docker"})

    pip: InstallTab = None
    docker: InstallTab = None


class Model(Strict):
    model_config = _described(
        "Model", "The checkpoint, its vLLM baseline and the arguments every command needs."
    )

    model_id: HfId = Field(
        title="Model id",
        description="HuggingFace id; must match the file path models/<org>/<repo>.yaml.",
    )
    min_vllm_version: Version = Field(
        title="Minimum vLLM version",
        description='Earliest vLLM release that supports this model, e.g. "0.18.0". If it is not'
        " released yet, still write the version and set nightly_required: true.",
    )
    nightly_required: bool | None = Field(
        None,
        title="Nightly required",
        description="true when min_vllm_version has not shipped yet: switches the install to the"
        " nightly wheel index.",
    )
    docker_image: DockerImage | None = None
    install: Install | None = None
    architecture: Architecture = Field(
        title="Architecture",
        description="dense, or moe for mixture-of-experts models (config has num_experts /"
        " num_local_experts).",
    )
    parameter_count: ParameterCount = Field(
        description="Total parameters with a B/T suffix (MoE: all experts)."
    )
    active_parameters: ParameterCount = Field(
        description="Active parameters per token; same as parameter_count for dense models."
    )
    context_length: Annotated[int, Field(ge=0)] = Field(
        title="Context length",
        description="Maximum context in tokens (integer); 0 for models without a token context"
        " (image, video and audio generation).",
    )
    supports_dcp: bool | None = Field(
        None,
        title="Supports decode context parallel",
        description="MLA-attention models (DeepSeek, Kimi-K2 family): offers the DCP advanced"
        " option.",
    )
    flashinfer_autotune: bool | None = Field(
        None,
        title="FlashInfer autotune",
        description="Offers the --no-enable-flashinfer-autotune advanced option.",
    )
    base_args: Args | None = Field(None, description="Flags every command needs.")
    base_env: Env | None = Field(None, description="Environment every command needs.")


class Dependency(Strict):
    model_config = _described("Dependency")

    command: NonEmpty = Field(title="Command", description="A runnable install step.")
    note: str | None = Field(None, title="Note")
    optional: bool | None = Field(
        None, title="Optional", description="Dims the entry and leaves it out of 'Copy all'."
    )
    brand: NonEmpty | Annotated[list[NonEmpty], Field(min_length=1)] | None = Field(
        None,
        title="Brand filter",
        description="Show only on this hardware brand (NVIDIA, AMD, Intel), or a list of brands.",
    )
    install_modes: (
        Annotated[list[Literal["pip", "docker"]], Field(min_length=1), _UniqueItems()] | None
    ) = Field(
        None,
        title="Install modes",
        description="Install tabs that show this step; absent means [pip].",
    )


class ArgsOverride(Strict):
    model_config = _described("Arguments override")

    args: Args | None = None


class ArgsEnvOverride(Strict):
    model_config = _described("Hardware override")

    extra_args: Args | None = None
    extra_env: Env | None = None


class VariantHardwareOverride(ArgsEnvOverride):
    model_config = _described(
        "Hardware override",
        "Keyed by generation (hopper, blackwell, amd, nvidia, …) or exact GPU id; an exact id"
        " may also pin docker_image.",
    )

    docker_image: DockerImage | None = None


class Mode(Strict):
    model_config = _described(
        "Mode", "One method of a single-select feature: only its args are emitted."
    )

    label: NonEmpty | None = Field(None, title="Label")
    description: str | None = Field(None, title="Description")
    args: Args
    variants: list[NonEmpty] | None = Field(
        None,
        title="Variants",
        description="Variant keys this mode is available for; absent = all.",
    )
    hardware_overrides: dict[Identifier, ArgsOverride] | None = Field(
        None,
        title="Mode hardware overrides",
        description="{<gpu id | generation | brand | default>: {args}}.",
    )
    hardware: dict[Identifier, SupportStatus] | None = Field(
        None,
        title="Mode hardware gate",
        description="{<generation | gpu id>: unsupported} disables the mode there.",
    )


class Companion(Strict):
    model_config = _described(
        "Companion process",
        "A helper command that runs beside vllm serve while the feature is on.",
    )

    label: str | None = Field(None, title="Tab label")
    description: str | None = Field(None, title="Description")
    command: NonEmpty = Field(title="Command")


class Feature(Strict):
    model_config = _described(
        "Feature", "A boolean toggle with args, or a single-select feature with modes."
    )

    description: NonEmpty = Field(title="Description")
    label: NonEmpty | None = Field(
        None, title="Label", description="Pill text (default: title-cased key)."
    )
    args: Args | None = Field(
        None,
        description="Arguments added while the feature is on (boolean form; not with modes).",
    )
    env: Env | None = Field(
        None, description="Environment added while the feature is on (newer upstream format)."
    )
    default_mode: NonEmpty | None = Field(
        None, title="Default mode", description="Initial mode key (else the first)."
    )
    modes: Annotated[dict[Identifier, Mode], Field(min_length=1)] | None = Field(
        None,
        title="Modes",
        description="Mutually exclusive methods keyed by mode name; replaces args.",
    )
    strategies: list[NonEmpty] | None = Field(
        None,
        title="Strategy allowlist",
        description="Strategy ids this feature is available with; absent = all.",
    )
    companion: Companion | None = None
    hardware_overrides: dict[Identifier, ArgsOverride] | None = Field(
        None,
        title="Feature hardware overrides",
        description="{<generation | nvidia>: {args}} replaces the feature's args on that hardware.",
    )


class PrecisionHardware(Strict):
    brand: NonEmpty | None = Field(None, title="Brand")
    generation: NonEmpty | None = Field(None, title="Generation")


class Variant(Strict):
    model_config = _described(
        "Variant", "One served checkpoint: precision, VRAM, and its argument deltas."
    )

    model_id: NonEmpty | None = Field(
        None,
        title="Model id",
        description="Served HuggingFace id when the checkpoint is a different repo (e.g."
        " nvidia/*-NVFP4).",
    )
    label: NonEmpty | None = Field(
        None, title="Label", description="Pill text (default: precision in upper case)."
    )
    description: str | None = Field(None, title="Description")
    precision: Precision
    precision_hardware: PrecisionHardware | None = Field(
        None,
        title="Precision hardware constraint",
        description="Overrides the hardware constraint implied by precision: {brand?,"
        " generation?}.",
    )
    supported_hardware: list[NonEmpty] | None = Field(
        None,
        title="Supported hardware",
        description="When non-empty, the only hardware profile ids this variant runs on.",
    )
    vram_minimum_gb: PositiveInteger = Field(
        title="Minimum VRAM (GB)",
        description="ceil(params x bytes per param x 1.2), an integer.",
    )
    extra_args: Args | None = Field(None, description="Arguments added for this variant.")
    extra_env: Env | None = Field(None, description="Environment added for this variant.")
    default_modes: dict[Identifier, NonEmpty] | None = Field(
        None,
        title="Default modes",
        description="{<feature>: <mode>}: selects the mode and turns the feature on for this"
        " variant.",
    )
    min_vllm_version: Version | None = Field(
        None,
        title="Minimum vLLM version",
        description="Raises the recipe baseline for this variant.",
    )
    nightly_required: bool | None = Field(None, title="Nightly required")
    docker_image: DockerImage | None = None
    tp: HardwareKeyedInteger | None = Field(
        None,
        description="Single-node TP override: a number or a map keyed by GPU id, generation,"
        " brand or default. Never put --tensor-parallel-size in extra_args.",
    )
    hardware_overrides: dict[Identifier, VariantHardwareOverride] | None = Field(
        None, title="Variant hardware overrides"
    )


class PdRole(Strict):
    model_config = _described("PD pool", "Settings of the prefill or decode pool.")

    nodes: HardwareKeyedInteger | None = Field(
        None,
        description="Default node count of the pool (read by the site's Nodes row), a number or"
        " {<gpu id> | default: n}.",
    )
    parallelism: PoolParallelism | None = None
    tp: PositiveInteger | None = Field(
        None, title="TP per DP rank", description="With parallelism dep: TP width per DP rank."
    )
    parallel_flag: Flag | None = Field(None, title="Parallel flag")
    vllm_args: Args | None = None
    extra_args: Args | None = None
    env: Env | None = None
    hardware_overrides: dict[Identifier, ArgsEnvOverride] | None = Field(
        None, title="Pool hardware overrides", description="Keyed by exact GPU id only."
    )


class PdRouterOverride(Strict):
    intra_node_data_parallel_size: PositiveInteger | None = Field(
        None, title="Router intra-node DP size"
    )


class StrategyOverride(Strict):
    model_config = _described("Strategy override")

    tp: HardwareKeyedInteger | None = Field(
        None, description="single_node_tp only: TP width, a number or a hardware-keyed map."
    )
    extra_args: Args | None = None
    vllm_args: Args | None = None
    env: Env | None = None
    extra_env: Env | None = None
    hardware_overrides: dict[Identifier, ArgsEnvOverride] | None = Field(
        None,
        title="Strategy hardware overrides",
        description="A generation key replaces the recipe and variant generation layers for this"
        " strategy; an exact GPU id adds to them.",
    )
    prefill: PdRole | None = None
    decode: PdRole | None = None
    router: PdRouterOverride | None = Field(None, title="PD router")
    pool_modes: Annotated[list[PoolParallelism], Field(min_length=1), _UniqueItems()] | None = (
        Field(
            None,
            title="PD pool modes",
            description="Narrows the PD pool parallelism to these modes.",
        )
    )


class OmniTaskHardwareOverride(Strict):
    label: str | None = Field(None, title="Label")
    endpoint: str | None = Field(None, title="Endpoint")
    model_id: NonEmpty | None = Field(None, title="Model id")
    vram_minimum_gb: PositiveInteger | None = Field(None, title="Vram minimum gb")
    description: str | None = Field(None, title="Description")
    extra_args: Args | None = None
    curl: str | None = Field(None, title="Curl")


class OmniTask(Strict):
    model_config = _described("Omni task override")

    id: OmniTaskId
    key: NonEmpty | None = Field(None, title="Selector key")
    label: str | None = Field(None, title="Label")
    endpoint: str | None = Field(None, title="Endpoint")
    model_id: NonEmpty | None = Field(None, title="Served model id")
    vram_minimum_gb: PositiveInteger | None = Field(None, title="Minimum VRAM (GB)")
    description: str | None = Field(None, title="Description")
    extra_args: Args | None = None
    curl: str | None = Field(None, title="Example request")
    axes: dict[str, str] | None = Field(None, title="Axis values")
    hardware_overrides: dict[Identifier, OmniTaskHardwareOverride] | None = Field(
        None, title="Task hardware overrides"
    )


class OmniAxisOption(Strict):
    id: NonEmpty = Field(title="Id")
    label: str | None = Field(None, title="Label")
    description: str | None = Field(None, title="Description")


class OmniAxis(Strict):
    id: NonEmpty = Field(title="Id")
    label: str | None = Field(None, title="Label")
    hint: str | None = Field(None, title="Hint")
    options: list[OmniAxisOption] = Field(title="Options")


class Omni(Strict):
    model_config = _described(
        "vLLM-Omni serving", "Online-serving config for recipes whose meta.tasks include omni."
    )

    serve_binary: NonEmpty | None = Field(None, title="Serve binary")
    port: Port | None = None
    task_label: str | None = Field(None, title="Task row label")
    task_hint: str | None = Field(None, title="Task row hint")
    variant_label: str | None = Field(
        None,
        title="Variant row label",
        description="Label of the omni Variant row (default: Variant).",
    )
    variant_hint: str | None = Field(
        None,
        title="Variant row hint",
        description="Hint under the omni Variant row (default: a note on loading VRAM).",
    )
    tasks: list[OmniTaskId | OmniTask] | None = Field(
        None,
        title="Tasks",
        description="Catalog ids (t2i, i2i, t2v, i2v, ti2v, t2a) or per-task overrides.",
    )
    task_axes: list[OmniAxis] | None = Field(None, title="Task axes")


class HardwareLink(Strict):
    label: str | None = Field(None, title="Link text")
    href: NonEmpty = Field(title="Link target")


class HardwareNoteDetail(Strict):
    title: str | None = Field(None, title="Title")
    body: str | None = Field(None, title="Body")
    description: str | None = Field(None, title="Body (alias)")
    link: HardwareLink | None = Field(None, title="Link")


HardwareNote = TypeAliasType(
    "HardwareNote", Annotated[NonEmpty | HardwareNoteDetail, Field(title="Hardware note")]
)


class AdvancedOption(Strict):
    model_config = _described("Advanced option")

    id: NonEmpty = Field(title="Id")
    label: str | None = Field(None, title="Label")
    description: str | None = Field(None, title="Description")
    args: Args


StrategyMinGpus = Annotated[
    PositiveInteger
    | dict[Identifier, Annotated[PositiveInteger | dict[Identifier, PositiveInteger], _OneOf()]],
    _OneOf(),
]


class Recipe(Strict):
    """models/<hf_org>/<hf_repo>.yaml"""

    model_config = _described(
        "vLLM recipe",
        "One model recipe, models/<hf_org>/<hf_repo>.yaml, in the vllm-project/recipes format"
        " (CONTRIBUTING.md and CLAUDE.md). Keys nothing reads are rejected: the upstream"
        " compiler would pass them through silently.",
    )

    meta: Meta
    model: Model
    dependencies: list[Dependency] | None = Field(
        None,
        title="Extra install steps",
        description="Rendered as the extra-install block above `vllm serve` and copied into the"
        " JSON API as model.install.extras.",
    )
    features: dict[Identifier, Feature] | None = Field(
        None,
        title="Features",
        description="Feature toggles keyed by feature name (tool_calling, reasoning,"
        " spec_decoding, …). Use spec_decoding, never mtp.",
    )
    opt_in_features: list[NonEmpty] | None = Field(
        None,
        title="Opt-in features",
        description="Feature keys that default OFF; every other feature defaults ON.",
    )
    hardware_opt_in_features: dict[Identifier, list[NonEmpty]] | None = Field(
        None,
        title="Per-hardware opt-in features",
        description="Extra opt-in feature keys for one exact hardware profile id (e.g. gb200:"
        " [encoder_parallel]).",
    )
    variants: dict[VariantKey, Variant] = Field(
        title="Variants",
        description="Served checkpoints keyed by variant name. A `default` variant is required.",
        json_schema_extra={"required": ["default"]},
    )
    compatible_strategies: list[NonEmpty] | None = Field(
        None,
        title="Compatible strategies",
        description="Serving strategy ids offered for this model (single_node_tp,"
        " multi_node_dep, pd_cluster, …). Do not list kv_store ids.",
    )
    default_strategy: NonEmpty | None = Field(
        None,
        title="Default strategy",
        description="Strategy recommended when it is compatible; otherwise the compiler's"
        " heuristic picks one.",
    )
    strategy_min_gpus: StrategyMinGpus | None = Field(
        None,
        title="Minimum GPUs per strategy",
        description="A bare number (one floor for every strategy), or a map keyed by strategy id"
        " and/or exact GPU id; a GPU id may hold a number or a per-strategy map. Highest floor"
        " wins.",
    )
    strategy_hardware: dict[Identifier, dict[Identifier, SupportStatus]] | None = Field(
        None,
        title="Strategy support per hardware",
        description="{<strategy_id>: {<gpu id | generation | brand | default>: supported |"
        " unsupported}} layered on compatible_strategies membership.",
    )
    kv_cache_strategy_hardware: dict[Identifier, dict[Identifier, SupportStatus]] | None = Field(
        None,
        title="Mooncake KV-store opt-out per GPU",
        description="{<kv_store_id>: {<exact gpu id>: unsupported}}; absent means the deployment"
        " is offered.",
    )
    kv_offload_support: dict[Identifier, KvOffloadStatus] | None = Field(
        None,
        title="KV offload option support",
        description="{<taxonomy kv_offload option>: verified | unsupported}. Options with"
        " requires_opt_in are offered only when `verified` here.",
    )
    hardware_overrides: dict[Identifier, ArgsEnvOverride] | None = Field(
        None,
        title="Recipe hardware overrides",
        description="Per-generation (hopper, blackwell, amd, cpu, xpu, tpu, …) or brand-wide"
        " `nvidia` extra args/env. Only generation keys and the nvidia fallback are read here.",
    )
    strategy_overrides: dict[Identifier, StrategyOverride] | None = Field(
        None,
        title="Strategy overrides",
        description="Per-strategy tweaks keyed by strategy id; pd_cluster takes prefill/decode"
        " pool settings.",
    )
    omni: Omni | None = None
    hardware_notes: dict[Identifier, HardwareNote] | None = Field(
        None,
        title="Hardware notes",
        description="A note shown above the command block for one exact hardware profile id.",
    )
    advanced_options: list[AdvancedOption] | None = Field(
        None,
        title="Advanced options",
        description="Recipe-specific toggles added to the command builder's Advanced row.",
    )
    guide: NonEmpty = Field(
        title="Guide",
        description="Markdown guide rendered under the command builder (Overview, Prerequisites,"
        " Launch, Benchmarking, Troubleshooting, References).",
    )

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
    min_gpus: PositiveInteger | None = Field(None, title="Minimum GPUs")
    max_gpus: PositiveInteger | None = Field(None, title="Maximum GPUs")
    multi_node: bool | None = Field(None, title="Multi-node")
    architecture: Architecture | None = Field(None, title="Architecture")


class StrategyRole(Strict):
    model_config = _described("PD pool defaults")

    vllm_args: Args | None = None
    env: Env | None = None
    parallelism: PoolParallelism | None = None
    tp: PositiveInteger | None = Field(None, title="TP per DP rank")
    parallel_flag: Flag | None = Field(None, title="Parallel flag")


class StrategyRouter(Strict):
    policy: NonEmpty | None = Field(None, title="Routing policy")


class Strategy(Strict):
    """strategies/<name>.yaml"""

    model_config = _described(
        "Serving strategy",
        "One serving strategy, strategies/<name>.yaml: the vLLM flags and environment of a"
        " parallelism pattern. Published verbatim as strategies/<name>.json.",
    )

    name: Identifier = Field(
        title="Strategy id",
        description="The id recipes use (the compiler keys strategies by this field, not by the"
        " file name).",
    )
    deploy_type: Literal["single_node", "multi_node", "pd_cluster"] = Field(
        title="Deploy type",
        description="single_node, multi_node (head + workers) or pd_cluster (prefill/decode pools"
        " + router).",
    )
    display_name: NonEmpty = Field(title="Display name")
    short_label: NonEmpty | None = Field(
        None, title="Short label", description="Compact pill text (e.g. TP)."
    )
    orientation: Literal["latency", "throughput", "balanced", "production"] | None = Field(
        None, title="Orientation", description="Badge under the Strategy row."
    )
    description: NonEmpty = Field(title="Description")
    hardware_match: HardwareMatch | None = Field(
        None,
        title="Hardware match",
        description="Structural requirements of the pattern (informational; the compiler does not"
        " read them).",
    )
    parallelism: Literal["tp_pp", "tp_dp"] | None = Field(
        None,
        title="Multi-node layout",
        description="tp_pp: TP within a node, PP across nodes; tp_dp: TP within a node, DP across"
        " nodes.",
    )
    parallel_flag: Flag | None = Field(
        None,
        title="Parallel flag",
        description="The flag that receives the GPU count (default --tensor-parallel-size).",
    )
    vllm_args: Args | None = None
    env: Env | None = None
    prefill: StrategyRole | None = None
    decode: StrategyRole | None = None
    router: StrategyRouter | None = Field(None, title="PD router")


# ----------------------------------------------------------------------------- kv_store


MooncakeConfig = TypeAliasType(
    "MooncakeConfig",
    Annotated[
        dict[
            str,
            Annotated[
                str | int | float | bool,
                WithJsonSchema({"type": ["string", "integer", "number", "boolean"]}),
            ],
        ],
        Field(
            title="Mooncake config",
            description="Mooncake's own JSON config, written to disk verbatim: scalar values only.",
        ),
    ],
)


class KvRouter(Strict):
    policy: NonEmpty | None = Field(None, title="Routing policy")
    install: NonEmpty | None = Field(None, title="Router install command")
    port: Port | None = None


class BrandInstall(Strict):
    model_config = _described(minProperties=1)

    nvidia: NonEmpty | None = Field(None, title="Nvidia")
    amd: NonEmpty | None = Field(None, title="Amd")

    check_not_empty = model_validator(mode="after")(_not_empty)


class KvVllm(Strict):
    vllm_args: Args | None = None
    env: Env | None = None
    install: NonEmpty | BrandInstall | None = Field(
        None,
        title="Connector install",
        description="A command, or a brand-keyed map {nvidia, amd}.",
    )
    port: Port | None = None


class KvPdRole(Strict):
    model_config = _described("PD role additions")

    args: Args | None = None
    env: Env | None = None


class KvPd(Strict):
    prefill: KvPdRole | None = None
    decode: KvPdRole | None = None


class MooncakeMaster(Strict):
    command: NonEmpty = Field(title="Command")
    description: str | None = Field(None, title="Description")


class MooncakeStoreConfig(Strict):
    command: NonEmpty = Field(title="Command")
    description: str | None = Field(None, title="Description")
    note: str | None = Field(None, title="Note")
    config: MooncakeConfig | None = None


class MooncakeVllmConfig(Strict):
    mode: Literal["embedded", "standalone-store"] | None = Field(
        None, title="Mode", description="Mirrors template.mode (informational)."
    )
    note: str | None = Field(None, title="Note")
    template: MooncakeConfig


class KvStore(Strict):
    """kv_store/<name>.yaml"""

    model_config = _described(
        "KV-store deployment",
        "One Mooncake KV-store deployment, kv_store/<name>.yaml (deploy_type kv_store_lb): router"
        " + master + optional store around N vLLM instances. Published verbatim as"
        " kv_store/<name>.json.",
    )

    name: Identifier = Field(title="Deployment id")
    deploy_type: Literal["kv_store_lb"] = Field(title="Deploy type")
    display_name: NonEmpty = Field(title="Display name")
    label: NonEmpty | None = Field(
        None, title="Short label", description="Text on the Store Topology sub-row."
    )
    order: int | None = Field(
        None, title="Order", description="Position in the Store Topology row."
    )
    description: NonEmpty = Field(title="Description")
    router: KvRouter | None = Field(None, title="Router")
    vllm: KvVllm = Field(title="vLLM instance additions")
    pd: KvPd | None = Field(None, title="Composition with pd_cluster")
    mooncake_master: MooncakeMaster = Field(title="Mooncake master")
    mooncake_store_config: MooncakeStoreConfig | None = Field(
        None, title="Standalone store service"
    )
    mooncake_vllm_config: MooncakeVllmConfig = Field(title="vLLM-side Mooncake config")
    min_vllm_version: Version | None = Field(
        None,
        title="Minimum vLLM version",
        description="Raises the Install header while this deployment is active.",
    )
    default_instances: PositiveInteger | None = Field(None, title="Default instances")


# ----------------------------------------------------------------------------- taxonomy


Generation = Identifier | Annotated[list[Identifier], Field(min_length=1)]
DocsUrl = Annotated[str, StringConstraints(pattern=HTTP_URL_PATTERN)]


class HardwareProfile(Strict):
    model_config = _described("Hardware profile")

    brand: NonEmpty = Field(
        title="Brand",
        description="Vendor exactly as compared by the compiler: NVIDIA, AMD, Intel, Google,"
        " Huawei, …",
    )
    generation: Generation = Field(
        title="Generation",
        description="Family key used by hardware_overrides (hopper, blackwell, ada, amd, tpu, cpu,"
        " xpu, npu, …). A list counts as any of its members.",
    )
    gpu_generation: Generation | None = Field(
        None,
        title="Generation (legacy alias)",
        description="Read only when generation is absent; write generation instead.",
    )
    compute_arch: Annotated[str, StringConstraints(pattern=COMPUTE_ARCH_PATTERN)] | None = Field(
        None,
        title="Compute architecture",
        description="Compiler target of the accelerator, e.g. sm90, sm100, gfx942.",
    )
    arch: Literal["x86_64", "aarch64"] | None = Field(
        None,
        title="Host CPU architecture",
        description="The CPU architecture of the node's host (x86_64, or aarch64 for Grace-based"
        " systems). When absent, recipelint infers it from the profile's brand, generation, name"
        " and description; the compiler does not read it.",
    )
    display_name: NonEmpty = Field(title="Display name")
    description: str | None = Field(None, title="Description")
    gpu_count: PositiveInteger = Field(title="GPUs per node")
    vram_gb: Annotated[float, Field(gt=0)] = Field(
        title="VRAM per node (GB)", description="Total accelerator memory of one node."
    )
    multi_node: bool | None = Field(None, title="Multi-node")
    scalable: bool | None = Field(
        None,
        title="Scalable",
        description="false: cannot join a multi-node deployment, so VRAM is a hard limit.",
    )
    restricted: bool | None = Field(
        None,
        title="Restricted",
        description="true: offered only for recipes that list this id in meta.hardware.",
    )


class TaxonomyTask(Strict):
    model_config = _described("Task")

    id: Identifier = Field(title="Task id")
    display_name: NonEmpty = Field(title="Display name")
    description: str | None = Field(None, title="Description")


class KvOffloadGroup(Strict):
    model_config = _described("KV offload group")

    display_name: NonEmpty = Field(title="Display name")
    label: str | None = Field(None, title="Pill label")
    order: int | None = Field(None, title="Order")
    sub_row_label: str | None = Field(None, title="Sub-row label")
    docs_url: DocsUrl | None = Field(None, title="Docs URL")
    tooltip: str | None = Field(None, title="Tooltip")
    description: str | None = Field(None, title="Description")


class OffloadCompanion(Companion):
    """A KV offload option's companion: Companion's fields, without its feature wording."""

    model_config = _described("Companion process")


class KvOffloadOption(Strict):
    model_config = _described("KV offload option")

    display_name: NonEmpty = Field(title="Display name")
    label: str | None = Field(None, title="Pill label")
    order: int | None = Field(None, title="Order")
    group: Identifier | None = Field(None, title="Group", description="A kv_offload_groups key.")
    description: str | None = Field(None, title="Description")
    args: Args
    env: Env | None = None
    strategies: list[Identifier] | None = Field(
        None,
        title="Strategy allowlist",
        description="Serving strategies this option composes with; absent = all.",
    )
    brands: list[NonEmpty] | None = Field(None, title="Brand allowlist")
    requires_opt_in: bool | None = Field(
        None,
        title="Requires opt-in",
        description="true: offered only where a recipe lists the option as verified under"
        " kv_offload_support.",
    )
    install: NonEmpty | None = Field(None, title="Install command")
    docs_url: DocsUrl | None = Field(None, title="Docs URL")
    companion: OffloadCompanion | None = None


class Taxonomy(Strict):
    """taxonomy.yaml"""

    model_config = _described(
        "Recipe taxonomy",
        "taxonomy.yaml: the controlled vocabulary (hardware profiles, tasks, serving strategy ids,"
        " KV offload options). Published verbatim as taxonomy.json.",
    )

    hardware_profiles: Annotated[dict[Identifier, HardwareProfile], Field(min_length=1)] = Field(
        title="Hardware profiles",
        description="One node of a GPU type, keyed by profile id (h200, mi355x, …).",
    )
    tasks: Annotated[list[TaxonomyTask], Field(min_length=1)] = Field(title="Tasks")
    strategies: Annotated[list[Identifier], Field(min_length=1), _UniqueItems()] = Field(
        title="Serving strategy ids", description="The vocabulary of strategies/*.yaml names."
    )
    kv_offload_groups: dict[Identifier, KvOffloadGroup] | None = Field(
        None,
        title="KV offload groups",
        description="Options sharing a group collapse into one pill with a member sub-row.",
    )
    kv_offload: dict[Identifier, KvOffloadOption] | None = Field(
        None,
        title="KV offload options",
        description="Options of the KV Offload row that compose with the serving strategy.",
    )


# ----------------------------------------------------------------------------- platforms


class Platform(Strict):
    model_config = _described("Platform")

    id: PlatformId = Field(title="Platform id", description="Slug referenced by meta.platforms.")
    name: NonEmpty = Field(title="Display name")
    url: HttpUrl = Field(title="Guide URL", description='"Open guide" link.')
    blurb: str | None = Field(None, title="Blurb", description="One line shown under the name.")
    install: str | None = Field(
        None, title="Install snippet", description="Optional shell or Dockerfile snippet."
    )
    script: str | None = Field(None, title="Deploy script URL")


class Platforms(Strict):
    """platforms.yaml"""

    model_config = _described(
        "Inference platforms",
        "platforms.yaml: third-party places to self-host vLLM; recipes opt in with meta.platforms.",
    )

    platforms: list[Platform] = Field(title="Platforms")


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
