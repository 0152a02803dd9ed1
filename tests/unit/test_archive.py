"""Archiving into the Parquet cold store, on real LanceDB tables and a real cold store (a
local folder, and S3 on loopback through moto's server): cold search, expansion,
restore and re-promotion, crashes between the pipeline's steps, and replay."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from memstream.application import state_digest
from memstream.events.codec import encode
from memstream.events.vocabulary import MemoryArchived, MemoryExpanded
from memstream.jobs.archiver import Archiver, NotArchived
from memstream.policies.coldness import ColdPolicy
from memstream.policies.ranking_weights import RankingWeights
from memstream.projections.archiving import is_archived, storage_ref_of
from memstream.projections.episodes import memory_id_for
from memstream.projections.vectors import embedding_events
from memstream.queries import memory_usage
from memstream.queries.search.searcher import Searcher, SearchRequest
from memstream.storage.archive.cold_store import ColdStore
from memstream.storage.filesystems import Location
from memstream.storage.lance.store import ProjectionStore
from memstream.storage.lance.tables import ARCHIVE_INDEX, MEMORIES, VECTORS
from memstream.storage.log_records import LogRecord
from memstream.storage.schemas import COLD_ORIGINAL_SCHEMA, MEMORIES_SCHEMA
from memstream.streams.projector import Projector
from memstream.testing import FakeClock, message
from memstream.text.passages import passage_id, passages

NOW = datetime(2026, 6, 1, tzinfo=UTC)
OLD = NOW - timedelta(days=730)
TEXTS = [
    "We planned the Lisbon trip with Maria for 12 May 2024, flights cost 420 euros.",
    "The piano lessons with Jonas start on Tuesday at 5 pm.",
    "Remember that the boiler in the Porto flat was serviced in March.",
]


class World:
    """A store, a projector with the cold store, and the log applied so far."""

    def __init__(self, store: ProjectionStore, cold: ColdStore) -> None:
        self.store = store
        self.cold = cold
        self.projector = Projector(store, "memstream", FakeClock(NOW), cold_store=cold)
        self.archiver = Archiver(store, cold, ColdPolicy())
        self.log: list[LogRecord] = []

    def apply(self, topic: str, events: list[Any]) -> None:
        records = [
            LogRecord("e1", topic, 0, len(self.log) + i, NOW, e.user_id.encode(), encode(e))
            for i, e in enumerate(events)
        ]
        self.log.extend(records)
        self.projector.apply(records)
        self.store.refresh()

    def hot(self) -> dict[str, dict[str, Any]]:
        return {r["memory_id"]: r for r in self.store.scan(MEMORIES).to_pylist()}

    def archived(self) -> set[str]:
        return {
            r["memory_id"] for r in self.store.scan(ARCHIVE_INDEX).to_pylist() if is_archived(r)
        }

    def search(self, query: str, **kw: Any) -> list[Any]:
        request = SearchRequest(user_id="ana", query=query, now=NOW, **kw)
        return Searcher(self.store, clock=lambda: NOW).search(request).results


#: These tests compare memories one by one, hot against archived, with no share of a
#: score spread to a memory's neighbours in its session (all these memories share one).
ONE_BY_ONE = RankingWeights(neighbour_share=0.0)


@pytest.fixture
def world(tmp_path: Path, cold_location: Location) -> World:
    w = World(
        ProjectionStore(str(tmp_path / "projections")),
        ColdStore(cold_location, COLD_ORIGINAL_SCHEMA),
    )
    said = [
        message(
            event_id=f"old-{i}", user_id="ana", content=text, occurred_at=OLD + timedelta(hours=i)
        )
        for i, text in enumerate(TEXTS)
    ]
    said.append(
        message(
            event_id="new-0",
            user_id="ana",
            content="Maria called about Lisbon today.",
            occurred_at=NOW - timedelta(hours=1),
        )
    )
    w.apply("memory.messages", said)
    rows = w.hot()
    keys = [
        (m, r["user_id"], r["project_id"], r["kind"], r["occurred_at"]) for m, r in rows.items()
    ]
    vectors = np.random.default_rng(7).standard_normal((len(keys), 384)).astype(np.float32)
    w.apply("memory.embeddings", embedding_events(keys, vectors, "test-model", "1", NOW))
    return w


def _old_ids(w: World) -> set[str]:
    return _old_ids_of(w.hot())


def test_dry_run_lists_candidates_with_score_and_rule_and_changes_nothing(world: World) -> None:
    decided = world.archiver.candidates(NOW)
    assert {d.memory_id for d in decided} == _old_ids(world)
    assert all(
        d.reason == "unused for 730 days (importance 0.50, 0 uses; limit 30 days)"
        and d.hotness < 1e-9
        for d in decided
    )
    assert world.cold.files() == [] and len(world.hot()) == 4


def test_candidates_of_every_user_coldest_first(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    world.apply(
        "memory.messages",
        [
            message(event_id="bo-old", user_id="bo", content="x", occurred_at=OLD - timedelta(1)),
            message(event_id="bo-mid", user_id="bo", content="y", occurred_at=NOW - timedelta(40)),
            message(event_id="bo-new", user_id="bo", content="z", occurred_at=NOW - timedelta(3)),
        ],
    )
    decided = world.archiver.candidates(NOW)
    by_user = {u: [d for d in decided if d.user_id == u] for u in ("ana", "bo")}
    ana = {m: r for m, r in world.hot().items() if r["user_id"] == "ana"}
    assert {d.memory_id for d in by_user["ana"]} == _old_ids_of(ana)
    assert [d.reason for d in by_user["bo"]] == [
        "unused for 731 days (importance 0.50, 0 uses; limit 30 days)",
        "unused for 40 days (importance 0.50, 0 uses; limit 30 days)",
    ]
    assert [d.hotness for d in decided] == sorted(d.hotness for d in decided)
    assert decided[0].user_id == "bo"  # the coldest of all, whoever it belongs to
    assert world.archiver.candidates(NOW, "bo") == by_user["bo"]
    monkeypatch.setattr(memory_usage, "_PAGE", 2)  # usage read two memories per query
    assert world.archiver.candidates(NOW) == decided


def test_the_hot_budget_archives_the_coldest_beyond_it_whatever_their_age(
    world: World,
) -> None:
    world.archiver.policy = ColdPolicy(idle_days=10_000, long_idle_days=10_000, hot_budget=2)
    decided = world.archiver.candidates(NOW)  # four hot memories, two over the budget
    assert len(decided) == 2 and {d.memory_id for d in decided} < _old_ids(world)
    assert all(d.reason.startswith("over the hot budget of 2: hotness") for d in decided)
    world.apply("memory.lifecycle", world.archiver.archive(NOW))
    assert len(world.hot()) == 2 and world.archiver.candidates(NOW) == []


def test_archive_moves_originals_and_search_finds_the_summaries(world: World) -> None:
    before = world.hot()
    old = _old_ids(world)
    events = world.archiver.archive(NOW)
    assert {e.memory_id for e in events} == old
    world.apply("memory.lifecycle", events)

    assert set(world.hot()) == set(before) - old  # hot count falls
    assert world.store.count(VECTORS) == 1
    assert world.archived() == old
    assert len(world.cold.files()) == 1  # one user-month batch
    assert all("user=ana/month=2024-06" in e.storage_ref for e in events)

    found = world.search("Lisbon trip flights", k=5)
    assert found[0].archived and found[0].content == TEXTS[0]  # a short turn is its summary
    lisbon = found[0]
    assert lisbon.storage_ref is not None and lisbon.source_event_ids == ["old-0"]
    assert lisbon.speaker == before[lisbon.memory_id]["speaker"]
    assert lisbon.session_id == before[lisbon.memory_id]["session_id"]
    assert lisbon.occurred_at == before[lisbon.memory_id]["occurred_at"]
    assert {"Maria", "Lisbon"} <= set(lisbon.entities)
    # the hot memory and the archived ones in one ranking; the archive can be left out
    assert {r.archived for r in world.search("Maria Lisbon", k=5)} == {True, False}
    assert not any(r.archived for r in world.search("Maria Lisbon", include_archived=False))
    assert world.search("boiler serviced", include_archived=False) == []


def test_archiving_a_long_turn_takes_its_passages_along(world: World) -> None:
    long_turn = message(
        event_id="old-long",
        user_id="ana",
        content=" ".join(f"Paragraph {n} of the trip notes about Lisbon." for n in range(60)),
        occurred_at=OLD + timedelta(hours=5),
    )
    world.apply("memory.messages", [long_turn])
    memory_id = memory_id_for("ana", "old-long")
    spans = passages(long_turn.content)
    assert len(spans) > 1
    keys = [(passage_id(memory_id, p.index), "ana", None, "episode", long_turn.occurred_at)
            for p in spans]  # fmt: skip
    vectors = np.random.default_rng(8).standard_normal((len(keys), 384)).astype(np.float32)
    world.apply("memory.embeddings", embedding_events(keys, vectors, "test-model", "1", NOW))
    assert world.store.count(VECTORS) == 4 + len(spans)
    events = world.archiver.archive(NOW)
    assert memory_id in {e.memory_id for e in events}
    world.apply("memory.lifecycle", events)
    assert world.store.count(VECTORS) == 1  # the one hot turn's: no passage is left behind
    # a passage's vector that arrives after its turn was archived stays out too (where
    # the store has a model, as a worker's has)
    world.projector.vector_model = "test-model"
    world.apply("memory.embeddings", embedding_events(keys, vectors, "test-model", "2", NOW))
    assert world.store.count(VECTORS) == 1


def test_expand_returns_the_original_exactly_and_three_expansions_restore(world: World) -> None:
    before = world.hot()
    vectors = {r["memory_id"]: r for r in world.store.scan(VECTORS).to_pylist()}
    ranked_before = [(r.memory_id, r.score) for r in world.search("Lisbon Maria", k=4)]
    world.apply("memory.lifecycle", world.archiver.archive(NOW))
    target = next(m for m in _old_ids_of(before) if "Lisbon" in before[m]["content"])

    expansion = world.archiver.expand("ana", target, NOW)
    original = expansion.original
    assert {k: original[k] for k in MEMORIES_SCHEMA.names} == before[target]
    assert original["vector"] == list(vectors[target]["vector"])
    assert len(expansion.events) == 1
    world.apply("memory.lifecycle", expansion.events)
    second = world.archiver.expand("ana", target, NOW + timedelta(days=1))
    world.apply("memory.lifecycle", second.events)
    third = world.archiver.expand("ana", target, NOW + timedelta(days=2))
    assert [e.type for e in third.events] == ["memory_expanded", "memory_restored"]
    world.apply("memory.lifecycle", third.events)

    assert target in world.hot() and target not in world.archived()
    assert world.hot()[target] == before[target]
    restored_vector = world.store.by_ids(VECTORS, [target])[0]
    assert restored_vector == vectors[target]
    with pytest.raises(NotArchived):
        world.archiver.expand("ana", target, NOW)
    # it ranks as before among the memories that are hot again
    world.apply("memory.lifecycle", world.archiver.restore("ana", None, NOW + timedelta(days=3)))
    assert [(r.memory_id, r.score) for r in world.search("Lisbon Maria", k=4)] == ranked_before


def _old_ids_of(rows: dict[str, dict[str, Any]]) -> set[str]:
    return {m for m, r in rows.items() if r["occurred_at"] < NOW - timedelta(days=365)}


def test_restore_one_and_bulk_restore(world: World) -> None:
    before = world.hot()
    world.apply("memory.lifecycle", world.archiver.archive(NOW))
    one = sorted(world.archived())[0]
    world.apply("memory.lifecycle", world.archiver.restore("ana", one, NOW))
    assert one in world.hot() and one not in world.archived()
    with pytest.raises(NotArchived):
        world.archiver.restore("bob", sorted(world.archived())[0], NOW)  # not bob's
    world.apply("memory.lifecycle", world.archiver.restore("ana", None, NOW))
    assert world.hot() == before and world.archived() == set()


def _exactly_once(w: World, ids: set[str]) -> None:
    hot, archived = set(w.hot()), w.archived()
    for m in ids:
        assert (m in hot) != (m in archived), m


def test_a_crash_between_any_two_steps_then_a_rerun_leaves_each_memory_once(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    ids, old = set(world.hot()), _old_ids(world)
    # 1. crash after writing the cold file, before publishing: still hot; a re-run
    #    writes the same file again.
    events = world.archiver.archive(NOW)
    files = world.cold.files()
    _exactly_once(world, ids)
    events = world.archiver.archive(NOW + timedelta(minutes=5))
    assert world.cold.files() == files
    # 2. crash after the archive index is written, before the hot rows go.
    calls = {"n": 0}
    real_drop = Projector._drop_hot

    def crash_once(self: Projector, archived: Any) -> None:
        calls["n"] += 1
        if calls["n"] == 1:
            raise RuntimeError("power cut")
        real_drop(self, archived)

    monkeypatch.setattr(Projector, "_drop_hot", crash_once)
    records = [
        LogRecord("e1", "memory.lifecycle", 0, 100 + i, NOW, b"ana", encode(e))
        for i, e in enumerate(events)
    ]
    with pytest.raises(RuntimeError, match="power cut"):
        world.projector.apply(records)
    restarted = Projector(world.store, "memstream", FakeClock(NOW), cold_store=world.cold)
    restarted.apply(records)  # the checkpoint did not move: the batch comes again
    world.store.refresh()
    _exactly_once(world, ids)
    assert world.archived() == old
    # 3. the same events applied once more (a re-published batch): nothing changes.
    before = state_digest(world.store)
    Projector(world.store, "other", FakeClock(NOW), cold_store=world.cold).apply(records)
    world.store.refresh()
    assert state_digest(world.store) == before
    _exactly_once(world, ids)


def test_replay_after_archiving_and_restoring_gives_the_same_digest(
    world: World, tmp_path: Path
) -> None:
    world.apply("memory.lifecycle", world.archiver.archive(NOW))
    one = sorted(world.archived())[0]
    world.apply("memory.lifecycle", world.archiver.restore("ana", one, NOW))
    live = state_digest(world.store)

    def rebuilt(name: str, records: list[LogRecord]) -> str:
        store = ProjectionStore(str(tmp_path / name))
        projector = Projector(store, "replay", FakeClock(NOW), cold_store=world.cold)
        projector.apply(records)
        projector.reconcile_archive()
        store.refresh()
        return state_digest(store)

    assert rebuilt("in-order", world.log) == live
    # the event archive replays topic by topic: lifecycle before messages
    by_topic = sorted(world.log, key=lambda r: (r.topic, r.offset))
    assert rebuilt("by-topic", by_topic) == live


def test_an_archive_event_for_another_users_memory_changes_nothing(world: World) -> None:
    [event] = world.archiver.archive(NOW)[:1]
    forged = event.model_copy(update={"user_id": "mallory", "event_id": "forged"})
    assert isinstance(forged, MemoryArchived)
    world.apply("memory.lifecycle", [forged])
    assert event.memory_id in world.hot()


def test_an_expansion_of_a_memory_never_archived_archives_nothing(world: World) -> None:
    hot = next(iter(world.hot()))
    world.apply("memory.lifecycle", [MemoryExpanded(user_id="ana", memory_id=hot, expanded_at=NOW)])
    assert world.store.count(ARCHIVE_INDEX) == 1  # the expansion is on record
    assert world.archived() == set() and world.archiver.restore("ana", None, NOW) == []
    assert world.projector.reconcile_archive() == 0 and hot in world.hot()


def test_archived_memories_rank_as_they_did_hot_by_words_entities_and_vectors(
    world: World,
) -> None:
    """Each retriever ranks hot and archived memories by one score: archiving every old
    memory leaves what a search finds as it was, the memories it matches in their places
    (only near ties among the rest, vectors a few thousandths apart, may swap: the
    archive keeps 4 bits a dimension), and a query sharing no word with a memory still
    finds it by its vector."""
    vectors = {r["memory_id"]: np.array(r["vector"]) for r in world.store.scan(VECTORS).to_pylist()}
    lisbon = next(m for m, r in world.hot().items() if r["content"] == TEXTS[0])
    near_lisbon = vectors[lisbon] + np.random.default_rng(1).normal(0, 0.3, len(vectors[lisbon]))

    def searcher() -> Searcher:
        return Searcher(
            world.store,
            embed=lambda _q: near_lisbon,
            model="test-model",
            clock=lambda: NOW,
            weights=ONE_BY_ONE,
        )

    def ranked(query: str) -> list[str]:
        request = SearchRequest(user_id="ana", query=query, now=NOW, k=4)
        return [r.memory_id for r in searcher().search(request).results]

    queries = ["Lisbon Maria", "piano lessons Tuesday", "boiler Porto", "holiday abroad"]
    hot_order = {q: ranked(q) for q in queries}
    world.apply("memory.lifecycle", world.archiver.archive(NOW))
    assert len(world.archived()) == 3
    for query, before in hot_order.items():
        after = ranked(query)
        matched = 1 if query == "holiday abroad" else 2  # memories sharing words with it
        assert after[:matched] == before[:matched] and set(after) == set(before), query
    assert ranked("holiday abroad")[0] == lisbon  # no word in common: found by its vector


def test_one_searcher_sees_the_archive_change(world: World) -> None:
    """The archived vectors a searcher keeps are those of the archive's newest version."""
    [lisbon_vector] = [
        np.array(v["vector"])
        for v in world.store.scan(VECTORS).to_pylist()
        if world.hot()[v["memory_id"]]["content"] == TEXTS[0]
    ]
    searcher = Searcher(
        world.store,
        embed=lambda _q: lisbon_vector,
        model="test-model",
        clock=lambda: NOW,
        weights=ONE_BY_ONE,
    )

    def first() -> Any:
        request = SearchRequest(user_id="ana", query="holiday abroad", now=NOW, k=1)
        return searcher.search(request).results[0]

    assert not first().archived
    # another user's archive run: the archive index has rows, none of ana's yet
    world.apply(
        "memory.messages",
        [message(event_id="bo-1", user_id="bo", content="x", occurred_at=OLD)],
    )
    world.apply("memory.lifecycle", world.archiver.archive(NOW, "bo"))
    assert not first().archived
    world.apply("memory.lifecycle", world.archiver.archive(NOW, "ana"))
    lisbon = first()
    assert lisbon.archived and lisbon.content == TEXTS[0]
    world.apply("memory.lifecycle", world.archiver.restore("ana", lisbon.memory_id, NOW))
    again = first()
    assert again.memory_id == lisbon.memory_id and not again.archived


