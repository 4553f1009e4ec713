"""Every error Hearth's core raises derives from `HearthError`.

Messages say what failed and, where there is one, what the user can do about it.
"""

from __future__ import annotations

import re
from pathlib import Path


class HearthError(Exception):
    """Root of all errors raised by Hearth's core and connectors."""


class CertificateNotTrusted(HearthError):
    """A server's TLS certificate is not trusted. A connector that can pin one certificate per
    server sets `setting` (the settings field that would trust it), `fingerprint` (its
    SHA-256, 64 hex digits) and `refusal` (the message without the fingerprint), so a face can
    offer "Trust this certificate" and show the fingerprint its own way."""

    setting: str = ""
    fingerprint: str = ""
    refusal: str = ""


def spaced_fingerprint(digest: str) -> str:
    """A fingerprint as people compare it with what a server shows: AB:CD:…"""
    return ":".join(digest[i : i + 2] for i in range(0, len(digest), 2)).upper()


def read_fingerprint(text: str) -> str:
    """A SHA-256 fingerprint as typed or pasted (AB:CD:…, with spaces, "SHA256:…") as 64
    lower-case hex digits; "" stays "" (nothing pinned). ValueError for anything else."""
    value = re.sub(r"[\s:]", "", text.strip()).lower().removeprefix("sha256")
    if value and not re.fullmatch(r"[0-9a-f]{64}", value):
        raise ValueError("a SHA-256 fingerprint is 64 hex digits (colons are fine)")
    return value


class ModelError(HearthError):
    """A model could not be found, loaded or used."""


class ModelFileError(ModelError):
    """A GGUF file is missing, corrupt, truncated or of an unsupported kind."""

    def __init__(self, path: Path | str, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = Path(path)
        self.reason = reason


class ModelNotFoundError(ModelError):
    """No usable model is available for the request."""


class CatalogError(ModelError):
    """The model catalog is malformed or names an unknown entry."""


class DownloadError(ModelError):
    """A model download failed; partial data is kept for resuming."""


class DownloadCancelled(DownloadError):
    """The user cancelled a download."""


class ChecksumMismatch(DownloadError):
    """A downloaded file does not match the hub's sha256."""


class InsufficientDiskSpace(DownloadError):
    """There is not enough free disk space for a download."""


class EngineError(HearthError):
    """Inference failed for a reason that is not the model's output."""


class ContextOverflow(EngineError):
    """The prompt does not fit in the model's context window."""


class RemoteModelError(EngineError):
    """An OpenAI-compatible server could not be reached or answered badly."""


class UndoFailed(HearthError):
    """An action could not be reverted; the message says why and what is left as it was."""


class ToolFailure(HearthError):
    """A tool met a condition of the world: not found, refused, offline, a conflict.

    The message goes back to the model as an observation, so it says what happened in words the
    model can act on. Any other exception from a tool is a bug: it is recorded as failed, shown
    to the user, and never read by the model.
    """


class ToolCrashed(HearthError):
    """A tool raised something other than a `ToolFailure`: a bug in Hearth or a plugin."""

    def __init__(self, tool: str, error: BaseException) -> None:
        super().__init__(f"{tool} failed because of a bug: {type(error).__name__}: {error}")
        self.tool = tool
