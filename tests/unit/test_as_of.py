"""Reads ``as_of`` a moment equal the same reads of a replay of the log cut there.

A script of writes, a remembered fact, a correction, a confirmation, a forget, more
writes, an archive, a restore and another archive is applied step by step by the
worker's projector to real LanceDB tables (each step's checkpoints saved, so each
records a moment). Then, for every step, every read
(search with and without history, context, the memory list, one memory, its history and
explanation, an entity) asked ``as_of`` that step's write token, and ``as_of`` the time
just after it, answers exactly what the same read answers over a fresh store that a
replay of the records through the moment's position built.
"""

from __future__ import annotations

import asyncio
import base64
import itertools
import json
import warnings
from collections.abc import Awaitable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, TypeVar

import pyarrow as pa
import pytest
from fastapi.testclient import TestClient

from memstream.application import Operations
from memstream.application.commands import correction
from memstream.application.errors import NotFound
from memstream.events.codec import encode
from memstream.events.errors import InvalidQuery
from memstream.events.vocabulary import ConfirmFact, Event, ForgetMemory, RememberFact
from memstream.http.app import create_app
from memstream.jobs.archiver import Archiver
from memstream.jobs.replay import records_through
from memstream.policies.coldness import ColdPolicy
from memstream.projections.derived import command_memory
from memstream.projections.episodes import memory_id_for
from memstream.queries.memory_list import ListRequest
from memstream.queries.search.request import SearchRequest
from memstream.settings import Settings
from memstream.storage.archive.cold_store import ColdStore
from memstream.storage.archive.event_archive import records_from_table
from memstream.storage.filesystems import resolve_location
from memstream.storage.lance.store import ProjectionStore
from memstream.storage.lance.tables import STATE_TABLES
from memstream.storage.log_records import LogRecord
from memstream.storage.moments import first_covering, last_at_or_before
from memstream.storage.schemas import ARCHIVE_SCHEMA, COLD_ORIGINAL_SCHEMA, MOMENTS_SCHEMA
from memstream.storage.write_tokens import WriteToken, parse_token
from memstream.streams.partitioning import partition_of
from memstream.streams.projector import Projector
from memstream.testing import FakeClock, KeptEvents, message

_T = TypeVar("_T")
T0 = datetime(2026, 11, 24, 9, 0, tzinfo=UTC)  # a Tuesday
EPOCH = "e1"
MESSAGES, COMMANDS, LIFECYCLE = "memory.messages", "memory.commands", "memory.lifecycle"
SETTINGS = Settings(data="unused", embedder="none")
PARTITION = partition_of("ana", SETTINGS.messages_partitions)
ASKED = ("Where does Ana live?", "What does Miso eat?", "Who helped Ana move?")


@dataclass
class Log:
    """The records applied so far, in the event archive's shape."""

    records: list[LogRecord]
    offsets: dict[str, int]

    def add(self, topic: str, event: Event, at: datetime) -> LogRecord:
        offset = self.offsets.get(topic, -1) + 1
        self.offsets[topic] = offset
        record = LogRecord(EPOCH, topic, PARTITION, offset, at, b"ana", encode(event))
        self.records.append(record)
        return record

    def table(self) -> pa.Table:
        return pa.Table.from_pylist(
            [
                {
                    "log_epoch": r.log_epoch,
                    "topic": r.topic,
                    "partition": r.partition,
                    "offset": r.offset,
                    "timestamp": r.timestamp,
                    "key": r.key,
                    "value": r.value,
                }
                for r in self.records
            ],
            schema=ARCHIVE_SCHEMA,
        )


def _id(event_id: str) -> str:
    return memory_id_for("ana", event_id)


def _said(event_id: str, text: str, at: datetime) -> Event:
    return message(
        event_id=event_id, user_id="ana", session_id="s1", speaker="Ana", content=text,
        occurred_at=at,
    )  # fmt: skip


