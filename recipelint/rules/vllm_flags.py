"""RL35x: `vllm serve` flags and values checked against the committed per-release catalogs.

It is long because the RL35x family is one reading of an argument list (token, spelling,
value, JSON sub-keys, per release) whose findings share that reading; the per-release
verdicts themselves live in recipelint.flags.support.

Every argument list at a place resolve.layers declares (recipes, strategy and kv_store
files, the taxonomy's kv_offload options) is read token by token the way vLLM's parser
reads argv. Flags and values are judged by two catalogs: the one of the document's
``min_vllm_version`` (that release or the closest lower one) and the newest; JSON
sub-keys by every catalogued release in between (recipelint.flags.support). What a
release of the range refuses at start-up is an error naming that release; what it only
deprecates is a warning. A strategy file or the taxonomy states no minimum: it is judged
by the newest release alone. Documents marked omni (``meta.tasks: [omni]``, an ``omni``
block, or ``--omni`` in an argument list) are read against the vllm-omni catalogs. No
network: only rules/vllm/*.json.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path
from typing import cast

from recipelint.cachesize import TEXT_KEYED_ENTRIES
from recipelint.flags.catalog import (
    NIGHTLY,
    Catalog,
    FlagSpec,
    Lookup,
    available_versions,
    beyond_catalogs,
    catalog_for,
    flag_span,
    load_catalog,
    newest_catalog,
    value_span,
    version_key,
    written_release,
)
from recipelint.flags.support import (
    DefaultEra,
    ReleaseStatus,
    catalogs_from,
    default_eras,
    first_with,
    flag_support,
    json_key_support,
    value_support,
)
from recipelint.jsvalue import JsonValue
from recipelint.read.load import Document
from recipelint.resolve.docker import (
    NIGHTLY_BUILD,
    OTHER_BUILD,
    runs_other_build,
    unreleased_build,
)
from recipelint.resolve.features import mode_variants
from recipelint.resolve.install import builds_from_checkout
from recipelint.resolve.layers import is_omni
from recipelint.rules.args import every_arg_list
from recipelint.rules.backends import target_of
from recipelint.rules.commandplan import images_reached
from recipelint.rules.common import ArgList, Pointer, as_dict
from recipelint.rules.context import CheckContext
from recipelint.rules.registry import Finding, check
from recipelint.rules.versions import asked_releases
from recipelint.spelling import close_flags, tight_matches

# Underscore spellings (RL304), a flag and its value in one item (RL306), a dotted
# sub-argument without value (RL305) and JSON syntax (RL308) belong to the argument-shape
# family (rules/args.py); this family stays silent on them to avoid double findings.
CODES = (
    "RL350",
    "RL351",
    "RL352",
    "RL353",
    "RL354",
    "RL355",
    "RL356",
    "RL357",
    "RL358",
    "RL359",
    "RL360",
    "RL364",
    "RL365",
)
# The verdicts on a JSON key its release's config class declares.
DECLARED = ("ok", "deprecated")
PLUGIN_FLAGS = {
    "--tool-call-parser": "--tool-parser-plugin",
    "--reasoning-parser": "--reasoning-parser-plugin",
}
NUMBER = re.compile(r"^-\d+(\.\d+)?$")


@dataclass(frozen=True)
class Catalogs:
    package: str
    minimum: Catalog | None  # None: no usable min_vllm_version, or older than every catalog
    min_version: str | None
    newest: Catalog
    # The build runs past every catalog (a newer release, a nightly build, a clone of main,
    # an image of its own): what no catalogued release knows may be new there (RL365, info),
    # and ``beyond`` says which build that is.
    beyond: str | None = None


# An argument list's verdicts, by what they depend on: the list's items (their repr tells
# `1` from `"1"` and `true`), the minimum release, the unreleased build running it (if any),
# omni or not, the plugins the document loads, and whether the list runs only on out-of-tree
# platforms.
VerdictMemo = dict[
    tuple[str, str | None, str | None, bool, frozenset[tuple[str, str]], bool], list["Verdict"]
]


@check(*CODES)
def vllm_flags(ctx: CheckContext) -> Iterator[Finding]:
    memo: VerdictMemo = {}  # copies of a recipe, and lists repeated across recipes, are read once
    for doc, lists in _lists_by_document(every_arg_list(ctx)):
        if doc.usable and isinstance(doc.data, dict):
            yield from _check_document(doc, lists, memo, ctx)


# -- document level ------------------------------------------------------------------


def _lists_by_document(lists: list[ArgList]) -> list[tuple[Document, list[ArgList]]]:
    """The declared argument lists (resolve.layers) of each document, in reading order."""
    grouped: dict[Path, tuple[Document, list[ArgList]]] = {}
    for arg_list in lists:
        grouped.setdefault(arg_list.doc.path, (arg_list.doc, []))[1].append(arg_list)
    return list(grouped.values())


def _check_document(
    doc: Document, lists: list[ArgList], memo: VerdictMemo, ctx: CheckContext
) -> list[Finding]:
    tokens = [t for arg_list in lists for t in arg_list.items if isinstance(t, str)]
    data = as_dict(doc.data)  # the caller passes only a document that is a mapping
    # a file of omni args, even one upstream would not render
    omni = "--omni" in tokens or _is_omni(data)
    baseline = _min_version(data)
    from_checkout = builds_from_checkout(data, "vllm-omni" if omni else "vllm")
    plugins = _plugins_loaded(tokens, _catalogs(None, omni).newest)
    reach = _Reach(ctx, doc)
    findings: list[Finding] = []
    for arg_list in lists:
        minimum = _effective_minimum(data, arg_list.pointer, baseline)
        build = _unreleased_build(data, arg_list.pointer, from_checkout, omni)
        out_of_tree = _out_of_tree_only(data, arg_list.pointer, ctx.profiles)
        key = (repr(arg_list.items), minimum, build, omni, plugins, out_of_tree)
        verdicts = _verdicts(memo, key, arg_list.items)
        if verdicts and build is None and doc.kind == "recipe":
            # Only a list with findings is worth planning the recipe's commands for.
            build = reach.build_of(arg_list.pointer)
            if build is not None:
                verdicts = _verdicts(memo, (*key[:2], build, *key[3:]), arg_list.items)
        findings += [
            Finding(doc, (*arg_list.pointer, v.index), v.message, v.hint, code=v.code)
            for v in verdicts
            if v.flag is None or _sets_default_alone(doc, lists, v.flag)
        ]
    return findings


def _verdicts(
    memo: VerdictMemo,
    key: tuple[str, str | None, str | None, bool, frozenset[tuple[str, str]], bool],
    items: list[JsonValue],
) -> list[Verdict]:
    """An argument list's verdicts under ``key`` (see VerdictMemo), read once per key."""
    verdicts = memo.get(key)
    if verdicts is None:
        _items, minimum, build, omni, plugins, out_of_tree = key
        catalogs = _catalogs(minimum, omni, build)
        verdicts = memo[key] = _ArgList(items, catalogs, plugins, out_of_tree).check()
    return verdicts


