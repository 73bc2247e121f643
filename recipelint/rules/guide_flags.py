"""Judging a guide command's options against the vLLM release it runs: which release a
command claims, and what each option's support says there.

It is long because both halves serve one judge (CommandJudge): the claim (the recipe's
minimum, a variant's, a pinned or moving image tag, a nightly or main-branch build, the
image the recipe deploys on a section's hardware or the build the section's words ask for) decides
which releases each option's verdict reads, and the verdict's message names that claim.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass

from recipelint.flags.catalog import (
    NIGHTLY,
    Catalog,
    Lookup,
    available_versions,
    beyond_catalogs,
    catalog_for,
    load_catalog,
    newest_catalog,
    version_key,
    written_release,
)
from recipelint.flags.support import (
    ReleaseStatus,
    catalogs_from,
    first_with,
    flag_support,
    json_key_support,
    value_support,
)
from recipelint.jsvalue import JsonValue
from recipelint.read.load import Document
from recipelint.resolve.docker import docker_meta
from recipelint.resolve.install import builds_from_checkout
from recipelint.resolve.layers import is_omni
from recipelint.rules.common import ArgList, as_dict, guide_span
from recipelint.rules.guide_sections import asks_for_unreleased
from recipelint.rules.guide_shell import (
    ARGPARSE_OWN,
    OPTION,
    GuideCommand,
    Token,
)
from recipelint.rules.registry import Finding
from recipelint.rules.versions import asked_releases, recipe_images
from recipelint.spelling import close_flags

# The codes this module's judge produces.
UNKNOWN_FLAG, REJECTED, UNDERSCORED = "RL604", "RL605", "RL606"


def guide_release(data: dict[str, JsonValue]) -> str:
    """The release a guide's commands are first judged at: the recipe's minimum, else the newest."""
    return _release(as_dict(data.get("model")).get("min_vllm_version")) or available_versions()[-1]


def _release(raw: object) -> str | None:
    """A version as the catalogs read it; None for nightly or one the schema stage reports."""
    found = written_release(raw)
    return None if found == NIGHTLY else found


@dataclass(frozen=True)
class Claim:
    """What says which releases a guide command runs on, in the words its findings use: the
    recipe's min_vllm_version, a variant's own one, or a pinned server image (that release alone)."""

    minimum: str = "min_vllm_version"
    holder: str = "the recipe"
    image: str | None = None
    # A build that may be newer than every catalog (min_vllm_version "nightly", a `:latest`
    # or `:nightly` image): judged by the newest release, what none knows left alone.
    open_ended: bool = False


RECIPE_CLAIM = Claim()
NIGHTLY_CLAIM = Claim(open_ended=True)


# A pinned tag of a server image: `v0.25.0`, `0.9.2`, `v0.24.0-ubuntu2404` (a build of that release).
IMAGE_TAG = re.compile(r"v?(\d+\.\d+(?:\.\d+)?)(?:[-+][\w.-]*)?")


def runs_main(data: dict[str, JsonValue], package: str) -> bool:
    """Whether the recipe runs ``package``'s main branch: a nightly minimum, or an install that
    builds the package from a clone. Asked once per recipe and package (command_release)."""
    minimum = written_release(as_dict(data.get("model")).get("min_vllm_version"))
    return minimum == NIGHTLY or builds_from_checkout(data, package)


def command_release(
    data: dict[str, JsonValue], command: GuideCommand, package: str, main: bool
) -> tuple[str, Claim]:
    """The release a guide command is judged from, and what claims it (``main``: runs_main).

    A `docker run` of a pinned server image runs that image's release and no other; a recipe
    whose minimum is nightly, or whose install builds the package from a clone, runs main (the
    newest release and what may follow it); a command serving a variant's checkpoint runs where
    that variant does (its own min_vllm_version, when it raises the recipe's); any other command
    from the recipe's min_vllm_version on.
    """
    pinned = _image_claim(command.image) if package == "vllm" else None
    if pinned is not None:
        return pinned
    if main:
        return available_versions(package)[-1], NIGHTLY_CLAIM
    model = as_dict(data.get("model"))
    base = _release(model.get("min_vllm_version"))
    served = _served_model(command.words)
    if served is None or served == model.get("model_id"):
        return base or available_versions()[-1], RECIPE_CLAIM
    raised = [
        (version_key(own), own, key)
        for key, variant in as_dict(data.get("variants")).items()
        if as_dict(variant).get("model_id") == served
        and (own := _release(as_dict(variant).get("min_vllm_version"))) is not None
        and (base is None or version_key(own) > version_key(base))
    ]
    if not raised or len(raised) < _variants_serving(data, served):
        return base or available_versions()[-1], RECIPE_CLAIM  # a variant without its own minimum
    _, own, key = min(raised)
    return own, Claim(f"variant `{key}`'s min_vllm_version", f"variant `{key}`")


# A section's own words about the build its commands need (section_claim).
SECTION_RELEASE = Claim("the release its section asks for", "its section")
SECTION_BUILD = Claim("its section's build", "its section", open_ended=True)


def section_claim(text: str, release: str, package: str) -> tuple[str, Claim] | None:
    """The build a section's own words ask for, when past ``release`` (what the command is
    otherwise judged from): a nightly or unreleased build, or a pull request of vLLM's, is
    open-ended (the newest release and what may follow it); "vLLM >= X" is X on. A section
    that says nothing of its build claims nothing: its commands keep the recipe's claim."""
    if asks_for_unreleased(text):
        return available_versions(package)[-1], SECTION_BUILD
    newer = [a for a in asked_releases(text) if version_key(a) > version_key(release)]
    return (max(newer, key=version_key), SECTION_RELEASE) if newer else None


