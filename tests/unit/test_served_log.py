"""What was served: every context block and search answer given to a caller is recorded
as a ``context_served`` event (ids, scores, digest; never the memories' text), folded
into the ``served`` table, listed per user and per memory, and rendered again byte for
byte from its record: over the live store, after more writes changed the entities it
profiled, and over a fresh store a replay of the whole log built in one batch.

Real LanceDB tables and the worker's projector; the sink keeps what the reads publish,
and the test puts it in the log as the broker would.
"""

from __future__ import annotations

import asyncio
import json
import time
import warnings
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from memstream.application import Operations
from memstream.application.callers import Caller
from memstream.application.errors import NotFound
from memstream.events.codec import decode, encode
from memstream.events.vocabulary import ContextServed, Event, RememberFact
from memstream.http.app import create_app
from memstream.projections.served import served_records
from memstream.queries.search.request import SearchRequest
from memstream.queries.served import answer_digest, search_text
from memstream.settings import Settings
from memstream.storage.lance.store import ProjectionStore
from memstream.storage.lance.tables import SERVED, STATE_TABLES
from memstream.storage.log_records import LogRecord
from memstream.streams.partitioning import partition_of
from memstream.streams.projector import Projector
from memstream.streams.topics import topic_for
from memstream.testing import FakeClock, KeptEvents, message

T0 = datetime(2026, 11, 24, 9, 0, tzinfo=UTC)
EPOCH = "e1"
SETTINGS = Settings(data="unused", embedder="none")
PARTITION = partition_of("ana", SETTINGS.messages_partitions)
AGENT = Caller("api", key_id=None, agent="claude-code", session_id="claude-code-s1")
#: a turn long enough that a block quotes a window of it
LONG = " ".join(
    [f"Line {i} of the moving notes says nothing in particular about boxes." for i in range(30)]
    + ["Maria found the flat in Porto and signed the lease on Rua Nova."]
    + [f"Line {i} of the moving notes is about tape and labels." for i in range(30, 50)]
)


class Kept(KeptEvents):
    """The reads' access and served reports, kept."""

    def served(self) -> list[ContextServed]:
        return [e for e in self.events if isinstance(e, ContextServed)]


@dataclass
class World:
    folder: Path
    store: ProjectionStore
    projector: Projector
    clock: FakeClock
    records: list[LogRecord]
    offsets: dict[str, int]
    sink: Kept
    ops: Operations

    def apply(self, *events: Event) -> None:
        """Put ``events`` in the log and have the worker apply them (a moment each)."""
        for event in events:
            at = self.clock.advance(minutes=10)
            topic = topic_for(event.type)
            offset = self.offsets.get(topic, -1) + 1
            self.offsets[topic] = offset
            record = LogRecord(EPOCH, topic, PARTITION, offset, at, b"ana", encode(event))
            self.records.append(record)
            self.projector.apply([record])
            self.projector.flush()

    async def served_now(self, count: int = 1) -> list[ContextServed]:
        """The ``count`` served reports the reads published (in the background), once
        they were; they are then put in the log."""
        for _ in range(500):
            if len(self.sink.served()) >= count:
                break
            await asyncio.sleep(0.01)
        fresh = self.sink.served()
        self.apply(*fresh)
        return fresh


def _said(event_id: str, text: str) -> Event:
    return message(
        event_id=event_id, user_id="ana", session_id="s1", speaker="Ana", content=text,
        occurred_at=T0,
    )  # fmt: skip


@pytest.fixture
def world(tmp_path: Path) -> World:
    store = ProjectionStore(str(tmp_path / "live"))
    clock = FakeClock(T0)
    projector = Projector(store, consumer=SETTINGS.consumer_group, clock=clock)
    sink = Kept()
    settings = Settings(data=str(tmp_path), embedder="none")
    ops = Operations(settings, sink=sink, store=store, clock=clock)
    found = World(tmp_path, store, projector, clock, [], {}, sink, ops)
    found.apply(
        _said("m1", "Maria helped me move to Porto last week."),
        _said("m2", LONG),
        _said("m3", "My cat Miso hates the new flat in Porto."),
        RememberFact(
            event_id="r1", user_id="ana", content="Maria is Ana's sister.", occurred_at=T0
        ),
    )
    return found


def _rows(store: ProjectionStore) -> list[dict[str, Any]]:
    return store.scan(SERVED).to_pylist()


