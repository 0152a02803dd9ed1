"""``as_of``: which moment a read asks for, and what an answer says it reflects.

A read may ask for memory as it stood at a past moment: a time (ISO 8601: what was
recorded by then) or a write token (what the log held once that write was applied). The
answer then carries :class:`AsOf`: the moment it reflects, when it was recorded and the
log position it holds, so a replay cut at that position (``memstream replay --through``)
rebuilds the same memory. The clock is the recording one: a memory recorded later than
the moment is not there, whenever its event says it happened; the event-time clock is
the ``before`` filter (``occurred_at``) of a search or a list.
"""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict

from memstream.events.errors import InvalidQuery
from memstream.events.identifier_rules import in_time_range
from memstream.storage.write_tokens import MAX_TOKEN_CHARS, BadToken, WriteToken, parse_token

__all__ = ["AS_OF_DESCRIPTION", "AsOf", "parse_as_of"]

AS_OF_DESCRIPTION = (
    "memory as it stood at a past moment: an ISO 8601 time (what was recorded by then) "
    "or a write token (once that write was applied)"
)


class AsOf(BaseModel):
    """The moment an ``as_of`` read reflects."""

    model_config = ConfigDict(frozen=True)

    #: what the read asked for, as given
    asked: str
    #: when the moment was recorded (the last at or before the time asked, or the first
    #: that held the write asked for)
    recorded_at: datetime
    #: a write token of the log positions the moment holds in the user's partition: a
    #: replay cut there (``memstream replay --through``) rebuilds this memory
    position: str


def parse_as_of(text: str) -> datetime | WriteToken:
    """The time or write token ``text`` names.

    Raises:
        InvalidQuery: it is neither (the message does not quote it).
    """
    if len(text) > MAX_TOKEN_CHARS:
        raise InvalidQuery("as_of: too long for a time or a write token")
    if text.startswith("w1."):
        try:
            return parse_token(text)
        except BadToken as exc:
            raise InvalidQuery(f"as_of: {exc}") from None
    try:
        when = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise InvalidQuery(
            "as_of: not an ISO 8601 time (2026-11-24T09:00:00Z) or a write token"
        ) from None
    try:
        return in_time_range(when)  # in UTC (a naive time is taken to be UTC)
    except ValueError as exc:
        raise InvalidQuery(f"as_of: {exc}") from None