def deployed_claim(
    data: dict[str, JsonValue],
    hardware: list[tuple[str, JsonValue]],
    command: GuideCommand,
    release: str,
) -> tuple[str, Claim] | None:
    """The build the recipe's own image runs on a section's hardware (``hardware``: ids and
    profiles) when it is a moving one (`:nightly`, `:latest`), judged as a `docker run` of that
    image is (_image_claim). Only an image the recipe chooses counts: one it writes, or the nightly one
    nightly_required gives; the compiler's `:latest` default says nothing of the recipe.
    Every variant serving the command's checkpoint (every variant, when none names it) on
    every hardware of the section must run the same build, or an open-ended one each."""
    images = _deployed_images(data, hardware, _served_model(command.words))
    claims = [_image_claim(image) for image in sorted(images)] if images else [None]
    if any(claim is None for claim in claims):
        return None
    found = [claim for claim in claims if claim is not None]
    # A pinned release leaves the section to the recipe's minimum: a reader may pip-install
    # that release, and a guide option younger than it says the minimum is understated (PR
    # 601's AMD sections on -rocm:v0.22.1 with min_vllm_version 0.11.0).
    if not all(claim.open_ended for _, claim in found):
        return None
    return found[0]


def _deployed_images(
    data: dict[str, JsonValue], hardware: list[tuple[str, JsonValue]], served: str | None
) -> set[str] | None:
    """The images the recipe's variants run on ``hardware``; None when one is no choice of
    the recipe's (the compiler's default) or no image at all."""
    written = {image.reference for image in recipe_images(data)}
    model = as_dict(data.get("model"))
    nightly = model.get("nightly_required") is True
    variants = list(as_dict(data.get("variants")).values())
    serving = [
        v for v in variants if (as_dict(v).get("model_id") or model.get("model_id")) == served
    ]
    found: set[str] = set()
    for variant in serving or variants or [{}]:
        for hw_id, profile in hardware:
            image = docker_meta(data, variant, profile, hw_id).image
            if not isinstance(image, str) or not (image in written or nightly):
                return None
            found.add(image)
    return found


def _variants_serving(data: dict[str, JsonValue], served: str) -> int:
    return sum(as_dict(v).get("model_id") == served for v in as_dict(data.get("variants")).values())


