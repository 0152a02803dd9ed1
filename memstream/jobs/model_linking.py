"""Links chosen by the configured language model: one call per consolidated session.

The vectors find each statement's earlier neighbours (:class:`NearestLinker`'s
candidates, more of them and less near than the local rule keeps); the model reads the
statements with their numbered candidates and names the ones each statement really
refers back to, and how ("my calves ache since I signed up for the half-marathon" follows
from "my physio told me to stop running", which a topic alone would not tell). Its
answer is validated (:class:`LinkAnswer`): a number that names no candidate of that
statement is dropped, an unknown relation is read as ``refers_to``. When the call
fails (after the model client's own retries), the session gets the local rule's links
and the consolidation goes on: links are never a reason to hold a session's facts back.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any, cast

from pydantic import BaseModel, ConfigDict

from memstream.adapters.language_models import JsonModel, ModelError
from memstream.events.vocabulary import LINK_RELATIONS, LinkRelation, MemoryLink, TokenUsage
from memstream.jobs.linking import NearestLinker
from memstream.projections.links import Candidate, Statement, may_link, tells_something

__all__ = [
    "CANDIDATES_ASKED",
    "LinkAnswer",
    "ModelLinker",
    "StatedLink",
    "linking_prompt",
    "to_links",
]

log = logging.getLogger(__name__)

#: How many earlier memories the model is shown for each statement.
CANDIDATES_ASKED = 8

SYSTEM_PROMPT = """\
You maintain the long-term memory of an assistant. Each numbered statement was just said \
by a user; under it are earlier things the same person said, numbered within it. For \
each statement, name the earlier ones it refers back to: what it follows from, what it \
works toward, how things stand since, what matters to the person, or what it corrects. \
It may share no words with them ("my calves ache since I signed up for the \
half-marathon" refers back to "my physio told me to stop running"). Leave out earlier \
ones that are only on a similar topic.

Answer with links, each:
- statement: the statement's number.
- earlier: the earlier one's number under it.
- relation: "cause", "goal", "state", "value", "correction" or "refers_to".
- strength: how sure you are, from 0 to 1.
Answer with an empty list when no statement refers back to anything."""


class StatedLink(BaseModel):
    """One link as the model states it."""

    model_config = ConfigDict(extra="ignore")

    statement: int
    earlier: int
    relation: str
    strength: float


class LinkAnswer(BaseModel):
    """The model's whole answer for a session."""

    model_config = ConfigDict(extra="ignore")

    links: list[StatedLink]


def linking_prompt(
    statements: Sequence[Statement], candidates: Mapping[str, Sequence[Candidate]]
) -> str:
    """The statements, numbered, each with its candidates numbered under it."""
    lines = []
    for number, statement in enumerate(statements, start=1):
        who = statement.speaker or "the user"
        lines.append(f"[{number}] {statement.occurred_at:%Y-%m-%d} {who}: {statement.content}")
        for n, candidate in enumerate(candidates.get(statement.memory_id, ()), start=1):
            when = f"{candidate.occurred_at:%Y-%m-%d}"
            lines.append(f"    [{number}.{n}] {when}: {candidate.content}")
    return "\n".join(lines)


def to_links(
    statements: Sequence[Statement],
    candidates: Mapping[str, Sequence[Candidate]],
    answer: LinkAnswer,
) -> list[MemoryLink]:
    """The links of a validated answer: each names a statement and one of its own
    candidates, or is dropped; the strongest link to an earlier memory is kept."""
    best: dict[tuple[str, str], MemoryLink] = {}
    for stated in answer.links:
        if not 1 <= stated.statement <= len(statements):
            continue
        statement = statements[stated.statement - 1]
        shown = candidates.get(statement.memory_id, ())
        if not 1 <= stated.earlier <= len(shown):
            continue
        said = stated.relation.strip().lower()
        relation = cast(LinkRelation, said) if said in LINK_RELATIONS else "refers_to"
        link = MemoryLink(
            memory_id=statement.memory_id,
            linked_id=shown[stated.earlier - 1].memory_id,
            relation=relation,
            strength=round(min(1.0, max(0.0, stated.strength)), 6),
        )
        key = (link.memory_id, link.linked_id)
        if key not in best or link.strength > best[key].strength:
            best[key] = link
    return sorted(best.values(), key=lambda x: (x.memory_id, -x.strength, x.linked_id))


class ModelLinker:
    """Links a session's statements to the earlier memories ``model`` says they refer
    back to, among those ``nearest`` finds; ``nearest``'s own links when the call fails."""

    def __init__(self, model: JsonModel, nearest: NearestLinker, max_tokens: int = 2048) -> None:
        self.model = model
        self.nearest = nearest
        self._max_tokens = max_tokens

    def links(
        self, user_id: str, episodes: Sequence[Mapping[str, Any]]
    ) -> tuple[list[MemoryLink], TokenUsage | None]:
        """The links of the user's statements among ``episodes`` (a session's turns), and
        what the call cost."""
        if self.nearest.per_statement <= 0:
            return [], None
        statements, found = self.nearest.candidates(user_id, episodes, CANDIDATES_ASKED)
        asked = [s for s in statements if tells_something(s)]
        candidates = {
            s.memory_id: sorted(
                (c for c in found.get(s.memory_id, ()) if may_link(s, c)),
                key=lambda c: (-c.similarity, c.memory_id),
            )[:CANDIDATES_ASKED]
            for s in asked
        }
        asked = [s for s in asked if candidates[s.memory_id]]
        if not asked:
            return [], None
        try:
            answer, usage = self.model.ask(
                SYSTEM_PROMPT, linking_prompt(asked, candidates), LinkAnswer, self._max_tokens
            )
        except ModelError as exc:
            log.warning("linking by the model failed, linked by the vectors instead: %s", exc)
            return self.nearest.chosen(statements, found), None  # the candidates read
        return to_links(asked, candidates, answer), usage