class _Reach:
    """Which images a recipe's lists run in, over the commands the compiler renders: planned
    once per recipe, and only when a list has findings a build past the catalogs would weigh
    otherwise."""

    def __init__(self, ctx: CheckContext, doc: Document) -> None:
        self.ctx, self.doc = ctx, doc

    @cached_property
    def images(self) -> dict[Pointer, frozenset[str | None]]:
        return images_reached(self.ctx, self.doc) or {}

    def build_of(self, pointer: Pointer) -> str | None:
        """What runs the list at ``pointer`` when every deployment it reaches runs a build no
        catalog describes (a community image, the nightly image); None when one runs a
        release, or no rendered command holds the list."""
        images = self.images.get(pointer)
        if not images:
            return None
        builds = {unreleased_build(image) for image in images}
        if None in builds or (
            builds == {NIGHTLY_BUILD} and _requires_nightly(as_dict(self.doc.data))
        ):
            return None
        shown = " and ".join(f"`{image}`" for image in sorted(i for i in images if i))
        what = builds.pop() if len(builds) == 1 else "builds past every release"
        return f"only {shown} wherever they render: {what}"


def _requires_nightly(data: dict[str, JsonValue]) -> bool:
    """Whether a recipe runs the nightly build in place of the release it names: its
    min_vllm_version is the release that build becomes, and is judged as that release."""
    return _at(data, "model", "nightly_required") is True


def _unreleased_build(
    data: dict[str, JsonValue], pointer: Pointer, from_checkout: bool, omni: bool
) -> str | None:
    """What runs the args at ``pointer`` when it is no release: a clone of the package's main
    branch (the recipe's install builds one) or an image that is not the vLLM project's."""
    if from_checkout:
        return f"{'vllm-omni' if omni else 'vllm'} built from a clone of its main branch"
    if runs_other_build(data, pointer):
        return OTHER_BUILD
    return None


def _out_of_tree_only(
    data: dict[str, JsonValue], pointer: Pointer, profiles: dict[str, JsonValue]
) -> bool:
    """Whether an argument list runs only on hardware no built-in vLLM platform runs (a
    platform plugin's, such as vllm-ascend's NPUs): a hardware override's list, or a
    variant's whose supported_hardware names only such profiles. A platform plugin registers
    values of its own (`--quantization ascend`) that no catalog of vLLM can see."""
    if len(pointer) < 3 or pointer[0] != "variants":
        return False
    if len(pointer) >= 4 and pointer[2] == "hardware_overrides":
        hardware: JsonValue = [pointer[3]]
    else:
        variant = as_dict(as_dict(data.get("variants")).get(str(pointer[1])))
        hardware = variant.get("supported_hardware")
    if not isinstance(hardware, list) or not hardware:
        return False
    return all(
        isinstance(hw, str) and hw in profiles and target_of(profiles[hw]) is None
        for hw in hardware
    )


def _plugins_loaded(tokens: list[str], newest: Catalog) -> frozenset[tuple[str, str]]:
    """(parser flag, plugin flag as spelled) for each parser plugin the document loads. A
    flag no release knows whose closest spelling is the plugin flag (`--tool-call-parser-plugin`)
    counts too: it is RL350's error, and the parser name it was meant to register is expected
    from that plugin, not a typo of a built-in one."""
    loaded: dict[str, str] = {}
    for token in tokens:
        spelled = token.split("=", 1)[0]
        if not spelled.startswith("--"):
            continue
        hit = newest.lookup(spelled)
        meant = hit.canonical if hit.known else next(iter(close_flags(newest, spelled)), None)
        for flag, plugin in PLUGIN_FLAGS.items():
            if meant == plugin:
                loaded.setdefault(flag, spelled)
    return frozenset(loaded.items())


def _sets_default_alone(doc: Document, lists: list[ArgList], flag: str) -> bool:
    """RL364 holds only in a recipe whose other lists do not set the flag: a default value in
    an override may be there to replace another layer's value (last wins)."""
    if doc.kind != "recipe":
        return False  # a shared file's value can replace what a recipe sets
    newest = newest_catalog("vllm-omni" if _is_omni(as_dict(doc.data)) else "vllm")
    setting = [
        arg_list
        for arg_list in lists
        if any(
            isinstance(t, str) and t.startswith("-") and newest.lookup(t).canonical == flag
            for t in arg_list.items
        )
    ]
    return len(setting) == 1


@dataclass(frozen=True)
class Verdict:
    """A finding about one item of an argument list, wherever that list is."""

    code: str
    index: int
    message: str
    hint: str | None
    flag: str | None = None  # RL364's canonical flag: dropped where another list sets it too


