"""A file on the hub as Hearth records it: repo, commit, size and digest; no hub client needed.

Kept apart from `hub` so that what only reads a recorded file (a speech model's record, a
model's sidecar) does not import huggingface_hub.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from hearth.models.lookup import Sidecar

# "sha256": an LFS file's content hash; "git-sha1": a small file's git blob id, which is
# sha1(b"blob <size>\0" + content), the only digest the hub publishes for non-LFS files.
DigestKind = Literal["sha256", "git-sha1"]
DIGEST_NAMES: dict[DigestKind, str] = {"sha256": "sha256", "git-sha1": "git SHA-1"}


@dataclass(frozen=True, slots=True)
class RemoteFile:
    """One file on the hub, pinned to a commit, with the size and digest the hub publishes."""

    repo: str
    revision: str
    filename: str
    url: str
    size: int
    digest: str
    digest_kind: DigestKind = "sha256"
    pinned: bool = False  # `digest` and `size` come from the catalog's pin, checked against the hub

    @property
    def name(self) -> str:
        """The local file name (the repo path's last part)."""
        return Path(self.filename).name

    def new_hasher(self) -> hashlib._Hash:
        """A hasher that, fed the file's bytes, ends at `digest` when they are right."""
        if self.digest_kind == "sha256":
            return hashlib.sha256()
        hasher = hashlib.sha1(usedforsecurity=False)
        hasher.update(b"blob %d\0" % self.size)
        return hasher

    def sidecar(self) -> Sidecar:
        """The install record for this file (GGUF files are LFS files: always sha256)."""
        assert self.digest_kind == "sha256", self
        return Sidecar(self.repo, self.revision, self.filename, self.digest, self.size)