def _image_claim(image: str | None) -> tuple[str, Claim] | None:
    """The release a server image runs and the claim naming it: the release its tag pins
    (`vllm/vllm-openai:v0.25.0`), or for `latest` and `nightly` (`nightly-<commit>` too) the
    newest catalogued release and what may follow it; None for a named build whose release
    the tag does not say."""
    if image is None:
        return None
    name = image.split("@", 1)[0]
    _, colon, tag = name.rpartition(":")
    if not colon or "/" in tag:
        return None
    if tag in ("latest", NIGHTLY) or tag.startswith(f"{NIGHTLY}-"):
        return available_versions()[-1], Claim(image=image, open_ended=True)
    match = IMAGE_TAG.fullmatch(tag)
    pinned = _release(match.group(1)) if match else None
    return (pinned, Claim(image=image)) if pinned is not None else None


def _served_model(words: tuple[str, ...]) -> str | None:
    """The checkpoint a serve command serves: its first word, or its `--model` option."""
    if words and not words[0].startswith("-"):
        return words[0]
    for index, word in enumerate(words):
        if word == "--model" and index + 1 < len(words):
            return words[index + 1]
        if word.startswith("--model="):
            return word.split("=", 1)[1]
    return None


# What a verdict is about, whatever the command's spelling: the option (canonical), the JSON
# sub-key, the value, and the releases that refuse it (("unknown",): no release knows it).
Cause = tuple[str, tuple[str, ...], str | None, tuple[str, ...]]


@dataclass(frozen=True)
class GuideVerdict:
    """A finding of a guide command, before it is placed in a document: its text and where in
    the guide it is (``column`` -1: the whole line)."""

    code: str
    message: str
    hint: str
    line: int
    column: int
    length: int
    cause: Cause | None = None

    def placed(self, doc: Document) -> Finding:
        """The finding at this place of ``doc``'s guide."""
        if self.column < 0:
            span = guide_span(doc, self.line)
        else:
            end = self.column + self.length
            span = doc.scalar_line_span(("guide",), self.line - 1, self.column, end)
        return Finding(doc, ("guide",), self.message, self.hint, code=self.code, span=span)


@dataclass(frozen=True)
class OptionVerdict:
    """A verdict on one option of a command before it is placed: on the option's own word, or
    on the word after it that holds its value; ``length`` characters from the word's start."""

    code: str
    message: str
    hint: str
    on_value: bool
    length: int
    cause: Cause | None = None

    def at(self, option: Token, value: Token | None) -> GuideVerdict:
        token = value if self.on_value and value is not None else option
        return GuideVerdict(
            self.code, self.message, self.hint, token.line, token.column, self.length, self.cause
        )


# What one option says, and how many following words it takes as its value.
OptionReading = tuple[int, tuple[OptionVerdict, ...]]


