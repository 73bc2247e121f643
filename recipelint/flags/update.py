"""Bring the committed vLLM catalogs up to the releases on the package index.

A release newer than every serve-flag catalog is found on the index's JSON
simple API (PEP 691), its source archive is downloaded and checked against the
index's SHA-256, unpacked, and read like `flags extract`, `env extract --add-to`
and `flags hardware --add-to` read it; the history file is then rebuilt from every
serve-flag catalog. Nothing is written until every new release has been read, so a
failed download or extraction leaves the catalogs as they were.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import tarfile
import urllib.request
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast
from urllib.parse import urljoin

from recipelint.flags.catalog import version_key
from recipelint.flags.catalogfiles import FlagCatalogFile
from recipelint.flags.serialize import dump_json

DEFAULT_INDEX = "https://pypi.org/simple/"
SIMPLE_JSON = "application/vnd.pypi.simple.v1+json"
# A final release (no rc, dev, alpha or beta): only those get a catalog.
FINAL_RELEASE = re.compile(r"^\d+\.\d+(?:\.\d+){0,2}(?:\.post\d+)?$")
TIMEOUT_SECONDS = 60

Fetch = Callable[[str, str], bytes]  # (url, accept header) -> body


class UpdateError(Exception):
    """The index, a download or a source archive could not be used; the catalogs are untouched."""


@dataclass(frozen=True)
class ReleaseFile:
    """The file of one release a catalog is read from: its source archive, else a wheel."""

    version: str
    filename: str
    url: str
    sha256: str | None


def fetch_url(url: str, accept: str) -> bytes:
    request = urllib.request.Request(url, headers={"Accept": accept})
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_SECONDS) as response:
            return bytes(response.read())
    except (OSError, ValueError) as exc:
        raise UpdateError(f"cannot read {url}: {exc}") from None


def index_releases(package: str, index_url: str, fetch: Fetch = fetch_url) -> list[ReleaseFile]:
    """Every final release of ``package`` on the index with a file to read, oldest first."""
    page_url = urljoin(index_url.rstrip("/") + "/", f"{package}/")
    try:
        page = json.loads(fetch(page_url, SIMPLE_JSON))
        files = page["files"]
    except (ValueError, KeyError, TypeError) as exc:
        raise UpdateError(f"{page_url} is not a JSON simple-API page ({exc})") from None
    chosen: dict[str, ReleaseFile] = {}
    for entry in files:
        found = _release_file(package, page_url, entry)
        if found is not None and _preferred(found, chosen.get(found.version)):
            chosen[found.version] = found
    return sorted(chosen.values(), key=lambda found: version_key(found.version))


def _release_file(package: str, page_url: str, entry: Any) -> ReleaseFile | None:
    if not isinstance(entry, dict) or entry.get("yanked"):
        return None
    filename, url = entry.get("filename"), entry.get("url")
    if not isinstance(filename, str) or not isinstance(url, str):
        return None
    version = _version_of(package, filename)
    if version is None or not FINAL_RELEASE.match(version):
        return None
    hashes = entry.get("hashes")
    sha256 = hashes.get("sha256") if isinstance(hashes, dict) else None
    return ReleaseFile(version, filename, urljoin(page_url, url), sha256)


def _version_of(package: str, filename: str) -> str | None:
    """The version a source archive or an x86_64 Linux wheel of ``package`` is named for."""
    stem = package.replace("-", "_")
    for prefix in (f"{package}-", f"{stem}-"):
        if filename.startswith(prefix) and filename.endswith(".tar.gz"):
            return filename[len(prefix) : -len(".tar.gz")]
    if filename.startswith(f"{stem}-") and filename.endswith(".whl") and "x86_64" in filename:
        return filename.split("-")[1]
    return None


def _preferred(candidate: ReleaseFile, current: ReleaseFile | None) -> bool:
    """A source archive is smaller than a wheel and holds the same Python sources."""
    return current is None or (
        candidate.filename.endswith(".tar.gz") and not current.filename.endswith(".tar.gz")
    )


def newer_releases(releases: list[ReleaseFile], known: tuple[str, ...]) -> list[ReleaseFile]:
    """The releases newer than every catalogued one (a gap below the newest is left alone)."""
    newest = max((version_key(version) for version in known), default=())
    return [found for found in releases if version_key(found.version) > newest]


def download_source(found: ReleaseFile, folder: Path, fetch: Fetch = fetch_url) -> Path:
    """The release's sources in ``folder``: a wheel as it is, an archive unpacked to vllm-<version>."""
    body = fetch(found.url, "application/octet-stream")
    if found.sha256 is not None and hashlib.sha256(body).hexdigest() != found.sha256.lower():
        raise UpdateError(f"{found.filename}: its SHA-256 differs from the index's; not used")
    folder.mkdir(parents=True, exist_ok=True)
    archive = folder / found.filename
    archive.write_bytes(body)
    if found.filename.endswith(".whl"):
        return archive
    target = folder / f"vllm-{found.version}"
    try:
        with tarfile.open(archive, "r:gz") as bundle:
            # The "data" filter refuses members that leave the folder, links out of it and devices.
            bundle.extractall(folder / "unpacked", filter="data")
    except (tarfile.TarError, OSError, EOFError) as exc:
        raise UpdateError(f"{found.filename}: cannot unpack it ({exc})") from None
    finally:
        archive.unlink()
    tops = list((folder / "unpacked").iterdir())
    root = tops[0] if len(tops) == 1 and tops[0].is_dir() else folder / "unpacked"
    if not (root / "vllm").is_dir():
        raise UpdateError(f"{found.filename}: no vllm/ package inside")
    shutil.move(root, target)
    return target


