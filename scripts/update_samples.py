#!/usr/bin/env python3
"""Regenerate the recipelint output samples in README.md and docs/*.md.

A fenced block preceded by the line

    <!-- sample: DIR: recipelint ARGS -->

is the standard output of `recipelint ARGS` run in DIR (relative to the repository
root), on inputs kept under examples/samples/. tests/test_docs_samples.py fails when a
fence differs from what the CLI prints; this script rewrites the fences:

    .venv/bin/python scripts/update_samples.py          # rewrite every sample
    .venv/bin/python scripts/update_samples.py --check  # exit 1 if any sample is stale

Only the fence bodies change; every other byte of the documents is kept.
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCUMENTS = ("README.md", "docs/*.md")
MARKER = re.compile(r"^<!-- sample: (?P<dir>[^:]+): recipelint (?P<args>.*?) -->$")
# Runs the CLI's own entry point, as the console script does, with the interpreter running this.
ENTRY = "import sys; from recipelint.cli import main; sys.exit(main(sys.argv[1:]))"


@dataclass(frozen=True)
class Sample:
    document: Path
    line: int  # 1-based line of the marker
    directory: str
    args: tuple[str, ...]
    body: str  # the fence's lines, each ending in "\n"
    start: int  # offsets of the body in the document's text
    end: int

    @property
    def where(self) -> str:
        return f"{os.path.relpath(self.document, ROOT)}:{self.line}"


def documents(root: Path = ROOT) -> list[Path]:
    return sorted(path for pattern in DOCUMENTS for path in root.glob(pattern))


def samples(document: Path) -> list[Sample]:
    """The marked samples of one document; a marker not followed by a fence is an error."""
    text = document.read_text(encoding="utf-8")
    lines = text.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    found: list[Sample] = []
    for index, line in enumerate(lines):
        match = MARKER.match(line.rstrip("\n"))
        if not match:
            continue
        opening = index + 1
        if opening >= len(lines) or not lines[opening].startswith("```"):
            raise ValueError(
                f"{document}:{index + 1}: a sample marker must be followed by a ``` fence"
            )
        closing = next(
            (i for i in range(opening + 1, len(lines)) if lines[i].startswith("```")), None
        )
        if closing is None:
            raise ValueError(f"{document}:{opening + 1}: the sample's fence is not closed")
        found.append(
            Sample(
                document,
                index + 1,
                match["dir"].strip(),
                tuple(shlex.split(match["args"])),
                "".join(lines[opening + 1 : closing]),
                offsets[opening + 1],
                offsets[closing],
            )
        )
    return found


def render(sample: Sample, root: Path = ROOT) -> str:
    """What `recipelint ARGS` prints in DIR: stdout only (stderr's summary line is not shown)."""
    cwd = root / sample.directory
    if not cwd.is_dir():
        raise ValueError(f"{sample.where}: {sample.directory} is not a folder of the repository")
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "CLICOLOR_FORCE")}
    # The installed recipelint, as the reader of the docs runs it (its rule data is package data).
    env.update(NO_COLOR="1", TERM="dumb")
    done = subprocess.run(
        [sys.executable, "-c", ENTRY, *sample.args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    if done.returncode not in (0, 1):
        raise RuntimeError(
            f"{sample.where}: recipelint exited {done.returncode}: {done.stderr.strip()}"
        )
    return done.stdout


def rewrite(document: Path, root: Path = ROOT) -> bool:
    """Replace each sample's fence body with fresh output; True when the document changed."""
    text = document.read_text(encoding="utf-8")
    updated = text
    for sample in reversed(samples(document)):  # from the end, so earlier offsets stay valid
        updated = updated[: sample.start] + render(sample, root) + updated[sample.end :]
    if updated != text:
        document.write_text(updated, encoding="utf-8")
    return updated != text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="report stale samples, write nothing")
    options = parser.parse_args(argv)
    stale = 0
    for document in documents():
        for sample in samples(document) if options.check else []:
            if render(sample) != sample.body:
                print(f"{sample.where}: stale sample (recipelint {shlex.join(sample.args)})")
                stale += 1
        if not options.check and rewrite(document):
            print(f"updated {document.relative_to(ROOT)}")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