def _effective_minimum(
    data: dict[str, JsonValue], pointer: Pointer, baseline: str | None
) -> str | None:
    """The release the args at a place are judged at: the recipe's baseline, raised by a
    variant's own min_vllm_version for the args under it. A feature mode confined to listed
    variants (`modes.<m>.variants`, resolve.features.mode_variants) renders only with them:
    its args (and its hardware overrides') are judged at the lowest of their minimums."""
    if len(pointer) >= 2 and pointer[0] == "variants":
        return _variant_minimum(data, pointer[1], baseline)
    found = baseline
    if len(pointer) >= 4 and pointer[0] == "features" and pointer[2] == "modes":
        mode = _at(data, "features", pointer[1], "modes", pointer[3])
        offered = [key for key in mode_variants(mode) or () if isinstance(key, str)]
        if offered:
            minimums = [_variant_minimum(data, key, baseline) for key in offered]
            if None in minimums:
                return None  # a variant judged by the newest release alone
            found = min((m for m in minimums if m is not None), key=_release_order)
    if len(pointer) >= 2 and pointer[0] == "features" and found is not None:
        stated = _stated_minimum(data, pointer)
        if stated is not None and _release_order(stated) > _release_order(found):
            return stated
    return found


def _stated_minimum(data: dict[str, JsonValue], pointer: Pointer) -> str | None:
    """The release a feature (or its mode) says it needs in its description ("EAGLE3
    speculative decoding (requires vLLM >= 0.9.0)"): an opt-in feature may need a newer vLLM
    than the model, and the schema has no field of its own for it (PR 456)."""
    holders = [_at(data, "features", pointer[1])]
    if len(pointer) >= 4 and pointer[2] == "modes":
        holders.append(_at(data, "features", pointer[1], "modes", pointer[3]))
    descriptions = [as_dict(holder).get("description") for holder in holders]
    stated = [
        release
        for description in descriptions
        if isinstance(description, str)
        for release in asked_releases(description)
    ]
    return max(stated, key=_release_order) if stated else None


def _variant_minimum(
    data: dict[str, JsonValue], key: str | int, baseline: str | None
) -> str | None:
    """A variant's own min_vllm_version where it raises the recipe's baseline, else the
    baseline (an unknown variant too)."""
    variant = _at(data, "variants", key)
    raised = written_release(variant.get("min_vllm_version")) if isinstance(variant, dict) else None
    if raised is None or (
        baseline is not None and _release_order(raised) <= _release_order(baseline)
    ):
        return baseline
    return raised


def _release_order(version: str) -> tuple[float, ...]:
    """A minimum's place among releases: a nightly build comes after every one."""
    return (math.inf,) if version == NIGHTLY else version_key(version)


def _at(value: JsonValue, *keys: str | int) -> JsonValue:
    """The value at a path of mapping keys, or None where one is missing."""
    found: object = value
    for key in keys:
        found = found.get(key) if isinstance(found, dict) else None
    return cast("JsonValue", found)  # a part of ``value``, or None


def _is_omni(data: dict[str, JsonValue]) -> bool:
    """An omni recipe (layers.is_omni), or one that declares an `omni` block."""
    return "omni" in data or is_omni(data)


def _min_version(data: dict[str, JsonValue]) -> str | None:
    """A recipe's model.min_vllm_version, or the one a kv_store file states for itself.

    A strategy file and the taxonomy state none: they are judged against the newest
    release alone (see RL358's rationale).
    """
    model = data.get("model")
    return written_release(
        model.get("min_vllm_version") if isinstance(model, dict) else data.get("min_vllm_version")
    )


def _catalogs(minimum_version: str | None, omni: bool, build: str | None = None) -> Catalogs:
    package = "vllm-omni" if omni else "vllm"
    newest = newest_catalog(package)
    if build is not None or minimum_version == NIGHTLY:  # judged by the newest release alone
        return Catalogs(package, None, None, newest, beyond=build or f"a nightly {package} build")
    minimum = catalog_for(minimum_version, package) if minimum_version else None
    beyond = (
        f"{package} {minimum_version}, newer than every catalog (RL407)"
        if minimum_version is not None and beyond_catalogs(minimum_version, package)
        else None
    )
    return Catalogs(package, minimum, minimum_version, newest, beyond)


# -- one argument list ---------------------------------------------------------------------