@dataclass(frozen=True)
class CatalogFiles:
    """The files one update writes, each with its new text."""

    texts: Mapping[Path, str]


def read_releases(catalog_dir: Path, sources: Mapping[str, Path]) -> CatalogFiles:
    """The catalog files after adding ``sources`` (version → wheel or source folder)."""
    from recipelint.flags.envs import build_env_catalog, extract_env, unfold_eras
    from recipelint.flags.extract import extract_catalog
    from recipelint.flags.hardware import build_hardware_catalog, extract_hardware
    from recipelint.flags.history import build_history

    texts: dict[Path, str] = {}
    serve = {
        p.name: cast(FlagCatalogFile, _read_json(p))  # a committed flag catalog
        for p in sorted(catalog_dir.glob("vllm-[0-9]*.json"))
    }
    env_tables = unfold_eras(_read_json(catalog_dir / "vllm-env.json"), "variables")
    hardware_tables = unfold_eras(_read_json(catalog_dir / "vllm-hardware.json"), "entries")
    for version, source in sources.items():
        catalog = extract_catalog(source)
        if catalog.get("version") != version:
            raise UpdateError(f"{source} reads as vllm {catalog.get('version')}, not {version}")
        name = f"vllm-{version}.json"
        serve[name] = catalog
        texts[catalog_dir / name] = dump_json(catalog)
        env_tables.append(extract_env(source))
        hardware_tables.append(extract_hardware(source))
    # A release read again from its source replaces the kept reading.
    env = build_env_catalog({t["version"]: t for t in env_tables}.values())
    hardware = build_hardware_catalog(list({t["version"]: t for t in hardware_tables}.values()))
    texts[catalog_dir / "vllm-env.json"] = dump_json(env)
    texts[catalog_dir / "vllm-hardware.json"] = dump_json(hardware)
    texts[catalog_dir / "vllm-history.json"] = dump_json(build_history(serve.values()))
    return CatalogFiles(texts)


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise UpdateError(f"{path}: not a catalog ({exc})") from None
    if not isinstance(data, dict):
        raise UpdateError(f"{path}: not a catalog")
    return data


def write_catalogs(files: CatalogFiles) -> None:
    """Each file written beside itself and renamed into place, so none is left half-written."""
    for path, text in files.texts.items():
        partial = path.with_name(f".{path.name}.partial")
        partial.write_text(text, encoding="utf-8")
        partial.replace(path)
