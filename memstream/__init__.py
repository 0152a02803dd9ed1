"""memstream: durable long-term memory for AI agents, as an event-sourced stream processor.

The public Python face: settings, the event model and codec, search, and the command.
Names are loaded on first use, so importing ``memstream`` (which every worker process
of a replay does) does not load LanceDB.
"""

from __future__ import annotations

import importlib
from importlib.metadata import version
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memstream.client import (
        MemoryClient,
        MemstreamAPIError,
        MemstreamError,
        MemstreamUnreachable,
    )
    from memstream.projections.codec import decode, encode, from_document
    from memstream.projections.events import MessageEvent
    from memstream.queries.search import SearchRequest, SearchResult
    from memstream.streams.settings import Settings

__all__ = [
    "MemoryClient",
    "MemstreamAPIError",
    "MemstreamError",
    "MemstreamUnreachable",
    "MessageEvent",
    "SearchRequest",
    "SearchResult",
    "Settings",
    "__version__",
    "decode",
    "encode",
    "from_document",
]

__version__ = version("memstream")  # one version: the package's, from pyproject.toml

_HOMES = {
    "MemoryClient": "memstream.client",
    "MemstreamAPIError": "memstream.client",
    "MemstreamError": "memstream.client",
    "MemstreamUnreachable": "memstream.client",
    "decode": "memstream.projections.codec",
    "encode": "memstream.projections.codec",
    "from_document": "memstream.projections.codec",
    "MessageEvent": "memstream.projections.events",
    "SearchRequest": "memstream.queries.search",
    "SearchResult": "memstream.queries.search",
    "Settings": "memstream.streams.settings",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'memstream' has no attribute {name!r}")
    return getattr(importlib.import_module(home), name)
