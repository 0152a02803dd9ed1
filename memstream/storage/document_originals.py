"""Documents' original bytes, kept in the data location (a local folder or S3).

Each version of a document is stored once per user, under the SHA-256 of its bytes:
``documents/<user>/<checksum>``, the user's folder named by
:func:`~memstream.storage.path_names.path_segment`. The log carries only the checksum
(``DocumentSubmitted``): the documents lane reads the bytes back from here, checked
against it, and a replay never needs them. Writing the same bytes twice writes nothing
new; erasing a user removes the user's folder.
"""

from __future__ import annotations

import hashlib

from memstream.storage.errors import StorageError
from memstream.storage.filesystems import Location
from memstream.storage.path_names import path_segment
from memstream.storage.shared_folder import SharedFolder

__all__ = ["DocumentOriginals", "OriginalMissing", "checksum_of"]


class OriginalMissing(StorageError):
    """No original of that checksum for that user (never stored, or erased)."""


def checksum_of(data: bytes) -> str:
    """The checksum a document's bytes are stored and named under (SHA-256, hex)."""
    return hashlib.sha256(data).hexdigest()


class DocumentOriginals:
    """The original bytes of every user's documents under one location."""

    def __init__(self, location: Location) -> None:
        self._folder = SharedFolder(location)

    @property
    def uri(self) -> str:
        return self._folder.uri

    def put(self, user_id: str, data: bytes) -> str:
        """Store ``data`` for ``user_id`` (once: the same bytes again write nothing);
        its checksum."""
        checksum = checksum_of(data)
        name = self._name(user_id, checksum)
        if not self._folder.exists(name):
            self._folder.write(name, data)
        return checksum

    def get(self, user_id: str, checksum: str) -> bytes:
        """The bytes stored under ``checksum`` for ``user_id``.

        Raises:
            OriginalMissing: there are none.
            StorageError: the bytes there do not match the checksum (damaged).
        """
        data = self._folder.read(self._name(user_id, checksum))
        if data is None:
            raise OriginalMissing(f"no original {checksum[:12]}… of {user_id}'s documents")
        if checksum_of(data) != checksum:
            raise StorageError(f"the original {checksum[:12]}… of {user_id} is damaged")
        return data

    def erase_user(self, user_id: str) -> int:
        """Remove every original of ``user_id``; how many."""
        folder = path_segment(user_id)
        removed = 0
        for name in self._folder.names(folder):
            removed += self._folder.remove(f"{folder}/{name}")
        return removed

    def checksums(self, user_id: str) -> list[str]:
        """The checksums stored for ``user_id``."""
        return self._folder.names(path_segment(user_id))

    @staticmethod
    def _name(user_id: str, checksum: str) -> str:
        if len(checksum) != 64 or any(c not in "0123456789abcdef" for c in checksum):
            raise ValueError(f"not a checksum: {checksum!r}")
        return f"{path_segment(user_id)}/{checksum}"