@dataclass
class CommandJudge:
    """Reads one guide command's options against the catalogs from the recipe's minimum release.

    An option's verdict reads only its own word, the word after it and whether the command runs
    through a server image: each distinct such option is judged once (option_reading) and
    placed wherever a command holds it.
    """

    release: str
    package: str
    claim: Claim = RECIPE_CLAIM

    @functools.cached_property
    def catalog(self) -> Catalog:
        """The minimum release's catalog (the oldest one for a minimum older than every catalog)."""
        found = catalog_for(self.release, self.package)
        return (
            found
            if found is not None
            else load_catalog(available_versions(self.package)[0], self.package)
        )

    @functools.cached_property
    def beyond(self) -> bool:
        """The release is newer than every catalog: what none of them knows may be new there."""
        return self.claim.open_ended or beyond_catalogs(self.release, self.package)

    def findings(self, command: GuideCommand) -> Iterator[GuideVerdict]:
        words, index = command.words, 0
        while index < len(words):
            if not OPTION.match(words[index]):
                index += 1
                continue
            after = words[index + 1] if index + 1 < len(words) else None
            # The word after an option that takes no value is no part of what it says.
            read = after if reads_next_word(self.release, self.package, words[index]) else None
            used, verdicts = option_reading(
                self.release, self.package, words[index], read, command.via_image, self.claim
            )
            if verdicts:
                args = command.args
                value = args[index + 1] if after is not None else None
                for verdict in verdicts:
                    yield verdict.at(args[index], value)
            index += 1 + used

    def reading(self, text: str, after: str | None, via_image: bool) -> OptionReading:
        """What the option ``text`` (followed by ``after``) says, and the words it takes."""
        option = self._option(text)
        if option is None:
            return 0, ()
        name, hit = option
        if hit.canonical is None:
            unknown = self._unknown(text, name)
            return 0, (unknown,) if unknown is not None else ()
        value, used = self._value(text, after, hit)
        found = list(self._verdict(text, hit, value, used, via_image))
        if hit.underscored:
            found.append(self._underscored(name))
        return used, tuple(found)

    def reads_next_word(self, text: str) -> bool:
        """Whether what option ``text`` says can depend on the word after it: only when it
        takes its value from that word (see reading and _value)."""
        option = self._option(text)
        return (
            option is not None
            and option[1].canonical is not None
            and self._takes_next_word(text, option[1])
        )

    def _option(self, text: str) -> tuple[str, Lookup] | None:
        """The option's name and what the catalog says of it; None for a word that is no
        option of vLLM's to judge (a placeholder, argparse's own)."""
        if not OPTION.match(text) or _placeholder(text):
            return None
        name = text.split("=", 1)[0]
        if name in ARGPARSE_OWN:
            return None
        return name, self.catalog.lookup(name)

    def _takes_next_word(self, text: str, hit: Lookup) -> bool:
        """Whether a known option takes its value from the word after it, when there is one."""
        if "=" in text or hit.inline_value is not None or hit.negated:
            return False
        spec = self.catalog.flag(hit.canonical or "")
        return spec is not None and spec.value != "no"

    def _value(self, text: str, after: str | None, hit: Lookup) -> tuple[str | None, int]:
        """(the option's value, how many following words it takes)."""
        inline = text.split("=", 1)[1] if "=" in text else None
        if inline is not None or hit.inline_value is not None:
            return inline if inline is not None else hit.inline_value, 0
        if after is None or not self._takes_next_word(text, hit):
            return None, 0
        spec = self.catalog.flag(hit.canonical or "")
        if spec is not None and spec.value == "optional" and after.startswith("-"):
            return None, 0
        return after, 1

    def _verdict(
        self, text: str, hit: Lookup, value: str | None, used: int, via_image: bool
    ) -> Iterator[OptionVerdict]:
        canonical = hit.canonical or ""
        judged = value if value is not None and not _placeholder(value) else None
        statuses = self._claimed(
            _support(canonical, hit.json_path, judged, self.release, self.package)
        )
        if via_image:
            statuses = [self._image_status(canonical, s) for s in statuses]
        if not hit.json_path and judged is None:
            spelled = text.split("=", 1)[0]
            statuses = [self._spelling_status(spelled, s) for s in statuses]
        if first_with(statuses, "rejected") is None:
            return
        if self.beyond and not self._ever_accepted(canonical, hit.json_path, judged):
            return  # perhaps what the release added: RL407 names the release judged instead
        flag_refused = first_with(
            self._claimed(_support(canonical, (), None, self.release, self.package)), "rejected"
        )
        on_option = flag_refused is not None or bool(hit.json_path) or value is None
        shown = text if on_option else f"{text.split('=', 1)[0]} {value}"
        # Without a following word the value is inline: the verdict stays on the option.
        on_value = not on_option and used == 1
        length = len(value or "") if on_value else len(text)
        refused = tuple(s.version for s in statuses if s.status == "rejected")
        cause = (canonical, hit.json_path, None if on_option else judged, refused)
        yield self._rejected(shown, statuses, on_value, length, cause)

    def _ever_accepted(self, canonical: str, path: tuple[str, ...], value: str | None) -> bool:
        """Whether a catalogued release accepts this key, value or option: refused by the newest
        after that, it was removed, which a release beyond the catalogs is unlikely to undo."""
        oldest = available_versions(self.package)[0]
        statuses = _support(canonical, path, value, oldest, self.package)
        return any(s.status != "rejected" for s in statuses)

    def _claimed(self, statuses: list[ReleaseStatus]) -> list[ReleaseStatus]:
        """The releases the command runs on: a pinned image's alone, else all from the minimum."""
        return statuses[:1] if self.claim.image is not None else statuses

    def _spelling_status(self, spelled: str, status: ReleaseStatus) -> ReleaseStatus:
        """A release that reads the spelling as another flag's form (`--disable-log-requests`
        as the negation of `--enable-log-requests`) accepts it: the canonical flag's own
        history would call it refused there, and the ranges would be told wrong."""
        if (
            status.status == "rejected"
            and load_catalog(status.version, self.package).lookup(spelled).known
        ):
            return ReleaseStatus(status.version, "ok")
        return status

    def _image_status(self, canonical: str, status: ReleaseStatus) -> ReleaseStatus:
        """A refusal by `vllm serve` alone counts as accepted: the image may run the API server module."""
        spec = load_catalog(status.version, self.package).flag(canonical)
        if status.status == "rejected" and spec is not None and status.note == spec.serve_error:
            return ReleaseStatus(status.version, "ok")
        return status

    def _rejected(
        self,
        shown: str,
        statuses: list[ReleaseStatus],
        on_value: bool,
        length: int,
        cause: Cause | None = None,
    ) -> OptionVerdict:
        claim = self.claim
        return OptionVerdict(
            REJECTED,
            f"the guide's serve command passes `{shown}`, "
            f"{_refusal(statuses, self.release, claim)}",
            _refusal_hint(statuses, self.release, claim),
            on_value,
            length,
            cause,
        )

    def _unknown(self, text: str, name: str) -> OptionVerdict | None:
        known = set(_releases_knowing(name, self.package))
        if known:
            statuses = self._claimed(
                [
                    ReleaseStatus(c.version, "ok" if c.version in known else "rejected", None)
                    for c in catalogs_from(self.release, self.package)
                ]
            )
            refused = tuple(s.version for s in statuses if s.status == "rejected")
            return self._rejected(name, statuses, False, len(text), (name, (), None, refused))
        if self.beyond:
            return None  # perhaps an option the release added (RL407)
        close = _did_you_mean(newest_catalog(self.package), name)
        hint = (
            f"did you mean {', '.join(f'`{c}`' for c in close)}?"
            if close
            else "check the spelling against `vllm serve --help`"
        )
        return OptionVerdict(
            UNKNOWN_FLAG,
            f"the guide's serve command passes `{name}`, an option no vLLM release accepts",
            hint,
            False,
            len(name),
            (name, (), None, ("unknown",)),
        )

    def _underscored(self, name: str) -> OptionVerdict:
        option, dot, keys = name.partition(".")  # sub-keys keep their underscores
        spelled = option.replace("_", "-") + dot + keys
        return OptionVerdict(
            UNDERSCORED,
            f"the guide spells `{name}` with underscores; vLLM rewrites it to `{spelled}`",
            f"write `{spelled}` as vLLM documents it",
            False,
            len(name),
        )


