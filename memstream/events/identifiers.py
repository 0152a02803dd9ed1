"""The field types events, queries and every door share: identifiers and tags (their
rules as patterns, so that every regex dialect reads them alike, and the sentences a
value that breaks them is told) and times (aware UTC, within the range memstream keeps).
Kept apart from the event models, so a request or a check of one value loads no event
model."""

from __future__ import annotations

import hashlib
import re
from datetime import UTC, datetime
from typing import Annotated

from pydantic import AfterValidator, BeforeValidator, StringConstraints, WithJsonSchema

__all__ = [
    "EARLIEST",
    "IDENTIFIER_PATTERN",
    "IDENTIFIER_RULE",
    "LATEST",
    "TAG_PATTERN",
    "TAG_RULE",
    "Identifier",
    "MemoryId",
    "Tag",
    "UtcDateTime",
    "as_utc",
    "bounded_id",
    "identifier_for",
    "in_time_range",
    "is_identifier",
]


#: Identifiers (users, projects, sessions, channels) are plain tokens: ASCII letters,
#: digits and ``_ . : @ + / -``. Scope filters are built from them, so they never hold
#: quotes, spaces or operators; the front doors and the worker share this one rule (an
#: event with another identifier is refused at a door and dead-lettered by the worker),
#: spelled out rather than ``\w`` so that every regex dialect reads it alike.
IDENTIFIER_PATTERN = r"^[A-Za-z0-9_.:@+/-]{1,200}$"


_NOT_IN_IDENTIFIERS = re.compile(r"[^A-Za-z0-9_.:@+/-]+")
_IDENTIFIER = re.compile(IDENTIFIER_PATTERN)

#: What an identifier that breaks the rule is told.
IDENTIFIER_RULE = "must be 1-200 characters of ASCII letters, digits and _ . : @ + / -"


#: A tag: a short lowercase token ("travel", "work-project").
TAG_PATTERN = r"^[A-Za-z0-9_.:+/-]{1,64}$"


#: What a tag that breaks the rule is told.
TAG_RULE = "must be 1-64 characters of ASCII letters, digits and _ . : + / -"


#: Checked by pydantic-core's regex engine (the hot path validates three per message).
Identifier = Annotated[str, StringConstraints(pattern=IDENTIFIER_PATTERN)]


#: A memory's id (``ep-<hex>``, ``fact-<hex>``, ...): checked like every identifier, so
#: an event can never carry a value no store filter can hold.
MemoryId = Identifier


Tag = Annotated[str, StringConstraints(to_lower=True, strip_whitespace=True, pattern=TAG_PATTERN)]


def as_utc(value: datetime) -> datetime:
    """Return ``value`` as an aware UTC datetime; a naive value is taken to be UTC.

    Raises:
        ValueError: the time in UTC falls outside what a datetime can hold.
    """
    if value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    try:
        return value.astimezone(UTC)
    except OverflowError:
        raise ValueError(f"{value.isoformat()} is outside the times memstream keeps") from None


#: The times events and queries may name: far enough from the ends of the calendar
#: that time zones, relative phrases ("three years ago") and decay arithmetic never
#: leave the range a datetime can hold.
EARLIEST = datetime(1000, 1, 1, tzinfo=UTC)


LATEST = datetime(8999, 12, 31, 23, 59, 59, tzinfo=UTC)


def in_time_range(value: datetime) -> datetime:
    """``value`` in UTC, if it lies between :data:`EARLIEST` and :data:`LATEST`.

    Raises:
        ValueError: it does not.
    """
    value = as_utc(value)
    if not EARLIEST <= value <= LATEST:
        raise ValueError(
            f"must be between {EARLIEST:%Y-%m-%d} and {LATEST:%Y-%m-%d} (UTC), "
            f"got {value.isoformat()}"
        )
    return value


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


def identifier_for(name: str, prefix: str = "") -> str:
    """An identifier for ``prefix`` + ``name``, any string: itself when it keeps the
    rule, else its characters outside the rule as ``-``, cut to fit, and a digest of
    the whole, so that two names never share an identifier (a session id with spaces,
    another script, or longer than an identifier may be stays its own)."""
    whole = f"{prefix}{name}"
    if _IDENTIFIER.fullmatch(whole):
        return whole
    digest = hashlib.sha256(whole.encode("utf-8", "surrogatepass")).hexdigest()[:20]
    readable = _NOT_IN_IDENTIFIERS.sub("-", whole).strip("-")[: 200 - len(digest) - 1]
    return f"{readable}.{digest}" if readable else digest


def bounded_id(*parts: str, limit: int = 200) -> str:
    """``parts`` joined by ``:`` as an event id of at most ``limit`` characters: the
    joined parts when they fit, else as many of them as fit and a digest of all, so
    that ids of different parts stay different at any length."""
    whole = ":".join(parts)
    if len(whole) <= limit:
        return whole
    digest = hashlib.sha256(whole.encode("utf-8", "surrogatepass")).hexdigest()[:32]
    return f"{whole[: limit - len(digest) - 1]}~{digest}"


_IDENTIFIER = re.compile(IDENTIFIER_PATTERN, re.ASCII)


def is_identifier(value: object) -> bool:
    """Whether ``value`` is a string that keeps the identifier rule."""
    return isinstance(value, str) and _IDENTIFIER.fullmatch(value) is not None
