"""Whether a search result bears on the question a context block is for (pure).

A block is read by an agent as "what memory knows about this question", so a line that
neither says any word of the question nor means anything near it is noise, however the
fused ranking placed it: a user with eight memories, none about hotels, asked for "the
hotel booking reference", must get no block, not the eight. A result bears on the
question when it shares one of the question's index words (stemmed, stop words left
out: :func:`memstream.queries.search.term_index.words`), names an entity the question
names (its speaker too: "what does Marek use?" is about Marek's turns), or is at least
``min_similarity`` near it in meaning (cosine of the query and the memory's vector, or
its nearest passage). A result without a vector yet is judged by its words and names
alone. A user's statement the search found through the assistant's reply to it
(``found_through``) bears on the question when that reply does: the reply says it
again in the question's words.

Measured on the hand-written conversations (``python bench/relevance_floor.py
--context``: 137 questions asked of their own user, and of five others whose histories
do not hold the answer), at 0.3 the gold turn stays among the first 10 kept for 0.985 of
the questions (0.993 with no cut-off) and 0.641 of the others' askings keep nothing; the
similarity floor alone (``min_similarity``) keeps 0.686 at 0.905, and words and names
alone 0.964 at 0.693. Speakers named by the question count: without them (on the
first 117 questions) 0.932 stayed, with no fewer empty.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from memstream.queries.search.request import SearchResult
from memstream.queries.search.term_index import words

__all__ = ["bearing_results", "bears_on", "question_words"]


def question_words(query: str) -> frozenset[str]:
    """The index words of ``query`` (stemmed, without stop words)."""
    return frozenset(words(query))


def bears_on(
    result: SearchResult,
    query: str,
    asked: Iterable[str],
    min_similarity: float | None,
) -> bool:
    """Whether ``result`` bears on ``query`` (whose index words are ``asked``): see the
    module docstring. ``min_similarity`` None: every result does (no cut-off)."""
    if min_similarity is None:
        return True
    if result.similarity is not None and result.similarity >= min_similarity:
        return True
    wanted = set(asked)
    if wanted and wanted.intersection(words(result.content)):
        return True
    folded = query.casefold()
    return any(re.search(rf"\b{re.escape(name.casefold())}\b", folded) for name in result.entities)


def bearing_results(
    results: list[SearchResult],
    query: str,
    asked: Iterable[str],
    min_similarity: float | None,
) -> list[SearchResult]:
    """Those of ``results`` that bear on ``query`` (:func:`bears_on`), and the statements
    found through a reply among them that does, in their order."""
    asked = frozenset(asked)
    kept = {r.memory_id for r in results if bears_on(r, query, asked, min_similarity)}
    return [r for r in results if r.memory_id in kept or r.found_through in kept]