class _ArgList:
    def __init__(
        self,
        items: list[JsonValue],
        cats: Catalogs,
        plugins: frozenset[tuple[str, str]],
        out_of_tree: bool = False,
    ) -> None:
        self.items, self.cats, self.plugins = items, cats, dict(plugins)
        self.out_of_tree = out_of_tree
        self.findings: list[Verdict] = []
        # The first release whose parser reads the option being checked: a JSON key is judged
        # from there, so an alias younger than its flag (`-cc`) is not reported again per key.
        self.key_floor: str | None = None

    def check(self) -> list[Verdict]:
        index = 0
        while index < len(self.items):
            token = self.items[index]
            if (
                isinstance(token, str)
                and token.startswith("-")
                and not NUMBER.match(token)
                and token != "-"
            ):
                index = self._option(index, token)
            else:
                index += 1  # a stray positional: the argument-shape rules report those
        return self.findings

    def _report(self, code: str, index: int, message: str, hint: str | None = None) -> None:
        self.findings.append(Verdict(code, index, message, hint))

    def _is_value(self, index: int) -> bool:
        if index >= len(self.items):
            return False
        token = self.items[index]
        if isinstance(token, str):
            return not token.startswith("-") or bool(NUMBER.match(token))
        return token is not None and not isinstance(token, (dict, list))

    # -- an option and its values --------------------------------------------------------
    def _option(self, index: int, token: str) -> int:
        minimum, newest = self.cats.minimum, self.cats.newest
        at_min = minimum.lookup(token) if minimum is not None else None
        at_new = newest.lookup(token)
        if at_min is not None and at_min.known:
            hit, catalog = at_min, minimum
        elif at_new.known:
            hit, catalog = at_new, newest
        else:
            self._unknown(index, token, at_min or at_new)
            return index + 2 if self._is_value(index + 1) else index + 1
        assert hit.canonical is not None and catalog is not None
        before = len(self.findings)
        self.key_floor = self._versions(index, token, hit.canonical, at_min, at_new)
        flag_finding = before if self.key_floor is not None else None
        spec = catalog.flags[hit.canonical]
        start = self.key_floor or (self.cats.minimum or self.cats.newest).version
        refusal = _serve_refusal(hit.canonical, start, self.cats.package)
        if refusal is not None:
            version, reason = refusal
            self._report(
                "RL350",
                index,
                f"`{token}` is rejected by `vllm serve` in {catalog.package} {version}: {reason}",
                "drop it: the command already names the model",
            )
        self._spelling(index, token, hit, catalog, refused=refusal is not None)
        after = self._values(index, token, hit, spec, catalog)
        if flag_finding is not None and any(
            f.code == "RL358" for f in self.findings[flag_finding + 1 :]
        ):
            # A value or JSON key needs a release later still (each is judged from the flag's
            # first release): its finding names the release to raise to, so the flag's own
            # would report the same cause twice.
            del self.findings[flag_finding]
        return after

    def _unknown(self, index: int, token: str, hit: Lookup) -> None:
        name = self.cats.package
        if hit.candidates:
            shown = ", ".join(f"`{c}`" for c in hit.candidates[:5])
            self._report(
                "RL350",
                index,
                f"`{token}` is an ambiguous abbreviation in {name}: it could be {shown}",
                "spell the full flag name",
            )
            return
        head, _, rest = token.partition(" ")
        if rest and self.cats.newest.lookup(head).known:
            return  # a known flag and its value in one item: RL306's finding
        key = self.cats.newest.option_key(token)
        span = flag_span(key, name)
        if span is not None:
            rejected_by = (
                "the document's minimum release nor the newest"
                if self.cats.minimum
                else "the newest release"
            )
            self._report(
                "RL359",
                index,
                f"`{key}` is accepted only by {name} {span[0]} to {span[1]}, "
                f"not by {rejected_by} ({self.cats.newest.version})",
                _removal_hint(key, span[1], name),
            )
            return
        close = close_flags(self.cats.newest, token)
        if self.cats.beyond:
            self._unreleased(index, f"`{token}` is a `vllm serve` flag of", close)
            return
        releases = f"{name} {self._range()}"
        self._report(
            "RL350",
            index,
            f"`{token}` is not a `vllm serve` flag in any release of {releases}",
            f"did you mean {', '.join(f'`{c}`' for c in close)}?"
            if close
            else "check the flag name in `vllm serve --help`",
        )

    def _unreleased(self, index: int, what: str, close: list[str] | None = None) -> None:
        """RL365: what no catalogued release knows, in a build past them all, which may have
        added it: a notice, not the error a release would earn."""
        newest = self.cats.newest
        self._report(
            "RL365",
            index,
            f"no catalogued release says {what} {newest.package} (up to {newest.version}); "
            f"these args run {self.cats.beyond}, which may have added it",
            (f"did you mean {', '.join(f'`{c}`' for c in close)}? If not, " if close else "")
            + "check it against that build's `vllm serve --help`",
        )

    def _range(self) -> str:
        low = self.cats.minimum.version if self.cats.minimum is not None else None
        return f"{low}..{self.cats.newest.version}" if low else f"up to {self.cats.newest.version}"

    def _versions(
        self, index: int, token: str, canonical: str, at_min: Lookup | None, at_new: Lookup
    ) -> str | None:
        """Report a spelling the minimum or the newest release rejects; the release it needs."""
        name = self.cats.package
        if at_min is not None and not at_min.known:
            # Walk the catalogs rather than the flag's history: an alias such as `-cc`
            # can be younger than the flag it names.
            added = _first_accepting(token, self.cats) or self.cats.newest.version
            self._report(
                "RL358",
                index,
                f"`{token}` needs {name} {added} or newer, but min_vllm_version is "
                f"{self.cats.min_version}",
                f"raise min_vllm_version to {added} or drop the flag",
            )
            return added
        if at_min is not None and not at_new.known:
            last = _last_accepting(token, self.cats) or self.cats.min_version or ""
            self._report(
                "RL359",
                index,
                f"`{token}` was removed after {name} {last}; the newest release "
                f"({self.cats.newest.version}) rejects it",
                _removal_hint(canonical, last, name),
            )
        elif at_min is not None:
            self._refused_between(index, token)
        return None

    def _refused_between(self, index: int, token: str) -> None:
        """A spelling the minimum and the newest release read but releases between them do not."""
        assert self.cats.minimum is not None
        package = self.cats.package
        refused = _spelling_refused_between(token, self.cats.minimum.version, package)
        if refused:
            taking = _others_of_range(refused, self.cats.minimum.version, package)
            self._report(
                "RL359",
                index,
                f"`{token}` is rejected by {package} {_release_runs(refused, package)}, though "
                f"{_release_runs(taking, package, last=' and ')} accept it: "
                "vLLM does not start there",
                f"raise min_vllm_version past {refused[-1]}, or spell it as every release reads it",
            )

    def _fold_deprecation(
        self, index: int, release: str, wording: tuple[str, str | None], hint: str
    ) -> bool:
        """RL355 on a spelling RL359 already reports: one finding says the whole range, from the
        release that deprecates it to those that refuse it, and what vLLM (``wording``: who
        says it, and the note) says to do."""
        found = next((f for f in self.findings if f.code == "RL359" and f.index == index), None)
        if found is None:
            return False
        sayer, note = wording
        said = f" ({sayer} says: {note.strip()})" if note and note.strip() else ""
        message = f"{found.message}; deprecated from {self.cats.package} {release}{said}"
        self.findings[self.findings.index(found)] = Verdict("RL359", index, message, hint)
        return True

    def _spelling(
        self, index: int, token: str, hit: Lookup, catalog: Catalog, refused: bool
    ) -> None:
        assert hit.canonical is not None
        if not refused:  # a release `vllm serve` refuses it in says more than a deprecation
            deprecated = self._deprecation(hit.canonical, catalog)
            if deprecated is not None:
                version, note = deprecated
                said_by, note = self._latest_word(hit.canonical, version, note)
                sayer = "vLLM" if said_by == version else f"{catalog.package} {said_by}"
                hint = _deprecation_hint(hit.canonical, note, self.cats.newest)
                if not self._fold_deprecation(index, version, (sayer, note), hint):
                    self._report(
                        "RL355",
                        index,
                        f"`{hit.canonical}` is deprecated in {catalog.package} {version}"
                        + (f"; {sayer} says: {note}" if note else ""),
                        hint,
                    )
        if hit.via == "abbreviation":
            self._abbreviation(index, token.split("=", 1)[0], hit.canonical)
        if hit.json_path:
            self._json_key(index, hit.canonical, hit.json_path)

    def _abbreviation(self, index: int, spelled: str, canonical: str) -> None:
        """RL356. A flag vLLM removed, whose name now prefixes another flag, is not a shorthand for
        that flag: proposing the longer name would swap in an option it never meant."""
        removed_after = _last_exact(spelled, self.cats.package)
        if removed_after is not None:
            self._report(
                "RL356",
                index,
                f"`{spelled}` was removed after {self.cats.package} {removed_after}; later "
                f"releases read it as an abbreviation of the unrelated `{canonical}`",
                "delete it",
            )
            return
        self._report(
            "RL356",
            index,
            f"`{spelled}` relies on argparse abbreviating "
            f"`{canonical}`; a new flag with the same prefix makes it ambiguous",
            f"spell it `{canonical}`",
        )

    def _deprecation(self, canonical: str, catalog: Catalog) -> tuple[str, str | None] | None:
        """(release, wording) of a deprecation in the minimum release, or else the first release
        of the range that deprecates a flag the newest release deprecates."""
        spec = catalog.flags[canonical]
        if spec.deprecated:
            return catalog.version, spec.deprecation
        newest = self.cats.newest.flags.get(canonical)
        if newest is None or not newest.deprecated:
            return None
        start = self.key_floor or (self.cats.minimum or self.cats.newest).version
        first = first_with(flag_support(canonical, start, self.cats.package), "deprecated")
        if first is None:
            return self.cats.newest.version, newest.deprecation
        return first.version, first.note

    def _latest_word(
        self, canonical: str, version: str, note: str | None
    ) -> tuple[str, str | None]:
        """The newest release's deprecation wording when it differs from the first's: a note
        that says "will be removed in v0.33.0" beside a 0.34.0 that still accepts the flag is
        out of date, and 0.34.0's own note says what vLLM says now."""
        newest = self.cats.newest
        spec = newest.flags.get(canonical)
        if spec is None or not spec.deprecated or not spec.deprecation:
            return version, note
        if (note or "").strip() == spec.deprecation.strip():
            return version, note
        return newest.version, spec.deprecation

    def _json_key(self, index: int, canonical: str, path: tuple[str, ...]) -> None:
        """A JSON sub-key judged by every release of the range that has the flag: an error
        where a release refuses it, a warning where a release only drops it."""
        verdicts = self._key_verdicts(canonical, path)
        declared = next((v for v in verdicts if v.status in DECLARED), None)
        key, name = ".".join(path), self.cats.package
        if declared is None:
            self._key_unknown(index, canonical, path, verdicts)
            return
        before = verdicts[: verdicts.index(declared)]
        if first_with(before, "rejected") is not None:
            self._report(
                "RL358",
                index,
                f"`{canonical}` key `{key}` needs {name} {declared.version} or newer, "
                f"but min_vllm_version is {self.cats.min_version}",
                f"raise min_vllm_version to {declared.version}",
            )
        elif before:
            self._report(
                "RL357",
                index,
                f"`{canonical}` key `{key}` does nothing in {name} {_span(before)}: it is "
                f"declared from {declared.version} on, and older releases drop keys their "
                "config does not declare",
                f"raise min_vllm_version to {declared.version} if the setting matters",
            )
        later = verdicts[verdicts.index(declared) :]
        gone = first_with(later, "rejected")
        dropped = first_with(later, "ignored")
        deprecated = first_with(later, "deprecated")
        if gone is not None:
            self._key_gone(index, canonical, key, later, gone, deprecated)
        elif dropped is not None:
            self._key_dropped(index, canonical, key, later, dropped)
        elif deprecated is not None:
            self._report(
                "RL355",
                index,
                f"`{canonical}` key `{key}` is deprecated in {name} {deprecated.version}",
                f"drop the key; {name} {later[-1].version} still accepts it",
            )

    def _key_unknown(
        self, index: int, canonical: str, path: tuple[str, ...], verdicts: list[ReleaseStatus]
    ) -> None:
        if not verdicts:
            return  # no release of the range has the flag: the flag's own finding
        key = ".".join(path)
        if self.cats.beyond and not _ever_declared(canonical, path, self.cats.package):
            self._unreleased(index, f"`{key}` is a key of `{canonical}` in")
            return
        refusing = [v for v in verdicts if v.status == "rejected"]
        dropping = [v for v in verdicts if v.status == "ignored"]
        where = f"`{key}` is not a key of `{canonical}` in {self.cats.package} {_span(verdicts)}"
        if not refusing:
            self._report(
                "RL357",
                index,
                f"{where}: the config drops keys it does not declare, so it does nothing",
                "delete it, or use a field of the config class",
            )
            return
        if dropping:
            where += (
                f": {_span(refusing)} refuses keys its config does not declare, so vLLM "
                f"does not start there ({_span(dropping)} drops it)"
            )
        else:
            where += ": the config refuses keys it does not declare, so vLLM does not start"
        self._report("RL354", index, where, "check the config class's fields for this release")

    def _key_dropped(
        self,
        index: int,
        canonical: str,
        key: str,
        later: list[ReleaseStatus],
        dropped: ReleaseStatus,
    ) -> None:
        """A key a later release no longer declares but only drops (vLLM still starts)."""
        at = later.index(dropped)
        rest = [v for v in later[at:] if v.status == "ignored"]
        for_good = len(rest) == len(later) - at
        when = f"from {dropped.version} on" if for_good else _span(rest)
        self._report(
            "RL357",
            index,
            f"`{canonical}` key `{key}` does nothing in {self.cats.package} {when} (last "
            f"declared in {later[at - 1].version}): the config drops keys it does not declare",
            f"drop the key: no release after {later[at - 1].version} declares it"
            if for_good
            else "drop the key, or raise min_vllm_version past the releases that drop it",
        )

    def _key_verdicts(self, canonical: str, path: tuple[str, ...]) -> list[ReleaseStatus]:
        # A document without a usable minimum is judged by the newest release alone.
        start = self.key_floor or (self.cats.minimum or self.cats.newest).version
        return list(_key_verdicts(canonical, path, start, self.cats.package))

    def _key_gone(
        self,
        index: int,
        canonical: str,
        key: str,
        later: list[ReleaseStatus],
        gone: ReleaseStatus,
        deprecated: ReleaseStatus | None,
    ) -> None:
        at = later.index(gone)
        last_declared = next(v for v in reversed(later[:at]) if v.status in DECLARED)
        last = last_declared.version
        dropping = [v for v in later[:at] if v.status == "ignored"]
        if dropping:
            last += f"; {_span(dropping)} drops it"
        for_good = all(v.status == "rejected" for v in later[at:])
        when = f"from {gone.version} on" if for_good else f"in {gone.version}"
        warned = (
            f"deprecated from {deprecated.version}; "
            if deprecated is not None and later.index(deprecated) < at
            else ""
        )
        self._report(
            "RL359",
            index,
            f"`{canonical}` key `{key}` is rejected by {self.cats.package} {when} "
            f"(last declared in {last}): vLLM does not start there",
            f"{warned}drop the key: no release after {last_declared.version} declares it",
        )

    def _values(self, index: int, token: str, hit: Lookup, spec: FlagSpec, catalog: Catalog) -> int:
        assert hit.canonical is not None
        takes = "no" if hit.negated else spec.value
        if hit.json_path:
            takes, spec = (
                "yes",
                FlagSpec(spec.name, "yes"),
            )  # a dotted sub-argument carries one raw value
        nxt = index + 1
        if takes == "no":
            if hit.inline_value is not None or self._is_value(nxt):
                shown = hit.inline_value if hit.inline_value is not None else self.items[nxt]
                self._report(
                    "RL352",
                    index,
                    f"`{hit.canonical}` is a switch and takes no value, but is given `{shown}`",
                    _switch_hint(hit, spec),
                )
                return nxt + 1 if hit.inline_value is None else nxt
            return nxt
        values: list[tuple[int, JsonValue]] = []
        if hit.inline_value is not None:
            values.append((index, hit.inline_value))
        else:
            while self._is_value(nxt) and (
                not values or spec.nargs in ("+", "*") or isinstance(spec.nargs, int)
            ):
                values.append((nxt, self.items[nxt]))
                nxt += 1
                if isinstance(spec.nargs, int) and len(values) >= spec.nargs:
                    break
        if not values and takes == "yes" and not hit.json_path:  # dotted: RL305's finding
            self._report(
                "RL352",
                index,
                f"`{hit.canonical}` needs a value",
                "put the value right after the flag",
            )
        if hit.json_path:
            return nxt  # a sub-argument's raw text becomes one JSON leaf; its key was checked above
        for where, value in values:
            self._value(where, hit.canonical, _as_text(value), spec, catalog)
        if len(values) == 1 and spec.nargs is None:
            self._default_value(index, token, hit.canonical, _as_text(values[0][1]))
        return nxt

    def _default_value(self, index: int, token: str, canonical: str, value: str) -> None:
        """RL364: a value every release of the range uses anyway when the flag is absent."""
        start = self.key_floor or (self.cats.minimum or self.cats.newest).version
        eras = default_eras(canonical, start, self.cats.package)
        if not eras or len(eras) > 1 or not _is_default(value, eras[0].default):
            return
        era = eras[0]
        self.findings.append(
            Verdict(
                "RL364",
                index,
                f"`{token} {value}` is what {self.cats.package} {_era_span(era)} "
                f"{'uses' if era.first == era.last else 'use'} when the flag is not given: it "
                "changes nothing",
                "drop it, unless the recipe means to pin the value against a later change of "
                "the default",
                flag=canonical,
            )
        )

    def _value(
        self, index: int, canonical: str, value: str, spec: FlagSpec, catalog: Catalog
    ) -> None:
        if value.startswith("$") or not spec.name.startswith("--") or spec.value == "no":
            return  # shell variables are expanded at launch
        if spec.type in ("json", "json_or_str"):
            self._json_value(index, canonical, value)
            return  # JSON syntax is RL308's finding; only the keys are checked here
        status = catalog.value_status(canonical, value)
        if status == "ok":
            self._value_removed(index, canonical, value)
            self._value_refused_between(index, canonical, value)
            return
        newer = self._newer_value(canonical, value, catalog)
        plugin = canonical in self.plugins
        if newer is not None:
            code = "RL360" if plugin else "RL358"
            self._report(
                code,
                index,
                f"`{canonical} {value}` needs {self.cats.package} {newer} or newer, but "
                f"min_vllm_version is {self.cats.min_version}",
                f"raise min_vllm_version to {newer}",
            )
        elif self.cats.beyond and value_span(canonical, value, self.cats.package) is None:
            self._unreleased(index, f"`{value}` is a value `{canonical}` takes in")
        elif plugin and status == "unknown":
            spelled = self.plugins[canonical]
            loaded_with = (
                f"`{spelled}`"
                if spelled == PLUGIN_FLAGS[canonical]
                else f"`{spelled}` (once spelled `{PLUGIN_FLAGS[canonical]}`)"
            )
            self._report(
                "RL360",
                index,
                f"`{value}` is not a built-in {canonical[2:]} of {catalog.package} "
                f"{catalog.version}; it is expected from the plugin loaded with {loaded_with}",
            )
        elif self.out_of_tree and status == "unknown":
            self._report(
                "RL360",
                index,
                f"`{value}` is not a built-in value of `{canonical}` in {catalog.package} "
                f"{catalog.version}; this list runs only on hardware of an out-of-tree "
                "platform, whose plugin may register it",
            )
        elif status == "bad":
            self._report(
                "RL351",
                index,
                f"`{value}` is not accepted by `{canonical}` in {catalog.package} "
                f"{catalog.version}",
                _value_hint(spec, value),
            )
        else:
            self._report(
                "RL353",
                index,
                f"`{value}` is not a known value of `{canonical}` in {catalog.package} "
                f"{catalog.version} (checked after startup, or by a plugin)",
                _value_hint(spec, value),
            )

    def _newer_value(self, canonical: str, value: str, catalog: Catalog) -> str | None:
        """The release that introduced a value the minimum catalog rejects but the newest knows."""
        newest = self.cats.newest
        if catalog is newest or self.cats.minimum is None or canonical not in newest.flags:
            return None
        if newest.value_status(canonical, value) != "ok":
            return None
        span = value_span(canonical, value, self.cats.package)
        return span[0] if span else newest.version

    def _value_refused_between(self, index: int, canonical: str, value: str) -> None:
        """A value the newest release takes but one from the start of the range refuses."""
        newest = self.cats.newest
        if self.cats.minimum is None or newest.value_status(canonical, value) != "ok":
            return
        start = self.key_floor or self.cats.minimum.version
        package = self.cats.package
        refusing, taken = _value_refused_in(canonical, value, start, package)
        if not refusing or taken is None:
            return
        if (
            refusing[0] == start
        ):  # under a flag younger than the minimum: the value is younger still
            self._report(
                "RL358",
                index,
                f"`{canonical} {value}` needs {self.cats.package} {taken} or newer, but "
                f"min_vllm_version is {self.cats.min_version}",
                f"raise min_vllm_version to {taken}",
            )
            return
        taking = _others_of_range(refusing, start, package)
        self._report(
            "RL351",
            index,
            f"`{value}` is not accepted by `{canonical}` in {package} "
            f"{_release_runs(refusing, package)}, though "
            f"{_release_runs(taking, package, last=' and ')} take it: vLLM does not start there",
            f"raise min_vllm_version past {refusing[-1]}, or use a value every release takes",
        )

    def _value_removed(self, index: int, canonical: str, value: str) -> None:
        newest = self.cats.newest
        spec = newest.flags.get(canonical)
        if (
            self.cats.minimum is None
            or spec is None
            or newest.value_status(canonical, value) == "ok"
        ):
            return
        if spec.choices is None and not spec.values:
            return
        span = value_span(canonical, value, self.cats.package)
        last = span[1] if span else self.cats.minimum.version
        if newest.value_status(canonical, value) == "bad":
            self._report(
                "RL359",
                index,
                f"`{canonical} {value}` was dropped after {self.cats.package} {last}; "
                f"the newest release ({newest.version}) rejects it",
                _value_hint(spec, value),
            )
        else:  # a soft value: argparse lets it through, later validation or a plugin decides
            self._report(
                "RL353",
                index,
                f"`{canonical} {value}` is listed up to {self.cats.package} {last}; the newest "
                f"release ({newest.version}) does not know it (checked after startup, or by a plugin)",
                _value_hint(spec, value),
            )

    def _json_value(self, index: int, canonical: str, value: str) -> None:
        try:
            parsed = json.loads(value)
        except (ValueError, RecursionError):
            return  # not JSON (or absurdly nested): RL308 reports it
        if not isinstance(parsed, dict):
            return
        for key, inner in parsed.items():
            self._json_key(index, canonical, (key,))
            verdicts = self._key_verdicts(canonical, (key,))
            if isinstance(inner, dict) and all(v.status in DECLARED for v in verdicts):
                for sub in inner:
                    self._json_key(index, canonical, (key, sub))


