"""Sign codes: the shortlist is exactly the nearest by signs among the vectors allowed
(ties at the cut kept whole), and a big user's search through it answers what the
exact product answers where the nearest are clearly nearest."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime

import numpy as np
import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from memstream.queries.search.neighbours import SessionOrder
from memstream.queries.search.sign_codes import (
    SIGN_CODED_ROWS,
    shortlist,
    shortlist_size,
    sign_codes,
)
from memstream.queries.search.term_index import TermIndex
from memstream.queries.search.user_view import RequestFilter, UserView


def _hamming(vectors: np.ndarray, query: np.ndarray) -> np.ndarray:
    return ((vectors > 0) != (query > 0)).sum(axis=1)


@settings(max_examples=60, deadline=None)
@given(
    rows=st.integers(1, 80),
    dimensions=st.integers(1, 140),
    size=st.integers(1, 90),
    seed=st.integers(0, 2**32 - 1),
    share_allowed=st.floats(0.0, 1.0),
)
def test_the_shortlist_is_the_nearest_by_signs_among_the_allowed(
    rows: int, dimensions: int, size: int, seed: int, share_allowed: float
) -> None:
    rng = np.random.default_rng(seed)
    vectors = rng.standard_normal((rows, dimensions)).astype(np.float32)
    query = rng.standard_normal(dimensions).astype(np.float32)
    allowed = rng.random(rows) < share_allowed
    codes = sign_codes(vectors)
    assert codes.shape == (-(-dimensions // 64), rows) and codes.dtype == np.uint64

    found = shortlist(codes, query, size, allowed)
    with ThreadPoolExecutor(1) as pool:  # the halves counted at once: the same answer
        assert np.array_equal(shortlist(codes, query, size, allowed, pool), found)
    chosen = np.zeros(rows, dtype=bool)
    chosen[found] = True
    assert not (chosen & ~allowed).any()  # never a vector the filter leaves out
    if allowed.sum() <= size:
        assert (chosen == allowed).all()
        return
    assert chosen.sum() >= size
    distance = _hamming(vectors, query)
    left_out = allowed & ~chosen
    if left_out.any():  # everything kept is nearer by signs than (or tied with) the rest
        assert distance[chosen].max() < distance[left_out].min()


def test_the_shortlist_grows_with_the_user_and_the_results_wanted() -> None:
    assert shortlist_size(10, 50) == 10
    assert shortlist_size(20_000, 50) == 1_000
    assert shortlist_size(100_000, 50) == 5_000
    assert shortlist_size(100_000, 500) == 10_000


def _view(vectors: np.ndarray, coded: bool) -> UserView:
    n = len(vectors)
    rows = pa.table(
        {
            "memory_id": [f"m{i}" for i in range(n)],
            "project_id": pa.nulls(n, pa.string()),
            "kind": ["episode"] * n,
            "occurred_at": pa.array([datetime(2024, 5, 1, tzinfo=UTC)] * n),
        }
    )
    return UserView(
        memories=pa.table({"memory_id": pa.array([], pa.string())}),
        positions={},
        vector_rows=rows,
        vectors=vectors,
        access={},
        states={},
        terms=TermIndex(),
        docs=np.zeros(0, dtype=np.int64),
        order=SessionOrder.of_sorted([], []),
        codes=sign_codes(vectors) if coded else None,
    )


def test_a_big_users_shortlisted_search_answers_what_the_exact_product_answers() -> None:
    """Topics of 100 memories each around their own direction: the ten nearest of a
    question about a topic are that topic's, and the shortlist finds the same ten, with
    the same distances (to the last bits), in the same order."""
    rng = np.random.default_rng(7)
    topics = rng.standard_normal((SIGN_CODED_ROWS // 100 + 10, 384)).astype(np.float32)
    vectors = np.repeat(topics, 100, axis=0)
    vectors += 0.6 * rng.standard_normal(vectors.shape).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    exact, coded = _view(vectors, coded=False), _view(vectors, coded=True)
    assert coded.codes is not None and len(vectors) >= SIGN_CODED_ROWS
    recent = RequestFilter(kinds=("episode",))
    for topic in rng.choice(len(topics), 20, replace=False):
        question = topics[topic] + 0.6 * rng.standard_normal(384).astype(np.float32)
        answer, expected = coded.nearest(question, recent, 10), exact.nearest(question, recent, 10)
        assert [m for m, _ in answer] == [m for m, _ in expected]
        # the same cosines, to the last bits a product over fewer rows may round apart
        assert np.allclose([d for _, d in answer], [d for _, d in expected], rtol=0, atol=1e-6)
        assert {int(m[1:]) // 100 for m, _ in answer} == {topic}
        with ThreadPoolExecutor(1) as pool:  # in halves on two threads: the same answers
            assert coded.nearest(question, recent, 10, pool) == answer
            assert exact.nearest(question, recent, 10, pool) == expected
