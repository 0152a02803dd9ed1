"""memstream: durable long-term memory for AI agents, as an event-sourced stream processor.

The public Python face: settings, the event model and codec, search, and the command.
"""

from __future__ import annotations

from projections.codec import decode, encode, from_document
from projections.events import MessageEvent
from projections.search import SearchRequest, SearchResult
from streams.settings import Settings

__all__ = [
    "MessageEvent",
    "SearchRequest",
    "SearchResult",
    "Settings",
    "__version__",
    "decode",
    "encode",
    "from_document",
]

__version__ = "0.1.0"
