"""A fact as a rule found it, and the cleaning of the values it names (pure): a place, a
name, a phrase without filler, the fact an attribute makes ("moved_to" -> "Ana moved to
Porto."), "X is a Y", and the date a fact carries."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace

from memstream.events.vocabulary import DerivedKind
from memstream.text.fact_words import (
    IDENTITIES,
    NOT_NAMES,
    OCCUPATIONS,
    VAGUE_ALONE,
    VAGUE_PAIRS,
    VAGUE_STARTS,
)
from memstream.text.time_phrases import TimeSpan

__all__ = [
    "RESOLVED_DATE",
    "Found",
    "attribute_fact",
    "clean_name",
    "clean_phrase",
    "date_of",
    "dated",
]


@dataclass(frozen=True, slots=True)
class Found:
    kind: DerivedKind
    attribute: str
    value: str
    content: str
    exclusive: bool
    confidence: float
    importance: float
    tags: tuple[str, ...]


_ATTRIBUTE_BUILDERS: dict[
    str, Callable[[str, str], tuple[str, str, bool, float, tuple[str, ...]]]
] = {
    "moved_to": lambda who, v: ("lives_in", f"{who} moved to {v}.", True, 0.85, ("home",)),
    "lives_in": lambda who, v: ("lives_in", f"{who} lives in {v}.", True, 0.8, ("home",)),
    "from": lambda who, v: ("from", f"{who} is from {v}.", True, 0.7, ("origin",)),
    "works_at": lambda who, v: ("works_at", f"{who} works at {v}.", True, 0.85, ("work",)),
    # a job begun (or to begin, on the date its sentence names): the workplace's slot
    "started_job": lambda who, v: ("works_at", f"{who} works at {v}.", True, 0.85, ("work",)),
    "works_as": lambda who, v: (
        "occupation",
        f"{who} works as {_a(v)} {v}.",
        True,
        0.85,
        ("work",),
    ),
    "left_job": lambda who, v: (
        "left_job",
        f"{who} left the {v}." if v.islower() else f"{who} left the job{' at ' + v if v else ''}.",
        False,
        0.7,
        ("work",),
    ),
    "age": lambda who, v: ("age", f"{who} is {v} years old.", True, 0.6, ("identity",)),
    "name": lambda who, v: ("name", f"{who}'s name is {v}.", True, 0.9, ("identity",)),
}


def _a(noun: str) -> str:
    return "an" if noun[:1].lower() in "aeiou" else "a"


def attribute_fact(attribute: str, who: str, value: str, confidence: float) -> Found | None:
    if attribute == "is_a":
        return _is_a(who, value, confidence)
    if attribute in {"lives_in", "moved_to", "from", "works_at", "started_job"} or (
        attribute == "left_job" and value and not value.islower()
    ):
        place = _clean_place(value)
        if place is None:
            return None
        value = place
    if attribute == "age" and not 1 <= int(value) <= 120:
        return None
    if attribute == "name":
        cleaned = clean_name(value)
        if cleaned is None:
            return None
        value = cleaned
    name, content, exclusive, importance, tags = _ATTRIBUTE_BUILDERS[attribute](who, value)
    return Found("fact", name, value, content, exclusive, confidence, importance, tags)


def _is_a(who: str, phrase: str, confidence: float) -> Found | None:
    words = phrase.lower().split()
    head = words[-1]
    if head in OCCUPATIONS or head.rstrip("s") in OCCUPATIONS:
        return Found(
            "fact",
            "occupation",
            phrase,
            f"{who} is {_a(phrase)} {phrase}.",
            True,
            confidence,
            0.8,
            ("work",),
        )
    if head in IDENTITIES:
        return Found(
            "fact",
            f"identity:{phrase}",
            phrase,
            f"{who} is a {phrase}.",
            False,
            confidence,
            0.7,
            ("identity",),
        )
    return None


def _clean_place(value: str) -> str | None:
    value = re.sub(r"^the\s+", "", value.strip(" ,.").rstrip("."))
    words = value.replace(",", " ").split()
    while words and words[-1] in NOT_NAMES:
        words.pop()
    if not words or words[0] in NOT_NAMES:
        return None
    return value[: len(" ".join(words)) + value.count(",")].strip(" ,") or None


def clean_name(value: str) -> str | None:
    """The name in ``value``, without the words that are no name and a possessive "'s"
    ("Nils" and "Elias" keep their "s")."""
    words = [w for w in value.split() if w not in NOT_NAMES]
    if not words:
        return None
    name = " ".join(words)
    return name[:-2] if name.endswith("'s") else name


_FILLER = re.compile(r"\b(?:so much|a lot|too|really|very much|lol|haha)\b", re.IGNORECASE)


def clean_phrase(value: str, words: int = 8) -> str | None:
    value = _FILLER.sub("", value).strip(" ,-")
    value = re.sub(r"\s+", " ", value)
    tokens = value.split()
    if not tokens or len(tokens) > words:
        return None
    first = tokens[0].lower()
    if first in VAGUE_STARTS or (len(tokens) == 1 and first in VAGUE_ALONE):
        return None
    if len(tokens) >= 2 and f"{first} {tokens[1].lower()}" in VAGUE_PAIRS:
        return None
    return value


#: A date as :func:`date_of` and :func:`dated` write it: "(on 2024-06-03)", "(the week
#: of ...)", "(in 2024-06)", and a state's start, "(from 2024-06-03)", "(from the week of
#: ...)"; groups: how ("on" for a bare "from"), and the date.
RESOLVED_DATE = re.compile(r"\((?:from )?(on|in|the week of|(?<=from )) ?(\d{4}(?:-\d{2}){0,2})\)")


def dated(found: Found, when: str | None, holds: bool = False) -> Found:
    """``found`` with the date its sentence names in its content ("Ana moved to Porto
    (the week of 2026-11-16)."); ``holds``: the fact is a state that holds from then
    ("Ana works at Northwind (from 2026-11-30).")."""
    if when is None:
        return found
    if holds:
        when = "from " + when.removeprefix("on ").removeprefix("in ")
    content = f"{found.content.removesuffix('.')} ({when})."
    return replace(found, content=content)


def date_of(spans: list[TimeSpan]) -> str | None:
    if not spans:
        return None
    span = spans[0]
    if span.granularity == "day":
        return f"on {span.label}"
    if span.granularity == "week":
        return f"the week of {span.start.date().isoformat()}"
    if span.granularity == "month":
        return f"in {span.label}"
    return f"in {span.label}"
