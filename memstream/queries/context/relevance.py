"""Whether a search result bears on the question a context block is for (pure).

A block is read by an agent as "what memory knows about this question", so a line that
neither says the question's words nor means anything near it is noise, however the
fused ranking placed it: a user with eight memories, none about hotels, asked for "the
hotel booking reference", must get no block, not the eight. A result bears on the
question when it says words carrying at least ``WORD_SHARE`` of the question's weight
(its index words, stemmed, stop words left out:
:func:`memstream.queries.search.term_index.words`; each weighs its inverse document
frequency among the results, so a word most of them say, as "work" or "user" in a
history of jobs, weighs little and a word few say weighs much), names an entity the
question names (its speaker too: "what does Marek use?" is about Marek's turns), or is
at least ``min_similarity`` near it in meaning (cosine of the query and the memory's
vector, or its nearest passage). A result without a vector yet is judged by its words
and names alone. A derived statement's "The user" (how the extractor names an unnamed
user) is no word of it: a question saying "the user" would share it with every
statement the user made of themself. A user's statement the search found through the
assistant's reply to it (``found_through``) bears on the question when that reply does
in meaning (the reply says it again in other words); a reply that shares a word alone
("How long does it run?" for "how long is the warmup?") hands nothing back. A statement
found through a later one that links to it bears when that one does.

A fact (or a preference, any derived statement) told by a speaker other than those
the question names, naming none of them, bears not on it: in a history of several
speakers, "Chloé lives in Lyon." is near "Which city does Ana live in now?" in words and
meaning and no answer to it. Turns are not judged so here: one speaker's turn often
answers for another ("your talk on adoption went well"); :func:`turns_of_others` names
those the caller drops when said where none of the named spoke. On the corpus's blocks
the facts rule took the lines of other conversations from 0.300 of a block to 0.275,
the turns rule (with the other speakers' profiles left out) to 0.235, with the same 145
answers; LoCoMo's blocks held as much or more (docs/agents.md).

A derived statement about someone or something the question does not name, naming
none of those it names, bears not on it either: "Nadia is allergic to penicillin." is
no answer to what Pierogi is allergic to. Its subject is the name it opens with, among
the names the results know (their entities and speakers); the unnamed user's own
statements ("The user ...") open with none. With this rule, the placeholder no word,
replies handing back only by meaning (and a query saying "the user" embedded as asked:
:func:`memstream.queries.search.candidates.embedded_query`), the corpus's blocks
(``python bench/context.py --corpus``) went from 253 lines of other conversations in
1,222 to 222 in 1,185, the same 147 answers; the blocks of the 137 questions that are
neither implied nor linked from 69 of 880 to 48 of 854 (docs/benchmarks.md); LoCoMo's
blocks held the same figures.

Entities are profiled in a block only from the results that bear ``PROFILED_FROM`` or
more (by meaning or by words), or that the question names: an entity a result names
that bears by one word shared is rarely what the question is about, and its profile
takes room the turns that answer need (on the corpus below, 132 answers in the blocks
with every bearing result's entities profiled, 137 with these only).

Measured on the hand-written conversations (``python bench/relevance_floor.py
--context``: 178 questions asked of their own user, and of five others whose histories
do not hold the answer), at 0.3 the gold turn stays among the first 10 kept for 150 of
the questions (162 with no cut-off), and 0.744 of the others' askings keep nothing;
when any one word shared was enough, 142 and 0.587 (weighed among the results alone,
without ``UNSAID_BY``: 141 and 0.675). The blocks of ``python bench/context.py
--corpus`` (the 178 questions of one history, 600 tokens) hold 137 answers instead of
132, and 356 of their 1,216 lines rest only on other conversations' turns instead of
420 of 1,276; on LoCoMo (``python bench/context.py``, covered / recall at 1,000 and
2,000 tokens) the tuning half stays at 0.828 / 0.761 (0.762 before) and 0.874 / 0.808
(0.810), the checking half goes from 0.814 / 0.734 to 0.816 / 0.736 and stays at 0.863
/ 0.785. A share of 0.3 left fewer such lines but took LoCoMo's multi-hop questions
down (tuning, 2,000 tokens: 0.761 to 0.754 covered). Speakers named by the question
count: without them (on the first 117 questions) fewer gold turns stayed (0.932 against
0.985), with no fewer empty.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

from memstream.queries.search.neighbours import SHORT_REPLY, turn_said
from memstream.queries.search.request import SearchResult
from memstream.queries.search.term_index import words
from memstream.text.fact_words import UNNAMED_USER

__all__ = [
    "PROFILED_FROM",
    "UNSAID_BY",
    "WORD_SHARE",
    "bearing_results",
    "bears_on",
    "profiled_results",
    "question_words",
    "short_reply",
    "speakers_named",
    "statement_words",
    "turns_of_others",
    "word_share",
    "word_weights",
]

#: The share of the question's word weight a result must say to bear on it by words.
WORD_SHARE = 0.2
#: Texts taken to say none of the question's words beside those found, in its words'
#: weights (:func:`word_weights`).
UNSAID_BY = 50
#: How near in meaning, or how much of the question's word weight, a result that names
#: an entity must be for the entity to be profiled in the block.
PROFILED_FROM = 0.4


def question_words(query: str) -> frozenset[str]:
    """The index words of ``query`` (stemmed, without stop words)."""
    return frozenset(words(query))


def word_weights(asked: Iterable[str], texts: Sequence[str]) -> dict[str, float]:
    """Each of the question's words ``asked``, weighed by its inverse document frequency
    among ``texts`` and ``UNSAID_BY`` more that say none of them (BM25's: a word none
    says weighs the most). The texts found are the part of a history nearest the
    question, so they say its words more often than the rest: three memories of a
    bike, all found, leave "bike" still weighing something."""
    return _weights(asked, [frozenset(words(text)) for text in texts])


def _weights(asked: Iterable[str], said: Sequence[frozenset[str]]) -> dict[str, float]:
    """:func:`word_weights` of texts already read into their index words."""
    asked = frozenset(asked)
    saying: Counter[str] = Counter()
    for text_words in said:
        saying.update(asked & text_words)
    n = len(said) + UNSAID_BY
    return {w: math.log(1.0 + (n - saying[w] + 0.5) / (saying[w] + 0.5)) for w in asked}


def word_share(content: str, weights: Mapping[str, float]) -> float:
    """The share of the question's word weight (``weights``, by word) that ``content``
    says; 0 for a question without index words."""
    return _share(frozenset(words(content)), weights)


def _share(said: frozenset[str], weights: Mapping[str, float]) -> float:
    total = sum(weights.values())
    if not total:
        return 0.0
    return sum(weights[w] for w in weights.keys() & said) / total


def bears_on(
    result: SearchResult,
    query: str,
    asked: Iterable[str],
    min_similarity: float | None,
    weights: Mapping[str, float] | None = None,
) -> bool:
    """Whether ``result`` bears on ``query`` (whose index words are ``asked``, weighed by
    ``weights``; None: each alike): see the module docstring. ``min_similarity`` None:
    every result does (no cut-off)."""
    if min_similarity is None:
        return True
    if result.similarity is not None and result.similarity >= min_similarity:
        return True
    if weights is None:
        weights = dict.fromkeys(asked, 1.0)
    return _bears(result, _said(result), query, weights, min_similarity)


def _near(result: SearchResult, query: str, min_similarity: float) -> bool:
    """Whether ``result`` is at least ``min_similarity`` near the question in meaning,
    or names an entity it names."""
    similar = result.similarity is not None and result.similarity >= min_similarity
    return similar or _names_asked(result, query)


def _bears(
    result: SearchResult,
    said: frozenset[str],
    query: str,
    weights: Mapping[str, float],
    min_similarity: float,
) -> bool:
    """:func:`bears_on` of a result already read into its index words ``said``."""
    return _near(result, query, min_similarity) or _share(said, weights) >= WORD_SHARE


def bearing_results(
    results: list[SearchResult],
    query: str,
    asked: Iterable[str],
    min_similarity: float | None,
    named: frozenset[str] | None = None,
) -> list[SearchResult]:
    """Those of ``results`` that bear on ``query`` (:func:`bears_on`, its words weighed
    among ``results``; no fact of a speaker other than those ``named``, by default
    :func:`speakers_named` of ``results``), and the statements found through a reply
    among them that does, in their order."""
    if min_similarity is None:
        return list(results)
    said = [_said(r) for r in results]  # each result read once
    weights = _weights(asked, said)
    if named is None:
        named = speakers_named(results, query)
    known = _names_known(results)
    folded = query.casefold()
    subjects = frozenset(n for n in known if _said_in(n, folded))
    kept = {
        r.memory_id
        for r, r_said in zip(results, said, strict=True)
        if _bears(r, r_said, query, weights, min_similarity)
        and not _of_another(r, named)
        and not _about_another(r, subjects, known)
    }
    # an assistant's reply hands its statement back when it bears in meaning: one that
    # shares a word alone ("How long does it run?" for "how long is the warmup?") says
    # nothing of the statement (a statement linked to another is found through it)
    handing = {
        r.memory_id
        for r in results
        if r.memory_id in kept and (r.role != "assistant" or _near(r, query, min_similarity))
    }
    return [r for r in results if r.memory_id in kept or r.found_through in handing]


def speakers_named(results: Iterable[SearchResult], query: str) -> frozenset[str]:
    """The speakers of ``results`` whom ``query`` names ("Which city does Ana live
    in?"): the people the question is about, when they are among those who spoke."""
    folded = query.casefold()
    return frozenset(r.speaker for r in results if r.speaker and _said_in(r.speaker, folded))


def turns_of_others(results: Iterable[SearchResult], named: frozenset[str]) -> list[SearchResult]:
    """The turns of ``results`` said by a speaker other than those the question names
    (``named``), naming none of them: no answer when said in a conversation none of
    the named took part in (the caller knows who spoke where). Archived turns and
    turns of no known speaker (an assistant's, a channel that names no one) are not
    among them."""
    if not named:
        return []
    return [
        r
        for r in results
        if r.kind == "episode"
        and not r.archived
        and r.speaker
        and r.speaker not in named
        and not any(_said_in(name, r.content.casefold()) for name in named)
    ]


def short_reply(result: SearchResult) -> bool:
    """Whether ``result`` is an assistant's short reply (a turn of
    :data:`memstream.queries.search.neighbours.SHORT_REPLY`): "Shift work is hard on
    couples." after "My partner Tom works nights", "It is in the garage on Rua Nova."
    after "Where did I leave my bike?". It says again what the user told, or what
    memory holds already, in the assistant's words: a block shows the user's statement
    it was found through (:attr:`SearchResult.found_through`), not the echo. The
    search still ranks by it: the statement gets its score."""
    return (
        result.kind == "episode"
        and not result.archived
        and turn_said(result.role, result.content) == SHORT_REPLY
    )


#: How a derived statement names the user it was told by: "The user is vegan." from
#: "I'm vegan" (:mod:`memstream.text.extractor`).
_PLACEHOLDER = re.compile(rf"\b{re.escape(UNNAMED_USER)}\b(?:['\u2019]s)?", re.IGNORECASE)


def _said(result: SearchResult) -> frozenset[str]:
    """The index words ``result`` says (a derived statement's: :func:`statement_words`)."""
    if result.kind != "episode" and result.document is None:
        return statement_words(result.content)
    return frozenset(words(result.content))


def statement_words(content: str) -> frozenset[str]:
    """The index words of a derived statement. Its placeholder for the user ("The user
    ...") is none of them: every statement the user made of themself says it, so "what
    diet does the user follow?" would find all of them by it."""
    return frozenset(words(_PLACEHOLDER.sub(" ", content)))


def _of_another(result: SearchResult, named: frozenset[str]) -> bool:
    """Whether ``result`` is a derived statement (a fact, a preference...) told by
    someone other than the people the question names (``named``), naming none of them:
    "Chloé lives in Lyon." is no answer to where Ana lives, however near in words. A
    turn is never judged so: in a conversation one speaker's turn often answers for
    the other ("your talk on adoption went well")."""
    if not named or result.kind == "episode" or not result.speaker or result.speaker in named:
        return False
    content = result.content.casefold()
    return not any(_said_in(name, content) for name in named)


def _names_known(results: Iterable[SearchResult]) -> frozenset[str]:
    """The names ``results`` know: the entities they name and their speakers (not the
    unnamed user, who is no one's name)."""
    return frozenset(
        name
        for r in results
        for name in (*r.entities, *([r.speaker] if r.speaker else []))
        if name.casefold() != UNNAMED_USER
    )


def _about_another(result: SearchResult, asked: frozenset[str], known: frozenset[str]) -> bool:
    """Whether ``result`` is a derived statement about someone or something other than
    those the question names (``asked``, of the names ``known``), naming none of them:
    "Nadia is allergic to penicillin." is no answer to what Pierogi is allergic to. Its
    subject is the known name it opens with; a statement of the user's own ("The user
    ...") opens with none, and a turn is never judged so."""
    if not asked or result.kind == "episode" or result.document is not None:
        return False
    content = result.content.casefold()
    subject = max((n for n in known if _opens_with(n, content)), key=len, default=None)
    if subject is None or subject in asked:
        return False
    return not any(_said_in(name, content) for name in asked)


def _opens_with(name: str, folded: str) -> bool:
    """Whether the casefolded text ``folded`` opens with ``name`` as a word."""
    name = name.casefold()
    return folded.startswith(name) and re.match(r"\w", folded[len(name) : len(name) + 1]) is None


def _said_in(name: str, folded: str) -> bool:
    """Whether the casefolded text ``folded`` says ``name`` as a word."""
    return re.search(rf"\b{re.escape(name.casefold())}\b", folded) is not None


def profiled_results(
    bearing: list[SearchResult],
    query: str,
    asked: Iterable[str],
    min_similarity: float | None,
) -> list[SearchResult]:
    """Those of the ``bearing`` results whose entities a block profiles: at least
    ``PROFILED_FROM`` near the question in meaning or of its word weight, or naming an
    entity it names; all of them when there is no cut-off (``min_similarity`` None)."""
    if min_similarity is None:
        return bearing
    said = [_said(r) for r in bearing]
    weights = _weights(asked, said)
    return [
        r
        for r, r_said in zip(bearing, said, strict=True)
        if (r.similarity is not None and r.similarity >= PROFILED_FROM)
        or _share(r_said, weights) >= PROFILED_FROM
        or _names_asked(r, query)
    ]


def _names_asked(result: SearchResult, query: str) -> bool:
    """Whether ``result`` names an entity (or its speaker) that ``query`` names."""
    folded = query.casefold()
    return any(re.search(rf"\b{re.escape(name.casefold())}\b", folded) for name in result.entities)