@lru_cache(maxsize=TEXT_KEYED_ENTRIES)
def _serve_refusal(canonical: str, start: str, package: str) -> tuple[str, str] | None:
    """(release, reason) of the first release from ``start`` whose `vllm serve` refuses the flag."""
    for catalog in catalogs_from(start, package):
        spec = catalog.flag(canonical)
        if spec is not None and spec.serve_error:
            return catalog.version, spec.serve_error
    return None


@lru_cache(maxsize=TEXT_KEYED_ENTRIES)
def _spelling_refused_between(token: str, start: str, package: str) -> tuple[str, ...]:
    """The releases after ``start`` and before the newest whose parser does not read ``token``."""
    between = catalogs_from(start, package)[1:-1]
    return tuple(c.version for c in between if not c.lookup(token).known)


def _release_runs(releases: tuple[str, ...], package: str, last: str = ", ") -> str:
    """Releases as `A to B` runs of consecutive catalogued releases; ``last`` joins the last
    run to the others."""
    versions = available_versions(package)
    runs: list[list[str]] = []
    for version in releases:
        at = versions.index(version) if version in versions else -1
        if runs and at > 0 and versions[at - 1] == runs[-1][-1]:
            runs[-1].append(version)
        else:
            runs.append([version])
    texts = [run[0] if len(run) == 1 else f"{run[0]} to {run[-1]}" for run in runs]
    return last.join([", ".join(texts[:-1]), texts[-1]] if len(texts) > 1 else texts)


