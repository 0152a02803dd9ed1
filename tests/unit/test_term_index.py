"""The in-memory BM25 index: its words, its scores, and that growing it a few documents
at a time (keys replaced on the way) ranks exactly as building it at once."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from memstream.queries.search.term_index import TermIndex, words


def test_words_are_folded_stemmed_and_without_stop_words() -> None:
    assert words("Caroline's Adoption agencies, in Zürich!") == [
        "carolin",
        "adopt",
        "agenc",
        "zurich",
    ]
    assert words("the and of") == []
    assert words("user_42 paints") == ["user", "42", "paint"]


def test_scores_are_okapi_bm25_over_the_users_own_documents() -> None:
    index = TermIndex()
    index.add(["a", "b", "c"], ["cat cat dog", "dog bird", "fish"])
    [(key, score)] = index.search("cats", None, 10)
    n, df, average = 3, 1, (3 + 2 + 1) / 3
    idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
    expected = idf * 2 * 2.2 / (2 + 1.2 * (1 - 0.3 + 0.3 * 3 / average))  # k1 1.2, b 0.3
    assert key == "a"
    assert math.isclose(score, expected, rel_tol=1e-5)


def test_texts_outside_the_index_are_scored_by_its_statistics() -> None:
    index = TermIndex()
    index.add(["a", "b", "c"], ["cat cat dog", "dog bird", "fish"])
    # an indexed document's text scores as the document does
    [(_, indexed)] = index.search("cats", None, 10)
    assert math.isclose(index.score("cats", ["cat cat dog"])[0], indexed, rel_tol=1e-5)
    # a word the index holds rarely weighs more than a common one; one it lacks, most
    rare, common, absent = index.score("bird dog zebra", ["bird", "dog", "zebra"])
    assert absent > rare > common > 0
    assert index.score("cats", ["no such words", ""]) == [0.0, 0.0]
    assert index.score("", ["cat"]) == [0.0]


def test_a_key_added_again_replaces_its_text() -> None:
    index = TermIndex()
    index.add(["a", "b"], ["I live in Lisbon", "Lisbon is sunny"])
    index.add(["a"], ["I live in Porto"])
    assert [k for k, _ in index.search("Lisbon", None, 10)] == ["b"]
    assert [k for k, _ in index.search("Porto", None, 10)] == ["a"]


def test_only_allowed_documents_are_returned() -> None:
    index = TermIndex()
    index.add(["a", "b"], ["red apple", "red car"])
    allowed = np.zeros(len(index), dtype=bool)
    allowed[index.doc("b")] = True
    assert [k for k, _ in index.search("red", allowed, 10)] == ["b"]


vocabulary = st.sampled_from(["cat", "dog", "bird", "fish", "lisbon", "porto", "red", "blue"])
texts = st.lists(vocabulary, min_size=1, max_size=6).map(" ".join)
batches = st.lists(
    st.lists(st.tuples(st.integers(0, 9), texts), min_size=1, max_size=5), min_size=1, max_size=6
)


@settings(max_examples=100, deadline=None)
@given(batches=batches, query=st.lists(vocabulary, min_size=1, max_size=3).map(" ".join))
def test_growing_ranks_as_building_at_once(
    batches: list[list[tuple[int, str]]], query: str
) -> None:
    grown = TermIndex()
    final: dict[str, str] = {}
    for batch in batches:
        latest = {f"k{key}": text for key, text in batch}  # one row per key in a write
        grown.add(list(latest), list(latest.values()))
        final.update(latest)
    built = TermIndex()
    built.add(list(final), list(final.values()))
    found = dict(grown.search(query, None, 100))
    expected = dict(built.search(query, None, 100))
    assert found.keys() == expected.keys()
    for key, score in expected.items():
        assert math.isclose(found[key], score, rel_tol=1e-5)
