"""RL4xx: vLLM versions, docker images and the guide's account of them.

The version *format* is the schema's business (RL1xx); these rules compare
versions with each other: an image tag against the minimum version it must
satisfy, `nightly_required` against a pinned image, and the guide's prose
against the fields the command builder uses.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from recipelint import shellwords
from recipelint.flags.catalog import written_release
from recipelint.jsvalue import JsonValue, JsValue
from recipelint.read.load import Document
from recipelint.resolve.docker import IMAGE_REFERENCE, Version, parse_version, split_image
from recipelint.rules.common import Pointer, as_dict, guide_offset_span, guide_text
from recipelint.rules.context import CheckContext
from recipelint.rules.registry import Finding, check

if TYPE_CHECKING:
    from recipelint.rules.guide_sections import HardwareWords

BRANDS = ("nvidia", "amd", "tpu", "intel")


@dataclass(frozen=True)
class Image:
    pointer: Pointer
    reference: str
    variant: str | None  # None: the model-level image


def _image_strings(value: object, pointer: Pointer) -> Iterator[tuple[Pointer, str]]:
    """Strings of a docker_image field: a string, a brand map, or a CUDA map (cu129/cu130)."""
    if isinstance(value, str):
        yield pointer, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _image_strings(item, pointer + (key,))


def recipe_images(data: dict[str, JsonValue]) -> Iterator[Image]:
    model = as_dict(data.get("model"))
    for pointer, ref in _image_strings(model.get("docker_image"), ("model", "docker_image")):
        yield Image(pointer, ref, None)
    for name, variant in as_dict(data.get("variants")).items():
        variant = as_dict(variant)
        for pointer, ref in _image_strings(
            variant.get("docker_image"), ("variants", name, "docker_image")
        ):
            yield Image(pointer, ref, name)
        for hw, spec in as_dict(variant.get("hardware_overrides")).items():
            image = as_dict(spec).get("docker_image")
            if isinstance(image, str):
                yield Image(
                    ("variants", name, "hardware_overrides", hw, "docker_image"), image, name
                )


def _variant_images(images: list[Image], variant: str) -> list[Image]:
    """Images a variant can render with: its own, else the model's (precedence: docs/upstream-behaviour.md#docker-image, per brand)."""
    own = [image for image in images if image.variant == variant]
    own_brands = {
        image.pointer[3]
        for image in own
        if image.pointer[2] == "docker_image" and len(image.pointer) > 3
    }
    own_plain = any(image.pointer == ("variants", variant, "docker_image") for image in own)
    inherited = [
        image
        for image in images
        if image.variant is None
        and not own_plain
        and not (len(image.pointer) > 2 and image.pointer[2] in own_brands)
    ]
    return own + inherited


def _required(data: dict[str, JsonValue], variant: str) -> tuple[Version | None, str]:
    model_min = parse_version(as_dict(data.get("model")).get("min_vllm_version"))
    variant_min = parse_version(
        as_dict(as_dict(data.get("variants")).get(variant)).get("min_vllm_version")
    )
    if variant_min and (model_min is None or variant_min > model_min):
        return variant_min, f"variant `{variant}` min_vllm_version"
    return model_min, "model.min_vllm_version"


def _nightly(data: dict[str, JsonValue], variant: str) -> bool:
    model = as_dict(data.get("model"))
    spec = as_dict(as_dict(data.get("variants")).get(variant))
    return model.get("nightly_required") is True or spec.get("nightly_required") is True


def _is_vllm(repo: str) -> bool:
    return repo.startswith("vllm/") or repo.startswith("docker.io/vllm/")


def _per_variant_images(doc: Document) -> Iterator[tuple[str, Image, str, str | None]]:
    """(variant, image, repository, tag) for every vLLM image a variant renders with, once per pointer."""
    data = doc.data if isinstance(doc.data, dict) else {}
    images = list(recipe_images(data))
    by_variant: dict[str | None, list[Image]] = {}
    for image in images:
        by_variant.setdefault(image.variant, []).append(image)
    for variant in as_dict(data.get("variants")):
        for image in _variant_images(
            by_variant.get(variant, []) + by_variant.get(None, []), variant
        ):
            repo, tag = split_image(image.reference)
            if _is_vllm(repo):
                yield variant, image, repo, tag


