"""Where a search's relevance floor (``min_similarity``) should sit: what it keeps of the
answers and how often it says "nothing relevant" when nothing is.

Each conversation of ``tests/fixtures/conversations`` is one user's history: its turns
are applied by the projector with the vectors the embedder agent makes (MiniLM, long
turns as passages too) to real LanceDB tables in a temporary folder, and searched
in-process (episodes, no facts: consolidation is not run). Then, for each floor:

- *answered*: the share of the corpus's questions, asked of their own user, whose gold
  turn is still among the first 10 results;
- *nothing relevant*: the share of the questions asked of every *other* user (whose
  history does not hold the answer) that get no result at all.

With ``--context``, the floor is the context block's cut-off instead
(:mod:`memstream.queries.context.relevance`): the search a block gathers from
(``CONTEXT_DEPTH`` deep, no ``min_similarity``) keeps a result when it says enough of
the question's words (``WORD_SHARE`` of their weight) or a name it names, or is at
least the floor near it in meaning; *answered* is the
gold turn among the first 10 kept, *nothing relevant* none kept. A floor of 2 keeps by
words and names alone.

The background lanes do not run (nothing but this process embeds or searches).

Usage: python bench/relevance_floor.py [--floors 0.2,0.25,...] [--context]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from corpus import read_corpus

from memstream.adapters.embedders import MiniLMEmbedder, QueryEmbeddingCache
from memstream.events.codec import encode, from_document
from memstream.events.vocabulary import MessageEvent
from memstream.jobs.embedding_agent import SessionWindow, embed_values
from memstream.projections.episodes import memory_id_for
from memstream.queries.context.gathering import CONTEXT_DEPTH
from memstream.queries.context.relevance import bearing_results, question_words
from memstream.queries.search.searcher import Searcher, SearchRequest
from memstream.storage.lance.store import ProjectionStore
from memstream.storage.log_records import LogRecord
from memstream.streams.projector import Projector

FLOORS = "0.15,0.2,0.25,0.3,0.35,0.4,0.45,0.5"
#: ... and with ``--context``, 2: words and names alone (no meaning is that near).
WORDS_ALONE = "2"


OTHERS = 5


def _messages() -> dict[str, list[MessageEvent]]:
    """Each conversation's turns as its own user's message events (the user id is the
    conversation's)."""
    by_user: dict[str, list[MessageEvent]] = {}
    for t in read_corpus().turns:
        event = from_document(
            {
                "event_id": t["event_id"].replace(":", "-"),
                "user_id": t["stream_id"],
                "session_id": t["session_id"],
                "role": t["role"],
                "speaker": t["speaker"],
                "content": t["content"],
                "occurred_at": t["timestamp"] + "Z",
            }
        )
        assert isinstance(event, MessageEvent)
        by_user.setdefault(t["stream_id"], []).append(event)
    return by_user


def _history(store: ProjectionStore, end: datetime, embedder: MiniLMEmbedder) -> int:
    """Apply every conversation with its vectors; the number of turns."""
    projector = Projector(store, "bench", clock=lambda: end)
    offset = turns = 0
    for events in _messages().values():
        values = [encode(e) for e in events]
        embedded = [v for _, v in embed_values(values, embedder, end, SessionWindow())]
        records = []
        for value in [*values, *embedded]:
            records.append(LogRecord("bench", "t", 0, offset, end, None, value))
            offset += 1
        projector.apply(records)
        turns += len(events)
    store.upkeep.ensure_indexes()
    return turns


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--floors", default=None)
    parser.add_argument(
        "--context",
        action="store_true",
        help="the context block's cut-off instead: a result is kept when it shares a word "
        "or a name with the question, or is at least the floor near it in meaning",
    )
    args = parser.parse_args()
    chosen = args.floors or (f"{FLOORS},{WORDS_ALONE}" if args.context else FLOORS)
    floors: list[float | None] = [None, *(float(f) for f in chosen.split(","))]
    corpus = read_corpus()
    names = sorted(corpus.kinds)
    end = max(datetime.fromisoformat(t["timestamp"] + "+00:00") for t in corpus.turns)
    embedder = MiniLMEmbedder(threads=1)
    with tempfile.TemporaryDirectory(prefix="memstream-floor-") as tmp:
        store = ProjectionStore(str(Path(tmp) / "projections"))
        started = time.perf_counter()
        turns = _history(store, end, embedder)
        print(
            f"applied {turns} turns of {len(names)} users in {time.perf_counter() - started:.1f} s"
        )
        searcher = Searcher(
            store,
            # queries as the API embeds them (memstream.adapters.minilm_graph)
            QueryEmbeddingCache(MiniLMEmbedder(threads=1, queries=True)),
            embedder.model,
            clock=lambda: end,
            cache_rows=100_000,
        )

        def found(user: str, question: str, floor: float | None) -> list[str]:
            if args.context:  # as a block gathers: CONTEXT_DEPTH deep, then the cut-off
                request = SearchRequest(user_id=user, query=question, k=CONTEXT_DEPTH, now=end)
                asked = question_words(question)
                results = searcher.search(request).results
                kept = bearing_results(results, question, asked, floor)
                return [r.memory_id for r in kept[:10]]
            request = SearchRequest(
                user_id=user, query=question, k=10, now=end, min_similarity=floor
            )
            return [r.memory_id for r in searcher.search(request).results]

        print(
            f"{len(corpus.questions)} questions asked of their own user, and of the "
            f"{OTHERS} users after it (whose histories do not hold the answer)\n"
        )
        heads = ("answered (gold in top 10)", "nothing relevant (other users)")
        print(f"{'floor':>6}  {heads[0]:>26}  {heads[1]:>31}")
        for floor in floors:
            answered = empty = asked = 0
            for q in corpus.questions:
                own = q["stream_id"]
                gold = {memory_id_for(own, e.replace(":", "-")) for e in q["evidence_event_ids"]}
                answered += bool(gold.intersection(found(own, q["question"], floor)))
                at = names.index(own)
                for other in (names[(at + n) % len(names)] for n in range(1, OTHERS + 1)):
                    asked += 1
                    empty += not found(other, q["question"], floor)
            shown = "none" if floor is None else f"{floor:.2f}"
            print(
                f"{shown:>6}  {_share(answered, len(corpus.questions)):>26}  "
                f"{_share(empty, asked):>31}",
                flush=True,
            )


def _share(count: int, total: int) -> str:
    return f"{count / total:.3f} ({count}/{total})"


if __name__ == "__main__":
    main()
