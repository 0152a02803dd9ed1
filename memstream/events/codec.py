"""The one mapper between events and bytes (Kafka values, archive rows, JSON bodies).

Nothing else serializes events. Decoding upcasts documents written by older code to
the current schema version before validation, so replaying last month's log still
works: to bump an event's schema, raise its ``schema_version`` literal and register an
``upcast_<type>_vN_vN+1`` function in :data:`UPCASTERS`. :class:`EventCodec` holds the
models and upcasters; the module's functions use the one built from today's events.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ValidationError

from memstream.events import vocabulary as ev
from memstream.events.errors import InvalidEvent
from memstream.events.json_text import JsonProblem, document_problems, parse_json
from memstream.events.problems import problems_of
from memstream.events.vocabulary import CHANNEL_TYPES, Event

__all__ = [
    "MAX_EVENT_BYTES",
    "UPCASTERS",
    "EventCodec",
    "decode",
    "encode",
    "from_document",
    "size_problem",
]

Document = dict[str, Any]
Upcaster = Callable[[Document], Document]

_EVENT_MODELS: tuple[type[BaseModel], ...] = (
    ev.MessageEvent,
    ev.SessionEnded,
    ev.EmbeddingComputed,
    ev.MemoryAccessed,
    ev.ContextServed,
    ev.SessionClosed,
    ev.FactsConsolidated,
    ev.ReflectionWritten,
    ev.ConfidenceDecayed,
    ev.MemoryPruned,
    ev.RememberFact,
    ev.CorrectFact,
    ev.ConfirmFact,
    ev.MemoryArchived,
    ev.MemoryRestored,
    ev.MemoryExpanded,
    ev.ForgetMemory,
    ev.UserErased,
    ev.DocumentSubmitted,
    ev.DocumentChunked,
    ev.DocumentFailed,
    ev.DocumentRemoved,
)
#: (type, from_version) -> function returning the document at from_version + 1.
UPCASTERS: dict[tuple[str, int], Upcaster] = {}


#: The most bytes one channel event may take in the log (Kafka's default record limit
#: is 1 MB), as :func:`encode` writes it: the doors refuse a larger one and the worker
#: dead-letters one a producer wrote to the log itself.
MAX_EVENT_BYTES = 900_000
#: More than what encoding adds to a document's own bytes (the defaults it fills in):
#: bytes this far under the limit need not be encoded again to be measured.
_ENCODING_SLACK = 4096


def size_problem(raw: bytes) -> str | None:
    """Why ``raw`` is too large to be an event, or None."""
    if len(raw) <= MAX_EVENT_BYTES:
        return None
    return f"event: {len(raw):,} bytes, more than the {MAX_EVENT_BYTES:,} an event may take"


def encode(event: Event) -> bytes:
    """Serialize ``event`` to compact UTF-8 JSON."""
    return event.model_dump_json().encode("utf-8")


class EventCodec:
    """Events from bytes and documents, for a set of event models and the upcasters that
    bring older versions of their documents up to date.

    Args:
        models: one pydantic model per event type (``type`` and ``schema_version``
            literals say which type and which version it reads).
        upcasters: (type, version) -> the document at version + 1.
    """

    def __init__(
        self, models: Sequence[type[BaseModel]], upcasters: Mapping[tuple[str, int], Upcaster]
    ) -> None:
        self._models = {m.model_fields["type"].default: m for m in models}
        self._current = {
            m.model_fields["type"].default: m.model_fields["schema_version"].default for m in models
        }
        self._upcasters = upcasters

    def decode(self, raw: bytes) -> Event:
        """Parse and validate bytes from the log.

        A channel's event is held to every rule a front door keeps (its identifiers,
        its JSON, its size), so what a producer writes to the log itself is refused
        exactly when a door would have refused it.

        Raises:
            InvalidEvent: the bytes are not UTF-8 JSON, or the document is not a valid event.
        """
        try:
            document = parse_json(raw)
        except JsonProblem as exc:
            raise InvalidEvent([str(exc) if exc.path else exc.problem]) from None
        if isinstance(document, dict) and not document.get("event_id"):
            # A producer that left out the idempotency key still gets a deterministic one,
            # so replaying the same bytes yields the same memory.
            document["event_id"] = "sha256:" + hashlib.sha256(raw).hexdigest()[:32]
        event = self.from_document(document)
        if len(raw) + _ENCODING_SLACK > MAX_EVENT_BYTES and event.type in CHANNEL_TYPES:
            too_large = size_problem(encode(event))
            if too_large is not None:
                raise InvalidEvent([too_large])
        return event

    def from_document(self, document: Any) -> Event:
        """Validate a decoded JSON document (a dict) as an event, upcasting old versions.

        A document without ``type`` is taken to be a message, the common case for channels.

        Raises:
            InvalidEvent: naming each field that is missing or wrong.
        """
        if not isinstance(document, dict):
            raise InvalidEvent([f"an event must be a JSON object, got {type(document).__name__}"])
        problems = document_problems(document)
        if problems:
            raise InvalidEvent(problems)
        document = dict(document)
        event_type = document.setdefault("type", "message")
        model = self._models.get(event_type) if isinstance(event_type, str) else None
        if model is None:
            known = ", ".join(sorted(self._models))
            raise InvalidEvent([f"type: unknown event type {event_type!r} (known: {known})"])
        document = self._upcast(event_type, document)
        try:
            event = model.model_validate(document)
        except ValidationError as exc:
            raise InvalidEvent(problems_of(exc)) from None
        except ValueError as exc:  # a check across fields (model_post_init)
            raise InvalidEvent([str(exc)]) from None
        return event  # type: ignore[return-value]  # every model is an Event

    def _upcast(self, event_type: str, document: Document) -> Document:
        current = self._current[event_type]
        version = document.setdefault("schema_version", current)
        if not isinstance(version, int) or isinstance(version, bool):
            raise InvalidEvent([f"schema_version: must be an integer, got {version!r}"])
        if version > current:
            raise InvalidEvent(
                [f"schema_version: {version} is newer than this memstream understands ({current})"]
            )
        while version < current:
            step = self._upcasters.get((event_type, version))
            if step is None:
                raise InvalidEvent([f"schema_version: no upcaster from version {version}"])
            document = step(document)
            version += 1
            document["schema_version"] = version
        return document


_CODEC = EventCodec(_EVENT_MODELS, UPCASTERS)


def decode(raw: bytes) -> Event:
    """Parse and validate bytes from the log (see :meth:`EventCodec.decode`)."""
    return _CODEC.decode(raw)


def from_document(document: Any) -> Event:
    """Validate a JSON document as an event (see :meth:`EventCodec.from_document`)."""
    return _CODEC.from_document(document)
