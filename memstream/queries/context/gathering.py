"""Gathering what a context block may hold, best first per section (the assembly itself
is :func:`memstream.queries.context.assembly.assemble`).

- facts: the facts, preferences, procedures, opinions and reflections a hybrid search
  for the query returns (archived ones as their summaries);
- entity profiles: the entities the top results name, each with its aliases, mention
  count, first and last seen, and the few facts linked to it;
- temporal context: the episodes inside the time the query names, or else the turns of
  the most relevant session, then the other turns the search found, best first;
- evidence: the turns the facts came from.

When the question names some of those who spoke, the other speakers' facts, their
turns in conversations none of the named took part in, and their profiles are left
out (:mod:`.relevance`). With the cut-off on, an assistant's short reply is no line of
its own (:func:`.relevance.short_reply`): the statement it echoes stands for it.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Collection, Sequence
from datetime import datetime
from typing import Any

from memstream.policies.limits import CONTEXT_MIN_SIMILARITY
from memstream.policies.scope import scope_filter
from memstream.projections.episodes import memory_id_for
from memstream.projections.memory_state import is_hidden, state_id
from memstream.queries.context.assembly import (
    ContextLine,
    Profile,
    SectionName,
    profile_text,
    said_by,
)
from memstream.queries.context.life_questions import life_question
from memstream.queries.context.relevance import (
    bearing_results,
    profiled_results,
    question_words,
    short_reply,
    speakers_named,
    statement_words,
    turns_of_others,
)
from memstream.queries.profiles import linked_ids, resolve_entities
from memstream.queries.search.searcher import (
    Searcher,
    SearchRequest,
    SearchResponse,
    SearchResult,
)
from memstream.queries.search.term_index import words
from memstream.storage import filters
from memstream.storage.lance.tables import MEMORIES, MEMORY_STATE
from memstream.text.fact_words import UNNAMED_USER
from memstream.text.found_facts import RESOLVED_DATE
from memstream.text.mentions import NAMED_TYPES, normalize_name
from memstream.text.passages import LONG_TURN_CHARACTERS, marked_cut
from memstream.text.stored_items import readable
from memstream.text.time_phrases import query_range

__all__ = [
    "CONTEXT_DEPTH",
    "FACT_KINDS",
    "context_candidates",
    "context_request",
    "worth_a_line",
]

FACT_KINDS = frozenset({"fact", "preference", "procedure", "opinion", "reflection"})
#: How many results are asked for, entities profiled, and turns shown around a time.
CONTEXT_DEPTH = 50
_ENTITIES = 5
#: Entities named by results below this rank are not profiled unless the query names them.
_PROFILED_FROM = 3
_TEMPORAL = 20
#: The best-ranked turns a block's "around that time" section opens with, when they
#: score within ``_CLOSE`` of the best.
_LEADING = 2
_CLOSE = 0.95
#: How many current facts of the life slots a question asks about a block states first.
_LIFE_FACTS = 4
#: How many facts an entity's profile states, and how many facts' states are read at once.
_FACTS_PER_ENTITY = 3
_STATE_SLICE = 64


def context_request(request: SearchRequest, now: datetime) -> SearchRequest:
    """The search a context block for ``request`` (its user, project and query) starts
    from: ``CONTEXT_DEPTH`` deep, as of ``now``."""
    return request.model_copy(update={"k": CONTEXT_DEPTH, "now": now})


def context_candidates(
    searcher: Searcher,
    request: SearchRequest,
    now: datetime,
    found: SearchResponse | None = None,
    min_similarity: float | None = CONTEXT_MIN_SIMILARITY,
) -> dict[SectionName, list[ContextLine]]:
    """Each section's candidate lines for ``request`` (its user, project and query; the
    search looks ``CONTEXT_DEPTH`` deep), best first; empty when the search finds
    nothing. ``found``: that search's answer, when the caller has it already (asked
    with ``restated``).

    The facts are those the search returns, and those it left out as restating a turn
    above them that resolved a date the turn only implied ("Ana moved to Porto (the
    week of 2026-11-16)." for "I moved to Porto last week"): the dated fact is stated,
    the turn beside it. A question about a life's slot (where someone works or lives,
    who their sister is) opens the facts with the slot's current facts.

    Results that bear not on the question (:mod:`.relevance`, by ``min_similarity``;
    None: every result does) are lines marked ``unrelated``, which the assembly leaves
    out; the evidence is of the others only, the profiles of those that bear most."""
    request = context_request(request, now)
    if found is None:
        found = searcher.search(request, restated=True)
    results = found.results
    if not results:
        return {}
    asked = question_words(request.query)
    # the speakers the question names, of all the results (:mod:`.relevance`)
    named = speakers_named(results, request.query) if min_similarity is not None else None

    def bearing_on(results: list[SearchResult]) -> list[SearchResult]:
        return bearing_results(results, request.query, asked, min_similarity, named)

    bearing = bearing_on(results)
    if named:
        bearing = _without_strangers(searcher, request, named, bearing)
    # an assistant's short reply is no line of its own: what it replies to stands for it
    replies = [r for r in bearing if short_reply(r)] if min_similarity is not None else []
    echoes = {r.memory_id for r in replies}
    bearing = [r for r in bearing if r.memory_id not in echoes]
    kept = {r.memory_id for r in bearing}
    unrelated = [r for r in results if r.memory_id not in kept and r.memory_id not in echoes]
    facts = [r for r in bearing if r.kind in FACT_KINDS]
    # the facts the search left out as restating a turn above them that say more than
    # it, the date it meant: stated here (their turns are among the results already)
    dated = [r for r in found.restated if RESOLVED_DATE.search(r.content)]
    stated = sorted([*facts, *bearing_on(dated)], key=lambda r: -r.score)
    # with the time it names (with the cut-off, no assistant's short reply there either)
    temporal = _temporal_lines(searcher, request, bearing, now, min_similarity is not None)
    placed = {line.memory_id for line in temporal}
    other = [_left_out(r) for r in unrelated if r.memory_id not in placed]
    other += [_left_out(r, reply=True) for r in replies if r.memory_id not in placed]
    answering = _life_lines(searcher, request)
    return {
        "facts": answering
        + [_line(r) for r in stated]
        + [o for o in other if o.kind in FACT_KINDS],
        "entities": _entity_lines(
            searcher,
            request,
            profiled_results(bearing, request.query, asked, min_similarity),
            {r.memory_id for r in facts},
            _unasked_speakers(results, named) if named else (),
        ),
        "temporal": temporal + [o for o in other if o.kind not in FACT_KINDS],
        "evidence": _evidence_lines(searcher, request, facts),
    }


def _without_strangers(
    searcher: Searcher,
    request: SearchRequest,
    named: frozenset[str],
    bearing: list[SearchResult],
) -> list[SearchResult]:
    """``bearing`` without the turns of speakers the question does not name, said in
    conversations where none of those it names spoke (:func:`.relevance.turns_of_others`):
    "I don't drink alcohol any more", said by Kwame to the assistant, is no answer to
    "Does Zoë drink alcohol?". A turn of a conversation Zoë took part in stays, whoever
    said it. ``named``: the speakers the question names. One read of the sessions in
    question, only when a bearing turn is another speaker's."""
    doubtful = turns_of_others(bearing, named)
    sessions = {r.session_id for r in doubtful if r.session_id}
    if not sessions:
        return bearing
    where = filters.all_of(
        scope_filter(request.user_id, request.project_id),
        filters.is_in("session_id", sessions),
        filters.is_in("speaker", named),
    )
    spoken = set(searcher.store.scan(MEMORIES, ["session_id"], where)["session_id"].to_pylist())
    strangers = {r.memory_id for r in doubtful if r.session_id not in spoken}
    return [r for r in bearing if r.memory_id not in strangers]