@check("RL401")
def tag_below_minimum(ctx: CheckContext) -> Iterator[Finding]:
    for doc in ctx.recipes:
        data = doc.data if isinstance(doc.data, dict) else {}
        reported: set[Pointer] = set()
        for variant, image, _repo, tag in _per_variant_images(doc):
            tag_version = parse_version(tag)
            required, source = _required(data, variant)
            if tag_version is None or required is None or image.pointer in reported:
                continue
            if _release_key(tag_version) < _release_key(required):
                reported.add(image.pointer)
                yield Finding(
                    doc,
                    image.pointer,
                    f"image `{image.reference}` is vLLM {tag_version.text.lstrip('v')}, older than "
                    f"{source} {required.text} that variant `{variant}` needs",
                    f"pin a tag at or above v{required.text}, or drop the pin",
                )


def _release_key(version: Version) -> tuple[int, ...]:
    return (version.major, version.minor, version.patch, version.final, version.rc, version.post)


@check("RL402", "RL403")
def nightly_images(ctx: CheckContext) -> Iterator[Finding]:
    for doc in ctx.recipes:
        data = doc.data if isinstance(doc.data, dict) else {}
        reported: set[Pointer] = set()
        for variant, image, _repo, tag in _per_variant_images(doc):
            if not _nightly(data, variant) or image.pointer in reported:
                continue
            version = parse_version(tag)
            if version is not None and version.released:
                reported.add(image.pointer)
                yield Finding(
                    doc,
                    image.pointer,
                    f"nightly_required is set for variant `{variant}`, but its image `{image.reference}` "
                    f"is the released vLLM {version.text.lstrip('v')}",
                    "drop nightly_required if the release suffices, or pin a nightly image",
                    code="RL402",
                )
            elif tag in (None, "latest") or (tag or "").startswith("latest"):
                reported.add(image.pointer)
                yield Finding(
                    doc,
                    image.pointer,
                    f"nightly_required is set for variant `{variant}`, but `{image.reference}` is the "
                    "latest *release*, which lacks what the nightly brings",
                    "use the `nightly` tag (or a nightly-<commit> tag)",
                    code="RL403",
                )


@check("RL404")
def image_references(ctx: CheckContext) -> Iterator[Finding]:
    for doc in ctx.recipes:
        data = doc.data if isinstance(doc.data, dict) else {}
        for image in recipe_images(data):
            if not IMAGE_REFERENCE.match(image.reference):
                yield Finding(
                    doc,
                    image.pointer,
                    f"`{image.reference}` is not a valid image reference ([registry/]name[:tag][@digest], "
                    "lowercase name, no spaces): `docker pull` and `docker run` reject it",
                )


# --- the guide against the fields -------------------------------------------------------------

# One character class per gap (markdown bold, colons, spaces), so a run of spaces cannot backtrack polynomially.
GUIDE_MINIMUM = re.compile(
    r"vLLM[\s*:]*(?:>=|≥|version\s+>=)[\s*]*v?(\d+\.\d+(?:\.\d+)?)"
    r"|vLLM\s+v?(\d+\.\d+\.\d+)\s+or\s+(?:later|newer)",
    re.IGNORECASE,
)
GUIDE_IMAGE = re.compile(r"\b(vllm/vllm-openai(?:-[a-z0-9]+)?):([A-Za-z0-9_][A-Za-z0-9_.-]*)")


def _known_minimums(data: dict[str, JsonValue]) -> set[tuple[int, int, int]]:
    found = [as_dict(data.get("model")).get("min_vllm_version")]
    found += [as_dict(v).get("min_vllm_version") for v in as_dict(data.get("variants")).values()]
    versions = (parse_version(text) for text in found)
    return {(v.major, v.minor, v.patch) for v in versions if v}


def guide_minimums(text: str) -> Iterator[re.Match[str]]:
    """GUIDE_MINIMUM.finditer(text), trying the pattern only where `vllm` is written in any case.

    Every match starts with those four letters (no other character matches them ignoring
    case), so the matches and their order are the same. Lower-casing that lengthens a
    character would move the offsets: such a text is scanned by the pattern itself.
    """
    lowered = text.lower()
    if len(lowered) != len(text):
        return GUIDE_MINIMUM.finditer(text)
    return _matches_where(GUIDE_MINIMUM, text, "vllm", lowered)


def asked_releases(text: str) -> list[str]:
    """The releases a text asks for ("vLLM >= 0.9", "vLLM 0.9.0 or later"), written X.Y.Z."""
    found = []
    for match in guide_minimums(text):
        parts = (match.group(1) or match.group(2)).split(".")
        release = written_release(".".join(parts + ["0"] * (3 - len(parts))))
        if release is not None:
            found.append(release)
    return found