@functools.cache
def command_judge(release: str, package: str, claim: Claim = RECIPE_CLAIM) -> CommandJudge:
    return CommandJudge(release, package, claim)


# Keyed by small values (a release, an option and the word after it), which guides repeat:
# the language server judges the same options again after every keystroke.
@functools.lru_cache(maxsize=16384)
def option_reading(
    release: str,
    package: str,
    text: str,
    after: str | None,
    via_image: bool,
    claim: Claim = RECIPE_CLAIM,
) -> OptionReading:
    """What an option of a guide command says at a release (see CommandJudge.reading)."""
    return command_judge(release, package, claim).reading(text, after, via_image)


@functools.lru_cache(maxsize=16384)
def reads_next_word(release: str, package: str, text: str) -> bool:
    """Whether the reading of a guide command's option depends on the word after it."""
    return command_judge(release, package).reads_next_word(text)


def _refusal(statuses: list[ReleaseStatus], release: str, claim: Claim = RECIPE_CLAIM) -> str:
    """Which releases from the minimum on refuse it, said the way a reader acts on it."""
    refused = [i for i, s in enumerate(statuses) if s.status == "rejected"]
    accepted = [i for i, s in enumerate(statuses) if s.status != "rejected"]
    first, last = statuses[refused[0]], statuses[refused[-1]]
    why = f" ({first.note})" if first.note else ""
    if claim.image is not None:
        runs = f"vLLM {release} or newer" if claim.open_ended else "that release"
        return f"which vLLM {release} refuses{why}: the image `{claim.image}` runs {runs}"
    if accepted and refused[0] == 0 and refused[-1] < accepted[0]:
        return (
            f"which vLLM {first.version} refuses{why}: it needs vLLM "
            f"{statuses[accepted[0]].version} or newer, but {claim.minimum} is {release}"
        )
    if accepted and last is statuses[-1] and accepted[-1] < refused[0]:
        return (
            f"which vLLM {first.version} and newer refuse{why}: vLLM "
            f"{statuses[accepted[-1]].version} is the last release that runs it"
        )
    if not accepted:
        return f"which no release from {release} on accepts{why}"
    return (
        f"which vLLM {_runs(statuses, refused)} {'refuses' if len(refused) == 1 else 'refuse'}"
        f"{why}, though {claim.holder} claims every "
        f"release from {release} on"
    )