def _line(result: SearchResult, query: str = "") -> ContextLine:
    """A result as a line; an assistant's turn after who said it ("assistant: ...", or
    the name it was published with): the assistant's words are not the user's."""
    whole = result.kind != "episode" or result.archived
    cut = None if whole else _window(result.content, query, _near(result))
    text = _excerpt(result, query)
    by_assistant = not whole and result.role == "assistant"
    if by_assistant:
        text = f"{said_by(result.speaker, result.role)}: {text}"
    return ContextLine(
        result.memory_id,
        text,
        result.occurred_at,
        result.kind,
        result.archived,
        tuple(result.source_event_ids),
        result.score,
        readable=whole,
        cut=cut,
        speaker=by_assistant,
    )


def _near(result: SearchResult) -> int | None:
    return None if result.passage is None else result.passage.start


def _left_out(result: SearchResult, reply: bool = False) -> ContextLine:
    """A result that bears not on the question, or an assistant's short ``reply``: a
    line the assembly leaves out, saying why (nothing of it is quoted)."""
    return ContextLine(
        result.memory_id, "", kind=result.kind, score=result.score,
        unrelated=not reply, reply=reply,
    )  # fmt: skip


def _excerpt(result: SearchResult, query: str) -> str:
    """What a line quotes of a memory: of a long turn, the few lines or sentences that
    share most of the query's words (nearest the passage the search matched on a tie),
    marked as cut; else it all."""
    if result.kind != "episode" or result.archived:
        return readable(result.content)  # a framework's stored item as its text
    return _quoted(result.content, query, _near(result))