def _matches_where(
    pattern: re.Pattern[str], text: str, start: str, searched: str | None = None
) -> Iterator[re.Match[str]]:
    """pattern.finditer(text) for a pattern whose every match begins with ``start`` (as
    found in ``searched``, a same-length spelling of the text): the pattern is tried only
    where ``start`` occurs, instead of at every position of a long guide."""
    found_in = text if searched is None else searched
    position = 0
    while (at := found_in.find(start, position)) >= 0:
        match = pattern.match(text, at)
        if match is None:
            position = at + 1
            continue
        yield match
        position = match.end()


def _mentioned_version(text: str) -> tuple[int, int, int]:
    parts = [int(p) for p in text.split(".")]
    return (parts + [0, 0])[0], (parts + [0, 0])[1], (parts + [0, 0, 0])[2]


@check("RL405")
def guide_minimum_version(ctx: CheckContext) -> Iterator[Finding]:
    scoped = GuideScopes(ctx)
    for doc in ctx.recipes:
        guide = guide_text(doc)
        known = _known_minimums(as_dict(doc.data)) if guide else set()
        if not guide or not known:
            continue
        for match in guide_minimums(guide):
            text = match.group(1) or match.group(2)
            mentioned = _mentioned_version(text)
            precise = text.count(".") == 2
            if (
                (mentioned not in known)
                if precise
                else (mentioned[:2] not in {k[:2] for k in known})
            ) and not scoped.in_part(doc, guide, match.start()):
                fields = " and ".join(".".join(map(str, k)) for k in sorted(known))
                yield Finding(
                    doc,
                    ("guide",),
                    f"the guide asks for vLLM >= {text}, but no min_vllm_version field says so "
                    f"(they say {fields})",
                    f'write the field\'s version here, or set `min_vllm_version: "{text}"` on the model '
                    "(or on the variant that needs it) so the install block agrees",
                    span=guide_offset_span(doc, match.start(), len(match.group(0))),
                )
                break


class GuideScopes:
    """Whether a place of a guide is in a section about one hardware or feature of the recipe:
    a version it asks for there is that part's, which no min_vllm_version field can state, so
    it is no disagreement with the model's. A section about a variant still is one: the
    variant's own min_vllm_version is where it belongs. Read only once a version disagrees."""

    def __init__(self, ctx: CheckContext) -> None:
        self.ctx = ctx

    @functools.cached_property
    def words(self) -> HardwareWords:
        # Imported here: the guide's sections are read only once a version disagrees.
        from recipelint.rules.guide_sections import hardware_words

        return hardware_words(self.ctx)

    def in_part(self, doc: Document, guide: str, offset: int) -> bool:
        from recipelint.rules.guide_markdown import fenced_blocks
        from recipelint.rules.guide_sections import VARIANT_PART, GuideOutline, parts_named

        outline = GuideOutline(guide, fenced_blocks(guide), self.words)
        data = as_dict(doc.data)
        parts: set[str] = set()
        for title in outline.titles_above(guide.count("\n", 0, offset) + 1):
            parts |= parts_named(title, self.words, data)
        return bool(parts) and VARIANT_PART not in parts


def renderable_images(data: dict[str, JsonValue]) -> set[str]:
    """Every image a command can show: the pinned ones and the brand defaults (docs/upstream-behaviour.md#docker-image)."""
    images = {image.reference for image in recipe_images(data)}
    nightly = as_dict(data.get("model")).get("nightly_required") is True or any(
        as_dict(v).get("nightly_required") is True for v in as_dict(data.get("variants")).values()
    )
    tag = "nightly" if nightly else "latest"
    images.update(
        {
            f"vllm/vllm-openai:{tag}",
            f"vllm/vllm-openai-rocm:{tag}",
            "vllm/vllm-openai-cpu:latest-x86_64",
            "vllm/vllm-openai-xpu:latest",
        }
    )
    return images


def _guide_images(text: str) -> Iterator[re.Match[str]]:
    """GUIDE_IMAGE.finditer(text), trying the pattern only where its literal start occurs.

    Same matches in the same order (a match always starts with the literal, and `\\b` still
    sees the character before `pos`), without a regex scan of every position of a long guide.
    """
    return _matches_where(GUIDE_IMAGE, text, "vllm/vllm-openai")


CUDA_SUFFIX = re.compile(r"-cu1\d\d$")


def _without_cuda_suffix(reference: str) -> str:
    """`…:tag-cu129` is the CUDA 12.9 build of `…:tag`; the guide may name either."""
    return CUDA_SUFFIX.sub("", reference) if "-cu1" in reference else reference


def _minimum_tags(data: dict[str, JsonValue]) -> set[str]:
    """`X.Y.Z` of every min_vllm_version: the release image of the minimum is what the guide may name."""
    return {".".join(map(str, version)) for version in _known_minimums(data)}


