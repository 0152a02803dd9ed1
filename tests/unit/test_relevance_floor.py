"""A search asked for a floor says "nothing relevant" rather than listing the k least
unrelated memories: every result carries its cosine similarity to the query, a floor
leaves out what is less similar before the first k are taken, and the command line and
MCP say so when nothing is left. Real LanceDB tables filled by the projector with the
vectors the embedder agent makes (MiniLM), the MCP SDK's own client."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import Any

import pytest
from mcp import Client

from memstream.adapters.embedders import MiniLMEmbedder, QueryEmbeddingCache
from memstream.application import Operations
from memstream.cli.render import search_results
from memstream.events.codec import encode
from memstream.jobs.embedding_agent import embed_values
from memstream.mcp.scope import Scope
from memstream.mcp.server import memory_server
from memstream.queries.search.searcher import Searcher, SearchRequest, SearchResponse
from memstream.settings import Settings
from memstream.storage.lance.store import ProjectionStore
from memstream.storage.log_records import LogRecord
from memstream.streams.projector import Projector
from memstream.testing import FakeClock, message

AT = datetime(2025, 3, 2, 9, tzinfo=UTC)
SAID = [
    "My daughter Lena started violin lessons on Thursdays.",
    "We adopted a grey cat called Pixel from the shelter.",
    "I'm training for the Berlin half marathon in April.",
    "Our kitchen renovation ran over budget by four thousand euros.",
]
UNRELATED = "which load balancer algorithm spreads connections by least latency"


@pytest.fixture(scope="module")
def deployment(tmp_path_factory: pytest.TempPathFactory) -> tuple[Searcher, Operations]:
    data = tmp_path_factory.mktemp("floor")
    store = ProjectionStore(str(data / "projections"))
    embedder = MiniLMEmbedder(threads=1)
    values = [
        encode(message(event_id=f"m{n}", user_id="ana", content=text, role="user"))
        for n, text in enumerate(SAID)
    ]
    embedded = [value for _, value in embed_values(values, embedder, AT)]
    Projector(store, "test", clock=FakeClock(AT)).apply(
        [LogRecord("e", "t", 0, n, AT, None, v) for n, v in enumerate([*values, *embedded])]
    )
    searcher = Searcher(store, QueryEmbeddingCache(embedder), embedder.model, clock=FakeClock(AT))
    operations = Operations(
        Settings(data=str(data), embedder="minilm"), store=store, clock=FakeClock(AT)
    )
    return searcher, operations


def _search(searcher: Searcher, query: str, **options: Any) -> SearchResponse:
    return searcher.search(SearchRequest(user_id="ana", query=query, k=4, **options))


def test_every_result_says_how_similar_it_is_to_the_query(
    deployment: tuple[Searcher, Operations],
) -> None:
    searcher, _ = deployment
    results = _search(searcher, "what instrument is my daughter learning").results
    assert results[0].content == SAID[0]
    similarities = [r.similarity for r in results]
    assert all(s is not None and -1.0 <= s <= 1.0 for s in similarities)
    assert similarities[0] == max(s for s in similarities if s is not None)


def test_a_floor_keeps_what_reaches_it_and_says_nothing_relevant_when_nothing_does(
    deployment: tuple[Searcher, Operations],
) -> None:
    searcher, _ = deployment
    unfloored = _search(searcher, UNRELATED)
    assert len(unfloored.results) == 4  # the four least unrelated, without a floor
    best = max(r.similarity or -1.0 for r in unfloored.results)
    nothing = _search(searcher, UNRELATED, min_similarity=round(best + 0.01, 3))
    assert nothing.results == []
    answered = nothing.model_dump(mode="json")  # as the API answers it
    said = search_results(answered, 0.3)
    assert said == "nothing relevant: no memory reaches similarity 0.3"
    assert search_results(answered) == "no results"
    kept = _search(searcher, "what instrument is my daughter learning", min_similarity=0.3)
    assert [r.content for r in kept.results][:1] == [SAID[0]]
    assert all(r.similarity is not None and r.similarity >= 0.3 for r in kept.results)
    assert len(kept.results) < 4  # the cat, the marathon and the kitchen are left out


def test_mcp_search_takes_a_floor_and_says_nothing_relevant(
    deployment: tuple[Searcher, Operations],
) -> None:
    _, operations = deployment

    async def run() -> list[Any]:
        async with Client(memory_server(operations, Scope("ana"))) as client:
            return [
                await client.call_tool(
                    "search_memory", {"query": UNRELATED, "min_similarity": 0.6}
                ),
                await client.call_tool(
                    "search_memory",
                    {"query": "what instrument is my daughter learning", "min_similarity": 0.3},
                ),
                await client.call_tool("search_memory", {"query": "x", "min_similarity": 2}),
            ]

    nothing, found, refused = asyncio.run(run())
    assert nothing.structured_content["results"] == []
    assert nothing.structured_content["note"] == (
        "nothing relevant: no memory reaches similarity 0.6"
    )
    assert found.structured_content["results"][0]["content"] == SAID[0]
    assert "note" not in found.structured_content
    assert refused.is_error and "min_similarity" in refused.content[0].text


def test_a_floor_out_of_range_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="min_similarity"):
        SearchRequest(user_id="ana", query="x", min_similarity=1.5)