def _others_of_range(refused: tuple[str, ...], start: str, package: str) -> tuple[str, ...]:
    """The releases from ``start`` to the newest that are not among ``refused``: a refusal
    between them is stated beside the releases on either side that accept."""
    return tuple(c.version for c in catalogs_from(start, package) if c.version not in refused)


@lru_cache(maxsize=TEXT_KEYED_ENTRIES)
def _value_refused_in(
    canonical: str, value: str, start: str, package: str
) -> tuple[tuple[str, ...], str | None]:
    """The releases from ``start`` that have the flag but refuse the value, and the first one
    after the first of them that takes the value again (None when none does)."""
    flags = flag_support(canonical, start, package)
    values = value_support(canonical, value, start, package)
    held = [
        verdict for verdict, flag in zip(values, flags, strict=True) if flag.status != "rejected"
    ]
    refused = first_with(held, "rejected")
    if refused is None:
        return (), None
    after = held[held.index(refused) :]
    taken = next((v.version for v in after if v.status != "rejected"), None)
    return tuple(v.version for v in held if v.status == "rejected"), taken


def _is_default(value: str, default: object) -> bool:
    """Whether argparse's text ``value`` converts to ``default`` (a number, a word)."""
    if isinstance(default, bool):
        return value.lower() in ("true", "false") and (value.lower() == "true") == default
    if isinstance(default, int):
        return re.fullmatch(r"[-+]?\d+", value.strip()) is not None and int(value) == default
    if isinstance(default, float):
        try:
            return float(value) == default
        except ValueError:
            return False
    return isinstance(default, str) and value == default


