"""What channels may publish: the event types, the batch size, and the validation every
front door's publish goes through (all of a batch, or none of it)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from memstream.application.errors import OperationError
from memstream.events.codec import encode, from_document, size_problem
from memstream.events.errors import InvalidEvent, InvalidQuery
from memstream.events.json_text import JsonProblem, document_problems, dotted, parse_json
from memstream.events.omissions import TIMED_WHEN_PUBLISHED, stamped
from memstream.events.vocabulary import CHANNEL_TYPES, Event
from memstream.policies.scope import valid_identifier, valid_tag

__all__ = [
    "CHANNEL_TYPES",
    "MAX_EVENTS_PER_PUBLISH",
    "TIMED_WHEN_PUBLISHED",
    "InvalidEvents",
    "accepted_event",
    "channel_events",
    "door_checked",
    "parse_body",
]

#: Most events one publish may carry.
MAX_EVENTS_PER_PUBLISH = 1000


def accepted_event(document: Any, now: datetime | None = None) -> Event:
    """The event a channel may publish for ``document`` (one JSON object).

    A message without ``occurred_at`` happened ``now`` (default: the clock's time; the
    one rule of :mod:`memstream.events.omissions`). A
    document without ``event_id`` gets one derived from its content and time, so a
    client that sends the same request again (after a timeout, a 503) stores it once,
    and two messages alike said at different times stay two. (A document with neither
    field sent twice is two events: :class:`memstream.MemoryClient` stamps the time
    before it sends, so its retries are the same event.)

    Raises:
        InvalidEvent: naming what is wrong.
    """
    problems = document_problems(document)  # first: the id below is made of its JSON
    if problems:
        raise InvalidEvent(problems)
    document = stamped(document, now or datetime.now(UTC))
    if isinstance(document, dict) and "event_id" not in document:
        canonical = json.dumps(document, sort_keys=True, ensure_ascii=False, default=str)
        digest = hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:32]
        document = {**document, "event_id": f"sha256:{digest}"}
    event = from_document(document)
    if event.type not in CHANNEL_TYPES:
        raise InvalidEvent([f"type: must be one of {', '.join(sorted(CHANNEL_TYPES))}"])
    too_large = size_problem(encode(event))
    if too_large is not None:
        raise InvalidEvent([too_large])
    return door_checked(event)


#: The identifier fields a channel's event may carry.
_IDENTIFIER_FIELDS = ("user_id", "project_id", "session_id", "channel", "memory_id")


def door_checked(event: Event) -> Event:
    """``event`` if its identifiers and tags keep the front doors' rule (ASCII: see
    :func:`memstream.policies.scope.valid_identifier`).

    Raises:
        InvalidEvent: naming each identifier or tag that does not.
    """
    problems = []
    for name in _IDENTIFIER_FIELDS:
        value = getattr(event, name, None)
        if value is not None:
            try:
                valid_identifier(name, value)
            except InvalidQuery as exc:
                problems.append(str(exc))
    for index, tag in enumerate(getattr(event, "tags", None) or ()):
        try:
            valid_tag(f"tags.{index}", tag)
        except InvalidQuery as exc:
            problems.append(str(exc))
    if problems:
        raise InvalidEvent(problems)
    return event


class InvalidEvents(OperationError):
    """Some events of a publish are invalid; nothing was published.

    Attributes:
        problems: per invalid event, its index and what is wrong with it.
    """

    def __init__(self, problems: list[dict[str, Any]]) -> None:
        lines = [f"event {p['index']}: {'; '.join(p['problems'])}" for p in problems]
        super().__init__(
            "; ".join(lines) if len(problems) > 1 else "; ".join(problems[0]["problems"])
        )
        self.problems = problems


def parse_body(raw: bytes) -> list[Any]:
    """The documents of a publish's body (one JSON object, or a list of them), read by
    the parser the worker reads the log with.

    Raises:
        InvalidEvents: the JSON holds what no event may (a lone surrogate, nesting deeper
            than any event may), named by event index and field.
        InvalidEvent: the body is not JSON at all.
    """
    try:
        body = parse_json(raw)
    except JsonProblem as exc:
        if not exc.path:
            raise InvalidEvent([exc.problem]) from None
        index, field = (exc.path[0], exc.path[1:]) if raw.lstrip()[:1] == b"[" else (0, exc.path)
        where = dotted(field) or "event"
        raise InvalidEvents([{"index": index, "problems": [f"{where}: {exc.problem}"]}]) from None
    return body if isinstance(body, list) else [body]


def channel_events(documents: Sequence[Any], now: datetime | None = None) -> list[Event]:
    """Every document validated as a channel event (a message without a time
    happened ``now``).

    Raises:
        InvalidEvent: for an empty or oversized batch.
        InvalidEvents: naming, per index, what is wrong (when any document is invalid).
    """
    if not documents or len(documents) > MAX_EVENTS_PER_PUBLISH:
        raise InvalidEvent([f"send 1 to {MAX_EVENTS_PER_PUBLISH} events per request"])
    events: list[Event] = []
    problems: list[dict[str, Any]] = []
    for index, document in enumerate(documents):
        try:
            events.append(accepted_event(document, now))
        except InvalidEvent as exc:
            problems.append({"index": index, "problems": exc.problems})
    if problems:
        raise InvalidEvents(problems)
    return events