def _state_of(w: World, user_id: str) -> dict[str, str]:
    """A digest per state table of the rows a user owns (log positions left out)."""
    from memstream.projections.digest import digest_tables
    from memstream.storage.lance.tables import STATE_TABLES
    from memstream.storage.schemas import NOT_STATE_COLUMNS

    w.store.refresh()
    return {
        name: digest_tables(
            {name: [r for r in w.store.scan(name).to_pylist() if r.get("user_id") == user_id]},
            ignore=NOT_STATE_COLUMNS,
        )
        for name in STATE_TABLES
    }


def test_forged_events_naming_another_users_memories_change_nothing_of_hers(
    world: World,
) -> None:
    from memstream.events.codec import from_document

    world.apply("memory.lifecycle", world.archiver.archive(NOW))
    [hot_id] = set(world.hot())
    archived_id = sorted(world.archived())[0]
    [row] = [
        r for r in world.store.scan(ARCHIVE_INDEX).to_pylist() if r["memory_id"] == archived_id
    ]
    accessed = {"type": "memory_accessed", "user_id": "ana", "accessed_at": NOW.isoformat()}
    world.apply("memory.access", [from_document({**accessed, "memory_ids": [hot_id]})])
    before = _state_of(world, "ana")
    found_before = [r.memory_id for r in world.search("Lisbon Maria piano boiler")]

    at = NOW.isoformat()
    later = (NOW + timedelta(minutes=5)).isoformat()
    archived = {
        "type": "memory_archived",
        "event_id": "forged-archive",
        "user_id": "bob",
        "kind": "episode",
        "occurred_at": at,
        "summary": "forged",
        "storage_ref": storage_ref_of(row),
        "checksum": "0" * 64,
        "reason": "forged",
        "hotness": 0.0,
        "archived_at": at,
    }
    forged = {
        "memory.access": [
            {
                "type": "memory_accessed",
                "user_id": "bob",
                "memory_ids": [hot_id, archived_id],
                "accessed_at": at,
            }
        ],
        "memory.commands": [
            {"type": "confirm_fact", "user_id": "bob", "memory_id": hot_id, "occurred_at": at},
            {"type": "forget", "user_id": "bob", "memory_id": hot_id, "occurred_at": at},
            {
                "type": "correct_fact",
                "user_id": "bob",
                "memory_id": hot_id,
                "new_content": "Ana lives on the moon.",
                "occurred_at": at,
            },
        ],
        "memory.lifecycle": [
            {**archived, "memory_id": hot_id},
            {**archived, "memory_id": archived_id, "event_id": "forged-archive-2"},
            {
                "type": "memory_expanded",
                "user_id": "bob",
                "memory_id": archived_id,
                "expanded_at": at,
            },
            {
                "type": "memory_restored",
                "user_id": "bob",
                "memory_id": archived_id,
                "storage_ref": storage_ref_of(row),
                "reason": "forged",
                "restored_at": later,
            },
            {
                "type": "confidence_decayed",
                "event_id": "forged-decay",
                "user_id": "bob",
                "as_of": at,
                "updates": [{"memory_id": hot_id, "confidence": 0.01}],
            },
            {
                "type": "memory_pruned",
                "event_id": "forged-prune",
                "user_id": "bob",
                "as_of": at,
                "threshold": 0.05,
                "memory_ids": [hot_id],
            },
        ],
    }
    for topic, documents in forged.items():
        world.apply(topic, [from_document(d) for d in documents])

    assert _state_of(world, "ana") == before
    assert [r.memory_id for r in world.search("Lisbon Maria piano boiler")] == found_before
    assert archived_id in world.archived() and hot_id in world.hot()


