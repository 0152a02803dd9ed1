"""What the sign-code shortlist keeps of the exact nearest vectors, and what it saves.

Quality, on real vectors: every LoCoMo turn ("speaker: text") and every question is
embedded with the default MiniLM embedder; the turns of each half of the conversations
(tuning: conv-26, 30, 41, 42, 43; checking: the rest) and of all ten are pooled as one
user. For each question, the exact ten and fifty nearest turns (a float32 product over
all of them) are compared with the ten and fifty nearest among a shortlist nearest by
signs (:mod:`memstream.queries.search.sign_codes`), for shortlists of several shares of the
pool, the one search uses (``1/SHORTLIST_SHARE``) among them. A share, not a count, is
what carries over between pool sizes: the exact nearest's ranks by signs grow with the
pool.

Speed, on random unit vectors (the work does not depend on what they mean): per search,
one thread, the exact product and top fifty against the shortlist and its exact product,
for users of 20,000, 50,000 and 100,000 vectors. In process: nothing else runs.

Usage: python bench/sign_codes.py [--bench ../shared/bench]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from memstream.adapters.embedders import MiniLMEmbedder
from memstream.queries.search.sign_codes import (
    SHORTLIST_SHARE,
    shortlist,
    shortlist_size,
    sign_codes,
)

TUNING = {"conv-26", "conv-30", "conv-41", "conv-42", "conv-43"}
SHARES = (50, 25, SHORTLIST_SHARE, 10)


def kept(turns: np.ndarray, questions: np.ndarray, share: int) -> tuple[float, float]:
    """Of the exact ten and fifty nearest turns of each question, the share the
    shortlist's ten and fifty hold."""
    codes = sign_codes(turns)
    allowed = np.ones(len(turns), dtype=bool)
    size = max(len(turns) // share, 50)
    ten = fifty = 0
    for question in questions:
        exact = np.argsort(-(turns @ question), kind="stable")[:50]
        at = shortlist(codes, question, size, allowed)
        found = at[np.argsort(-(turns[at] @ question), kind="stable")[:50]]
        ten += len(set(exact[:10].tolist()) & set(found[:10].tolist()))
        fifty += len(set(exact.tolist()) & set(found.tolist()))
    return ten / (10 * len(questions)), fifty / (50 * len(questions))


def quality(bench: Path) -> None:
    turns = [json.loads(line) for line in (bench / "locomo10_events.jsonl").open()]
    questions = [json.loads(line) for line in (bench / "locomo10_questions.jsonl").open()]
    embedder = MiniLMEmbedder(threads=2)
    turn_vectors = embedder.embed([f"{t['speaker']}: {t['content']}" for t in turns])
    question_vectors = embedder.embed([q["question"] for q in questions])
    for half, chosen in (
        ("tuning", lambda c: c in TUNING),
        ("checking", lambda c: c not in TUNING),
        ("all ten", lambda c: True),
    ):
        t = np.array([chosen(x["stream_id"]) for x in turns])
        q = np.array([chosen(x["stream_id"]) for x in questions])
        for share in SHARES:
            ten, fifty = kept(turn_vectors[t], question_vectors[q], share)
            print(
                f"{half:>8}: {int(t.sum()):,} turns, {int(q.sum()):,} questions, shortlist "
                f"1/{share} ({max(int(t.sum()) // share, 50)})"
                f"{' (search)' if share == SHORTLIST_SHARE else ''}: "
                f"exact ten kept {ten:.4f}, exact fifty kept {fifty:.4f}",
                flush=True,
            )


def speed() -> None:
    rng = np.random.default_rng(7)
    with threadpool_limits(1, "blas"):
        for rows in (20_000, 50_000, 100_000):
            vectors = rng.standard_normal((rows, 384), dtype=np.float32)
            vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
            codes, allowed = sign_codes(vectors), np.ones(rows, dtype=bool)
            queries = rng.standard_normal((200, 384), dtype=np.float32)
            size = shortlist_size(rows, 50)  # as search sizes it for 50 candidates

            def exact(q: np.ndarray, vectors: np.ndarray = vectors) -> np.ndarray:
                return np.argpartition(-(vectors @ q), 49)[:50]

            def shortlisted(
                q: np.ndarray,
                vectors: np.ndarray = vectors,
                codes: np.ndarray = codes,
                size: int = size,
                allowed: np.ndarray = allowed,
            ) -> np.ndarray:
                at = shortlist(codes, q, size, allowed)
                return at[np.argpartition(-(vectors[at] @ q), 49)[:50]]

            took = {}
            for name, search in (("exact", exact), ("shortlisted", shortlisted)):
                search(queries[0])
                started = time.perf_counter()
                for q in queries:
                    search(q)
                took[name] = (time.perf_counter() - started) / len(queries) * 1000
            print(
                f"{rows:>7,} vectors: exact {took['exact']:.2f} ms, shortlist of {size:,} "
                f"{took['shortlisted']:.2f} ms per search",
                flush=True,
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bench", type=Path, default=Path("../shared/bench"))
    args = parser.parse_args()
    quality(args.bench)
    speed()


if __name__ == "__main__":
    main()