def _quoted(content: str, query: str, near: int | None = None) -> str:
    """``content``, or for a long turn, its window (:func:`_window`), marked as cut."""
    window = _window(content, query, near)
    return content if window is None else marked_cut(content, *window)


def _window(content: str, query: str, near: int | None = None) -> tuple[int, int] | None:
    """None for a short turn; for a long one, the characters (start, end) of its window
    of at most :data:`_QUOTED` characters (whole lines or sentences, opening on one that
    shares a word with ``query``) that shares most words with it; on a tie, the one
    nearest character ``near`` (the matched passage), else the first."""
    if len(content) <= LONG_TURN_CHARACTERS:
        return None
    units = [(m.start(), m.end()) for m in _UNIT.finditer(content)]
    asked = set(words(query))
    said = [asked.intersection(words(content[a:b])) for a, b in units]
    any_shared = any(said)
    best: tuple[int, int, int, int] | None = None  # (-shared, distance, start, -end)
    window: Counter[str] = Counter()  # the words of units i..j-1: the longest from i
    j = 0
    for i, (start, _) in enumerate(units):
        while j < len(units) and (j == i or units[j][1] - start <= _QUOTED):
            window.update(said[j])
            j += 1
        if said[i] or not any_shared:  # a window opens on a unit that shares a word
            end = min(units[j - 1][1], start + _QUOTED)
            distance = 0 if near is None else abs(start - near)
            key = (-len(+window), distance, start, -end)
            if best is None or key < best:
                best = key
        window.subtract(said[i])
    assert best is not None  # a long turn has units
    return best[2], -best[3]


#: The most a line quotes of a long turn (about 90 tokens of English).
_QUOTED = 500
#: A line of a long turn, or a sentence of a line.
_UNIT = re.compile(r"[^\n]+?(?:[.!?](?=\s)|$)", re.M)


def _unasked_speakers(results: Sequence[SearchResult], named: frozenset[str]) -> frozenset[str]:
    """The speakers of ``results`` (casefolded) other than those the question names
    (``named``, :func:`.relevance.speakers_named`; none: nobody is left out): a
    question about Zoë's allergies is not about Łukasz, however his turns came among
    the results."""
    if not named:
        return frozenset()
    return frozenset(r.speaker.casefold() for r in results if r.speaker and r.speaker not in named)


def _entity_lines(
    searcher: Searcher,
    request: SearchRequest,
    results: Sequence[SearchResult],
    said: set[str],
    unasked: Collection[str] = (),
) -> list[ContextLine]:
    """Profiles of the entities the query names, then of those the first
    ``_PROFILED_FROM`` results name, in a few reads whatever their number: the
    entities, the facts linked to any of them, those facts' states. A profile leaves
    out the facts ``said`` in the facts section, and is scored as the best result
    naming it (one the query names, as the best result). A date, an amount or a link
    takes a line only when the question names it: its facts say it already; another
    thing the question does not name, only with a fact that says a word of it
    (:func:`worth_a_line`). Speakers the question does not name when it names another
    (``unasked``, casefolded) are not profiled."""
    user_id = request.user_id
    scores: dict[str, float] = {}
    asked = request.query.casefold()
    top = results[0].score if results else 0.0
    for rank, result in enumerate(results):
        for name in result.entities:
            if name.casefold() in unasked:
                continue
            if name.casefold() in asked:
                scores[name] = top
            elif rank < _PROFILED_FROM:
                scores.setdefault(name, result.score)
    names = sorted(scores, key=lambda n: -scores[n])[:_ENTITIES]
    entities = resolve_entities(searcher.store, user_id, names)
    ids = {e["entity_id"]: linked_ids(user_id, e) for e in entities}
    known = _current_facts(searcher, request, ids, said)
    named = {normalize_name(n) for n in scores if n.casefold() in asked}
    words_asked = question_words(request.query)
    return [
        _profile_line(e, known[e["entity_id"]], _best_naming(e, scores))
        for e in entities
        if worth_a_line(e, known[e["entity_id"]], named, words_asked)
    ]


