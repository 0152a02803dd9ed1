"""A document's parts as the console shows them: the current version's chunks (with the
page and sections each comes from) and the facts read from it, each with the chunk it
cites."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from memstream.projections.documents import chunk_memory_id
from memstream.storage.lance.store import ProjectionStore
from memstream.storage.lance.tables import MEMORIES

__all__ = ["document_parts"]

_A_READ = 500


def document_parts(
    store: ProjectionStore, row: Mapping[str, Any], limit: int = 200
) -> dict[str, list[dict[str, Any]]]:
    """The chunks (at most ``limit``, in order) and facts of a ``documents`` row."""
    submission = row.get("submitted_event_id")
    total = row.get("total") or row.get("chunks") or 0
    chunk_ids = (
        [chunk_memory_id(row["user_id"], row["document_id"], submission, i) for i in range(total)]
        if submission
        else []
    )[:limit]
    chunks = _read(store, chunk_ids, ["memory_id", "content", "metadata"])
    order = {m: i for i, m in enumerate(chunk_ids)}
    shown = []
    for chunk in sorted(chunks, key=lambda c: order[c["memory_id"]]):
        source = json.loads(chunk["metadata"]) if chunk["metadata"] else {}
        shown.append(
            {
                "memory_id": chunk["memory_id"],
                "index": order[chunk["memory_id"]],
                "content": chunk["content"],
                "page": source.get("page"),
                "last_page": source.get("last_page"),
                "headings": source.get("headings") or [],
                "citation": source.get("citation"),
            }
        )
    index = {c["memory_id"]: c for c in shown}
    facts = _read(
        store,
        list(row.get("fact_ids") or ())[:limit],
        ["memory_id", "content", "source_memory_ids"],
    )
    return {
        "chunks": shown,
        "facts": [
            {
                "memory_id": f["memory_id"],
                "content": f["content"],
                "cites": next((index[m] for m in f["source_memory_ids"] or () if m in index), None),
            }
            for f in facts
        ],
    }


def _read(store: ProjectionStore, ids: list[str], columns: list[str]) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    for start in range(0, len(ids), _A_READ):
        found += store.by_ids(MEMORIES, ids[start : start + _A_READ], columns)
    return found