def test_a_block_is_recorded_as_ids_and_rendered_again_byte_for_byte(world: World) -> None:
    async def run() -> None:
        ops = world.ops
        block = await ops.reads.context("ana", "Who is Maria and what did she find in Porto?",
                                  caller=AGENT)  # fmt: skip
        assert block.context is not None
        [served] = await world.served_now()
        # ids, shapes and the digest: none of the memories' words
        assert served.digest == answer_digest(block.context)
        assert (served.agent, served.session_id, served.door) == (
            AGENT.agent,
            AGENT.session_id,
            "api",
        )
        sections = {line.section for line in served.lines}
        assert {"facts", "entities", "temporal"} <= sections, sections
        assert any(line.cut is not None for line in served.lines)  # the long turn's window
        raw = encode(served).decode()
        for words in ("Rua Nova", "sister", "hates the new flat"):
            assert words not in raw.replace(served.question, "")
        assert served.as_of is not None  # the position the read reflected

        listed = await ops.reads.served("ana")
        assert [s["served_id"] for s in listed] == [served.event_id]
        assert listed[0]["agent"] == "claude-code"
        used = {line.memory_id for line in served.lines}
        for memory_id in used:
            assert [s["served_id"] for s in await ops.reads.served("ana", memory_id)] == [
                served.event_id
            ]
        assert await ops.reads.served("ana", "ep-never-served") == []

        again = await ops.reads.served_answer("ana", served.event_id)
        assert again["rebuilt"]["text"] == block.context
        assert again["rebuilt"]["matches"] is True

        # Maria is met again, and her profile's counts change: the record still says
        # what the agent saw then
        world.apply(_said("m4", "Maria visited again and brought Miso a toy."))
        later = await ops.reads.served_answer("ana", served.event_id)
        assert later["rebuilt"]["text"] == block.context
        fresh = await ops.reads.context("ana", "Who is Maria and what did she find in Porto?")
        assert fresh.context != block.context  # the entity line moved on

    asyncio.run(run())


def test_an_assistants_turn_is_shown_as_its_and_rendered_again_so(world: World) -> None:
    """A block quotes the assistant's long reply after who said it, not as something
    the user told; the served record renders it again the same, from the row."""
    reply = (
        "For the move itself: book the van two weeks ahead, label every box with the room "
        "it goes to, keep a box of kettle, mugs and chargers apart, and read the meters in "
        "the new flat in Porto on the first day."
    )
    said = {"user_id": "ana", "session_id": "s1", "role": "assistant", "occurred_at": T0}
    world.apply(message(event_id="a1", content=reply, **said))

    async def run() -> None:
        block = await world.ops.reads.context("ana", "How do I book the van for the move?",
                                              caller=AGENT)  # fmt: skip
        assert block.context is not None
        assert f"[episode] assistant: {reply}" in block.context
        [served] = await world.served_now()
        again = await world.ops.reads.served_answer("ana", served.event_id)
        assert again["rebuilt"]["text"] == block.context and again["rebuilt"]["matches"]

    asyncio.run(run())


def test_a_replay_into_a_fresh_folder_renders_every_served_answer_again(world: World) -> None:
    async def run() -> None:
        ops = world.ops
        given: dict[str, str] = {}
        queries = ("Who helped Ana move?", "What did Maria find in Porto?", "Who is Maria?")
        for query in queries:
            block = await ops.reads.context("ana", query, caller=AGENT)
            assert block.context is not None
            found = await ops.reads.search(SearchRequest(user_id="ana", query=query), AGENT)
            given[f"context {query}"] = block.context
            given[f"search {query}"] = search_text((r.memory_id, r.content) for r in found.results)
        past = await ops.reads.context("ana", "Who is Maria?", as_of=world.clock().isoformat(),
                                 caller=AGENT)  # fmt: skip
        assert past.context is not None
        served = await world.served_now(2 * len(queries) + 1)
        assert len(served) == 2 * len(queries) + 1
        assert served[-1].asked_as_of is not None
        world.apply(_said("m5", "Maria and I painted the flat in Porto."))

        store = ProjectionStore(str(world.folder / "replayed"))
        replay = Projector(store, consumer=SETTINGS.consumer_group, clock=FakeClock(T0))
        replay.apply([LogRecord(r.log_epoch, r.topic, r.partition, r.offset, r.timestamp,
                                r.key, r.value) for r in world.records])  # fmt: skip
        replay.flush()  # one batch: the fresh folder has one moment, after everything
        settings = Settings(data=str(world.folder / "replayed"), embedder="none")
        rebuilt = Operations(settings, sink=Kept(), store=store, clock=world.clock)
        texts = [given[f"{s.answer} {s.question}"] for s in served[:-1]] + [past.context]
        for record, text in zip(served, texts, strict=True):
            answer = await rebuilt.reads.served_answer("ana", record.event_id)
            assert answer["rebuilt"]["text"] == text, record.question
            assert answer["rebuilt"]["digest"] == record.digest
            assert answer["rebuilt"]["matches"] is True

    asyncio.run(run())


