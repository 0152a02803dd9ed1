"""Ranking that does not need a memory's vector to be fair: a message holding the
query's rare word, whose vector is still being computed, is ranked as near as its words
say, not under memories that only the vector list brought with cosines of a few
hundredths. Real LanceDB tables filled by the projector, vectors made by the embedder
agent's own function (MiniLM), searched from the tables and from the in-memory view."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

import pytest

from memstream.adapters.embedders import MiniLMEmbedder, QueryEmbeddingCache
from memstream.events.codec import encode
from memstream.jobs.embedding_agent import embed_values
from memstream.queries.search.searcher import Searcher, SearchRequest
from memstream.storage.lance.store import ProjectionStore
from memstream.storage.log_records import LogRecord
from memstream.streams.projector import Projector
from memstream.testing import FakeClock, message

AT = datetime(2026, 11, 29, 9, tzinfo=UTC)
COMMON = [
    "river",
    "coffee",
    "piano",
    "garden",
    "train",
    "letter",
    "window",
    "market",
    "winter",
    "bread",
]
RARE = "zyxquorbl"


def _messages() -> list[bytes]:
    """1,000 messages of ten common words for ten users; user-7's last ends in the rare
    word."""
    rng = random.Random(7)
    values = []
    for n in range(1_000):
        user = f"user-{n % 10}"
        words = rng.sample(COMMON, 6)
        if n == 997:  # user-7's last
            words.append(RARE)
        values.append(
            encode(message(event_id=f"m{n}", user_id=user, session_id=f"s-{user}",
                           content=" ".join(words), role="user",
                           occurred_at=AT - timedelta(minutes=1_000 - n)))
        )  # fmt: skip
    return values


@pytest.mark.parametrize("cache_rows", [0, 100_000], ids=["tables", "in-memory view"])
def test_the_rare_words_message_is_first_before_and_after_its_vector(
    tmp_path_factory: pytest.TempPathFactory, cache_rows: int
) -> None:
    store = ProjectionStore(str(tmp_path_factory.mktemp("fair") / "projections"))
    projector = Projector(store, "test", clock=FakeClock(AT))
    embedder = MiniLMEmbedder(threads=1)
    values = _messages()
    mine = [v for n, v in enumerate(values) if n % 10 == 7]
    offset = 0

    def apply(batch: list[bytes]) -> None:
        nonlocal offset
        projector.apply(
            [LogRecord("e", "t", 0, offset + i, AT, None, v) for i, v in enumerate(batch)]
        )
        offset += len(batch)

    apply(values)
    apply([v for _, v in embed_values(mine[:36], embedder, AT)])  # 64 of user-7 pending

    def first() -> str:
        searcher = Searcher(store, QueryEmbeddingCache(embedder), embedder.model,
                            clock=FakeClock(AT), cache_rows=cache_rows)  # fmt: skip
        found = searcher.search(SearchRequest(user_id="user-7", query=RARE, k=5)).results
        return found[0].content

    assert first().endswith(RARE)
    apply([v for _, v in embed_values(mine[36:], embedder, AT)])  # every vector in
    assert first().endswith(RARE)
