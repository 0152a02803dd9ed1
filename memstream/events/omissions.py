"""What a channel's event may leave out, one rule for every door (the HTTP API, the
command line's one message and its JSON lines, the Python client, MCP, imports, the
hooks): a message, a document or a command that does not say when it happened happened
when the door took it. (An event without ``event_id`` gets one derived from what it
says, by the door or, for bytes written to the log as they are, by the codec.)"""

from __future__ import annotations

from datetime import datetime
from typing import Any, get_args

from memstream.events.vocabulary import CHANNEL_TYPES, Event

__all__ = ["TIMED_WHEN_PUBLISHED", "needs_time", "stamped"]

#: The channel event types that must say when they happened: given none, it is now.
TIMED_WHEN_PUBLISHED = (
    frozenset(
        model.model_fields["type"].default
        for model in get_args(Event)
        if "occurred_at" in model.model_fields and model.model_fields["occurred_at"].is_required()
    )
    & CHANNEL_TYPES
)


def needs_time(document: Any) -> bool:
    """Whether ``document`` is a timed channel event (a message when it names no type)
    that does not say when it happened."""
    return (
        isinstance(document, dict)
        and "occurred_at" not in document
        and document.get("type", "message") in TIMED_WHEN_PUBLISHED
    )


def stamped(document: Any, now: datetime) -> Any:
    """``document``, told when it happened (``now``) if it is a timed channel event that
    does not say; anything else as it is."""
    if needs_time(document):
        return {**document, "occurred_at": now.isoformat()}
    return document