def test_only_callers_answers_are_recorded_and_never_when_switched_off(
    world: World, tmp_path: Path
) -> None:
    async def run() -> None:
        ops = world.ops
        await ops.reads.context("ana", "Who is Maria?")  # a read of no caller: a probe, a page
        await ops.reads.search(SearchRequest(user_id="ana", query="Maria"))
        await ops.reads.context("ana", "zebra quantum", caller=AGENT)  # nothing to serve
        await asyncio.sleep(0.1)
        assert world.sink.served() == []
        quiet = Operations(
            Settings(data=str(tmp_path), embedder="none", served_log=False),
            sink=world.sink, store=world.store, clock=world.clock,
        )  # fmt: skip
        await quiet.reads.context("ana", "Who is Maria?", caller=AGENT)
        await asyncio.sleep(0.1)
        assert world.sink.served() == []
        with pytest.raises(NotFound):
            await ops.reads.served_answer("ana", "no-such-answer")

    asyncio.run(run())


def test_an_answer_whose_moment_is_gone_is_rendered_from_memory_as_it_stands(
    world: World,
) -> None:
    """Upkeep (or an erasure of another user) removed the table versions the answer's
    moment names: it is rendered from memory now, and says no moment was used."""

    async def run() -> None:
        block = await world.ops.reads.context("ana", "Who is Maria?", caller=AGENT)
        [served] = await world.served_now()
        world.apply(_said("m5", "Tomas moved to Braga."))  # a newer version of every table
        with warnings.catch_warnings():  # "removes every version but the latest": meant
            warnings.simplefilter("ignore", UserWarning)
            for name in STATE_TABLES:
                world.store.table(name).optimize(
                    cleanup_older_than=timedelta(0), delete_unverified=True
                )
        again = await world.ops.reads.served_answer("ana", served.event_id)
        assert again["rebuilt"]["read_as_of"] is None
        assert again["rebuilt"]["text"] == block.context  # nothing it quotes changed
        assert again["rebuilt"]["matches"] is True

    asyncio.run(run())


