"""References to archived originals in the cold store: what a ``MemoryArchived`` event
names and ``memstream expand`` reads (pure: the cold store does the reading)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["StorageRef"]


@dataclass(frozen=True)
class StorageRef:
    """Where an archived original lives: the file it was written to (relative to the
    store's location, so the reference survives moving the data; compaction may merge
    it into another file of the same partition), the memory id, and the start of the
    original's checksum (which version of the memory; None matches any)."""

    path: str
    memory_id: str
    version: str | None = None

    def __str__(self) -> str:
        suffix = f"@{self.version}" if self.version else ""
        return f"{self.path}#{self.memory_id}{suffix}"

    @classmethod
    def parse(cls, text: str) -> StorageRef:
        path, sep, rest = text.rpartition("#")
        memory_id, _, version = rest.partition("@")
        if not sep or not path or not memory_id:
            raise ValueError(f"not a storage reference: {text!r}")
        return cls(path, memory_id, version or None)

    def matches(self, row: Mapping[str, Any]) -> bool:
        """Whether a cold row is the original this reference points at."""
        return bool(
            row["memory_id"] == self.memory_id
            and (self.version is None or str(row["checksum"]).startswith(self.version))
        )
