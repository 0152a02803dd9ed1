"""Errors raised by the persistence layer.

Hierarchy::

    StorageError              root of every error this package raises
    └── ArchiveCorrupt        an event-archive file that cannot be read back
"""

from __future__ import annotations

__all__ = ["ArchiveCorrupt", "StorageError"]


class StorageError(Exception):
    """Root of every error raised by ``storage``."""


class ArchiveCorrupt(StorageError):
    """A Parquet file in the event archive could not be read."""
