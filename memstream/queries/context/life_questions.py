"""Questions about a person's life that a fact's slot answers (pure): where someone
works and what they do, where they live, who their sister (partner, manager, ...) is.

The local extractor keeps such facts in slots (``works_at``, ``occupation``,
``lives_in``, a relation), each superseded by the next; a context block answers these
questions from the slots' current facts first, whatever the search ranked above them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memstream.text.fact_words import RELATIONS, RELATIONS_EXCLUSIVE

__all__ = ["HOME_ATTRIBUTES", "WORK_ATTRIBUTES", "LifeQuestion", "life_question"]

_WHO = r"(?P<who>I|me|my|[A-Z][\w'-]+)"
_WORK = re.compile(
    r"\b(?:where\s+(?:do|does|did)\s+" + _WHO + r"\s+work"
    r"|who\s+(?:do|does)\s+" + _WHO.replace("who", "who2") + r"\s+work\s+for"
    r"|what\s+(?:do|does)\s+"
    + _WHO.replace("who", "who3")
    + r"\s+do\s+(?:for\s+(?:a\s+living|work)"
    r"|there|at\s+work)"
    r"|what(?:'s|\s+is)\s+(?P<own>my|[A-Z][\w'-]+'s)\s+(?:job|role|occupation|position|work)\b"
    r"(?!\s+(?:in|on|for|at)\b))",
    re.IGNORECASE,
)
_HOME = re.compile(
    r"\b(?:where\s+(?:do|does|did)\s+" + _WHO + r"\s+(?:live\b|(?:move|relocate)(?:\s+to)?"
    r"\s*(?:[?,.]|$|\s+(?:after|in|last|this|when|from)\b))"
    r"|where(?:'s|\s+is)\s+(?P<own>my|[A-Z][\w'-]+'s)\s+(?:home|flat|apartment|house)\b)",
    re.IGNORECASE,
)
_RELATION = re.compile(
    r"\b(?:who|what)(?:'s|\s+is|\s+are)\s+(?P<own>my|[A-Z][\w'-]+'s)\s+"
    r"(?:(?:new|little|older|younger|big|best)\s+)?(?P<rel>[a-zé]+?)s?(?:'s\s+name)?\b",
    re.IGNORECASE,
)

#: The slots a question about work and one about home are answered from.
WORK_ATTRIBUTES = frozenset({"works_at", "occupation"})
HOME_ATTRIBUTES = frozenset({"lives_in"})


@dataclass(frozen=True)
class LifeQuestion:
    """What a question asks of whose life: the slots' attributes (a relation's, as
    ``sister`` and ``sister:<name>``) and of whom (None: the one asking, "I" or "my")."""

    attributes: frozenset[str]
    relations: frozenset[str]
    about: str | None


def life_question(query: str) -> LifeQuestion | None:
    """The life slots ``query`` asks about, or None when it asks about none."""
    attributes: set[str] = set()
    relations: set[str] = set()
    people: list[str | None] = []
    for pattern, wanted in ((_WORK, WORK_ATTRIBUTES), (_HOME, HOME_ATTRIBUTES)):
        for m in pattern.finditer(query):
            attributes |= wanted
            people.append(_person(next(v for v in _named(m) if v)))
    for m in _RELATION.finditer(query):
        relation = m.group("rel").lower()
        if relation in RELATIONS | RELATIONS_EXCLUSIVE:
            relations.add(relation)
            people.append(_person(m.group("own")))
    if not attributes and not relations:
        return None
    named = [p for p in people if p is not None]
    return LifeQuestion(frozenset(attributes), frozenset(relations), named[0] if named else None)


def _named(m: re.Match[str]) -> list[str]:
    groups = m.groupdict()
    return [groups[g] for g in ("who", "who2", "who3", "own") if groups.get(g)]


def _person(word: str) -> str | None:
    """The person a question's word names: None for the one asking."""
    if word.lower() in {"i", "me", "my"}:
        return None
    return word.removesuffix("'s")
