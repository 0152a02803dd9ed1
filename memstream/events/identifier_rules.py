"""The rules of identifiers, tags, times and plain text, with the standard library
alone: the patterns every door and the worker check (as patterns, so that every regex
dialect reads them alike), the sentences a value that breaks them is told, and the
functions that check and make them (a derived memory's stable id among them).
:mod:`memstream.events.identifiers` builds the field types of the events and requests on
them; the command line and the hooks check values with these without loading a model."""

from __future__ import annotations

import hashlib
import re
from datetime import UTC, datetime

__all__ = [
    "EARLIEST",
    "IDENTIFIER_PATTERN",
    "IDENTIFIER_RULE",
    "LATEST",
    "TAG_PATTERN",
    "TAG_RULE",
    "as_utc",
    "bounded_id",
    "derived_memory_id",
    "identifier_for",
    "in_time_range",
    "is_identifier",
    "without_controls",
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


def derived_memory_id(prefix: str, *parts: str) -> str:
    """A stable id for a derived memory from what identifies it."""
    digest = hashlib.blake2b("\x1f".join(parts).encode(), digest_size=16).hexdigest()
    return f"{prefix}-{digest}"


_CONTROL_CHARACTER = re.compile(r"[\x00-\x1f\x7f]")


def without_controls(text: str) -> str:
    """``text`` with each control character (a newline too) turned into a space."""
    return _CONTROL_CHARACTER.sub(" ", text)
