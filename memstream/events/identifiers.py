"""The field types events, queries and every door share: identifiers and tags, and
times (aware UTC, within the range memstream keeps), built on the rules of
:mod:`memstream.events.identifier_rules` (import the rules from there). Kept apart from the event
models, so a request or a check of one value loads no event model."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from pydantic import AfterValidator, BeforeValidator, StringConstraints, WithJsonSchema

from memstream.events.identifier_rules import IDENTIFIER_PATTERN, TAG_PATTERN, in_time_range

__all__ = ["Identifier", "MemoryId", "Tag", "UtcDateTime"]


#: Checked by pydantic-core's regex engine (the hot path validates three per message).
Identifier = Annotated[str, StringConstraints(pattern=IDENTIFIER_PATTERN)]


#: A memory's id (``ep-<hex>``, ``fact-<hex>``, ...): checked like every identifier, so
#: an event can never carry a value no store filter can hold.
MemoryId = Identifier


Tag = Annotated[str, StringConstraints(to_lower=True, strip_whitespace=True, pattern=TAG_PATTERN)]


_SAFE_YEARS = r"^(100[1-9]|10[1-9]\d|1[1-9]\d\d|[2-7]\d{3}|8[0-8]\d\d|89[0-8]\d|899[0-8])-"


#: A time in an event or a query: aware UTC (a naive value is taken to be UTC), between
#: :data:`EARLIEST` and :data:`LATEST`.
def _not_a_number(value: object) -> object:
    """Times are ISO 8601 strings (or datetimes), never numbers of seconds."""
    if isinstance(value, int | float):
        raise ValueError("must be an ISO 8601 time, not a number")
    return value


UtcDateTime = Annotated[
    datetime,
    BeforeValidator(_not_a_number),
    AfterValidator(in_time_range),
    # In the OpenAPI document: years whose every time zone stays inside the range.
    WithJsonSchema(
        {
            "type": "string",
            "format": "date-time",
            "pattern": _SAFE_YEARS,
        }
    ),
]
