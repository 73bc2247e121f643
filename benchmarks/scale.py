#!/usr/bin/env python3
"""How recipelint scales: trees N times the size of a real one, with the upstream build beside it.

usage: python benchmarks/scale.py [TREE] [--scales 1,5,10] [--upstream DIR] [--runs N]
       python benchmarks/scale.py --make DEST --copies N [TREE]

A scaled tree holds N copies of TREE's recipes: copy 0 as it is, copy k under organisations
renamed `<org>-x<k>` (models/<org>-x<k>/<repo>.yaml), and every mention of an organisation
that owns a model in copy k renamed the same way (model ids, the guide's commands, related
recipes, links), so promoted variants stay distinct, a recipe that names another recipe's id
still names the copy beside it, and no copy's text repeats another's where distinct recipes
differ: work shared by identical texts would otherwise make the copies cheaper than real
recipes. Taxonomy, platforms, strategies and kv_store are shared.

For each scale the table shows user CPU and peak memory of `recipelint compile` and
`recipelint check` (a fresh process each, measured with wait4, helpers included; with
--runs N the median of N runs, the commands taking turns, each compile into a new folder), and
with --upstream (a checkout of vllm-project/recipes whose node_modules holds js-yaml 4)
the upstream build on the same tree, recipelint's ratio to it, and whether the two
outputs are byte-identical. The growth line divides each figure at the largest scale by
the figure at 1x. TREE defaults to the --upstream checkout, else the corpus tree.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from bench import DEFAULT_TREE, Sample, recipelint, run_once

SHARED_PARTS = ("taxonomy.yaml", "platforms.yaml", "strategies", "kv_store", "quickstart")
BUILD_SOURCES = ("scripts", "src", "node_modules", "package.json")
MODEL_ID = re.compile(r'(?m)^\s*model_id:\s*"?([^"/\s]+)/')


def renamed_org(org: str, copy: int) -> str:
    return org if copy == 0 else f"{org}-x{copy}"


def model_orgs(texts: list[str]) -> frozenset[str]:
    """The organisations that own a model some recipe names (its model id or a variant's)."""
    return frozenset(org for text in texts for org in MODEL_ID.findall(text))


def org_mentions(orgs: frozenset[str]) -> re.Pattern[str]:
    """`<org>/` for any of ``orgs``, not inside a longer name."""
    names = "|".join(re.escape(org) for org in sorted(orgs, key=len, reverse=True))
    return re.compile(rf"(?<![\w.-])({names})/")


def copied_recipe(text: str, copy: int, mentions: re.Pattern[str]) -> str:
    """A recipe's text for copy ``copy``: every mention of a model's organisation renamed like the folder."""
    if copy == 0:
        return text
    return mentions.sub(lambda found: f"{renamed_org(found[1], copy)}/", text)


def make_scaled_tree(source: Path, dest: Path, copies: int) -> Path:
    """Write ``copies`` copies of ``source``'s recipes (and its shared files once) to ``dest``."""
    dest.mkdir(parents=True, exist_ok=True)
    for part in SHARED_PARTS:
        if (source / part).is_dir():
            shutil.copytree(source / part, dest / part)
        elif (source / part).is_file():
            shutil.copy2(source / part, dest / part)
    models = source / "models"
    texts = {
        recipe: recipe.read_text(encoding="utf-8") for recipe in sorted(models.rglob("*.yaml"))
    }
    folders = {recipe.relative_to(models).parts[0] for recipe in texts}
    mentions = org_mentions(model_orgs(list(texts.values())) | folders)
    for recipe, text in texts.items():
        org, *rest = recipe.relative_to(models).parts
        for copy in range(copies):
            target = dest / "models" / renamed_org(org, copy) / Path(*rest)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(copied_recipe(text, copy, mentions), encoding="utf-8")
    return dest


@dataclass
class ScaleRow:
    copies: int
    recipes: int
    files: int
    compile: Sample
    check: Sample
    upstream: Sample | None
    identical: bool | None


def upstream_build(checkout: Path, tree: Path, work: Path) -> Path | None:
    """A folder where the upstream build runs on ``tree`` (its output lands in public/)."""
    if (
        shutil.which("node") is None
        or not (checkout / "scripts" / "build-recipes-api.mjs").is_file()
    ):
        return None
    build = work / "upstream-build"
    build.mkdir()
    for part in BUILD_SOURCES:
        if (checkout / part).exists():
            (build / part).symlink_to(checkout / part)
    for part in (*SHARED_PARTS, "models"):
        if (tree / part).exists():
            (build / part).symlink_to(tree / part)
    return build


def median_sample(samples: list[Sample]) -> Sample:
    """The median of each figure over interleaved runs (this machine's runs vary by a quarter)."""
    return Sample(
        statistics.median(s.wall for s in samples),
        statistics.median(s.user for s in samples),
        statistics.median(s.system for s in samples),
        statistics.median(s.peak_mb for s in samples),
        max(s.status for s in samples),
    )


def same_folders(left: Path, right: Path) -> bool:
    """Whether two folders hold the same files with the same bytes."""
    files = _files(left)
    if files != _files(right):
        return False
    return all((left / rel).read_bytes() == (right / rel).read_bytes() for rel in files)


def _files(folder: Path) -> set[str]:
    return {
        os.path.relpath(os.path.join(current, name), folder)
        for current, _, names in os.walk(folder)
        for name in names
    }


def count_files(folder: Path) -> int:
    return len(_files(folder))


def measure(source: Path, copies: int, upstream: Path | None, work: Path, runs: int) -> ScaleRow:
    tree = make_scaled_tree(source, work / "tree", copies)
    out = work / "out"
    build = upstream_build(upstream, tree, work) if upstream is not None else None
    compiled, checked, built = [], [], []
    for run in range(1, runs + 1):
        shutil.rmtree(out, ignore_errors=True)
        say(
            f"{copies}x, run {run}/{runs}: recipelint compile, check"
            + (", upstream build" if build else "")
        )
        compiled.append(run_once(recipelint("compile", str(tree), "-o", str(out), "-q")))
        checked.append(run_once(recipelint("check", "-q", str(tree))))
        if build is not None:
            shutil.rmtree(build / "public", ignore_errors=True)
            built.append(
                run_once([str(shutil.which("node")), "scripts/build-recipes-api.mjs"], cwd=build)
            )
    say(f"{copies}x: comparing the outputs")
    identical = same_folders(build / "public", out) if build is not None else None
    recipes = sum(1 for _ in (tree / "models").rglob("*.yaml"))
    return ScaleRow(
        copies,
        recipes,
        count_files(out),
        median_sample(compiled),
        median_sample(checked),
        median_sample(built) if built else None,
        identical,
    )


def say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def failed(sample: Sample, expected: tuple[int, ...]) -> str:
    return "" if sample.status in expected else f" (exit {sample.status})"


def ratio(part: float, whole: float) -> str:
    return f"{part / whole:.2f}" if whole > 0 else "n/a"


def table(rows: list[ScaleRow]) -> Iterator[str]:
    yield (
        "| scale | recipes | files | compile user s | compile MB | check user s | check MB "
        "| upstream user s | upstream MB | compile/upstream CPU | memory | identical |"
    )
    yield "|---|---|---|---|---|---|---|---|---|---|---|---|"
    for row in rows:
        up = row.upstream
        yield (
            f"| {row.copies}x | {row.recipes} | {row.files} | {row.compile.user:.2f}"
            f"{failed(row.compile, (0,))} | {row.compile.peak_mb:.0f} "
            f"| {row.check.user:.2f}{failed(row.check, (0, 1))} | {row.check.peak_mb:.0f} "
            + (
                f"| {up.user:.2f} | {up.peak_mb:.0f} | {ratio(row.compile.user, up.user)} "
                f"| {ratio(row.compile.peak_mb, up.peak_mb)} "
                if up is not None
                else "| n/a | n/a | | "
            )
            + f"| {'n/a' if row.identical is None else 'yes' if row.identical else 'NO'} |"
        )
    first, last = rows[0], rows[-1]
    if last.copies != first.copies:
        scale = last.copies / first.copies
        yield ""
        yield (
            f"growth {first.copies}x -> {last.copies}x (tree x{scale:g}): "
            f"compile user x{last.compile.user / first.compile.user:.2f}, "
            f"check user x{last.check.user / first.check.user:.2f}, "
            f"compile memory x{last.compile.peak_mb / first.compile.peak_mb:.2f}, "
            f"check memory x{last.check.peak_mb / first.check.peak_mb:.2f}"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tree", nargs="?", type=Path)
    parser.add_argument("--scales", default="1,5,10", help="comma-separated copy counts")
    parser.add_argument("--upstream", type=Path, help="checkout of vllm-project/recipes")
    parser.add_argument("--make", type=Path, metavar="DEST", help="only write a scaled tree")
    parser.add_argument("--copies", type=int, default=10)
    parser.add_argument("--runs", type=int, default=1, help="interleaved runs per figure (medians)")
    args = parser.parse_args()
    source = args.tree or (args.upstream if args.upstream else DEFAULT_TREE)
    if not (source / "taxonomy.yaml").is_file():
        parser.error(f"{source} is not a recipe tree")
    if args.make is not None:
        make_scaled_tree(source, args.make, args.copies)
        return 0
    scales = [int(part) for part in args.scales.split(",") if part.strip()]
    rows = []
    for copies in scales:
        with tempfile.TemporaryDirectory(prefix="recipelint-scale-") as tmp:
            run_once(recipelint("rules"))  # bytecode caches, as in an installed copy
            rows.append(measure(source.resolve(), copies, args.upstream, Path(tmp), args.runs))
    runs = "one run" if args.runs == 1 else f"medians of {args.runs} interleaved runs"
    print(f"tree: {source}  ({runs} per figure; user CPU and peak RSS of a fresh process)")
    print("\n".join(table(rows)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