def _nightly_build(tag: str) -> bool:
    """`nightly` or a `nightly-<commit>` build (the form RL403 recommends)."""
    return tag == "nightly" or tag.startswith("nightly-")


def _accepted_guide_image(
    repo: str, tag: str, known_builds: set[str], data: dict[str, JsonValue]
) -> bool:
    if f"{repo}:{_without_cuda_suffix(tag)}" in known_builds:
        return True
    # The release the recipe states as its minimum is a faithful way to run it.
    release = _without_cuda_suffix(tag)
    if release.lstrip("v") in _minimum_tags(data) and re.fullmatch(r"v?\d+\.\d+\.\d+", release):
        return True
    # Any nightly build of a repository the recipe runs as nightly: the commit pin only dates it.
    return _nightly_build(tag) and any(
        ref.startswith(repo + ":") and _nightly_build(ref[len(repo) + 1 :]) for ref in known_builds
    )


@check("RL406")
def guide_image_tag(ctx: CheckContext) -> Iterator[Finding]:
    for doc in ctx.recipes:
        guide = guide_text(doc)
        if not guide:
            continue
        data = as_dict(doc.data)
        known = renderable_images(data)
        known_builds = {_without_cuda_suffix(ref) for ref in known}
        claims: GuideClaims | None = None
        for match in _guide_images(guide):
            if _accepted_guide_image(match.group(1), match.group(2), known_builds, data):
                continue
            claims = claims or GuideClaims.of(guide)  # read only once an image disagrees
            if not claims.claims(match):
                continue
            pinned = sorted(ref for ref in known if ref.startswith(match.group(1) + ":"))
            used = ", ".join(f"`{p}`" for p in pinned) or "another image"
            yield Finding(
                doc,
                ("guide",),
                f"the guide names `{match.group(0)}`, but the recipe's docker commands use {used}",
                f"name {f'`{pinned[0]}`' if len(pinned) == 1 else 'one of those'} in the guide, or pin "
                f'`docker_image: "{match.group(0)}"` (on the model or the variant that needs it) so the '
                "commands use it too",
                span=guide_offset_span(doc, match.start(), len(match.group(0))),
            )
            break


# The commands that run an image the way the builder's docker commands do.
CONTAINER_TOOLS = frozenset({"docker", "podman", "nerdctl"})
# Words before a command's program: the program is what follows them.
COMMAND_PREFIXES = frozenset({"sudo", "env", "exec", "time", "nohup", "$"})
ALIAS_OPTIONS = frozenset({"-t", "--tag"})
HEADING = re.compile(r"^ {0,3}#{1,6}\s")


@dataclass(frozen=True)
class GuideClaims:
    """Which of the guide's image names are claims about the commands the builder renders.

    The builder renders docker commands; an image name is a claim where the guide writes it
    in words or for a container tool. It is not one where the guide names an image it makes
    itself (`docker tag SRC vllm/vllm-openai:deploy`, `docker build -t ...`), nor in a part
    the builder never renders: a block of another language (a Kubernetes manifest, a compose
    file, a Dockerfile), a command of another runtime (`kubectl`, `srun`, `helm`), or words
    about an image that part of the guide alone uses.
    """

    aliases: frozenset[str]
    unclaimed_lines: frozenset[int]  # 0-based lines of the guide whose images claim nothing
    prose_lines: frozenset[int]  # 0-based lines outside any code block
    sections: tuple[int, ...]  # 0-based lines of the headings outside code blocks

    @classmethod
    def of(cls, guide: str) -> GuideClaims:
        # Imported here: the guide's reader is needed only once an image disagrees.
        from recipelint.rules.guide_markdown import SHELL, fenced_blocks

        lines = guide.split("\n")
        aliases: set[str] = set()
        unclaimed: set[int] = set()
        fenced: set[int] = set()
        for block in fenced_blocks(guide):
            first = block.line - 1
            count = block.code.count("\n") + 1 if block.code else 0  # ``` then ``` holds none
            fenced.update(range(first - 1, first + count + 1))
            if block.language and block.language not in SHELL:
                unclaimed.update(range(first, first + count))
                continue
            for start, end, words in _block_commands(block.code):
                aliases.update(_made_images(words))
                if not _container_command(words):
                    unclaimed.update(range(first + start, first + end + 1))
        prose = frozenset(range(len(lines))) - fenced
        headings = tuple(n for n in sorted(prose) if HEADING.match(lines[n]))
        return cls(frozenset(aliases), frozenset(unclaimed), prose, headings)

    def claims(self, match: re.Match[str]) -> bool:
        """Whether this name of an image says which image the rendered commands run."""
        if match.group(0) in self.aliases:
            return False
        line = match.string.count("\n", 0, match.start())
        if line in self.unclaimed_lines:
            return False
        if line not in self.prose_lines:
            return True
        return self._claimed_in_section(match.group(0), line, match.string)

    def _claimed_in_section(self, image: str, line: int, guide: str) -> bool:
        """Words about an image are a claim unless their section runs it only where nothing
        is claimed (its manifest, another runtime's command)."""
        index = bisect.bisect_right(self.sections, line)
        lines = guide.split("\n")
        start = self.sections[index - 1] if index else 0
        end = self.sections[index] if index < len(self.sections) else len(lines)
        written = [n for n in range(start, end) if image in lines[n] and n not in self.prose_lines]
        return not written or any(n not in self.unclaimed_lines for n in written)