def _era_span(era: DefaultEra) -> str:
    return era.first if era.first == era.last else f"{era.first} to {era.last}"


def _span(verdicts: list[ReleaseStatus]) -> str:
    """The releases of a run of verdicts, as a message names them."""
    first, last = verdicts[0].version, verdicts[-1].version
    return first if first == last else f"{first} to {last}"


@lru_cache(maxsize=TEXT_KEYED_ENTRIES)
def _key_verdicts(
    canonical: str, path: tuple[str, ...], start: str, package: str
) -> tuple[ReleaseStatus, ...]:
    """The releases from ``start`` that have the flag, each with its verdict on the key.

    A release without the flag is left out: that is the flag's own finding (RL358/RL359).
    """
    flags = flag_support(canonical, start, package)
    keys = json_key_support(canonical, path, start, package)
    return tuple(key for key, flag in zip(keys, flags, strict=True) if flag.status != "rejected")


def _ever_declared(canonical: str, path: tuple[str, ...], package: str) -> bool:
    """Whether any catalogued release declares this JSON key of the flag."""
    oldest = available_versions(package)[0]
    return any(v.status in DECLARED for v in _key_verdicts(canonical, path, oldest, package))


def _first_accepting(token: str, cats: Catalogs) -> str | None:
    """The first release after the minimum whose parser accepts this spelling."""
    assert cats.minimum is not None
    floor = version_key(cats.minimum.version)
    for version in available_versions(cats.package):
        if version_key(version) > floor and load_catalog(version, cats.package).lookup(token).known:
            return version
    return None