def test_an_answer_whose_moment_loses_its_files_while_read_is_rendered_from_now(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The moment's versions were there when pinned, and its files went while they were
    read (upkeep in between): the answer is rendered from memory as it stands now."""
    from memstream.application import served_log

    async def run() -> None:
        block = await world.ops.reads.context("ana", "Who is Maria?", caller=AGENT)
        [served] = await world.served_now()
        rows_of = served_log.served_rows

        def files_gone_then(store: ProjectionStore, *args: Any) -> Any:
            if store is not world.store:  # the pinned view of the moment
                raise RuntimeError("lance error: Not found: memories.lance/data/x.lance")
            return rows_of(store, *args)

        monkeypatch.setattr(served_log, "served_rows", files_gone_then)
        again = await world.ops.reads.served_answer("ana", served.event_id)
        assert again["rebuilt"]["read_as_of"] is None
        assert again["rebuilt"]["text"] == block.context and again["rebuilt"]["matches"]

    asyncio.run(run())


def test_an_erasure_takes_what_was_served_and_old_answers_are_not_kept(world: World) -> None:
    async def run() -> None:
        await world.ops.reads.context("ana", "Who is Maria?", caller=AGENT)
        [served] = await world.served_now()
        assert len(_rows(world.store)) == 1
        # what the log keeps is kept for the retention only, on a replay too
        kept = served_records([served], served.served_at + timedelta(days=29), timedelta(days=30))
        assert [r["served_id"] for r in kept] == [served.event_id]
        assert served_records([served], served.served_at + timedelta(days=31),
                              timedelta(days=30)) == []  # fmt: skip
        world.store.upkeep.prune_served(served.served_at + timedelta(seconds=1))
        assert _rows(world.store) == []
        world.apply(decode(encode(served)))  # the same event again: a row, once
        world.apply(decode(encode(served)))
        assert len(_rows(world.store)) == 1
        removed = world.store.erase_user("ana")
        assert removed[SERVED] == 1
        assert await world.ops.reads.served("ana") == []

    asyncio.run(run())


def test_the_api_records_the_agent_its_headers_name(world: World) -> None:
    app = create_app(world.ops, with_mcp=False)
    with TestClient(app, base_url="http://127.0.0.1:8787") as api:
        _ask_as_an_agent(api, world)


def _ask_as_an_agent(api: TestClient, world: World) -> None:
    asked = {"user_id": "ana", "query": "Who is Maria?"}
    headers = {"Memstream-Agent": "codex", "Memstream-Session": "codex-42"}
    assert api.post("/v1/context", json=asked, headers=headers).status_code == 200
    bad = api.post("/v1/context", json=asked, headers={"Memstream-Agent": "a b<script>"})
    assert bad.status_code == 422
    assert "<script>" not in bad.text and "Memstream-Agent" in bad.text
    for _ in range(200):
        if world.sink.served():
            break
        time.sleep(0.01)
    [served] = world.sink.served()
    assert (served.agent, served.session_id, served.door) == ("codex", "codex-42", "api")
    world.apply(served)
    listed = api.get("/v1/served", params={"user_id": "ana"}).json()["served"]
    assert [s["served_id"] for s in listed] == [served.event_id]
    one = api.get(f"/v1/served/{served.event_id}", params={"user_id": "ana"}).json()
    assert one["rebuilt"]["matches"] is True
    assert json.dumps(one["lines"])  # JSON values
    assert api.get("/v1/served/nope", params={"user_id": "ana"}).status_code == 404

    # the console: what each agent was shown, one answer as read, where a memory was used
    listing = api.get("/console/users/ana/served")
    assert listing.status_code == 200 and "codex-42" in listing.text
    assert f"/console/users/ana/served/{served.event_id}" in listing.text
    page = api.get(f"/console/users/ana/served/{served.event_id}").text
    assert "byte for byte what was given" in page
    memory = next(line.memory_id for line in served.lines if not line.names)
    used = api.get(f"/console/users/ana/memories/{memory}").text
    assert f"/console/users/ana/served/{served.event_id}" in used and "codex" in used


def test_mcp_records_the_agent_its_client_names_itself(world: World) -> None:
    from mcp import Client
    from mcp.types import Implementation

    from memstream.mcp.scope import Scope
    from memstream.mcp.server import memory_server

    async def run() -> None:
        server = memory_server(world.ops, Scope("ana"))
        named = Implementation(name="claude-desktop", version="1.0")
        async with Client(server, client_info=named) as client:
            block = await client.call_tool("get_context", {"query": "Who is Maria?"})
            found = await client.call_tool("search_memory", {"query": "Maria"})
        assert not block.is_error and not found.is_error
        served = await world.served_now(2)
        assert sorted(s.answer for s in served) == ["context", "search"]
        assert {(s.door, s.agent) for s in served} == {("mcp", "claude-desktop")}
        context = next(s for s in served if s.answer == "context")
        assert context.digest == answer_digest(block.structured_content["context"])

    asyncio.run(run())


def test_mcp_records_only_the_results_it_shows(world: World) -> None:
    """A search narrowed to one entity (and to ``limit``) after the search records what
    the agent was shown, not every result the search found: the lines, the digest and
    the memories reported as accessed are the answer's."""
    from mcp import Client
    from mcp.types import Implementation

    from memstream.mcp.scope import Scope
    from memstream.mcp.server import memory_server

    async def run() -> None:
        server = memory_server(world.ops, Scope("ana"))
        named = Implementation(name="claude-desktop", version="1.0")
        async with Client(server, client_info=named) as client:
            found = await client.call_tool(
                "search_memory", {"query": "Porto Maria Miso", "entity": "Miso", "limit": 1}
            )
        assert not found.is_error
        shown = [r["memory_id"] for r in found.structured_content["results"]]
        assert len(shown) == 1
        (served,) = await world.served_now(1)
        assert [line.memory_id for line in served.lines] == shown
        everything = await world.ops.reads.search(
            SearchRequest(user_id="ana", query="Porto Maria Miso")
        )
        assert len(everything.results) > 1, "the search itself finds more than was shown"
        accessed = [e for e in world.sink.events if e.type == "memory_accessed"]
        assert accessed[0].memory_ids == shown

    asyncio.run(run())
