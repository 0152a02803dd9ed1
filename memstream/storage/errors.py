"""Errors raised by the persistence layer, and the root of every error memstream
raises on purpose (this is the lowest layer, so every other one can name it).

Hierarchy::

    MemstreamError            one line a user can act on: every front door shows it
    ├── StorageError          root of every error this package raises
    │   └── ArchiveCorrupt    an event-archive file that cannot be read back
    ├── ProjectionError       (memstream.events.errors) invalid events and queries
    ├── StreamsError          (memstream.streams.errors) the broker, publishing
    ├── OperationError        (memstream.application.errors) what an operation refuses
    └── MemstreamAPIError, MemstreamUnreachable  (memstream.client)
"""

from __future__ import annotations

__all__ = ["ArchiveCorrupt", "MemstreamError", "StorageError"]


class MemstreamError(Exception):
    """Root of every error memstream raises on purpose; its message is one line that
    says what was wrong."""


class StorageError(MemstreamError):
    """Root of every error raised by ``storage``."""


class ArchiveCorrupt(StorageError):
    """A Parquet file in the event archive could not be read."""
