"""What reading an import makes (no I/O here): the plan of events with what was skipped
and why, a line or entry that cannot be read, and the identifier and tag rules the
events' fields are cleaned to."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from memstream.events.identifier_rules import IDENTIFIER_PATTERN, TAG_PATTERN
from memstream.events.vocabulary import Event

__all__ = ["IDENTIFIER", "NOT_IN_IDENTIFIERS", "TAG", "ImportPlan", "Skipped", "Unreadable"]


IDENTIFIER = re.compile(IDENTIFIER_PATTERN)


TAG = re.compile(TAG_PATTERN)


NOT_IN_IDENTIFIERS = re.compile(r"[^A-Za-z0-9_.:@+/-]+")


@dataclass(frozen=True)
class Skipped:
    """An entry left out, where it is in the file and why."""

    position: str
    reason: str


@dataclass
class ImportPlan:
    """What a file holds for the user: its shape, the events to publish (in order),
    the bytes of the document originals they submit, and the entries skipped. Read
    from a stream, ``events`` and ``originals`` hold what was read and not yet taken."""

    shape: str
    events: list[Event] = field(default_factory=list)
    originals: list[bytes] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    #: entries skipped past the first :data:`MAX_SKIPS_NAMED`, counted, not named
    more_skipped: int = 0


@dataclass(frozen=True)
class Unreadable:
    """An entry of a list that could not be built (it nests too deep), and why."""

    reason: str
