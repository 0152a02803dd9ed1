"""The project is a confidentiality boundary: every read of a project sees the user's
memories of no project and that project's, never another project's, through the one
scope rule (:func:`memstream.policies.scope.scope_filter`). A reader of no project
sees only the memories of no project in search and context, and the whole user in the
owner's views (a list, an entity's profile). Over a real store, every read operation the
doors call (search, context and each of its sections, entity profiles, lists)."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from memstream.application import Operations
from memstream.events.codec import encode
from memstream.events.vocabulary import Event, RememberFact
from memstream.queries.memory_list import ListRequest
from memstream.queries.search.searcher import SearchRequest
from memstream.settings import Settings
from memstream.storage.lance.store import ProjectionStore
from memstream.storage.log_records import LogRecord
from memstream.streams.projector import Projector
from memstream.testing import FakeClock, message

T0 = datetime(2024, 5, 1, 9, 0, tzinfo=UTC)
#: What each project (None: no project) holds, a secret word each, all about one person.
SAID = {
    "alpha": "Marta Silva leads the Lisbon office of project alpha, code ALPHAWORD.",
    "beta": "Marta Silva has a private salary code 7734-ZEBRA.",
    None: "Marta Silva prefers short meetings, said GLOBALWORD.",
}
SECRETS = {"alpha": "ALPHAWORD", "beta": "7734-ZEBRA", None: "GLOBALWORD"}
READERS = ["alpha", "beta", None]
#: The owner's views: without a project they show the whole user (as an export does).
OWNER_VIEWS = ("list", "entity")


@pytest.fixture(scope="module")
def operations(tmp_path_factory: pytest.TempPathFactory) -> Operations:
    folder = tmp_path_factory.mktemp("scope")
    store = ProjectionStore(str(folder / "projections"))
    events: list[Event] = [
        RememberFact(
            event_id=f"r-{project}",
            user_id="u",
            project_id=project,
            content=content,
            subject="Marta Silva",
            occurred_at=T0 + timedelta(minutes=i),
        )
        for i, (project, content) in enumerate(SAID.items())
    ]
    turns: list[Event] = [
        message(
            event_id=f"m-{project}",
            user_id="u",
            session_id=f"s-{project}",
            project_id=project,
            speaker="U",
            occurred_at=T0 + timedelta(hours=1, minutes=i),
            content=f"I met Marta Silva today about {SECRETS[project]}.",
        )
        for i, project in enumerate(SAID)
    ]
    records = [
        LogRecord("e1", "memory.commands", 0, i, T0, b"u", encode(e)) for i, e in enumerate(events)
    ] + [LogRecord("e1", "memory.messages", 0, i, T0, b"u", encode(e)) for i, e in enumerate(turns)]
    Projector(store, consumer="memstream", clock=FakeClock(T0)).apply(records)
    return Operations(
        Settings(data=str(folder), embedder="none"),
        store=store,
        clock=FakeClock(T0 + timedelta(days=2)),
    )


def _reads(ops: Operations, project: str | None) -> dict[str, Any]:
    """What each read door's operation answers a reader of ``project``."""
    query = "What do you know about Marta Silva?"
    search = asyncio.run(
        ops.reads.search(SearchRequest(user_id="u", project_id=project, query=query))
    )
    block = asyncio.run(ops.reads.context("u", query, project_id=project, budget_tokens=4000))
    listed = asyncio.run(ops.reads.list_memories(ListRequest(user_id="u", project_id=project)))
    profile = asyncio.run(ops.reads.entity("u", "Marta Silva", project_id=project))
    return {
        "search": [r.content for r in search.results],
        **{f"context {s['name']}": s["lines"] for s in block.sections},
        "list": [m["content"] for m in listed.memories],
        "entity": profile,
    }


@pytest.mark.parametrize("reader", READERS, ids=["alpha", "beta", "no-project"])
def test_a_reader_sees_its_project_and_the_unscoped_never_another_project(
    operations: Operations, reader: str | None
) -> None:
    reads = _reads(operations, reader)
    assert {"search", "list", "entity", "context facts", "context entities"} <= set(reads)
    for door, answer in reads.items():
        text = json.dumps(answer, default=str)
        whole_user = reader is None and door in OWNER_VIEWS
        for project, secret in SECRETS.items():
            visible = whole_user or project is None or project == reader
            if not visible:
                assert secret not in text, f"{door} of {reader!r} shows {project!r}'s memory"
            elif door in ("search", "list", "entity"):  # what is visible is found
                assert secret in text, f"{door} of {reader!r} misses {project!r}'s memory"
    entities = json.dumps(reads["context entities"], default=str)
    assert "Marta Silva (person" in entities


def test_the_issue_s_context_block_leaks_no_salary_code(operations: Operations) -> None:
    block = asyncio.run(
        operations.reads.context("u", "What do you know about Marta Silva?", project_id="alpha")
    )
    assert block.context is not None
    assert "ALPHAWORD" in block.context
    assert "7734-ZEBRA" not in block.context