def test_a_forged_archive_event_cannot_claim_a_memory_before_its_owner_archives_it(
    world: World,
) -> None:
    from memstream.events.codec import from_document

    [hot_id] = [m for m, r in world.hot().items() if r["occurred_at"] > OLD + timedelta(days=1)]
    forged = {
        "type": "memory_archived",
        "event_id": "forged-claim",
        "user_id": "bob",
        "memory_id": hot_id,
        "kind": "episode",
        "occurred_at": NOW.isoformat(),
        "summary": "forged",
        "storage_ref": "user=bob/month=2026-06/batch-x.parquet#" + hot_id,
        "checksum": "0" * 64,
        "reason": "forged",
        "hotness": 0.0,
        "archived_at": NOW.isoformat(),
    }
    world.apply("memory.lifecycle", [from_document(forged)])
    assert hot_id in world.hot()
    world.apply("memory.lifecycle", world.archiver.archive(NOW + timedelta(days=800)))
    owned = {
        r["memory_id"]
        for r in world.store.scan(ARCHIVE_INDEX).to_pylist()
        if r["user_id"] == "ana" and is_archived(r)
    }
    assert hot_id in owned and hot_id not in world.hot()


def test_archived_and_hot_full_text_hits_are_scored_on_one_scale(
    tmp_path: Path, cold_location: Location
) -> None:
    """A word rare among the user's memories but common among everyone's archived
    summaries: the user's archived memory that has it is scored by the user's own word
    statistics, as the hot hits are, and outranks hot memories matching a common word."""
    w = World(
        ProjectionStore(str(tmp_path / "projections")),
        ColdStore(cold_location, COLD_ORIGINAL_SCHEMA),
    )
    said = [
        message(
            event_id=f"bob-{i}",
            user_id="bob",
            content=f"bob heard about lisbon again, note {i}",
            occurred_at=OLD + timedelta(minutes=i),
        )
        for i in range(40)
    ]
    said.append(
        message(
            event_id="ana-old",
            user_id="ana",
            content="we walked all around lisbon",
            occurred_at=OLD,
        )
    )
    said += [
        message(
            event_id=f"ana-{i}",
            user_id="ana",
            content=f"the tram was late again, day {i}",
            occurred_at=NOW - timedelta(hours=i + 1),
        )
        for i in range(8)
    ]
    w.apply("memory.messages", said)
    w.apply("memory.lifecycle", w.archiver.archive(NOW))
    assert memory_id_for("ana", "ana-old") in w.archived()
    searcher = Searcher(
        w.store,
        clock=lambda: NOW,
        weights=RankingWeights(entity=0.0, neighbour_share=0.0),
        cache_rows=10_000,
    )
    found = searcher.search(SearchRequest(user_id="ana", query="lisbon tram", now=NOW)).results
    assert found[0].memory_id == memory_id_for("ana", "ana-old") and found[0].archived
