"""The three shapes of a user's export, as streams of bytes (no I/O here).

- ``events``: JSON lines. A header line (``{"memstream_export": 1, "format": "events",
  "user_id": ..., "exported_at": ...}``), then the user's events exactly as memstream
  encodes them, in the order a replay applies them; before the first event that submits
  a document version, an ``{"original": {...}}`` line with that version's bytes (base64),
  which the documents lane of the importing store reads. Importing these lines into an
  empty store rebuilds the same memory of the user.
- ``json``: the user's rows of every state table (vectors left out: the events export
  carries them) and of the log of what agents were shown (``served``), one JSON document.
- ``markdown``: a dossier to read: facts and what else the user stated, entities,
  documents and the conversations' timeline.
"""

from __future__ import annotations

import base64
import json
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from datetime import datetime
from typing import Any, Literal

import pydantic_core

from memstream.events.codec import encode
from memstream.events.vocabulary import DocumentSubmitted, Event

__all__ = [
    "EXPORT_FORMATS",
    "EXPORT_VERSION",
    "MEDIA_TYPES",
    "ExportFormat",
    "dossier",
    "event_lines",
    "export_header",
    "json_document",
]

ExportFormat = Literal["events", "markdown", "json"]
EXPORT_FORMATS: tuple[ExportFormat, ...] = ("events", "markdown", "json")
#: The version of the ``events`` shape (its header's ``memstream_export``).
EXPORT_VERSION = 1
#: What each format is served as.
MEDIA_TYPES: dict[ExportFormat, str] = {
    "events": "application/x-ndjson",
    "markdown": "text/markdown; charset=utf-8",
    "json": "application/json",
}
#: The kinds a dossier lists as what is known of the user, in this order.
_STATED = (
    ("fact", "Facts"),
    ("preference", "Preferences"),
    ("opinion", "Opinions"),
    ("procedure", "Procedures"),
    ("reflection", "Reflections"),
    ("summary", "Summaries"),
)


def export_header(user_id: str, export_format: ExportFormat, now: datetime) -> dict[str, Any]:
    return {
        "memstream_export": EXPORT_VERSION,
        "format": export_format,
        "user_id": user_id,
        "exported_at": now.isoformat().replace("+00:00", "Z"),
    }


def _line(document: Any) -> bytes:
    return pydantic_core.to_json(document) + b"\n"


def event_lines(
    header: Mapping[str, Any],
    events: Iterable[Event],
    original_of: Callable[[str], bytes | None],
) -> Iterator[bytes]:
    """The ``events`` export: the header, then each event (each document version's
    original before the first event submitting it, when ``original_of`` finds it)."""
    yield _line(header)
    given: set[str] = set()
    for event in events:
        if isinstance(event, DocumentSubmitted) and event.checksum not in given:
            given.add(event.checksum)
            data = original_of(event.checksum)
            if data is not None:
                yield _line(
                    {
                        "original": {
                            "checksum": event.checksum,
                            "media_type": event.media_type,
                            "data": base64.b64encode(data).decode("ascii"),
                        }
                    }
                )
        yield encode(event) + b"\n"


def json_document(
    header: Mapping[str, Any], tables: Iterable[tuple[str, Iterable[Mapping[str, Any]]]]
) -> Iterator[bytes]:
    """The ``json`` export: the header's fields and ``tables``, each a list of rows,
    written a row at a time."""
    head = pydantic_core.to_json(dict(header))
    yield head[:-1] + b',"tables":{'
    for index, (name, rows) in enumerate(tables):
        yield (b"," if index else b"") + json.dumps(name).encode() + b":["
        for number, row in enumerate(rows):
            yield (b",\n" if number else b"\n") + pydantic_core.to_json(row)
        yield b"]"
    yield b"}}\n"


def dossier(
    user_id: str,
    now: datetime,
    memories: Sequence[Mapping[str, Any]],
    entities: Sequence[Mapping[str, Any]],
    documents: Sequence[Mapping[str, Any]],
) -> Iterator[str]:
    """The ``markdown`` export, a section at a time. ``memories``: as the memory list
    gives them (current ones, archived ones marked), oldest first."""
    by_kind: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    for memory in memories:
        by_kind[str(memory["kind"])].append(memory)
    episodes = by_kind.get("episode", [])
    archived = sum(1 for m in memories if m.get("archived"))
    yield f"# What memstream holds of {user_id}\n\n"
    yield (
        f"Exported {_when(now)}: {len(memories):,} memories ({archived:,} of them archived), "
        f"{len(entities):,} entities, {len(documents):,} documents.\n"
    )
    for kind, title in _STATED:
        found = by_kind.get(kind)
        if found:
            yield f"\n## {title}\n\n"
            for memory in found:
                yield f"- {_one_line(memory['content'])} {_about(memory)}\n"
    if entities:
        yield "\n## Entities\n\n"
        for entity in sorted(entities, key=lambda e: (-int(e.get("mention_count") or 0), e["key"])):
            yield _entity_line(entity)
    if documents:
        yield "\n## Documents\n\n"
        for document in sorted(documents, key=lambda d: str(d["document_id"])):
            yield _document_line(document)
    if episodes:
        yield "\n## Timeline\n"
        yield from _timeline(episodes)


def _when(at: datetime | None) -> str:
    return at.strftime("%Y-%m-%d %H:%M UTC") if at is not None else "unknown time"


def _one_line(text: object) -> str:
    return " ".join(str(text).split())


def _about(memory: Mapping[str, Any]) -> str:
    parts = [_when(memory.get("occurred_at"))[:10]]
    if memory.get("confidence") is not None:
        parts.append(f"confidence {float(memory['confidence']):.2f}")
    if memory.get("archived"):
        parts.append("archived")
    parts.append(str(memory["memory_id"]))
    return f"_({', '.join(parts)})_"


def _entity_line(entity: Mapping[str, Any]) -> str:
    name = str(entity["canonical_name"])
    aliases = [a for a in entity.get("aliases") or () if str(a).casefold() != name.casefold()]
    also = f"; also {', '.join(aliases)}" if aliases else ""
    count = int(entity.get("mention_count") or 0)
    span = f"{_when(entity.get('first_seen'))[:10]} to {_when(entity.get('last_seen'))[:10]}"
    return (
        f"- **{entity['canonical_name']}** ({entity['type']}): mentioned {count:,} "
        f"time{'s' if count != 1 else ''}, {span}{also}\n"
    )


def _document_line(document: Mapping[str, Any]) -> str:
    count = int(document.get("pages") or 0)
    pages = f", {count} page{'s' if count != 1 else ''}" if count else ""
    chunks = f", {document['chunks'] or 0} chunks" if document.get("total") is not None else ""
    return (
        f"- **{document['title']}** (`{document['document_id']}`, {document['media_type']}"
        f"{pages}{chunks}): {document['status']}, {_when(document.get('updated_at'))}\n"
    )


def _timeline(episodes: Sequence[Mapping[str, Any]]) -> Iterator[str]:
    session: object = object()
    for memory in episodes:
        if memory.get("session_id") != session:
            session = memory.get("session_id")
            yield f"\n### {_when(memory.get('occurred_at'))[:10]}: session {session}\n\n"
        at = memory.get("occurred_at")
        clock = at.strftime("%H:%M") if isinstance(at, datetime) else "--:--"
        who = memory.get("speaker") or memory.get("role") or "?"
        archived = " _(archived)_" if memory.get("archived") else ""
        yield f"- {clock} **{who}**: {_one_line(memory['content'])}{archived}\n"