@pytest.fixture(scope="module")
def scripted(tmp_path_factory: pytest.TempPathFactory) -> Script:
    """The live store after the script, each step's write token and the log."""
    folder = tmp_path_factory.mktemp("as-of")
    store = ProjectionStore(str(folder / "live"))
    clock = FakeClock(T0)
    cold = _cold(folder)
    projector = Projector(store, consumer=SETTINGS.consumer_group, clock=clock, cold_store=cold)
    log = Log([], {})
    steps: list[tuple[str, datetime]] = []

    def step(topic: str, event: Event) -> None:
        at = clock.advance(hours=1)
        record = log.add(topic, event, at)
        projector.apply([record])
        projector.flush()
        token = WriteToken(EPOCH, {(topic, PARTITION): record.offset}).text()
        steps.append((token, clock.advance(minutes=1)))

    step(MESSAGES, _said("m1", "I live in Lisbon with my cat Miso.", T0))
    step(MESSAGES, _said("m2", "Maria helped me move to Porto last week.", T0))
    fact = RememberFact(
        event_id="r1", user_id="ana", content="Ana's cat Miso likes sardines.", occurred_at=T0
    )
    step(COMMANDS, fact)
    remembered = command_memory(fact).memory_id
    corrected, _ = correction(store, "ana", remembered, "Ana's cat Miso likes tuna.", clock())
    step(COMMANDS, corrected)
    step(COMMANDS, ConfirmFact(event_id="c1", user_id="ana", memory_id=_id("m2"), occurred_at=T0))
    step(COMMANDS, ForgetMemory(event_id="f1", user_id="ana", memory_id=_id("m1"), occurred_at=T0))
    step(MESSAGES, _said("m3", "Miso and I now live in Porto, near Maria.", T0))
    # the coldest memory goes to cold storage, comes back, and another goes for good
    archiver = Archiver(store, cold, ColdPolicy(idle_days=1, long_idle_days=1))
    [archived] = archiver.archive(clock() + timedelta(days=30), "ana", limit=1)
    step(LIFECYCLE, archived)
    [restored] = archiver.restore("ana", archived.memory_id, clock())
    step(LIFECYCLE, restored)
    [again] = archiver.archive(clock() + timedelta(days=30), "ana", limit=1)
    step(LIFECYCLE, again)
    return Script(folder, steps, log)


def _cold(folder: Path) -> ColdStore:
    """The cold store of the script (shared by its replays: restores read originals)."""
    return ColdStore(resolve_location(str(folder / "cold")), COLD_ORIGINAL_SCHEMA)


@dataclass
class Script:
    folder: Path
    #: each step's write token, and the time just after it
    steps: list[tuple[str, datetime]]
    log: Log


def _replayed(script: Script, position: str, name: str) -> ProjectionStore:
    """A fresh store the projector built from the records through ``position``, one
    batch a record as the script's worker applied them (so the tables' fragments are
    laid out alike: Lance scores full text over unindexed fragments as they lie)."""
    cut = records_through(script.log.table(), parse_token(position))
    store = ProjectionStore(str(script.folder / name))
    projector = Projector(
        store,
        consumer=SETTINGS.consumer_group,
        clock=FakeClock(T0),
        cold_store=_cold(script.folder),
    )
    for record in records_from_table(cut):
        projector.apply([record])
    projector.flush()
    return store


def _operations(store: ProjectionStore, folder: Path) -> Operations:
    settings = Settings(data=str(folder), embedder="none")
    return Operations(settings, sink=KeptEvents(), store=store, clock=FakeClock(T0))


async def _reads(ops: Operations, as_of: str | None, now: datetime) -> dict[str, Any]:
    """Every read of Ana's memory, as JSON values, without the moment they reflect."""
    found: dict[str, Any] = {}
    for query in ASKED:
        for history in (False, True):
            request = SearchRequest(
                user_id="ana", query=query, now=now, include_history=history, as_of=as_of
            )
            answer = await ops.reads.search(request)
            found[f"search {query} {history}"] = [
                (r.memory_id, r.content, r.kind, round(r.score, 6)) for r in answer.results
            ]
        block = await ops.reads.context("ana", query, now=now, as_of=as_of)
        found[f"context {query}"] = (block.context, block.sections)
    page = await ops.reads.list_memories(
        ListRequest(user_id="ana", include_hidden=True, as_of=as_of)
    )
    found["list"] = page.memories
    for memory_id in [m["memory_id"] for m in page.memories]:
        found[f"memory {memory_id}"] = _plain(await ops.reads.memory("ana", memory_id, as_of=as_of))
        found[f"history {memory_id}"] = await _or_none(
            ops.reads.history("ana", memory_id, as_of=as_of)
        )
        found[f"explain {memory_id}"] = _plain(
            await _or_none(ops.reads.explain("ana", memory_id, now=now, as_of=as_of))
        )
    for name in ("Maria", "Miso", "Porto"):
        try:
            found[f"entity {name}"] = _plain(await ops.reads.entity("ana", name, as_of=as_of))
        except NotFound:
            found[f"entity {name}"] = None
    return found


async def _or_none(read: Awaitable[_T]) -> _T | None:
    """What ``read`` answers, None when it finds nothing (an archived memory has no
    history or explanation of its own: its index row stands for it)."""
    try:
        return await read
    except NotFound:
        return None