def _refusal_hint(statuses: list[ReleaseStatus], release: str, claim: Claim) -> str:
    """What acts on the refusal ``_refusal`` states: raising the minimum helps only where
    the releases that refuse come first."""
    refused = [i for i, s in enumerate(statuses) if s.status == "rejected"]
    accepted = [i for i, s in enumerate(statuses) if s.status != "rejected"]
    history = "(`recipelint flags history FLAG` shows each release's reading)"
    if claim.image is not None:
        return (
            f"write the form vLLM {release} accepts, or run an image of a release that "
            f"accepts it {history}"
        )
    if not accepted:
        return f"write the form every release from {release} on accepts {history}"
    if refused[0] == 0 and refused[-1] < accepted[0]:
        return (
            f"raise {claim.minimum} to {statuses[accepted[0]].version}, or write the form "
            f"vLLM {release} accepts"
        )
    if refused[-1] == len(statuses) - 1 and accepted[-1] < refused[0]:
        return (
            "drop it, or write the form later releases accept: no release after vLLM "
            f"{statuses[accepted[-1]].version} runs it, so raising {claim.minimum} does not help"
        )
    if refused[-1] < accepted[-1]:
        return (
            f"raise {claim.minimum} past {statuses[refused[-1]].version}, or write the form "
            f"every release from {release} on accepts"
        )
    return f"write the form every release from {release} on accepts {history}"


def _runs(statuses: list[ReleaseStatus], indices: list[int]) -> str:
    """Consecutive releases among ``indices`` as `A to B` runs."""
    runs: list[list[int]] = []
    for index in indices:
        if runs and runs[-1][-1] == index - 1:
            runs[-1].append(index)
        else:
            runs.append([index])
    return ", ".join(
        statuses[run[0]].version
        if len(run) == 1
        else f"{statuses[run[0]].version} to {statuses[run[-1]].version}"
        for run in runs
    )


def _did_you_mean(catalog: Catalog, spelled: str) -> list[str]:
    """The newest release's options closest to a spelling no release knows."""
    return close_flags(catalog, spelled)


