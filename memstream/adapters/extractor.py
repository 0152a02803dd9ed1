"""Consolidation by a language model: one call per closed session, a JSON answer.

The session's turns are numbered and sent with their times and speakers; the model
answers an :class:`ExtractionAnswer` (validated by pydantic) naming, for every memory,
the turns it comes from. Those numbers become the memory's provenance (the turns'
event ids); a memory citing no turn of the session is dropped with a warning. Ids are
derived from user, session, subject, attribute and value as the local extractor does,
and the attribute names the prompt asks for are the local extractor's, so facts from
either supersede each other. A failed call or a malformed answer raises
:class:`~memstream.adapters.language_models.ModelError`: the session stays unconsolidated and
is tried again later.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from memstream.adapters.language_models import JsonModel
from memstream.events.identifier_rules import derived_memory_id
from memstream.events.vocabulary import DerivedMemory, TokenUsage
from memstream.text.extractor import Turn

__all__ = [
    "ExtractedMemory",
    "ExtractionAnswer",
    "ModelExtractor",
    "extraction_prompt",
    "to_memories",
]

log = logging.getLogger(__name__)

SYSTEM_PROMPT = """\
You maintain the long-term memory of an assistant. From the conversation turns you are \
given, extract the durable things worth remembering about the people in it: identity, \
age, where they live and come from, moves, work and job changes, occupations, relations \
(partner, family, friends, pets), preferences and dislikes, plans with dates, \
possessions, habits, how-tos, opinions, and dated events.

Rules:
- Write each memory as one self-contained sentence in the third person, naming the \
person (never "I", "he" or "she") and giving absolute dates (resolve "yesterday", \
"next month" against the time of the turn that says it).
- kind: "fact", "preference" (likes, dislikes, favourites), "procedure" (how to do \
something) or "opinion".
- subject: the person or thing the memory is about, by name.
- attribute: a short snake_case name. Use these when they fit: lives_in, from, \
works_at, occupation, name, age, partner, wife, husband, boss, favourite_<thing>, \
likes, dislikes, plans, has, habit, left_job, event.
- value: the value of the attribute ("Porto", "Blue Fin Labs").
- exclusive: true when the subject holds one value of the attribute at a time (where \
someone lives, works, their job, name, age, partner, a favourite), so that a newer \
memory replaces an older one.
- confidence and importance: numbers from 0 to 1.
- tags: a few lowercase words.
- turns: the numbers of the turns the memory comes from (at least one).
- Leave out small talk, greetings and anything not worth remembering next month. \
Answer with an empty list when there is nothing."""


class ExtractedMemory(BaseModel):
    """One memory as the model states it."""

    model_config = ConfigDict(extra="ignore")

    kind: Literal["fact", "preference", "procedure", "opinion"]
    content: str
    subject: str
    attribute: str
    value: str
    exclusive: bool
    confidence: float
    importance: float
    tags: list[str]
    turns: list[int]


class ExtractionAnswer(BaseModel):
    """The model's whole answer for a session."""

    model_config = ConfigDict(extra="ignore")

    memories: list[ExtractedMemory]


def extraction_prompt(session_id: str, turns: Sequence[Turn]) -> str:
    """The numbered turns of a session, with their times and speakers."""
    lines = [f"Session {session_id}, {len(turns)} turns:"]
    for number, turn in enumerate(turns, start=1):
        who = turn.speaker or turn.role or "someone"
        when = turn.occurred_at.strftime("%Y-%m-%d %H:%M UTC (%A)")
        lines.append(f"[{number}] {when} {who}: {turn.content}")
    return "\n".join(lines)


_NOT_ATTRIBUTE = re.compile(r"[^a-z0-9_]+")


def _unit(value: float) -> float:
    return min(1.0, max(0.0, value))


def to_memories(
    user_id: str, session_id: str, turns: Sequence[Turn], answer: ExtractionAnswer
) -> list[DerivedMemory]:
    """The derived memories of a validated answer, with provenance from its turn numbers."""
    out: dict[str, DerivedMemory] = {}
    for found in answer.memories:
        cited = sorted({n for n in found.turns if 1 <= n <= len(turns)})
        attribute = _NOT_ATTRIBUTE.sub("_", found.attribute.strip().lower()).strip("_")
        if not cited or not attribute or not found.content.strip():
            log.warning("dropping a memory citing no turn of %s: %r", session_id, found.content)
            continue
        sources = [turns[n - 1] for n in cited]
        subject = found.subject.strip()
        try:
            memory = DerivedMemory(
                memory_id=derived_memory_id(
                    "fact", user_id, session_id, subject.lower(), attribute, found.value.strip()
                ),
                kind=found.kind,
                content=found.content.strip()[:4000],
                subject=subject[:200] or None,
                attribute=attribute[:100],
                value=found.value.strip()[:1000] or None,
                exclusive=found.exclusive,
                confidence=_unit(found.confidence),
                importance=_unit(found.importance),
                tags=sorted({t for t in (_tag(t) for t in found.tags[:32]) if t}),
                speaker=sources[0].speaker,
                session_id=session_id,
                source_event_ids=list(dict.fromkeys(t.event_id for t in sources)),
                occurred_at=max(t.occurred_at for t in sources),
            )
        except ValidationError as exc:
            log.warning("dropping an invalid memory of %s: %s", session_id, exc)
            continue
        out.setdefault(memory.memory_id, memory)
    return list(out.values())


def _tag(raw: str) -> str:
    return re.sub(r"[^\w.:+/-]+", "-", raw.strip().lower()).strip("-")[:64]


class ModelExtractor:
    """The extractor that asks ``model`` (see :mod:`memstream.adapters.language_models`)."""

    def __init__(self, model: JsonModel, max_tokens: int = 4096) -> None:
        self.model = model
        self.name = model.name
        self._max_tokens = max_tokens

    def extract(
        self, user_id: str, session_id: str, turns: Sequence[Turn]
    ) -> tuple[list[DerivedMemory], TokenUsage | None]:
        if not turns:
            return [], None
        answer, usage = self.model.ask(
            SYSTEM_PROMPT,
            extraction_prompt(session_id, turns),
            ExtractionAnswer,
            self._max_tokens,
        )
        return to_memories(user_id, session_id, turns, answer), usage
