"""Download catalog models from the Hugging Face Hub: resumable, cancellable, verified, atomic.

huggingface_hub supplies the metadata (model_info with LFS sha256), URLs, auth headers and HTTP
session; the bytes are streamed here because hf_hub_download has no cancel hook or progress
callback (only tqdm), writes into its own cache layout, and its retries would hide a resume.
"""

from __future__ import annotations

import hashlib
import shutil
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from huggingface_hub import get_session, hf_raise_for_status
from huggingface_hub.errors import HfHubHTTPError

# Public API, but the package re-exports it without listing it in __all__.
from huggingface_hub.utils import build_hf_headers  # type: ignore[attr-defined]

from hearth import paths
from hearth.engine.gguf_check import inspect_gguf
from hearth.errors import (
    ChecksumMismatch,
    DownloadCancelled,
    DownloadError,
    InsufficientDiskSpace,
    ModelFileError,
)
from hearth.models.catalog import CatalogEntry
from hearth.models.hub import TIMEOUT_S, TRANSPORT_ERRORS, resolve_remote_file
from hearth.models.hub_file import DIGEST_NAMES, RemoteFile
from hearth.models.lookup import (
    PART_SUFFIX,
    place_atomically,
    read_sidecar,
    sha256_file,
    write_sidecar,
)

CHUNK_SIZE = 256 * 1024
DISK_MARGIN = 64 * 1024 * 1024
_MAX_STALLED_ATTEMPTS = 3
_RETRY_DELAY_S = 0.5


@dataclass(frozen=True, slots=True)
class DownloadProgress:
    """A progress report: bytes so far, total, speed in bytes/s and seconds left (if known)."""

    bytes_done: int
    bytes_total: int
    speed: float
    eta: float | None

    @property
    def fraction(self) -> float:
        """Share of the file present locally, 0.0 to 1.0."""
        return self.bytes_done / self.bytes_total if self.bytes_total else 1.0


ProgressCallback = Callable[[DownloadProgress], None]


def download_model(
    entry: CatalogEntry,
    *,
    progress: ProgressCallback | None = None,
    cancel: threading.Event | None = None,
    endpoint: str | None = None,
) -> Path:
    """Download, verify and install an entry's file into the models dir; returns its path."""
    remote = resolve_remote_file(entry, endpoint=endpoint)
    dest = paths.models_dir() / remote.name
    if _already_installed(dest, remote):
        return dest
    part = dest.with_name(dest.name + PART_SUFFIX)
    check_disk_space(dest.parent, remote.size - part_size(part, remote.size))
    fetch_file(remote, part, progress=progress, cancel=cancel)
    _check_model(part, dest)
    # Model first, record second: a crash in between leaves a file without a record, which the
    # next run re-hashes, never a record vouching for the wrong file.
    place_atomically(part, dest)
    write_sidecar(dest, remote.sidecar())
    return dest


def fetch_file(
    remote: RemoteFile,
    part: Path,
    *,
    progress: ProgressCallback | None = None,
    cancel: threading.Event | None = None,
) -> None:
    """Stream `remote` into `part`, resuming the bytes already there, and check its digest.

    On return `part` holds the whole file, verified; a wrong digest deletes it and raises
    ChecksumMismatch. Cancelling or a lost connection keeps the bytes for the next call.
    """
    cancel = cancel or threading.Event()
    partial = _Partial(part, part_size(part, remote.size), remote.new_hasher())
    partial.rehash(remote, cancel)
    _fetch(remote, partial, _Meter(remote.size, partial.done, progress), cancel)
    received = partial.hasher.hexdigest()
    if received != remote.digest:
        part.unlink(missing_ok=True)
        raise ChecksumMismatch(_mismatch(remote, received))


def _mismatch(remote: RemoteFile, received: str) -> str:
    kind = DIGEST_NAMES[remote.digest_kind]
    if remote.pinned:
        return (
            f"The bytes received for {remote.name} have {kind} {received}, not the {remote.digest}"
            " pinned in the catalog; the bad data was deleted, so run the download again."
        )
    return (
        f"{remote.name} does not match the {kind} the hub publishes for it (a corrupted"
        " transfer); the bad data was deleted, so run the download again."
    )


def part_size(part: Path, limit: int) -> int:
    """How many bytes of a download are already in `part`; one longer than `limit` is dropped."""
    size = part.stat().st_size if part.is_file() else 0
    if size > limit:
        part.unlink()
        size = 0
    return size


def _already_installed(dest: Path, remote: RemoteFile) -> bool:
    if not dest.exists():
        return False
    sidecar = read_sidecar(dest)
    if sidecar is not None and sidecar.sha256 == remote.digest:
        return dest.stat().st_size == remote.size
    if sidecar is not None and sidecar.repo == remote.repo:
        return False  # An older download of this file: replace it.
    if sha256_file(dest) == remote.digest:
        write_sidecar(dest, remote.sidecar())
        return True
    raise DownloadError(
        f"{dest} already exists and is a different file; move it elsewhere, then run the"
        " download again."
    )