def worth_a_line(
    entity: dict[str, Any],
    facts: Sequence[dict[str, Any]],
    named: Collection[str],
    words_asked: frozenset[str],
) -> bool:
    """Whether the profile of ``entity`` (an ``entities`` row, with the ``facts`` known
    of it) has something to say to the question: it is what the question asks about
    (one of its aliases is ``named``), or a thing of a named type with a fact that says
    a word of the question (``words_asked``). Postgres, named by a turn about where
    MLflow keeps its artifacts, has facts of another project to give: no line."""
    if set(named) & set(entity["aliases"] or ()):
        return True
    return entity["type"] in NAMED_TYPES and any(
        words_asked & statement_words(f["content"]) for f in facts
    )


def _best_naming(entity: dict[str, Any], scores: dict[str, float]) -> float | None:
    """The best score of the names that resolved to ``entity`` (any of its aliases)."""
    aliases = set(entity["aliases"] or ())
    return max((s for n, s in scores.items() if normalize_name(n) in aliases), default=None)


def _current_facts(
    searcher: Searcher, request: SearchRequest, ids: dict[str, set[str]], said: set[str]
) -> dict[str, list[dict[str, Any]]]:
    """For each entity (its id → the ids its memories carry), its newest facts in the
    request's scope that still hold (superseded, forgotten and pruned ones left out), at
    most ``_FACTS_PER_ENTITY``, none of those ``said``. States are read for the newest
    facts first, a slice at a time, only until every entity has its share."""
    user_id = request.user_id
    linked = searcher.store.queries.with_entities(
        sorted({i for entity_ids in ids.values() for i in entity_ids}),
        filters.all_of(
            scope_filter(user_id, request.project_id), filters.is_in("kind", FACT_KINDS)
        ),
        limit=1_000_000,
        columns=["memory_id", "content", "entity_ids", "source_event_ids", "occurred_at"],
    )
    pending = [m for m in linked if m["memory_id"] not in said]
    known: dict[str, list[dict[str, Any]]] = {entity: [] for entity in ids}
    for start in range(0, len(pending), _STATE_SLICE):
        if all(len(facts) >= _FACTS_PER_ENTITY for facts in known.values()):
            break
        window = pending[start : start + _STATE_SLICE]
        states = {
            r["memory_id"]: r
            for r in searcher.store.by_ids(
                MEMORY_STATE, [state_id(user_id, m["memory_id"]) for m in window]
            )
            if r["user_id"] == user_id
        }
        for fact in window:
            if is_hidden(states.get(fact["memory_id"])):
                continue
            for entity, entity_ids in ids.items():
                if entity_ids & set(fact["entity_ids"] or ()) and (
                    len(known[entity]) < _FACTS_PER_ENTITY
                ):
                    known[entity].append(fact)
    return known


def _profile_line(
    profile: dict[str, Any], known: list[dict[str, Any]], score: float | None
) -> ContextLine:
    """``profile``, an ``entities`` row, as one line with the facts ``known`` of it; the
    line rests on the turns those facts came from."""
    name = profile["canonical_name"]
    shape = Profile(
        name,
        tuple(a for a in profile["aliases"] or () if a.lower() != name.lower()),
        profile["type"],
        profile["mention_count"],
        profile["first_seen"],
        profile["last_seen"],
        tuple((f["memory_id"], readable(f["content"])) for f in known),
    )
    sources = tuple(dict.fromkeys(s for f in known for s in f["source_event_ids"] or ()))
    return ContextLine(
        profile["entity_id"],
        profile_text(shape),
        profile["last_seen"],
        "entity",
        False,
        sources,
        score,
        profile=shape,
    )