def _block_commands(code: str) -> Iterator[tuple[int, int, list[str]]]:
    """Each command of a shell block: its first and last line offsets and its words."""
    from recipelint.rules.guide_shell import logical_spans

    for start, end, command in logical_spans(code):
        for part in re.split(r"&&|\|\||;|\|", command):
            words = _words(part)
            if words:
                yield start, end, words


def _words(command: str) -> list[str]:
    try:
        return shellwords.split(command)
    except ValueError:  # an unbalanced quote: the words as the eye splits them
        return command.split()


def _program(words: list[str]) -> tuple[str, list[str]]:
    """A command's program and its arguments, past `sudo` and variable assignments."""
    for index, word in enumerate(words):
        if word in COMMAND_PREFIXES or re.match(r"^[A-Za-z_]\w*=", word):
            continue
        return word.rsplit("/", 1)[-1], words[index + 1 :]
    return "", []


def _container_command(words: list[str]) -> bool:
    """A command of a container tool, or one that only sets variables (an image to run later)."""
    program, _ = _program(words)
    return program in CONTAINER_TOOLS or program == ""


def _made_images(words: list[str]) -> Iterator[str]:
    """Images a command makes under a name of its own: `docker tag SRC NAME`, `docker build -t NAME`."""
    program, args = _program(words)
    if program not in CONTAINER_TOOLS or not args:
        return
    if args[0] == "tag" and len(args) >= 3:
        yield args[2]
    elif args[0] in {"build", "buildx", "commit"}:
        for option, value in itertools.pairwise(args):
            if option in ALIAS_OPTIONS:
                yield value
        yield from (a.split("=", 1)[1] for a in args if a.startswith("--tag="))
        if args[0] == "commit" and len(args) >= 3 and not args[-1].startswith("-"):
            yield args[-1]


def _claimed_releases(doc: Document) -> Iterator[tuple[Pointer, Version]]:
    """Each released vLLM a recipe says it runs on: its minimums and its pinned vLLM images.

    A minimum under nightly_required names a release that is not out yet, which no
    catalog can hold, so it claims nothing here.
    """
    data = doc.data if isinstance(doc.data, dict) else {}
    model = as_dict(data.get("model"))
    claims: dict[Pointer, JsValue] = {}
    if model.get("nightly_required") is not True:
        claims[("model", "min_vllm_version")] = model.get("min_vllm_version")
    for name, variant in as_dict(data.get("variants")).items():
        if not _nightly(data, name):
            claims[("variants", name, "min_vllm_version")] = as_dict(variant).get(
                "min_vllm_version"
            )
    for _variant, image, _repo, tag in _per_variant_images(doc):
        claims[image.pointer] = tag
    for pointer, text in claims.items():
        version = parse_version(text)
        if version is not None and version.released:
            yield pointer, version


@check("RL407")
def release_newer_than_catalogs(ctx: CheckContext) -> Iterator[Finding]:
    # Imported here: the catalogs are read only when a recipe claims a release at all.
    from recipelint.flags.catalog import newest_catalog

    newest = parse_version(newest_catalog().version)
    assert newest is not None  # a committed catalog is named by its release
    for doc in ctx.recipes:
        for pointer, version in _claimed_releases(doc):
            if _release_key(version) > _release_key(newest):
                yield Finding(
                    doc,
                    pointer,
                    f"vLLM {version.text.lstrip('v')} is newer than the newest release "
                    f"recipelint knows ({newest.text}): its flags, environment variables and "
                    f"backends are judged as {newest.text} reads them, and a flag, value or "
                    "key no catalogued release knows is a notice (RL365), not an error (the "
                    "release may have added it)",
                    "upgrade recipelint, or add the release's catalogs with "
                    "`recipelint flags update` (docs/flags.md)",
                )