def _plain(document: dict[str, Any] | None) -> dict[str, Any] | None:
    if document is None:
        return None
    return {k: v for k, v in document.items() if k != "as_of"}


def test_every_read_as_of_a_moment_equals_a_replay_cut_there(scripted: Script) -> None:
    folder, steps = scripted.folder, scripted.steps
    live = _operations(ProjectionStore(str(folder / "live")), folder)
    answers = []
    for index, (token, after) in enumerate(steps):
        now = after + timedelta(days=1)
        found = asyncio.run(
            live.reads.search(SearchRequest(user_id="ana", query=ASKED[0], as_of=token))
        )
        assert found.as_of is not None and found.as_of.asked == token
        position = found.as_of.position
        then = asyncio.run(_reads(live, token, now))
        replay = _operations(_replayed(scripted, position, f"replay-{index}"), folder)
        assert then == asyncio.run(_reads(replay, None, now)), index
        # the time just after the step names the same moment
        by_time = asyncio.run(
            live.reads.list_memories(
                ListRequest(user_id="ana", include_hidden=True, as_of=after.isoformat())
            )
        )
        assert by_time.as_of is not None and by_time.as_of.position == position, index
        assert by_time.memories == then["list"], index
        answers.append(then)
    # each step changed what the reads answer: no moment stood in for another
    assert all(a != b for a, b in itertools.pairwise(answers))


def test_the_moment_said_is_the_one_asked_for(
    scripted: Script,
) -> None:
    folder, steps = scripted.folder, scripted.steps
    live = _operations(ProjectionStore(str(folder / "live")), folder)
    token, after = steps[2]
    by_token = asyncio.run(
        live.reads.search(SearchRequest(user_id="ana", query="cat", as_of=token))
    )
    by_time = asyncio.run(
        live.reads.search(SearchRequest(user_id="ana", query="cat", as_of=after.isoformat()))
    )
    assert by_token.as_of is not None and by_time.as_of is not None
    assert by_token.as_of.position == by_time.as_of.position
    assert by_token.as_of.recorded_at <= after
    # the fact remembered at step 3 is there; its correction (step 4) is not yet
    assert any("sardines" in r.content for r in by_token.results)
    assert not any("tuna" in r.content for r in by_token.results)
    now = asyncio.run(live.reads.search(SearchRequest(user_id="ana", query="cat")))
    assert any("tuna" in r.content for r in now.results)
    assert not any("sardines" in r.content for r in now.results)


def test_the_console_shows_memory_as_it_stood(scripted: Script) -> None:
    """The timeline and a memory's page ``as_of`` a step: the fact as remembered then."""
    folder, steps = scripted.folder, scripted.steps
    live = _operations(ProjectionStore(str(folder / "live")), folder)
    token, _ = steps[2]
    remembered = command_memory(
        RememberFact(event_id="r1", user_id="ana", content="-", occurred_at=T0)
    ).memory_id
    app = create_app(live, with_mcp=False)
    with TestClient(app, base_url="http://127.0.0.1:8787") as console:
        then = console.get("/console/users/ana", params={"as_of": token})
        assert then.status_code == 200, then.text[:300]
        assert "Memory as it stood at" in then.text and "sardines" in then.text
        assert "tuna" not in then.text
        assert f"/memories/{remembered}?as_of=" in then.text
        page = console.get(f"/console/users/ana/memories/{remembered}", params={"as_of": token})
        assert page.status_code == 200 and "sardines" in page.text
        assert "Memory as it stood at" in page.text
        now = console.get("/console/users/ana").text
        assert "tuna" in now and "Memory as it stood at" not in now
        wrong = console.get("/console/users/ana", params={"as_of": "yesterday"})
        assert wrong.status_code == 422 and "as_of" in wrong.text


def test_before_anything_was_recorded_and_not_a_moment(
    scripted: tuple[Path, list[tuple[str, datetime]]],
) -> None:
    folder = scripted.folder
    live = _operations(ProjectionStore(str(folder / "live")), folder)
    with pytest.raises(NotFound, match="no memory of this user was recorded by"):
        asyncio.run(live.reads.memory("ana", memory_id_for("ana", "m1"), as_of=T0.isoformat()))
    deep = "w1." + base64.urlsafe_b64encode(b"[" * 5000).decode().rstrip("=")
    for wrong in ("yesterday", "w1.nonsense!", "2026-13-40T00:00:00Z", deep,
                  "0001-01-01T00:00:00+05:00", "9999-12-31T23:59:59-05:00"):  # fmt: skip
        with pytest.raises(InvalidQuery, match="as_of"):
            asyncio.run(live.reads.list_memories(ListRequest(user_id="ana", as_of=wrong)))
    other = WriteToken(EPOCH, {(MESSAGES, PARTITION + 1): 0}).text()
    with pytest.raises(NotFound, match="no moment holds that write"):
        asyncio.run(live.reads.history("ana", memory_id_for("ana", "m1"), as_of=other))