def _life_lines(searcher: Searcher, request: SearchRequest) -> list[ContextLine]:
    """The current facts of the life slots the query asks about (:mod:`.life_questions`:
    where someone works, lives, who their sister is), newest first, of the one asking
    (a fact a speaker stated of themself) or of the person the query names; lines that
    answer the question, so always worth their place. No line when it asks of no slot."""
    asked = life_question(request.query)
    if asked is None:
        return []
    attributes = sorted(asked.attributes | asked.relations | {f"{r}:" for r in asked.relations})
    where = filters.all_of(
        scope_filter(request.user_id, request.project_id), filters.equals("kind", "fact")
    )
    columns = ["memory_id", "content", "subject", "speaker", "occurred_at", "source_event_ids"]
    rows = searcher.store.queries.facts_stating(attributes, where, columns, limit=10_000)
    about = None if asked.about is None else normalize_name(asked.about)
    whose = [
        r
        for r in rows
        if r["subject"]
        and (
            normalize_name(r["subject"]) == about
            if about is not None
            else r["subject"].lower() in {(r["speaker"] or "").lower(), UNNAMED_USER}
        )
    ]
    whose = whose[:_STATE_SLICE]  # newest first
    states = {
        r["memory_id"]: r
        for r in searcher.store.by_ids(
            MEMORY_STATE, [state_id(request.user_id, r["memory_id"]) for r in whose]
        )
        if r["user_id"] == request.user_id
    }
    current = [r for r in whose if not is_hidden(states.get(r["memory_id"]))]
    return [
        ContextLine(
            r["memory_id"],
            readable(r["content"]),
            r["occurred_at"],
            "fact",
            False,
            tuple(r["source_event_ids"] or ()),
            readable=True,
        )
        for r in current[:_LIFE_FACTS]
    ]


def _temporal_lines(
    searcher: Searcher,
    request: SearchRequest,
    results: Sequence[SearchResult],
    now: datetime,
    without_replies: bool = False,
) -> list[ContextLine]:
    """The turns the search ranks first (:data:`_LEADING`, whatever their session, when
    as relevant as the best), then those inside the time the query names, else those of
    the most relevant session; then the other turns the search found, best first. A
    second-best turn of another session is not pushed out by the first one's neighbours.
    ``without_replies``: none of the time's turns is an assistant's short reply."""
    episodes = [r for r in results if r.kind == "episode"]
    leading = [r for r in episodes[:_LEADING] if r.score >= _CLOSE * episodes[0].score]
    span = query_range(request.query, now)
    if span is not None:
        within = request.model_copy(
            update={"after": span[0], "before": span[1], "kinds": ["episode"], "k": _TEMPORAL}
        )
        first = searcher.search(within).results
        if without_replies:
            first = [r for r in first if not short_reply(r)]
    else:
        session = next((r.session_id for r in episodes if r.session_id), None)
        first = [r for r in episodes if session and r.session_id == session][:_TEMPORAL]
    ordered: dict[str, SearchResult] = {}
    for r in (*leading, *first, *episodes):
        ordered.setdefault(r.memory_id, r)  # as first found (a time's search scores its own)
    return [_line(r, request.query) for r in ordered.values()]


def _evidence_lines(
    searcher: Searcher, request: SearchRequest, facts: Sequence[SearchResult]
) -> list[ContextLine]:
    """The turns the facts came from, in the request's scope."""
    user_id = request.user_id
    wanted: dict[str, float] = {}  # each turn, as relevant as the best fact citing it
    cited_by: dict[str, str] = {}  # and that fact: what a long turn is quoted for
    for fact in facts:
        for event_id in fact.source_event_ids:
            wanted.setdefault(memory_id_for(user_id, event_id), fact.score)
            cited_by.setdefault(memory_id_for(user_id, event_id), fact.content)
    if not wanted:
        return []
    rows = searcher.store.by_ids(
        MEMORIES,
        list(wanted),
        ["memory_id", "content", "speaker", "occurred_at", "kind", "source_event_ids"],
        where=scope_filter(user_id, request.project_id, include_deleted=True),
    )
    by_id = {r["memory_id"]: r for r in rows}
    lines = []
    for memory_id in wanted:
        row = by_id.get(memory_id)
        if row is not None:
            cut = _window(row["content"], cited_by[memory_id])
            quoted = row["content"] if cut is None else marked_cut(row["content"], *cut)
            said = f"{row['speaker']}: {quoted}" if row["speaker"] else quoted
            sources = tuple(row["source_event_ids"] or ())
            lines.append(
                ContextLine(
                    memory_id,
                    said,
                    row["occurred_at"],
                    row["kind"],
                    False,
                    sources,
                    wanted[memory_id],
                    cut=cut,
                    speaker=bool(row["speaker"]),
                )
            )
    return lines
