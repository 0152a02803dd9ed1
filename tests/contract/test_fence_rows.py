"""Fence rows on real LanceDB tables: a partition's writer's keyed writes go through the
key's index and update its fence row, and no read sees a fence row."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memstream.storage.lance.fence_rows import FENCE_USER, fence_key, fence_rows
from memstream.storage.lance.store import ProjectionStore
from memstream.storage.lance.tables import (
    ENTITIES,
    FENCED_TABLES,
    KEYS,
    MEMORIES,
    SERVED,
    UPDATE_GUARDS,
    VECTORS,
)
from tests.support.rows import entity_row, memory_row


def _held(store: ProjectionStore, name: str) -> list[str]:
    """Every key the table's files hold, fence rows included."""
    return sorted(store.table(name).to_arrow().column(KEYS[name]).to_pylist())


@pytest.fixture
def store(tmp_path: Path) -> ProjectionStore:
    return ProjectionStore(str(tmp_path / "db"))


def test_every_table_of_users_rows_can_hold_a_fence_row(store: ProjectionStore) -> None:
    """A fence row fits each fenced table's schema (its non-null columns get a value)."""
    for name in sorted(FENCED_TABLES):
        rows = fence_rows(store.schema(name), KEYS[name], ["3"])
        assert rows.column(KEYS[name]).to_pylist() == [fence_key("3")]
        assert rows.column("user_id").to_pylist() == [FENCE_USER]


def test_a_fenced_write_counts_only_its_own_rows_and_keeps_one_fence_row(
    store: ProjectionStore,
) -> None:
    inserted = store.insert_absent(MEMORIES, [memory_row("a"), memory_row("b")], fences={"0", "1"})
    again = store.insert_absent(MEMORIES, [memory_row("a"), memory_row("c")], fences={"0"})
    written = store.upsert(ENTITIES, [entity_row("e1", 1), entity_row("e2", 1)], fences={"0"})
    replaced = store.upsert(ENTITIES, [entity_row("e1", 2)], guarded=True, fences={"0"})
    assert (inserted, again, written, replaced) == (2, 1, 2, 1)
    assert _held(store, MEMORIES) == sorted(["a", "b", "c", fence_key("0"), fence_key("1")])
    assert _held(store, ENTITIES) == sorted(["e1", "e2", fence_key("0")])
    assert store.rows_by_key(ENTITIES, ["e1"])["e1"]["mention_count"] == 2
    assert ENTITIES in UPDATE_GUARDS  # the guard's condition did not keep the fence row


def test_a_fence_row_is_updated_by_every_write_of_its_partition(store: ProjectionStore) -> None:
    """What makes two writers of one partition conflict: each commit deletes the row."""

    def fence_address() -> list[int]:
        found = store.table(MEMORIES).search().where(f"memory_id = '{fence_key('0')}'")
        return found.select(["memory_id", "_rowaddr"]).to_arrow().column("_rowaddr").to_pylist()

    store.insert_absent(MEMORIES, [memory_row("a")], fences={"0"})
    before, version = fence_address(), store.table(MEMORIES).version
    store.insert_absent(MEMORIES, [memory_row("b")], fences={"0"})
    after = fence_address()
    assert len(before) == len(after) == 1 and before != after  # deleted, written anew
    assert store.table(MEMORIES).version == version + 1  # in the write's own commit


def test_no_scan_or_count_sees_a_fence_row(store: ProjectionStore) -> None:
    store.insert_absent(MEMORIES, [memory_row("a"), memory_row("b", "v")], fences={"0", "1"})
    vector = {"memory_id": "a", "user_id": "u", "model": "m", "vector": [0.1] * 384}
    assert store.vector_dimension == 384
    store.insert_absent(VECTORS, [vector], fences={"0"})
    assert store.count(MEMORIES) == 2
    assert store.count(VECTORS) == 1
    assert store.count(MEMORIES, "kind = 'episode'") == 2
    assert store.count(MEMORIES, "memory_id <> 'z'") == 2  # a fence row passes: left out
    assert store.count(MEMORIES, "user_id = 'u'") == 1
    assert sorted(store.scan(MEMORIES, ["memory_id"]).column(0).to_pylist()) == ["a", "b"]
    assert store.scan(MEMORIES, ["memory_id"]).column_names == ["memory_id"]
    assert len(store.scan(MEMORIES).to_pylist()) == 2
    assert store.scan(MEMORIES, ["memory_id"], limit=10).num_rows == 2
    assert sorted(store.scan(MEMORIES, ["user_id"]).column(0).to_pylist()) == ["u", "v"]
    assert [r["memory_id"] for r in store.scan(MEMORIES, where="user_id = 'u'").to_pylist()] == [
        "a"
    ]


def test_pruning_what_was_served_keeps_the_fence_rows(store: ProjectionStore) -> None:
    served = {
        "served_id": "s1", "user_id": "u", "served_at": datetime(2026, 1, 1, tzinfo=UTC),
        "answer": "context", "door": "http", "question": "q", "memory_ids": ["a"],
        "lines": "[]", "digest": "d",
    }  # fmt: skip
    store.insert_absent(SERVED, [served], fences={"0"})
    store.upkeep.prune_served(datetime(2026, 6, 1, tzinfo=UTC))  # the fence row is "served" in 1970
    assert store.count(SERVED) == 0
    assert _held(store, SERVED) == [fence_key("0")]


_KEYS = st.sampled_from([f"m{i}" for i in range(6)])
_WRITES = st.lists(
    st.tuples(
        st.sampled_from(["insert", "upsert"]),
        st.lists(st.tuples(_KEYS, st.integers(0, 9)), min_size=1, max_size=4),
        st.frozensets(st.sampled_from(["0", "1", "2"]), max_size=2),
    ),
    min_size=1,
    max_size=6,
)


@settings(max_examples=25, deadline=None)
@given(writes=_WRITES)
def test_fenced_and_unfenced_writes_hold_what_a_dictionary_holds(
    tmp_path_factory: pytest.TempPathFactory,
    writes: list[tuple[str, list[tuple[str, int]], frozenset[str]]],
) -> None:
    """Whatever mix of inserts and upserts, with fence rows or without, a key repeated
    within one write or not: each key is held once, with the first value inserted or
    the last upserted, every fence row used is held once, and no read sees one."""
    store = ProjectionStore(str(tmp_path_factory.mktemp("fences") / "db"))
    expected: dict[str, int] = {}
    for kind, rows, fences in writes:
        batch = [entity_row(key, count) for key, count in rows]
        if kind == "insert":
            store.insert_absent(ENTITIES, batch, fences=fences)
            for key, count in rows:
                expected.setdefault(key, count)
        else:
            store.upsert(ENTITIES, batch, fences=fences)
            expected.update(rows)  # of one key in one write, the last
    held = {r["entity_id"]: r["mention_count"] for r in store.scan(ENTITIES).to_pylist()}
    assert held == expected
    assert store.count(ENTITIES) == len(expected)
    used = {fence for _, _, fences in writes for fence in fences}
    assert _held(store, ENTITIES) == sorted([*expected, *(fence_key(f) for f in used)])
