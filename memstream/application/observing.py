"""Looking at memory and at the stream, for the console: dead letters (one tenant's, or
all), an entity by id with the entities mentioned with it, a document with its chunks
and facts. Reads only; each in a thread. The health page's figures are
:mod:`memstream.application.health_figures`'s."""

from __future__ import annotations

import re
from typing import Any

from memstream.application.core import UseCase
from memstream.application.documents import document_view
from memstream.application.errors import NotFound
from memstream.policies.scope import valid_identifier
from memstream.projections.episodes import memory_id_for
from memstream.queries.document_parts import document_parts
from memstream.queries.entity_graph import co_mentioned, entity_of
from memstream.queries.profiles import entity_profile
from memstream.storage import filters
from memstream.storage.lance.tables import DEAD_LETTERS, DOCUMENTS, ENTITIES, MEMORIES
from memstream.tenancy.keys import owns

__all__ = ["Observing"]

#: Where a memory's event sat in the log (the memories table's position columns).
#: What a dead letter's id is made of (``{log_epoch}|{topic}|{partition}|{offset}``).
_DEAD_LETTER_ID = re.compile(r"[A-Za-z0-9_.:@+|-]{1,300}")
_LOG_COLUMNS = ("log_epoch", "log_topic", "log_partition", "log_offset")


class Observing(UseCase):
    """The console's reads (see the module docstring)."""

    async def entity_graph(self, user_id: str, entity_id: str) -> dict[str, Any]:
        """The profile of the user's entity ``entity_id`` and the entities mentioned with
        it (NotFound: no such entity of theirs)."""
        valid_identifier("user_id", user_id)

        def read() -> dict[str, Any] | None:
            entity = entity_of(self.store, user_id, entity_id)
            if entity is None:
                return None
            profile = entity_profile(self.store, user_id, entity["canonical_name"])
            if profile is None:
                return None
            return {"profile": profile, "neighbours": co_mentioned(self.store, user_id, entity)}

        found = await self._blocking(read)
        if found is None:
            raise NotFound(f"no entity {entity_id[:80]} for user {user_id}")
        return found

    async def entity_names(self, user_id: str, entity_ids: list[str]) -> list[tuple[str, str]]:
        """(id, name) of those of ``entity_ids`` the user has, in their order."""
        if not entity_ids:
            return []
        rows = await self._blocking(
            self.store.by_ids,
            ENTITIES,
            entity_ids,
            ["entity_id", "canonical_name"],
            filters.equals("user_id", user_id),
        )
        names = {r["entity_id"]: r["canonical_name"] for r in rows}
        return [(e, names[e]) for e in dict.fromkeys(entity_ids) if e in names]

    async def provenance(self, user_id: str, memory_id: str) -> list[dict[str, Any]]:
        """Where in the log a memory and the turns it came from sit: per row, its memory
        id, kind, event id (for a turn), topic, partition, offset and when it was
        ingested; the memory first."""

        def read() -> list[dict[str, Any]]:
            mine = filters.equals("user_id", user_id)
            columns = ["memory_id", "kind", "source_event_ids", "ingested_at", *_LOG_COLUMNS]
            rows = self.store.by_ids(MEMORIES, [memory_id], columns, mine)
            if not rows:
                return []
            events = list(rows[0]["source_event_ids"] or ())
            turns = {memory_id_for(user_id, e): e for e in events}
            found = self.store.by_ids(MEMORIES, [m for m in turns if m != memory_id], columns, mine)
            return [{**r, "event_id": turns.get(r["memory_id"])} for r in [*rows, *found]]

        found: list[dict[str, Any]] = await self._blocking(read)
        return found

    async def document_detail(self, user_id: str, document_id: str) -> dict[str, Any]:
        """A document's status, versions, chunks and facts (NotFound: no such document
        of the user's)."""
        valid_identifier("user_id", user_id)
        valid_identifier("document_id", document_id)

        def read() -> dict[str, Any] | None:
            where = filters.all_of(
                filters.equals("user_id", user_id), filters.equals("document_id", document_id)
            )
            rows = self.store.scan(DOCUMENTS, where=where).to_pylist()
            if not rows:
                return None
            row = rows[0]
            return {
                **document_view(row),
                "versions": list(row.get("versions") or ()),
                "parts": document_parts(self.store, row),
            }

        found = await self._blocking(read)
        if found is None:
            raise NotFound(f"no document {document_id} for user {user_id}")
        return found

    async def dead_letters(
        self, tenant: str | None = None, limit: int = 100
    ) -> list[dict[str, Any]]:
        """The newest dead letters (of ``tenant``'s users: those keyed by one; else all),
        without their bytes."""
        columns = ["dead_letter_id", "topic", "partition", "offset", "reason", "received_at", "key"]
        rows: list[dict[str, Any]] = await self._blocking(
            lambda: self.store.scan(DEAD_LETTERS, columns).to_pylist()
        )
        if tenant is not None:
            rows = [r for r in rows if _keyed_to(r, tenant)]
        rows.sort(key=lambda r: (r["received_at"] is not None, r["received_at"]), reverse=True)
        return rows[:limit]

    async def dead_letter(self, dead_letter_id: str, tenant: str | None = None) -> dict[str, Any]:
        """One dead letter with its bytes (NotFound: none such, or keyed to a user outside
        ``tenant``: the same answer, so a tenant learns nothing of another's)."""
        if not _DEAD_LETTER_ID.fullmatch(dead_letter_id):  # no dead letter is named so
            raise NotFound("no such dead letter")
        rows = await self._blocking(self.store.by_ids, DEAD_LETTERS, [dead_letter_id])
        if not rows or (tenant is not None and not _keyed_to(rows[0], tenant)):
            raise NotFound(f"no dead letter {dead_letter_id[:80]}")
        return rows[0]


def _keyed_to(row: dict[str, Any], tenant: str) -> bool:
    """Whether a dead letter's key names a user of ``tenant``."""
    key = row.get("key")
    try:
        user_id = key.decode("utf-8") if isinstance(key, bytes) else None
    except UnicodeDecodeError:
        return False
    return user_id is not None and owns(tenant, user_id)