@functools.lru_cache(maxsize=4096)
def _support(
    canonical: str, path: tuple[str, ...], value: str | None, release: str, package: str
) -> list[ReleaseStatus]:
    """Each release's verdict on a JSON sub-key, a value or the option alone (guides repeat them)."""
    if path:
        return json_key_support(canonical, path, release, package)
    if value is not None:
        return value_support(canonical, value, release, package)
    return flag_support(canonical, release, package)


def _placeholder(word: str) -> bool:
    """A shell variable, a template slot or an ellipsis stands for text the reader supplies."""
    return "$" in word or "<" in word or word.endswith("...") or word.startswith("[")


@functools.lru_cache(maxsize=512)
def _releases_knowing(name: str, package: str) -> tuple[str, ...]:
    """The catalogued releases whose parser reads ``name``, oldest first."""
    return tuple(
        version
        for version in available_versions(package)
        if load_catalog(version, package).lookup(name).canonical is not None
    )


# What the recipe's own argument lists are refused for (structured_causes): each option,
# JSON sub-key and value, with every release that refuses it there.
Structured = dict[tuple[str, tuple[str, ...], str | None], frozenset[str]]


def structured_causes(data: dict[str, JsonValue], arg_lists: list[ArgList]) -> Structured:
    """What the recipe's own argument lists are refused for, read as the guide's commands are:
    a guide command passing the same option for the same cause repeats the structured rule's
    finding (RL358, RL359, RL350), which names the place to fix."""
    package = "vllm-omni" if is_omni(data) else "vllm"
    found: dict[tuple[str, tuple[str, ...], str | None], set[str]] = {}
    for arg_list in arg_lists:
        judge = command_judge(_list_release(data, arg_list.pointer), package)
        for unit in arg_list.units:
            for text, after in _unit_spellings(unit.flag, unit.value):
                _used, verdicts = judge.reading(text, after, False)
                for verdict in verdicts:
                    if verdict.cause is not None:
                        what, refused = verdict.cause[:3], verdict.cause[3]
                        found.setdefault(what, set()).update(refused)
    return {what: frozenset(refused) for what, refused in found.items()}


def repeats_structured(cause: Cause, structured: Structured) -> bool:
    """Whether a guide command's cause is one the recipe's lists are already refused for:
    the same option, key and value, refused by no release their rule did not name (a
    command its section judges at a later build names fewer releases, not another cause)."""
    refused = structured.get(cause[:3])
    return refused is not None and set(cause[3]) <= refused


def _list_release(data: dict[str, JsonValue], pointer: tuple[str | int, ...]) -> str:
    """The release an argument list is judged from: a variant's own minimum when it raises
    the recipe's (as the RL35x rules judge it), else the recipe's, else the newest."""
    base = _release(as_dict(data.get("model")).get("min_vllm_version"))
    if len(pointer) >= 2 and pointer[0] == "variants":
        variant = as_dict(as_dict(data.get("variants")).get(str(pointer[1])))
        own = _release(variant.get("min_vllm_version"))
        if own is not None and (base is None or version_key(own) > version_key(base)):
            return own
    return base or available_versions()[-1]


def _unit_spellings(flag: str, value: object) -> Iterator[tuple[str, str | None]]:
    """An option of an argument list as guide words: the option and its value, and each JSON
    sub-key of a JSON value in its dotted form (`--attention-config.use_fp4_indexer_cache`)."""
    if not isinstance(flag, str):
        return
    text = value if isinstance(value, str) else None
    yield flag, text
    keys = value if isinstance(value, dict) else _json_object(text)
    for path in _key_paths(keys):
        yield f"{flag}.{'.'.join(path)}", None


def _json_object(text: str | None) -> dict[str, JsonValue] | None:
    if text is None or not text.lstrip().startswith("{"):
        return None
    try:
        parsed = json.loads(text)
    except ValueError:
        return None
    return parsed if isinstance(parsed, dict) else None


def _key_paths(value: object, prefix: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    for key, item in (value or {}).items() if isinstance(value, dict) else ():
        path = (*prefix, str(key))
        yield path
        yield from _key_paths(item, path)
