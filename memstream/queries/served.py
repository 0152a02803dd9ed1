"""Served answers as ids and shapes, and rendered again from them.

A context block or a search answer is recorded (``ContextServed``) as its lines: each
memory's id, its section and score, and how its text was made of the memory (the
readable text of a stored item, the window of a long turn, after the speaker's name),
never the text itself; an entity profile's line as its names' hashes, its counts and
the ids of the facts it stated. :func:`rebuild` renders the answer again from those
lines and the memories' rows, byte for byte what the caller was given, and its
SHA-256 is the recorded ``digest``.

A memory's content, speaker and time never change once written (a correction is a
new memory), so the rows may come from memory as it stood when the answer was read or
from any later moment that still holds them: an entity's counts and names, which do
change, are in the record.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from memstream.events.vocabulary import ServedLine
from memstream.projections.archiving import archive_id, summary_of
from memstream.queries.context.assembly import (
    Assembly,
    ContextLine,
    Profile,
    Section,
    SectionName,
    profile_text,
    render_sections,
    said_by,
)
from memstream.queries.search.request import SearchResult
from memstream.storage import filters
from memstream.storage.lance.store import ProjectionStore
from memstream.storage.lance.tables import ARCHIVE_INDEX, ENTITIES, MEMORIES
from memstream.text.passages import marked_cut
from memstream.text.stored_items import readable

__all__ = [
    "Rebuilt",
    "ServedRows",
    "answer_digest",
    "block_lines",
    "name_hash",
    "rebuild",
    "result_lines",
    "search_text",
    "served_rows",
]


def name_hash(name: str) -> str:
    """A name as a served line records it: the first 16 hex digits of its SHA-256."""
    return hashlib.sha256(name.encode("utf-8")).hexdigest()[:16]


def answer_digest(text: str | None) -> str:
    """The SHA-256 (hex) of an answer's text (of nothing, for an empty block)."""
    return hashlib.sha256((text or "").encode("utf-8")).hexdigest()


def search_text(contents: Iterable[tuple[str, str]]) -> str:
    """A search answer's memories as its digest covers them: ``id<TAB>content`` each."""
    return "\n".join(f"{memory_id}\t{content}" for memory_id, content in contents)


def result_lines(results: Sequence[SearchResult]) -> list[ServedLine]:
    """A search answer's results as served lines."""
    return [
        ServedLine(
            memory_id=r.memory_id,
            section="results",
            score=r.score,
            kind=r.kind,
            archived=r.archived,
        )
        for r in results
    ]


def block_lines(assembly: Assembly) -> list[ServedLine]:
    """A context block's lines, section by section in order, as served lines."""
    return [_served(section.name, line) for section in assembly.sections for line in section.lines]


def _served(section: SectionName, line: ContextLine) -> ServedLine:
    shape = line.profile
    if shape is None:
        return ServedLine(
            memory_id=line.memory_id,
            section=section,
            score=line.score,
            kind=line.kind,
            archived=line.archived,
            readable=line.readable,
            cut=line.cut,
            speaker=line.speaker,
        )
    return ServedLine(
        memory_id=line.memory_id,
        section=section,
        score=line.score,
        kind=line.kind,
        names=[name_hash(n) for n in (shape.name, *shape.aliases)],
        entity_type=shape.type,
        mentions=shape.mentions,
        first_seen=shape.first_seen,
        last_seen=shape.last_seen,
        facts=[memory_id for memory_id, _ in shape.facts],
    )


@dataclass(frozen=True)
class ServedRows:
    """The rows a served answer's lines quote, by memory id (entities by entity id):
    hot memories (``memories`` rows), archived ones (``archive_index`` rows), entities."""

    memories: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    archived: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    entities: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)


@dataclass(frozen=True)
class Rebuilt:
    """A served answer rendered again: its text (None for an empty block), its digest,
    and the ids of the lines no row was found for (then the text cannot match)."""

    text: str | None
    digest: str
    missing: tuple[str, ...] = ()


