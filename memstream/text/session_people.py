"""A session's turns and who a sentence of them is about (pure): the people the session
names, the speaker behind "I" and "my", and the last other person named behind "he"
and "she"."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from memstream.text.fact_words import (
    BASE_VERBS,
    NOT_NAMES,
    THIRD_PERSON_VERBS,
)
from memstream.text.mentions import is_nationality, is_ordinary_word, person_names_in

__all__ = ["SentenceContext", "Turn", "people_named", "session_people"]


@dataclass(frozen=True, slots=True)
class Turn:
    """One turn of a session, as consolidation reads it."""

    event_id: str
    speaker: str | None
    role: str | None
    content: str
    occurred_at: datetime


@dataclass(frozen=True, slots=True)
class SentenceContext:
    """Who "I", "he"/"she" and names in a sentence can refer to."""

    speaker: str
    last_person: str | None
    people: frozenset[str]
    turn: Turn

    def resolve(self, raw: str, verb: str | None = None) -> tuple[str, float] | None:
        """The person a subject word names and how sure that is; ``verb`` must agree
        with the subject ("I like", "she likes") when given."""
        word = raw.strip()
        lowered = word.lower()
        if lowered == "i":
            if verb in THIRD_PERSON_VERBS:
                return None
            return (self.speaker, 0.9) if self.speaker else None
        if verb in BASE_VERBS:
            return None
        if lowered in {"he", "she"}:
            return (self.last_person, 0.6) if self.last_person else None
        if word in self.people:
            return word, 0.8
        return None

    def owner(self, word: str) -> str | None:
        if word.endswith("'s"):
            name = word[:-2]
            return name if name in self.people and name not in NOT_NAMES else None
        return (self.speaker or None) if word.lower() == "my" else self.last_person


_SUBJECT_OF_VERB = re.compile(
    r"\b([A-Z][a-z'-]+)\s+(?:lives|works|moved|is|was|has|likes|loves|said|went|got|started)\b"
)


_AFTER_PREPOSITION = re.compile(r"\b(?:in|to|at|from|near|visit|visited|visiting|for)\s+$", re.I)


def session_people(turns: Sequence[Turn]) -> frozenset[str]:
    """The speakers of a session, the person names its turns mention, and capitalized
    words that are the subject of a verb ("Maria lives...")."""
    names = {t.speaker.strip() for t in turns if t.speaker}
    for t in turns:
        names.update(
            n for n in person_names_in(t.content) if n not in NOT_NAMES and not is_nationality(n)
        )
        names.update(
            m.group(1)
            for m in _SUBJECT_OF_VERB.finditer(t.content)
            if m.group(1) not in NOT_NAMES
            and not is_ordinary_word(m.group(1))
            and not is_nationality(m.group(1))
        )
    return frozenset(names)


def people_named(sentence: str, speaker: str) -> list[str]:
    """Names in ``sentence`` that could be a "he" or "she" later: not the speaker, not
    after a preposition (places: "in Porto", "to Berlin")."""
    found = []
    for name in person_names_in(sentence) + _SUBJECT_OF_VERB.findall(sentence):
        if name == speaker or name in NOT_NAMES or is_ordinary_word(name) or is_nationality(name):
            continue
        at = sentence.find(name)
        if at >= 0 and _AFTER_PREPOSITION.search(sentence[:at]):
            continue
        found.append((at, name))
    return [name for _, name in sorted(found)]