def _three_notes(tmp_path: Path) -> tuple[ProjectionStore, FakeClock, Projector]:
    """A store that applied three notes of Ana's an hour apart (a moment each)."""
    store = ProjectionStore(str(tmp_path / "tables"))
    clock = FakeClock(T0)
    projector = Projector(store, consumer=SETTINGS.consumer_group, clock=clock)
    log = Log([], {})
    for index in range(3):
        at = clock.advance(hours=1)
        projector.apply([log.add(MESSAGES, _said(f"m{index}", f"Note {index}.", T0), at)])
    return store, clock, projector


def test_upkeep_forgets_the_moments_whose_versions_it_removes(tmp_path: Path) -> None:
    store, clock, projector = _three_notes(tmp_path)
    assert store.moments(SETTINGS.consumer_group, PARTITION).num_rows == 3
    clock.advance(hours=1)
    projector.upkeep(retain=timedelta(hours=2))  # at T0 + 4 h: what is older than T0 + 2 h
    moments = store.moments(SETTINGS.consumer_group, PARTITION)
    kept = sorted(moments.column("recorded_at").to_pylist())
    assert kept == [T0 + timedelta(hours=2), T0 + timedelta(hours=3)]
    ops = _operations(store, tmp_path)
    gone = (T0 + timedelta(hours=1, minutes=30)).isoformat()
    with pytest.raises(NotFound, match="the first moment kept"):
        asyncio.run(ops.reads.memory("ana", _id("m0"), as_of=gone))
    kept_then = (T0 + timedelta(hours=2, minutes=30)).isoformat()
    page = asyncio.run(ops.reads.list_memories(ListRequest(user_id="ana", as_of=kept_then)))
    assert sorted(m["content"] for m in page.memories) == ["Note 0.", "Note 1."]


def test_a_view_whose_files_went_since_it_was_opened_is_no_longer_kept(tmp_path: Path) -> None:
    """A past view is kept open between reads; upkeep (or an erasure) may remove its
    files meanwhile. The read then says the moment is no longer kept (404), never a
    storage error, and the view is let go."""
    store, _, _ = _three_notes(tmp_path)
    ops = _operations(store, tmp_path)
    then = (T0 + timedelta(hours=2, minutes=30)).isoformat()
    assert asyncio.run(ops.reads.memory("ana", _id("m0"), as_of=then))["content"] == "Note 0."
    with warnings.catch_warnings():  # "removes every version but the latest": meant
        warnings.simplefilter("ignore", UserWarning)
        for name in STATE_TABLES:  # compacted: the old fragments' files are deleted
            store.table(name).optimize(cleanup_older_than=timedelta(0), delete_unverified=True)
    for _ in range(2):  # the open view's read, then a view asked for afresh
        with pytest.raises(NotFound, match="is no longer kept"):
            asyncio.run(ops.reads.memory("ana", _id("m0"), as_of=then))


def test_the_first_moment_holding_a_write_and_the_last_by_a_time() -> None:
    rows = [
        {
            "moment_id": f"m{offset}",
            "consumer": "memstream",
            "partition": 3,
            "recorded_at": T0 + timedelta(minutes=offset),
            "position": WriteToken(EPOCH, {(MESSAGES, 3): offset * 10}).text(),
            "versions": json.dumps({"memories": offset}),
        }
        for offset in (4, 0, 2, 1, 3)  # stored in any order
    ]
    moments = pa.Table.from_pylist(rows, schema=MOMENTS_SCHEMA)
    for offset, first in ((0, 0), (1, 1), (10, 1), (11, 2), (35, 4), (40, 4)):
        found = first_covering(moments, WriteToken(EPOCH, {(MESSAGES, 3): offset}))
        assert found is not None and found.versions == {"memories": first}, offset
    assert first_covering(moments, WriteToken(EPOCH, {(MESSAGES, 3): 41})) is None
    assert first_covering(moments, WriteToken(EPOCH, {(MESSAGES, 2): 0})) is None
    by_time = last_at_or_before(moments, T0 + timedelta(minutes=2, seconds=59))
    assert by_time is not None and by_time.versions == {"memories": 2}
    assert last_at_or_before(moments, T0 - timedelta(seconds=1)) is None