def _last_accepting(token: str, cats: Catalogs) -> str | None:
    """The last release whose parser accepts this spelling (newest first: no need to read the rest)."""
    for version in reversed(available_versions(cats.package)):
        if load_catalog(version, cats.package).lookup(token).known:
            return version
    return None


_NAMED = re.compile(r"`(--)?[\w.-]+`|--[a-z][\w-]*|\binstead\b")


def _deprecation_hint(canonical: str, note: str | None, newest: Catalog) -> str:
    """What to do, from vLLM's own deprecation wording: a no-op is deleted, a named successor is
    switched to, and otherwise the flag goes (vLLM names no replacement to propose)."""
    still = f"; {newest.version} still accepts it" if newest.lookup(canonical).known else ""
    text = (note or "").replace(canonical, "")
    if "no effect" in text.lower():
        return f"delete it: vLLM says it has no effect{still}"
    if _NAMED.search(text):
        return f"switch to what vLLM's note names, then delete it{still}"
    return f"delete it: vLLM names no replacement{still}"


def _removal_hint(canonical: str, last: str, package: str) -> str:
    """What to do with a flag newer releases refuse, from what vLLM said when it last had it:
    a replacement only where vLLM's own deprecation names one, and its words quoted."""
    spec = load_catalog(last, package).flag(canonical)
    note = (spec.deprecation or "").strip() if spec is not None and spec.deprecated else ""
    if not note:
        return f"delete it: vLLM names no replacement ({package} {last} is the last to accept it)"
    text = note.replace(canonical, "")
    if "no effect" in text.lower():
        return f"delete it: vLLM says it has no effect ({package} {last}: {note})"
    if _NAMED.search(text):
        return f"switch to what vLLM names, then delete it ({package} {last}: {note})"
    return f"delete it: vLLM names no replacement ({package} {last}: {note})"


def _last_exact(spelled: str, package: str) -> str | None:
    """The last release that had a flag of exactly this name (None: no release ever had one)."""
    for version in reversed(available_versions(package)):
        if load_catalog(version, package).lookup(spelled).via == "exact":
            return version
    return None


def _as_text(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _switch_hint(hit: Lookup, spec: FlagSpec) -> str:
    negation = next((n for n in spec.negations if n.startswith("--no-")), None)
    if negation:
        return f"write `{hit.canonical}` to turn it on or `{negation}` to turn it off"
    return f"write `{hit.canonical}` alone"


def _value_hint(spec: FlagSpec, value: str) -> str | None:
    import difflib

    known = list(spec.choices or spec.values)
    if not known:
        return {
            "int": "give an integer",
            "float": "give a number",
            "json": "give valid JSON",
            "human_int": "give an integer such as 8192 or 128k",
            "human_int_or_auto": "give an integer such as 8192 or 128k, or auto",
        }.get(spec.type or "")
    # difflib rates values alike that share a long tail (`B12X_MLA_SPARSE`, `XPU_MLA_SPARSE`):
    # only a candidate a typo away is proposed, otherwise the known values are listed. Every
    # candidate difflib rates is tried, best first: the one a word away may rank below three
    # that share the tail (`MLA_SPARSE_DSV4` is FLASHINFER_MLA_SPARSE_DSV4 without its first word).
    rated = difflib.get_close_matches(value, known, n=len(known), cutoff=0.6)
    close = tight_matches(value, rated)
    if close:
        return f"did you mean `{close[0]}`?"
    shown = ", ".join(known[:8]) + (", …" if len(known) > 8 else "")
    return f"known values: {shown}"
