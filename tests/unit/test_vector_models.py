"""A store holds the vectors of one model, on real LanceDB tables and a real cold store:
vectors of another model in the log are left out, and an archived memory whose index row
holds another model's vector takes the store model's vector of it, whether the log
delivers that vector before the archiving (a replay, topic after topic) or after it (a
re-embedding of a store with archived memories), with the same rows either way."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from memstream.application import state_digest
from memstream.events.codec import encode
from memstream.events.vocabulary import EmbeddingComputed, Event
from memstream.jobs.archiver import Archiver
from memstream.policies.coldness import ColdPolicy
from memstream.projections.archiving import is_archived
from memstream.projections.compact_vectors import unpack_int4
from memstream.projections.vectors import decode_vector, embedding_events
from memstream.storage.archive.cold_store import ColdStore
from memstream.storage.filesystems import Location
from memstream.storage.lance.store import ProjectionStore
from memstream.storage.lance.tables import ARCHIVE_INDEX, MEMORIES, VECTORS
from memstream.storage.log_records import LogRecord
from memstream.storage.schemas import COLD_ORIGINAL_SCHEMA
from memstream.streams.projector import Projector
from memstream.testing import FakeClock, message

NOW = datetime(2026, 6, 1, tzinfo=UTC)
OLD = NOW - timedelta(days=730)
TEXTS = [
    "We planned the Lisbon trip with Maria for 12 May 2024, flights cost 420 euros.",
    "The piano lessons with Jonas start on Tuesday at 5 pm.",
    "Maria called about Lisbon today.",
]


def _records(topic: str, events: list[Any], start: int) -> list[LogRecord]:
    return [
        LogRecord("e1", topic, 0, start + i, NOW, e.user_id.encode(), encode(e))
        for i, e in enumerate(events)
    ]


def _vectors(store: ProjectionStore, model: str, seed: int) -> list[EmbeddingComputed]:
    rows = store.scan(MEMORIES).to_pylist()
    keys = [
        (r["memory_id"], r["user_id"], r["project_id"], r["kind"], r["occurred_at"]) for r in rows
    ]
    vectors = np.random.default_rng(seed).standard_normal((len(keys), 384)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    return embedding_events(keys, vectors, model, "1", NOW)


class Log:
    """The topics of a small log, written by a worker whose store used model ``old``."""

    def __init__(self, tmp_path: Path, cold: ColdStore) -> None:
        store = ProjectionStore(str(tmp_path / "written"))
        projector = Projector(store, "memstream", FakeClock(NOW), cold_store=cold)
        said = [
            message(
                event_id=f"m-{i}",
                user_id="ana",
                content=text,
                occurred_at=(OLD if i < 2 else NOW) + timedelta(hours=i),
            )
            for i, text in enumerate(TEXTS)
        ]
        projector.apply(_records("memory.messages", said, 0))
        self.messages: list[Event] = list(said)
        self.old_vectors = _vectors(store, "old", seed=1)
        projector.apply(_records("memory.embeddings", self.old_vectors, 0))
        store.refresh()
        self.archived = Archiver(store, cold, ColdPolicy(), None).archive(NOW)
        assert len(self.archived) == 2
        projector.apply(_records("memory.lifecycle", self.archived, 0))
        store.refresh()
        self.new_vectors = _vectors(store, "new", seed=2)  # the hot memory's
        # and the archived ones' (a re-embedding makes them from their summaries)
        archived_keys = [
            (e.memory_id, e.user_id, e.project_id, e.kind, e.occurred_at) for e in self.archived
        ]
        made = np.random.default_rng(3).standard_normal((2, 384)).astype(np.float32)
        made /= np.linalg.norm(made, axis=1, keepdims=True)
        self.new_vectors += embedding_events(archived_keys, made, "new", "1", NOW)


@pytest.fixture
def log(tmp_path: Path, cold_location: Location) -> Log:
    return Log(tmp_path, ColdStore(cold_location, COLD_ORIGINAL_SCHEMA))


def _store(
    tmp_path: Path, name: str, cold: ColdStore, model: str | None
) -> tuple[ProjectionStore, Projector]:
    store = ProjectionStore(str(tmp_path / name))
    return store, Projector(store, "memstream", FakeClock(NOW), cold_store=cold, vector_model=model)


def _applied(log: Log, tmp_path: Path, cold: ColdStore, vectors_first: bool) -> ProjectionStore:
    """A store of model ``new`` that applied the messages, then both models' vectors and
    the archiving, in one order or the other."""
    store, projector = _store(tmp_path, f"vectors-first-{vectors_first}", cold, "new")
    projector.apply(_records("memory.messages", log.messages, 0))
    embeddings = _records("memory.embeddings", [*log.old_vectors, *log.new_vectors], 0)
    lifecycle = _records("memory.lifecycle", log.archived, 0)
    for batch in (embeddings, lifecycle) if vectors_first else (lifecycle, embeddings):
        projector.apply(batch)
    projector.flush()
    store.refresh()
    return store


def test_vectors_of_another_model_are_left_out(
    log: Log, tmp_path: Path, cold_location: Location
) -> None:
    cold = ColdStore(cold_location, COLD_ORIGINAL_SCHEMA)
    store, projector = _store(tmp_path, "new-only", cold, "new")
    projector.apply(_records("memory.messages", log.messages, 0))
    both = [*log.old_vectors, *log.new_vectors[:1]]  # old of every memory, new of one
    projector.apply(_records("memory.embeddings", both, 0))
    store.refresh()
    kept = store.scan(VECTORS).to_pylist()
    assert [(r["memory_id"], r["model"]) for r in kept] == [(log.new_vectors[0].memory_id, "new")]
    # without a model, the first vector of each memory, as before
    store, projector = _store(tmp_path, "any", cold, None)
    projector.apply(_records("memory.embeddings", both, 0))
    store.refresh()
    assert {r["model"] for r in store.scan(VECTORS).to_pylist()} == {"old"}


@pytest.mark.parametrize("vectors_first", [True, False], ids=["replay-order", "reembed-order"])
def test_archived_memories_take_the_store_models_vector_in_either_order(
    log: Log, tmp_path: Path, cold_location: Location, vectors_first: bool
) -> None:
    store = _applied(log, tmp_path, ColdStore(cold_location, COLD_ORIGINAL_SCHEMA), vectors_first)
    archived = {r["memory_id"]: r for r in store.scan(ARCHIVE_INDEX).to_pylist() if is_archived(r)}
    assert set(archived) == {e.memory_id for e in log.archived}
    new_by_memory = {e.memory_id: e for e in log.new_vectors}
    for memory_id, row in archived.items():
        assert row["vector_model"] == "new"
        got = unpack_int4([row["vector"]], [row["vector_scale"]], 384)[0]
        want = decode_vector(new_by_memory[memory_id].vector)
        assert float(np.dot(got, want) / np.linalg.norm(got)) > 0.95  # 4-bit of the same
    hot_vectors = store.scan(VECTORS).to_pylist()
    assert [r["memory_id"] for r in hot_vectors] == [log.new_vectors[0].memory_id]
    assert {r["model"] for r in hot_vectors} == {"new"}


def test_both_orders_give_the_same_state(log: Log, tmp_path: Path, cold_location: Location) -> None:
    cold = ColdStore(cold_location, COLD_ORIGINAL_SCHEMA)
    digests = {state_digest(_applied(log, tmp_path, cold, first)) for first in (True, False)}
    assert len(digests) == 1
