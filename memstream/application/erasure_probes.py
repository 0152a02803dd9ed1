"""Probing every read path for a user after their erasure (see
:mod:`memstream.application.erasure_receipts`).

Before the erasure, :func:`sample_of` takes what the probes will ask for: the ids of a
few of the user's memories, the longest words they said, and the names of their
entities. It is kept in memory only, for the length of the erasure. After it,
:func:`probe_reads` asks each read path with the user's id and that sample, through the
same operations the front doors call, and counts what comes back.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from memstream.application.core import in_thread
from memstream.application.erasure_receipts import Probe
from memstream.application.errors import NotFound
from memstream.application.transfer import export_stream
from memstream.queries.memory_list import ListRequest
from memstream.queries.search.request import SearchRequest
from memstream.storage import filters
from memstream.storage.lance.tables import ENTITIES, MEMORIES, USER_TABLES
from memstream.streams.sealing import record_keys_of
from memstream.streams.user_history import user_events

if TYPE_CHECKING:
    from memstream.application.reading import MemoryReads

__all__ = ["ErasureSample", "probe_reads", "sample_of"]

#: How many memories, words and entity names a sample holds at most.
_MEMORIES = 8
_WORDS = 6
_NAMES = 3
_WORD = re.compile(r"[^\W\d_]{4,}")


@dataclass(frozen=True)
class ErasureSample:
    """What the probes ask for: some of the user's memory ids, words and entity names."""

    memory_ids: tuple[str, ...]
    words: tuple[str, ...]
    names: tuple[str, ...]


def sample_of(reads: MemoryReads, user_id: str) -> ErasureSample:
    """A sample of what ``user_id`` holds now (empty when nothing: no projections)."""
    try:
        store = reads.store
    except NotFound:
        return ErasureSample((), (), ())
    store.refresh()
    mine = filters.equals("user_id", user_id)
    rows = store.scan(MEMORIES, ["memory_id", "content"], mine, _MEMORIES).to_pylist()
    said = {w for r in rows for w in _WORD.findall(r["content"] or "")}
    words = sorted(said, key=lambda w: (-len(w), w))[:_WORDS]
    names = store.scan(ENTITIES, ["canonical_name"], mine, _NAMES).to_pylist()
    return ErasureSample(
        tuple(r["memory_id"] for r in rows),
        tuple(words),
        tuple(n["canonical_name"] for n in names if n["canonical_name"]),
    )


async def probe_reads(reads: MemoryReads, user_id: str, sample: ErasureSample) -> list[Probe]:
    """Every read path asked for ``user_id`` and ``sample``: what each found."""
    probes = [
        Probe(f"rows of the user in {table}", 1, await _rows(reads, table, user_id))
        for table in USER_TABLES
    ]
    words = sample.words or (user_id,)
    found = 0
    for word in words:
        request = SearchRequest(
            user_id=user_id, query=word, k=50, include_archived=True, include_history=True
        )
        found += len((await reads.search(request)).results)
    probes.append(Probe("search, hot and archived, history included", len(words), found))
    found = 0
    for word in words:
        block = await reads.context(user_id, word, cutoff=False)
        found += block.context is not None
    probes.append(Probe("context block", len(words), found))
    page = await reads.list_memories(ListRequest(user_id=user_id, include_hidden=True))
    probes.append(Probe("memory list, hidden included", 1, len(page.memories)))
    for read, by_id in (
        ("memory", reads.memory),
        ("history", reads.history),
        ("explain", reads.explain),
    ):
        found = sum([await _answers(by_id, user_id, m) for m in sample.memory_ids])
        probes.append(Probe(f"{read} by id", len(sample.memory_ids), found))
    found = sum([await _answers(reads.entity, user_id, n) for n in sample.names])
    probes.append(Probe("entity by name", len(sample.names), found))
    probes.append(Probe("export", 1, await in_thread(_exported, reads, user_id)))
    shown = len(await reads.served(user_id)) + sum(
        [len(await reads.served(user_id, m)) for m in sample.memory_ids]
    )
    probes.append(Probe("what agents were shown, and where each memory was used",
                        1 + len(sample.memory_ids), shown))  # fmt: skip
    listed = [u for u in await reads.users() if u.get("user_id") == user_id]
    probes.append(Probe("users the console lists", 1, len(listed)))
    probes.append(Probe("event archive, opened", 1, await in_thread(_archived, reads, user_id)))
    return probes


async def _rows(reads: MemoryReads, table: str, user_id: str) -> int:
    def count() -> int:
        reads.store.refresh([table])
        return reads.store.count(table, filters.equals("user_id", user_id))

    return await in_thread(count)


async def _answers(read: Callable[[str, str], Awaitable[Any]], user_id: str, name: str) -> int:
    """1 when ``read`` answers for ``name`` of ``user_id``, 0 when it finds nothing."""
    try:
        await read(user_id, name)
    except NotFound:
        return 0
    return 1


def _exported(reads: MemoryReads, user_id: str) -> int:
    """How many memories the user's export holds."""
    written = [0]

    def counted(n: int) -> None:  # told the running count
        written[0] = max(written[0], n)

    for _ in export_stream(reads.settings, reads.store, user_id, "json", reads.clock(), counted):
        pass
    return written[0]


def _archived(reads: MemoryReads, user_id: str) -> int:
    """How many of the user's events the event archive still opens."""
    keys = record_keys_of(reads.settings)
    return sum(1 for _ in user_events(reads.settings.data_location, keys, user_id))