def rebuild(answer: str, lines: Sequence[ServedLine], rows: ServedRows) -> Rebuilt:
    """The ``answer`` (``context`` or ``search``) ``lines`` make of ``rows``."""
    missing: list[str] = []
    if answer == "search":
        contents = []
        for line in lines:
            content = _content(line, rows)
            if content is None:
                missing.append(line.memory_id)
            else:
                contents.append((line.memory_id, content))
        text: str | None = search_text(contents)
        return Rebuilt(text, answer_digest(text), tuple(missing))
    sections: dict[SectionName, list[ContextLine]] = {}
    for line in lines:
        if line.section == "results":
            continue
        made = _context_line(line, rows)
        if made is None:
            missing.append(line.memory_id)
        else:
            sections.setdefault(line.section, []).append(made)
    text = render_sections([Section(name, found) for name, found in sections.items()])
    return Rebuilt(text, answer_digest(text), tuple(missing))


def _content(line: ServedLine, rows: ServedRows) -> str | None:
    """A memory's content as a search answer gives it: an archived one's summary."""
    if line.archived:
        row = rows.archived.get(line.memory_id)
        return None if row is None else summary_of(row)
    found = rows.memories.get(line.memory_id)
    return None if found is None else str(found["content"])


def _context_line(line: ServedLine, rows: ServedRows) -> ContextLine | None:
    if line.names:
        return _profile_line(line, rows)
    content = _content(line, rows)
    if content is None:
        return None
    row = (rows.archived if line.archived else rows.memories)[line.memory_id]
    if line.readable:
        text = readable(content)
    elif line.cut is not None:
        text = marked_cut(content, *line.cut)
    else:
        text = content
    if line.speaker:
        text = f"{said_by(row['speaker'], row.get('role'))}: {text}"
    return ContextLine(line.memory_id, text, row["occurred_at"], line.kind, line.archived)


def _profile_line(line: ServedLine, rows: ServedRows) -> ContextLine | None:
    entity = rows.entities.get(line.memory_id)
    facts = [rows.memories.get(memory_id) for memory_id in line.facts]
    if entity is None or line.mentions is None or line.first_seen is None:
        return None
    if line.last_seen is None or any(fact is None for fact in facts):
        return None
    known = {name_hash(n): n for n in (*(entity["aliases"] or ()), entity["canonical_name"])}
    names = [known.get(hashed) for hashed in line.names]
    if any(name is None for name in names):
        return None  # a name the entity no longer has: it cannot say what it said
    shape = Profile(
        str(names[0]),
        tuple(str(n) for n in names[1:]),
        str(line.entity_type),
        line.mentions,
        line.first_seen,
        line.last_seen,
        tuple((str(f["memory_id"]), readable(str(f["content"]))) for f in facts if f),
    )
    return ContextLine(line.memory_id, profile_text(shape), line.last_seen, line.kind)


def served_rows(store: ProjectionStore, user_id: str, lines: Sequence[ServedLine]) -> ServedRows:
    """The rows of ``store`` that ``lines`` of ``user_id``'s answer quote (a few reads)."""
    hot = {line.memory_id for line in lines if not line.names and not line.archived}
    hot.update(fact for line in lines for fact in line.facts)
    cold = sorted({line.memory_id for line in lines if line.archived})
    entities = sorted({line.memory_id for line in lines if line.names})
    mine = filters.equals("user_id", user_id)  # of any project: the answer's lines were
    memories = store.by_ids(MEMORIES, sorted(hot), where=mine)
    archived = store.by_ids(ARCHIVE_INDEX, [archive_id(user_id, i) for i in cold], where=mine)
    named = store.by_ids(ENTITIES, entities, where=mine)
    return ServedRows(
        {r["memory_id"]: r for r in memories},
        {r["memory_id"]: r for r in archived},
        {r["entity_id"]: r for r in named},
    )
