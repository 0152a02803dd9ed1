"""Links from a later memory back to the earlier ones it refers to (pure).

A user seldom repeats the words of what they said weeks before: "my calves already ache
since I signed up for the half-marathon" refers back to "my physio told me to stop
running until the tendon heals" without a word in common. A question about the later
statement ("should I worry about my calves?") then finds it, and nothing finds the
earlier one. Consolidation links each statement of a closed session to the earlier
statements nearest it in meaning (:func:`derive_links`, from the candidates the
caller looked up), and search follows those links from what it found
(:func:`memstream.queries.search.linked.followed`).

The links travel in the session's ``FactsConsolidated`` event, so a replay rebuilds them
without deriving them again; they are folded into each later memory's ``memory_state``
row (:func:`link_changes`), which joins them by union.

Measured on the corpus's later statements (``tests/fixtures/conversations/37-*``: 21
statements each referring back to a different earlier one, among the user's 43), the
earlier one is the nearest earlier statement of another session for 5 of them, among
the nearest 3 for 9 and among the nearest 5 for 11; words would find almost none (19 of
the 21 pairs share no word the index keeps).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from memstream.events.vocabulary import FactsConsolidated, LinkRelation, MemoryLink
from memstream.projections.memory_state import StateChange

__all__ = [
    "Candidate",
    "Statement",
    "derive_links",
    "link_changes",
    "may_link",
    "relation_of",
    "tells_something",
]


@dataclass(frozen=True, slots=True)
class Statement:
    """A user's statement of the session being consolidated."""

    memory_id: str
    session_id: str
    occurred_at: datetime
    content: str
    speaker: str | None = None


@dataclass(frozen=True, slots=True)
class Candidate:
    """An earlier memory near a statement in meaning, as the look-up found it."""

    memory_id: str
    session_id: str
    occurred_at: datetime
    role: str
    content: str
    #: the cosine of its vector and the statement's
    similarity: float
    speaker: str | None = None


_RELATION_CUES: tuple[tuple[LinkRelation, re.Pattern[str]], ...] = (
    (
        "correction",
        re.compile(
            r"\b(actually|turns out|no longer|not any ?more|i was wrong|that was wrong|"
            r"correction|i meant)\b",
            re.IGNORECASE,
        ),
    ),
    ("cause", re.compile(r"\b(because|since|after|due to|so that|that's why|caused)\b", re.I)),
    (
        "goal",
        re.compile(
            r"\b(want(?:s|ed)? to|plan(?:ning)? to|hope to|training for|saving for|"
            r"trying (?:to|for)|aim(?:ing)? to|going to)\b",
            re.IGNORECASE,
        ),
    ),
    ("value", re.compile(r"\b(important to me|i care about|i believe|matters? to me)\b", re.I)),
    ("state", re.compile(r"\b(still|again|now|lately|these days|anymore|these weeks)\b", re.I)),
)


def relation_of(later: str) -> LinkRelation:
    """How a later statement bears on what it refers back to, by its own cue words: a
    correction, a cause, a goal, a value, a state, or only a reference."""
    for relation, cue in _RELATION_CUES:
        if cue.search(later):
            return relation
    return "refers_to"


def _is_statement(role: str, content: str) -> bool:
    """A user's turn that tells something (not a question, not the assistant's)."""
    return role == "user" and not content.rstrip().endswith("?")


def _same_speaker(earlier: str | None, later: str | None) -> bool:
    """Whether the same person said both (a user's own history: in a chat between two
    people, each refers back to what they said; an unnamed speaker matches any)."""
    return earlier is None or later is None or earlier.casefold() == later.casefold()


def tells_something(statement: Statement) -> bool:
    """Whether a statement may link back at all: a question tells nothing to refer back
    from."""
    return _is_statement("user", statement.content)


def may_link(statement: Statement, candidate: Candidate) -> bool:
    """Whether ``statement`` may link to ``candidate``, nearness aside: a statement of
    the same speaker, said before it in another session."""
    return (
        candidate.memory_id != statement.memory_id
        and candidate.session_id != statement.session_id
        and candidate.occurred_at < statement.occurred_at
        and _is_statement(candidate.role, candidate.content)
        and _same_speaker(candidate.speaker, statement.speaker)
    )


def derive_links(
    statements: Sequence[Statement],
    candidates: Mapping[str, Iterable[Candidate]],
    per_statement: int,
    min_strength: float,
) -> list[MemoryLink]:
    """The links of each of ``statements`` (by memory id) to the earlier memories among
    its ``candidates``: those it may link to (:func:`may_link`) at least
    ``min_strength`` near it, the nearest ``per_statement`` (ties by id; the defaults
    are :mod:`memstream.policies.linking`'s)."""
    links: list[MemoryLink] = []
    for statement in statements:
        if not tells_something(statement):
            continue
        earlier = {
            c.memory_id: c
            for c in candidates.get(statement.memory_id, ())
            if may_link(statement, c) and c.similarity >= min_strength
        }
        nearest = sorted(earlier.values(), key=lambda c: (-c.similarity, c.memory_id))
        relation = relation_of(statement.content)
        links.extend(
            MemoryLink(
                memory_id=statement.memory_id,
                linked_id=c.memory_id,
                relation=relation,
                strength=round(min(1.0, c.similarity), 6),
            )
            for c in nearest[:per_statement]
        )
    return links


def link_changes(event: FactsConsolidated) -> list[StateChange]:
    """The ``memory_state`` changes of a consolidation's links: one per later memory."""
    by_memory: dict[str, list[tuple[str, str, float]]] = {}
    for link in event.links:
        by_memory.setdefault(link.memory_id, []).append(
            (link.linked_id, link.relation, link.strength)
        )
    return [
        StateChange(memory_id, event.user_id, links=tuple(links))
        for memory_id, links in sorted(by_memory.items())
    ]
