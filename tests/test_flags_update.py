"""`recipelint flags update`: releases newer than the catalogs, found on a package index and read."""

from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
import tarfile
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from click.testing import CliRunner

from recipelint.cli import cli
from recipelint.flags.update import (
    ReleaseFile,
    UpdateError,
    download_source,
    index_releases,
    newer_releases,
    read_releases,
)

PROJECT = Path(__file__).resolve().parent.parent
CATALOGS = PROJECT / "rules" / "vllm"


def _archive(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as bundle:
        for name, body in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(body)
            bundle.addfile(info, io.BytesIO(body))
    return buffer.getvalue()


def _entry(filename: str, body: bytes = b"", **extra: object) -> dict[str, object]:
    digest = hashlib.sha256(body).hexdigest()
    return {
        "filename": filename,
        "url": f"../../files/{filename}",
        "hashes": {"sha256": digest},
        **extra,
    }


def _page(*entries: dict[str, object]) -> bytes:
    return json.dumps(
        {"meta": {"api-version": "1.0"}, "name": "vllm", "files": list(entries)}
    ).encode()


def test_final_releases_are_found_sources_before_wheels() -> None:
    page = _page(
        _entry("vllm-0.33.0.tar.gz"),
        _entry("vllm-0.40.0-cp38-abi3-manylinux_2_28_x86_64.whl"),
        _entry("vllm-0.40.0-cp38-abi3-manylinux_2_28_aarch64.whl"),
        _entry("vllm-0.40.0.tar.gz"),
        _entry("vllm-0.41.0rc1.tar.gz"),
        _entry("vllm-0.41.0.dev3.tar.gz"),
        _entry("vllm-0.42.0.tar.gz", yanked="broken build"),
        _entry("vllm-0.43.0-cp38-abi3-manylinux_2_28_x86_64.whl"),
        _entry("vllm_omni-0.44.0.tar.gz"),
    )
    seen: list[tuple[str, str]] = []

    def fetch(url: str, accept: str) -> bytes:
        seen.append((url, accept))
        return page

    found = index_releases("vllm", "https://index.example/simple", fetch)
    assert seen == [("https://index.example/simple/vllm/", "application/vnd.pypi.simple.v1+json")]
    assert [(f.version, f.filename) for f in found] == [
        ("0.33.0", "vllm-0.33.0.tar.gz"),
        ("0.40.0", "vllm-0.40.0.tar.gz"),
        ("0.43.0", "vllm-0.43.0-cp38-abi3-manylinux_2_28_x86_64.whl"),
    ]
    assert found[1].url == "https://index.example/files/vllm-0.40.0.tar.gz"
    assert [f.version for f in newer_releases(found, ("0.9.2", "0.33.0"))] == ["0.40.0", "0.43.0"]


def test_a_page_that_is_not_the_json_api_is_an_update_error() -> None:
    with pytest.raises(UpdateError, match="not a JSON simple-API page"):
        index_releases("vllm", "https://index.example/simple/", lambda url, accept: b"<html>")


def test_a_source_archive_is_checked_and_unpacked(tmp_path: Path) -> None:
    body = _archive({"vllm-0.40.0/vllm/__init__.py": b"", "vllm-0.40.0/setup.py": b""})
    good = ReleaseFile("0.40.0", "vllm-0.40.0.tar.gz", "u", hashlib.sha256(body).hexdigest())
    source = download_source(good, tmp_path, lambda url, accept: body)
    assert source == tmp_path / "vllm-0.40.0" and (source / "vllm" / "__init__.py").is_file()
    assert not (tmp_path / good.filename).exists()

    tampered = ReleaseFile("0.40.0", "vllm-0.40.0.tar.gz", "u", "0" * 64)
    with pytest.raises(UpdateError, match="SHA-256 differs"):
        download_source(tampered, tmp_path / "other", lambda url, accept: body)


def test_an_archive_member_leaving_the_folder_is_refused(tmp_path: Path) -> None:
    body = _archive({"vllm-0.40.0/vllm/__init__.py": b"", "../escaped.py": b"x"})
    found = ReleaseFile("0.40.0", "vllm-0.40.0.tar.gz", "u", None)
    with pytest.raises(UpdateError, match="cannot unpack"):
        download_source(found, tmp_path / "work", lambda url, accept: body)
    assert not (tmp_path / "escaped.py").exists()


@pytest.fixture
def index_server() -> Iterator[str]:
    page = _page(_entry("vllm-0.33.0.tar.gz"), _entry("vllm-99.0.0.tar.gz"))

    class Index(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - the http.server hook's name
            found = self.path == "/simple/vllm/"
            self.send_response(200 if found else 404)
            self.send_header("Content-Type", "application/vnd.pypi.simple.v1+json")
            self.end_headers()
            self.wfile.write(page if found else b"{}")

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Index)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/simple/"
    finally:
        server.shutdown()
        server.server_close()


def test_dry_run_lists_the_new_releases_and_writes_nothing(
    tmp_path: Path, index_server: str
) -> None:
    shutil.copy(CATALOGS / "vllm-0.33.0.json", tmp_path)
    before = sorted(p.name for p in tmp_path.iterdir())
    args = ["flags", "update", "--dry-run", "--catalog-dir", str(tmp_path)]
    result = CliRunner().invoke(cli, [*args, "--index-url", index_server])
    assert result.exit_code == 0, result.output
    assert "newer than the catalogs: 99.0.0" in result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_an_unreachable_index_is_a_usage_error(tmp_path: Path) -> None:
    shutil.copy(CATALOGS / "vllm-0.33.0.json", tmp_path)
    args = ["flags", "update", "--catalog-dir", str(tmp_path)]
    result = CliRunner().invoke(cli, [*args, "--index-url", "http://127.0.0.1:9/simple/"])
    assert result.exit_code == 2 and "recipelint flags update: cannot read" in result.output


def test_a_folder_without_catalogs_is_a_usage_error(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["flags", "update", "--catalog-dir", str(tmp_path)])
    assert result.exit_code == 2 and "no vllm-<release>.json" in result.output


def _cached_release(version: str) -> Path:
    cache = os.environ.get("RECIPELINT_VLLM_CACHE")
    source = Path(cache) / f"vllm-{version}" if cache else None
    if source is None or not (source / "vllm").is_dir():
        pytest.skip(f"set RECIPELINT_VLLM_CACHE to a folder holding vllm-{version}/vllm/")
    return source


def test_adding_the_newest_release_reproduces_the_committed_catalogs(tmp_path: Path) -> None:
    from recipelint.flags.catalog import available_versions

    newest = available_versions()[-1]
    source = _cached_release(newest)
    for path in CATALOGS.glob("vllm-[0-9]*.json"):
        if path.name != f"vllm-{newest}.json":
            shutil.copy(path, tmp_path)
    for name in ("vllm-env.json", "vllm-hardware.json"):
        shutil.copy(CATALOGS / name, tmp_path)  # the new reading replaces the kept one
    files = read_releases(tmp_path, {newest: source})
    assert {path.name for path in files.texts} == {
        f"vllm-{newest}.json",
        "vllm-env.json",
        "vllm-hardware.json",
        "vllm-history.json",
    }
    for path, text in files.texts.items():
        assert text == (CATALOGS / path.name).read_text(encoding="utf-8"), path.name


def test_the_example_workflow_runs_the_update_and_proposes_it() -> None:
    import yaml

    workflow = yaml.safe_load((PROJECT / "examples" / "vllm-catalogs-workflow.yml").read_text())
    triggers = workflow[True]  # YAML 1.1 reads the key `on` as true
    assert "schedule" in triggers and "workflow_dispatch" in triggers
    [job] = workflow["jobs"].values()
    assert job["timeout-minutes"] <= 60
    runs = [step.get("run", "") for step in job["steps"]]
    assert any(run.startswith("recipelint flags update") for run in runs)
    assert any("create-pull-request" in step.get("uses", "") for step in job["steps"])
