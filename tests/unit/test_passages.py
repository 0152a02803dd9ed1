"""Long turns are passages: a turn longer than the embedder reads is embedded as its
passages too, still one memory; search finds it by the passage that holds the answer
and says where that passage is; a context block quotes the lines of it that share the
query's words, not the whole turn; counts of vectors leave passages out; archiving a
turn takes its passages along; an identifier in camel case is found by its parts.

Real LanceDB tables filled by the projector, the MiniLM embedder, the embedder agent's
own functions."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memstream.adapters.embedders import MiniLMEmbedder, QueryEmbeddingCache
from memstream.cli.render import search_results
from memstream.events.codec import decode, encode
from memstream.events.vocabulary import EmbeddingComputed
from memstream.jobs.embedding_agent import (
    PASSAGES_PER_CALL,
    SessionWindow,
    embed_passages,
    embed_turns,
    embed_values,
    passages_of,
)
from memstream.jobs.embedding_backfill import missing_embedding_events
from memstream.policies.ranking_weights import RankingWeights
from memstream.projections.episodes import memory_id_for
from memstream.projections.vectors import decode_vector
from memstream.queries.context.gathering import _excerpt
from memstream.queries.search.searcher import Searcher, SearchRequest, SearchResponse
from memstream.queries.search.term_index import words
from memstream.queries.stats import stats
from memstream.storage.lance.store import ProjectionStore
from memstream.storage.lance.tables import VECTORS
from memstream.storage.log_records import LogRecord
from memstream.streams.projector import Projector
from memstream.testing import FakeClock, message
from memstream.text.passages import (
    LONG_TURN_CHARACTERS,
    OWN_VECTORS,
    PASSAGE_CHARACTERS,
    passage_id,
    passage_of,
    passages,
)

AT = datetime(2025, 5, 6, 10, tzinfo=UTC)

_SECTIONS = [
    "## Shutdown\n\nCall Shutdown with a context of its own and a timeout of 25 seconds, "
    "because the orchestrator kills the pod 30 seconds after the terminate signal. Add a "
    "short preStop sleep so the endpoints are removed before the listener closes, and make "
    "the readiness probe fail as soon as the root context is cancelled.",
    "## Workers\n\nA fixed pool of eight goroutines reads jobs from a channel. Stop feeding "
    "the channel first, then close it and wait for the group, so no accepted job is lost. "
    "Each job waits mostly on the renderer and the tax service, not on the processor, so "
    "measure before raising the number of goroutines.",
    "## Retries\n\nRetry timeouts, connection resets, 429 and 503 answers only, never a 400. "
    "Back off exponentially with full jitter from a base delay of 200 milliseconds, capped "
    "at 30 seconds, for at most six attempts; without the jitter every failed worker "
    "retries at the same moment and the provider sees the same spike again.",
    "## Metrics\n\nExpose the Prometheus metrics on a separate listener on port 9102, so a "
    "scrape never competes with customer traffic and the port can stay inside the "
    "cluster. Count the jobs in flight, the retries by reason, and the job duration as a "
    "histogram.",
    "## Idempotency\n\nSend an idempotency key with each payment call and record processed "
    "keys in Redis with SET NX and a 24-hour expiry before acknowledging the job, which "
    "covers the provider's own retry window. When the SET NX fails, the job already ran: "
    "log it and acknowledge it without charging the customer again.",
    "## Logging\n\nUse the structured JSON handler and put the invoice id and the request "
    "id on every line, so an incident reads as one story per invoice. Log each retry at "
    "debug level and the final failure at warning level.",
]
LONG_ANSWER = "\n\n".join(
    f"{section}\n\n```go\nfunc step{n}(ctx context.Context, cfg Config) error {{\n"
    f"    if err := ctx.Err(); err != nil {{\n        return err\n    }}\n"
    f"    return nil\n}}\n```"
    for n, section in enumerate(_SECTIONS)
)
SHORT_TURNS = [
    "I'm building an invoice service in Go on Kubernetes.",
    "We also ship a small admin page written in React.",
    "My manager wants the service live before the end of June.",
]


def _asked(searcher: Searcher, query: str) -> SearchResponse:
    """The best result for ``query`` of the user with the long answer."""
    return searcher.search(SearchRequest(user_id="ingrid", query=query, k=1))


def _record(offset: int, value: bytes) -> LogRecord:
    return LogRecord("e", "t", 0, offset, AT, None, value)


@pytest.fixture(scope="module")
def embedder() -> MiniLMEmbedder:
    return MiniLMEmbedder(threads=1)


@pytest.fixture(scope="module")
def history(
    tmp_path_factory: pytest.TempPathFactory, embedder: MiniLMEmbedder
) -> Iterator[tuple[ProjectionStore, Searcher, list[bytes]]]:
    """A user's short turns and one long answer, applied with the vectors the embedder
    agent makes of them."""
    store = ProjectionStore(str(tmp_path_factory.mktemp("passages") / "projections"))
    projector = Projector(store, "test", clock=FakeClock(AT))
    turns = [
        message(event_id=f"t{n}", user_id="ingrid", content=text, role="user")
        for n, text in enumerate(SHORT_TURNS)
    ]
    turns.append(
        message(event_id="answer", user_id="ingrid", content=LONG_ANSWER, role="assistant")
    )
    values = [encode(t) for t in turns]
    embedded = [value for _, value in embed_values(values, embedder, AT)]
    projector.apply([_record(n, v) for n, v in enumerate([*values, *embedded])])
    store.upkeep.ensure_indexes()
    searcher = Searcher(
        store, QueryEmbeddingCache(embedder), embedder.model, clock=FakeClock(AT), cache_rows=0
    )
    yield store, searcher, embedded


def test_a_long_turn_is_cut_at_paragraphs_into_passages_the_embedder_reads_whole() -> None:
    assert len(LONG_ANSWER) > LONG_TURN_CHARACTERS
    found = passages(LONG_ANSWER)
    assert len(found) >= 3
    for p in found:
        text = LONG_ANSWER[p.start : p.end]
        assert len(text) <= PASSAGE_CHARACTERS * 5 // 4
        assert text == text.strip()
    # a cut falls where a paragraph ends: every passage but the last ends one
    assert all(LONG_ANSWER[p.end : p.end + 2] == "\n\n" for p in found[:-1])
    assert passages(SHORT_TURNS[0]) == []


@given(
    st.lists(
        st.one_of(
            st.text(alphabet=st.characters(codec="utf-8"), max_size=300),
            st.sampled_from(["\n\n", "\n", ". ", " ", "x" * 900]),
        ),
        max_size=40,
    )
)
def test_passages_cover_a_turn_in_order_without_overlap(pieces: list[str]) -> None:
    content = "".join(pieces)
    found = passages(content)
    if len(content) <= LONG_TURN_CHARACTERS:
        assert found == []
        return
    assert [p.index for p in found] == list(range(len(found)))
    covered = 0
    for p in found:
        assert covered <= p.start < p.end <= len(content)
        assert content[covered : p.start].strip() == ""  # only blanks between passages
        assert p.end - p.start <= PASSAGE_CHARACTERS * 5 // 4
        covered = p.end
    assert content[covered:].strip() == ""
    assert passages(content) == found  # the same turn, the same passages


@given(st.from_regex(r"ep-[0-9a-f]{8}", fullmatch=True), st.integers(0, 10_000))
def test_a_passage_row_names_its_memory_and_index(memory_id: str, index: int) -> None:
    assert passage_of(passage_id(memory_id, index)) == (memory_id, index)
    assert passage_of(memory_id) == (memory_id, None)


def test_the_embedder_makes_a_vector_per_passage_beside_the_turns_own(
    history: tuple[ProjectionStore, Searcher, list[bytes]], embedder: MiniLMEmbedder
) -> None:
    store, _, embedded = history
    events = [decode(v) for v in embedded]
    assert all(isinstance(e, EmbeddingComputed) for e in events)
    answer = memory_id_for("ingrid", "answer")
    ids = [e.memory_id for e in events if isinstance(e, EmbeddingComputed)]
    expected = [passage_id(answer, p.index) for p in passages(LONG_ANSWER)]
    # and the short turns pooled with earlier ones, said alone (embedding_agent.said_alone)
    alone = [passage_id(memory_id_for("ingrid", f"t{n}"), 0) for n in range(1, len(SHORT_TURNS))]
    assert [i for i in ids if "+p" in i] == [*alone, *expected]
    assert store.count(VECTORS) == 4 + len(alone) + len(expected)
    assert store.count(VECTORS, OWN_VECTORS) == 4  # one memory, one vector of its own
    assert stats(store, "ingrid")["embedding_lag"] == 0
    # the backfill sees nothing missing: passages do not hide a memory without a vector
    assert list(missing_embedding_events(store, embedder, AT, 2, 16)) == []


@pytest.mark.parametrize(
    ("query", "said"),
    [
        ("which port do the prometheus metrics listen on", "port 9102"),
        ("how long may the idempotency keys live in redis", "24-hour expiry"),
        ("what base delay do the retries back off from", "200 milliseconds"),
    ],
)
def test_search_finds_a_long_turn_by_the_passage_that_says_it(
    history: tuple[ProjectionStore, Searcher, list[bytes]],
    embedder: MiniLMEmbedder,
    query: str,
    said: str,
) -> None:
    store, _, _ = history
    # by the vectors alone (BM25 could find the words anywhere in the turn), and no
    # neighbour's share (in a history of four turns, every turn is the answer's neighbour)
    by_vectors = Searcher(
        store,
        QueryEmbeddingCache(embedder),
        embedder.model,
        weights=RankingWeights(full_text=0.0, entity=0.0, neighbour_share=0.0),
        clock=FakeClock(AT),
    )
    found = by_vectors.search(SearchRequest(user_id="ingrid", query=query, k=1)).results
    assert [r.memory_id for r in found] == [memory_id_for("ingrid", "answer")]
    passage = found[0].passage
    assert passage is not None
    assert said in found[0].content[passage.start : passage.end]
    assert said in _excerpt(found[0], query)
    assert len(_excerpt(found[0], query)) < len(LONG_ANSWER) / 3  # not the whole turn


def test_a_long_turn_found_by_its_words_quotes_the_lines_that_share_them(
    history: tuple[ProjectionStore, Searcher, list[bytes]],
) -> None:
    _, searcher, _ = history
    result = _asked(searcher, "structured JSON handler invoice id").results[0]
    unmatched = result.model_copy(update={"passage": None})
    quoted = _excerpt(unmatched, "structured JSON handler invoice id")
    assert quoted.startswith("… Use the structured JSON handler and put the invoice id")
    assert len(quoted) <= 500 + 4  # a few lines, not the turn


def test_a_camel_case_identifier_is_found_by_its_parts() -> None:
    assert {"getuserbyid", "get", "user", "id"} <= set(words("call getUserById first"))
    assert {"http", "server"} <= set(words("HTTPServer"))
    assert words("Paris NASA max_retries") == ["pari", "nasa", "max", "retri"]


def test_the_command_line_shows_the_passage_a_long_turn_was_found_by(
    history: tuple[ProjectionStore, Searcher, list[bytes]],
) -> None:
    _, searcher, _ = history
    response = _asked(searcher, "prometheus metrics listener port 9102")
    [found] = response.results
    assert found.passage is not None and found.passage.start > 0
    line = search_results(response.model_dump(mode="json"))  # as the API answers it
    assert "port 9102" in line and "… ## Metrics" in line
    assert "## Shutdown" not in line  # the turn's opening is not shown


def test_the_turns_and_passages_agents_together_make_what_one_call_made(
    embedder: MiniLMEmbedder,
) -> None:
    """The turns agent embeds each turn (no passages), the passages agent the long
    turns' passages in calls of at most ``PASSAGES_PER_CALL``: together the same events,
    the same vectors, as when one call made both."""
    turns = [message(event_id=f"s{n}", user_id="ola", content=t) for n, t in enumerate(SHORT_TURNS)]
    turns.append(message(event_id="long", user_id="ola", content=LONG_ANSWER * 9))
    values = [encode(t) for t in turns]
    whole = {decode(v).event_id: decode(v) for _, v in embed_values(values, embedder, AT)}
    own = [decode(v) for _, v in embed_turns(values, embedder, AT, SessionWindow())]
    work = passages_of(values)
    assert len(work) > PASSAGES_PER_CALL
    parts = [
        decode(v)
        for start in range(0, len(work), PASSAGES_PER_CALL)
        for _, v in embed_passages(work[start : start + PASSAGES_PER_CALL], embedder, AT)
    ]
    said_alone = {passage_id(memory_id_for("ola", f"s{n}"), 0) for n in range(1, len(SHORT_TURNS))}
    assert {e.memory_id for e in own if "+p" in e.memory_id} == said_alone  # no passage
    split = {e.event_id: e for e in [*own, *parts]}
    assert split.keys() == whole.keys()
    for event_id, event in split.items():
        assert isinstance(event, EmbeddingComputed)
        expected = whole[event_id]
        assert isinstance(expected, EmbeddingComputed)
        mine, theirs = decode_vector(event.vector), decode_vector(expected.vector)
        assert float(mine @ theirs) > 0.999, event.memory_id
