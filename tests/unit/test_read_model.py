"""The search read model against real LanceDB tables: a user's kept rows always equal
a fresh read of the table, whatever was written, replaced, deleted or compacted in
between; its filter masks mean what the tables' filters mean; a searcher keeping users
in memory sees every write."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memstream.events.codec import encode
from memstream.events.vocabulary import ForgetMemory
from memstream.queries.search.candidates import request_filters as _filters
from memstream.queries.search.candidates import wanted_of as _wanted
from memstream.queries.search.searcher import Searcher, SearchRequest
from memstream.queries.search.user_view import RequestFilter, python_rows
from memstream.storage.lance.store import ProjectionStore
from memstream.storage.lance.tables import ACCESS, MEMORIES
from memstream.storage.log_records import LogRecord
from memstream.storage.schemas import MEMORIES_SCHEMA
from memstream.storage.user_rows import UserRows
from memstream.streams.projector import Projector
from memstream.testing import FakeClock, message

AT = datetime(2024, 5, 1, 12, tzinfo=UTC)

# Writes to the access table: (operation, user, memory number, count).
operations = st.lists(
    st.tuples(
        st.sampled_from(["upsert", "delete", "compact", "read"]),
        st.sampled_from(["u1", "u2"]),
        st.integers(0, 6),
        st.integers(1, 9),
    ),
    min_size=1,
    max_size=10,
)


def _access_row(user: str, memory: int, count: int) -> dict[str, Any]:
    return {
        "access_id": f"{user}|m{memory}",
        "memory_id": f"m{memory}",
        "user_id": user,
        "access_count": count,
        "last_accessed": AT,
    }


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(steps=operations)
def test_kept_rows_equal_a_fresh_read_after_any_writes(
    tmp_path_factory: pytest.TempPathFactory, steps: list[tuple[str, str, int, int]]
) -> None:
    store = ProjectionStore(str(tmp_path_factory.mktemp("rows") / "projections"))
    store.upsert(ACCESS, [_access_row("u1", 0, 1), _access_row("u2", 0, 1)])
    kept = UserRows(store, ACCESS, "u1", ("memory_id", "access_count"), "access_id")
    for operation, user, memory, count in steps:
        if operation == "upsert":
            store.upsert(ACCESS, [_access_row(user, memory, count)])
        elif operation == "delete":
            store.delete(ACCESS, [f"{user}|m{memory}"])
        elif operation == "compact":
            store.upkeep.optimize_table(ACCESS, timedelta(days=1))
        rows, _ = kept.current()
        fresh = store.scan(ACCESS, ["access_id", "access_count"], "user_id = 'u1'")
        assert _pairs(rows) == _pairs(fresh)


def _pairs(rows: pa.Table) -> list[tuple[str, int]]:
    return sorted(zip(rows["access_id"].to_pylist(), rows["access_count"].to_pylist(), strict=True))


def test_a_table_nobody_wrote_to_is_not_read_again(tmp_path: Path) -> None:
    store = ProjectionStore(str(tmp_path / "projections"))
    store.upsert(ACCESS, [_access_row("u1", i, 1) for i in range(5)])
    kept = UserRows(store, ACCESS, "u1", ("access_count",), "access_id")
    kept.current()
    kept.current()
    store.upsert(ACCESS, [_access_row("u1", 9, 1), _access_row("u2", 1, 1)])
    rows, _ = kept.current()
    assert (kept.full_reads, kept.partial_reads, rows.num_rows) == (1, 1, 6)


def test_a_reader_allowed_staleness_asks_the_version_at_most_that_often(tmp_path: Path) -> None:
    store = ProjectionStore(str(tmp_path / "projections"))
    first = store.version(ACCESS)
    store.upsert(ACCESS, [_access_row("u1", 1, 1)])
    assert store.version(ACCESS, max_age_seconds=3600) == first
    assert store.version(ACCESS) > first


# A user's memories of every shape the filters tell apart.
_PROJECTS = [None, "p1", "p2"]
_KINDS = ["episode", "fact"]
_TAGS: list[list[str]] = [[], ["pets"], ["work", "pets"], ["family"]]


@pytest.fixture(scope="module")
def filtered_store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ProjectionStore]:
    store = ProjectionStore(str(tmp_path_factory.mktemp("filters") / "projections"))
    rows = []
    for i in range(48):
        rows.append(
            {
                "memory_id": f"m{i}",
                "kind": _KINDS[i % 2],
                "user_id": "u1",
                "project_id": _PROJECTS[i % 3],
                "content": f"memory {i}",
                "search_text": f"memory {i}",
                "tags": _TAGS[i % 4],
                "occurred_at": None if i % 11 == 0 else AT + timedelta(days=i),
                "valid_until": AT if i % 7 == 0 else None,
            }
        )
    store.append(MEMORIES, pa.Table.from_pylist(rows, schema=MEMORIES_SCHEMA))
    yield store


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    project=st.sampled_from(_PROJECTS),
    kinds=st.none() | st.lists(st.sampled_from(_KINDS), min_size=1, max_size=2),
    tags=st.none() | st.lists(st.sampled_from(["pets", "work", "family"]), min_size=1, max_size=32),
    after=st.none() | st.integers(0, 50),
    before=st.none() | st.integers(0, 50),
)
def test_masks_mean_what_the_table_filters_mean(
    filtered_store: ProjectionStore,
    project: str | None,
    kinds: list[str] | None,
    tags: list[str] | None,
    after: int | None,
    before: int | None,
) -> None:
    request = SearchRequest(
        user_id="u1",
        project_id=project,
        query="memory",
        kinds=kinds,
        tags=tags,
        after=None if after is None else AT + timedelta(days=after),
        before=None if before is None else AT + timedelta(days=before),
    )
    rows = filtered_store.scan(MEMORIES, where="user_id = 'u1'")
    wanted: RequestFilter = _wanted(request)
    in_memory = set(rows.filter(pa.array(wanted.memories_mask(rows)))["memory_id"].to_pylist())
    in_table = filtered_store.scan(MEMORIES, ["memory_id"], _filters(request, "memories"))
    assert in_memory == set(in_table["memory_id"].to_pylist())
    vector_view = set(rows.filter(pa.array(wanted.vectors_mask(rows)))["memory_id"].to_pylist())
    vector_where = _filters(request.model_copy(update={"tags": None}), "vectors")
    assert vector_view == set(
        filtered_store.scan(MEMORIES, ["memory_id"], vector_where)["memory_id"].to_pylist()
    )


def test_a_searcher_keeping_users_in_memory_sees_every_write(tmp_path: Path) -> None:
    store = ProjectionStore(str(tmp_path / "projections"))
    projector = Projector(store, "test", clock=FakeClock(AT))
    offsets = iter(range(1000))

    def apply(*events: Any) -> None:
        projector.apply(
            [LogRecord("e", "t", 0, next(offsets), AT, None, encode(e)) for e in events]
        )
        store.upkeep.ensure_indexes()

    searcher = Searcher(store, clock=FakeClock(AT), cache_rows=1000)

    def found(query: str) -> list[str]:
        request = SearchRequest(user_id="alice", query=query)
        return [r.content for r in searcher.search(request).results]

    apply(message(event_id="e1", content="My cat Tom loves tuna", occurred_at=AT))
    assert found("cat tuna") == ["My cat Tom loves tuna"]
    piano = "The cat sleeps on the piano"  # another session: not the tuna's neighbour
    apply(message(event_id="e2", session_id="s2", content=piano, occurred_at=AT))
    assert set(found("cat")) == {"My cat Tom loves tuna", "The cat sleeps on the piano"}
    [tuna] = [r for r in searcher.search(SearchRequest(user_id="alice", query="tuna")).results]
    apply(ForgetMemory(event_id="f1", user_id="alice", memory_id=tuna.memory_id, occurred_at=AT))
    assert found("cat") == ["The cat sleeps on the piano"]
    store.delete(MEMORIES, [tuna.memory_id])  # as the archiver does
    assert found("cat") == ["The cat sleeps on the piano"]


def test_other_users_writes_remake_nothing_of_a_users_view(tmp_path: Path) -> None:
    """A user's view is made again when the user's rows change, not whenever the table
    moves: while others publish, the tables move every few hundred milliseconds."""
    from memstream.queries.search.read_model import ReadModel

    store = ProjectionStore(str(tmp_path / "projections"))
    projector = Projector(store, "test", clock=FakeClock(AT))
    offsets = iter(range(1000))

    def apply(user: str, text: str) -> None:
        event = message(user_id=user, content=text, occurred_at=AT)
        projector.apply([LogRecord("e", "t", 0, next(offsets), AT, None, encode(event))])

    apply("alice", "My cat Tom loves tuna")
    model = ReadModel(store, "model", budget_rows=1000)
    first = model.view("alice", 1)
    assert first is not None
    apply("bob", "Bob's own words")  # the memories table moves; alice's rows do not
    again = model.view("alice", 1)
    assert again is not None and again.memories is first.memories
    apply("alice", "The cat sleeps on the piano")
    changed = model.view("alice", 2)
    assert changed is not None and changed.memories is not first.memories
    assert changed.memories.num_rows == 2


def test_a_view_grown_by_appended_rows_answers_as_a_view_made_afresh(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Rows appended (the common write: new memories, new vectors) grow what the view
    made of the rows before, in place where the arrays have room; a deletion makes it
    again. Either way it answers what a view made from the tables afresh answers, and a
    view handed out before stays as it was."""
    import numpy as np

    from memstream.queries.search import read_model, user_view
    from memstream.storage.lance.tables import VECTORS
    from memstream.storage.schemas import vectors_schema

    monkeypatch.setattr(read_model, "SIGN_CODED_ROWS", 7)  # crossed while growing
    store = ProjectionStore(str(tmp_path / "projections"), vector_dimension=8)
    projector = Projector(store, "test", clock=FakeClock(AT))
    rng = np.random.default_rng(3)
    offsets = iter(range(1000))
    words = ["cat", "tuna", "piano", "Lisbon", "rain", "tea"]
    held = read_model._UserTables(store, "alice", "model", 0.0)
    before: list[tuple[user_view.UserView, np.ndarray]] = []
    grown_in_place = 0
    vectorised: set[str] = set()

    later = iter(range(1000, 2000))

    def add(count: int, after_the_rest: bool = False, session: str | None = None) -> None:
        """``count`` turns in three sessions, at random among the turns held, or each
        after every turn held (the usual write: a conversation going on)."""
        events = [
            message(
                user_id="alice",
                session_id=session or f"s{n % 3}",
                speaker=["Ana", "Rui", None][n % 3],
                content=" ".join(rng.choice(words, 3)),
                occurred_at=AT
                + timedelta(minutes=next(later) if after_the_rest else int(rng.integers(0, 500))),
            )
            for n in range(count)
        ]
        projector.apply(
            [LogRecord("e", "t", 0, next(offsets), AT, None, encode(e)) for e in events]
        )
        ids = [m for m in store.scan(MEMORIES, ["memory_id"])["memory_id"].to_pylist()
               if m not in vectorised]  # fmt: skip
        vectorised.update(ids)
        assert len(ids) == count
        vectors = rng.standard_normal((len(ids), 8)).astype(np.float32)
        store.insert_absent(
            VECTORS,
            pa.table(
                {
                    "memory_id": ids,
                    "user_id": ["alice"] * len(ids),
                    "project_id": pa.nulls(len(ids), pa.string()),
                    "kind": ["episode"] * len(ids),
                    "occurred_at": pa.array([AT] * len(ids), pa.timestamp("us", "UTC")),
                    "model": ["model"] * len(ids),
                    "source_event_id": ids,
                    "vector": pa.FixedSizeListArray.from_arrays(pa.array(vectors.ravel()), 8),
                },
                schema=vectors_schema(8),
            ),
        )

    def same_answers() -> None:
        nonlocal grown_in_place
        view = held.view_now()
        fresh = read_model._UserTables(store, "alice", "model", 0.0).view_now()
        assert view.memories.to_pylist() == fresh.memories.to_pylist()
        assert view.positions == fresh.positions
        assert view.order == fresh.order and view.speakers == fresh.speakers
        assert view.said == fresh.said and len(view.said) == len(view.memories)
        assert view.vector_rows.to_pylist() == fresh.vector_rows.to_pylist()
        assert len(view.vectors) == len(view.memories)
        assert np.array_equal(view.vectors, fresh.vectors)
        assert (view.codes is None) == (fresh.codes is None)
        if view.codes is not None and fresh.codes is not None:
            assert np.array_equal(view.codes, fresh.codes)
        everything = RequestFilter()
        for word in words:
            assert view.full_text(word, everything, 5) == fresh.full_text(word, everything, 5)
        query = rng.standard_normal(8).astype(np.float32)
        assert view.nearest(query, everything, 4) == fresh.nearest(query, everything, 4)
        if before and np.shares_memory(view.vectors, before[-1][0].vectors):
            grown_in_place += 1
        for old, copy in before:  # what was handed out before is as it was
            assert np.array_equal(old.vectors, copy)
        before.append((view, view.vectors.copy()))

    for count, after_the_rest in ((3, False), (2, False), (2, True), (1, False), (4, True)):
        add(count, after_the_rest)
        same_answers()
    add(3, after_the_rest=True, session="s9")  # a session new to the view
    same_answers()
    some = store.scan(MEMORIES, ["memory_id"]).column("memory_id").to_pylist()[:2]
    store.delete(MEMORIES, some)  # as the archiver does: the rows are read whole again
    store.delete(VECTORS, some)
    same_answers()
    add(2)
    same_answers()
    assert grown_in_place >= 2


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.none() | st.datetimes(timezones=st.just(UTC)),
            st.none() | st.text(max_size=5),
            st.lists(st.text(max_size=3), max_size=2),
        ),
        max_size=20,
    )
)
def test_a_views_rows_read_as_pyarrow_reads_them(
    values: list[tuple[datetime | None, str | None, list[str]]],
) -> None:
    """The rows a view hands out, its UTC timestamps made by hand, equal pyarrow's own,
    to the microsecond and the time zone."""
    table = pa.table(
        {
            "at": pa.array([v[0] for v in values], pa.timestamp("us", "UTC")),
            "text": pa.array([v[1] for v in values], pa.string()),
            "ids": pa.array([v[2] for v in values], pa.list_(pa.string())),
            "naive": pa.array([None] * len(values), pa.timestamp("us")),
        }
    )
    made, expected = python_rows(table), table.to_pylist()
    assert made == expected
    assert [r["at"] and r["at"].tzinfo for r in made] == [
        r["at"] and r["at"].tzinfo for r in expected
    ]