def check_disk_space(directory: Path, needed: int) -> None:
    """InsufficientDiskSpace unless `needed` bytes, and a margin, are free in `directory`."""
    free = shutil.disk_usage(directory).free
    if free < needed + DISK_MARGIN:
        raise InsufficientDiskSpace(
            f"Not enough free disk space in {directory}: the download needs"
            f" {_mb(needed + DISK_MARGIN)} (including {_mb(DISK_MARGIN)} to spare) but only"
            f" {_mb(free)} is free."
        )


def _mb(size: int) -> str:
    return f"{size / 1e6:,.0f} MB"


def _check_model(part: Path, dest: Path) -> None:
    try:
        inspect_gguf(part)
    except ModelFileError as exc:
        part.unlink(missing_ok=True)
        raise ModelFileError(dest, f"the downloaded file is not usable: {exc.reason}") from None


@dataclass
class _Partial:
    """The `.part` file being written: its length and the running digest of its bytes."""

    path: Path
    done: int
    hasher: hashlib._Hash

    def rehash(self, remote: RemoteFile, cancel: threading.Event) -> None:
        """Hash the bytes already on disk, so the resumed download is verified end to end."""
        if self.done:
            self.hasher = remote.new_hasher()
            sha256_file(self.path, cancel=cancel, hasher=self.hasher)

    def restart(self, remote: RemoteFile) -> None:
        """Drop what is on disk (the server ignored our Range request)."""
        self.path.write_bytes(b"")
        self.done = 0
        self.hasher = remote.new_hasher()


class _Meter:
    """Turns byte counts into progress reports with speed and ETA for this session."""

    def __init__(self, total: int, done: int, callback: ProgressCallback | None) -> None:
        self.total = total
        self.callback = callback
        self.started = time.monotonic()
        self.received = 0
        self.report(done)

    def advance(self, received: int, done: int) -> None:
        self.received += received
        self.report(done)

    def report(self, done: int) -> None:
        if self.callback is None:
            return
        elapsed = time.monotonic() - self.started
        speed = self.received / elapsed if elapsed > 0 else 0.0
        eta = (self.total - done) / speed if speed > 0 else None
        self.callback(DownloadProgress(done, self.total, speed, eta))


class _Interrupted(Exception):
    """The server ended the response before the whole file arrived."""


_RESUMABLE: tuple[type[Exception], ...] = (*TRANSPORT_ERRORS, _Interrupted)


def _fetch(remote: RemoteFile, partial: _Partial, meter: _Meter, cancel: threading.Event) -> None:
    stalled = 0
    while partial.done < remote.size:
        before = partial.done
        try:
            _stream_once(remote, partial, meter, cancel)
            if partial.done < remote.size:
                raise _Interrupted(f"response ended at byte {partial.done:,}")
        except _RESUMABLE as exc:
            stalled = 0 if partial.done > before else stalled + 1
            if stalled >= _MAX_STALLED_ATTEMPTS:
                raise DownloadError(
                    f"Lost the connection while downloading {remote.name} ({exc}); the"
                    f" {partial.done:,} bytes received are kept, so run the download again"
                    " to resume."
                ) from exc
            if cancel.wait(_RETRY_DELAY_S * stalled):
                raise _cancelled(remote, partial) from None
        except HfHubHTTPError as exc:
            raise DownloadError(f"The hub refused {remote.name}: {exc}") from exc
        except OSError as exc:
            raise DownloadError(
                f"Downloading {remote.name} failed ({exc}); the {partial.done:,} bytes received"
                " are kept, so run the download again to resume."
            ) from exc


def _stream_once(
    remote: RemoteFile, partial: _Partial, meter: _Meter, cancel: threading.Event
) -> None:
    headers = build_hf_headers(library_name="hearth")
    if partial.done:
        headers["Range"] = f"bytes={partial.done}-"
    with get_session().stream("GET", remote.url, headers=headers, timeout=TIMEOUT_S) as response:
        hf_raise_for_status(response)
        if partial.done and response.status_code != 206:
            partial.restart(remote)
        with partial.path.open("ab") as handle:
            for chunk in response.iter_bytes(CHUNK_SIZE):
                if cancel.is_set():
                    raise _cancelled(remote, partial)
                handle.write(chunk)
                partial.hasher.update(chunk)
                partial.done += len(chunk)
                if partial.done > remote.size:
                    raise DownloadError(
                        f"The hub sent more bytes than {remote.name} has; run the download again."
                    )
                meter.advance(len(chunk), partial.done)


def _cancelled(remote: RemoteFile, partial: _Partial) -> DownloadCancelled:
    return DownloadCancelled(
        f"Download of {remote.name} cancelled; {partial.done:,} of {remote.size:,} bytes are"
        " kept, so the same download resumes from there."
    )
