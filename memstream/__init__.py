"""memstream: durable long-term memory for AI agents, as an event-sourced stream processor.

The public Python face: settings, the event model and codec, search, and the command.
Names are loaded on first use, so importing ``memstream`` (which every worker process
of a replay does) does not load LanceDB.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memstream.client import (
        MemoryClient,
        MemstreamAPIError,
        MemstreamError,
        MemstreamUnreachable,
    )
    from memstream.events.codec import decode, encode, from_document
    from memstream.events.vocabulary import MessageEvent
    from memstream.queries.search.searcher import SearchRequest, SearchResult
    from memstream.settings import Settings

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


_HOMES = {
    "MemoryClient": "memstream.client",
    "MemstreamAPIError": "memstream.client",
    "MemstreamError": "memstream.client",
    "MemstreamUnreachable": "memstream.client",
    "decode": "memstream.events.codec",
    "encode": "memstream.events.codec",
    "from_document": "memstream.events.codec",
    "MessageEvent": "memstream.events.vocabulary",
    "SearchRequest": "memstream.queries.search.searcher",
    "SearchResult": "memstream.queries.search.searcher",
    "Settings": "memstream.settings",
}


def __getattr__(name: str) -> Any:
    if name == "__version__":  # one version: the package's, from pyproject.toml
        from importlib.metadata import version

        return version("memstream")
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'memstream' has no attribute {name!r}")
    return getattr(importlib.import_module(home), name)
