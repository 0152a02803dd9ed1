"""A life's changes as the local extractor reads them (pure): a job begun or to begin
and its role, a role named or given by a promotion, and a move of house "we" made, each
a fact in its slot dated by its sentence ("Ana works at Northwind (from 2026-11-30).").
A move is one of house only to a known place or in a sentence that speaks of a home."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

from memstream.text.fact_patterns import NAME, NOW, PLACE, ROLE, SUBJECT
from memstream.text.found_facts import Found, attribute_fact, dated
from memstream.text.place_names import PLACE_NAMES
from memstream.text.session_people import SentenceContext

__all__ = ["a_home", "life_changes"]


#: "We moved to Bergen": the speaker's home, as "I moved to Bergen" is.
_WE_MOVED = re.compile(
    r"\b[Ww]e(?:\s+just|\s+recently|\s+finally|'ve|\s+have)?\s+(?:moved|relocated)\s+"
    r"(?:back\s+)?to\s+(?P<v>" + PLACE + r")"
)
#: Words that say a move is of a home ("the flat is full of boxes"), not of a tool
#: ("we moved to Kubernetes").
_HOME_WORDS = re.compile(
    r"\b(?:flat|apartment|house|home|city|town|country|neighbou?rhood|rent|landlord|boxes|"
    r"movers|family|kids|job|weather|rain|live|living|lives)\b",
    re.IGNORECASE,
)


def a_home(place: str, sentence: str) -> bool:
    """Whether moving to ``place`` (as ``sentence`` says it) is moving house: a known
    place (a country, a state, a large city), or a sentence that speaks of a home."""
    folded = unicodedata.normalize("NFKD", place)
    folded = "".join(c for c in folded if not unicodedata.combining(c))
    return folded in PLACE_NAMES or bool(_HOME_WORDS.search(sentence))


#: What follows "as" and is no role ("as you know", "as usual", "as planned").
_NO_ROLE = r"(?!(?:you|we|they|I|he|she|it|usual|well|planned|expected|soon|long)\b)"
#: Starting a job, now or on a date, and the role in it: "I start a new job at
#: Northwind next Monday as a data engineer", "Next week I start at Northwind Labs as
#: their platform lead", "I'm joining Contoso next month as head of design".
_JOB_START = re.compile(
    r"\b" + SUBJECT + r"(?:'m|\s+am|\s+is|'ll|\s+will)?" + NOW + r"\s+"
    r"(?:(?:start|starts|starting|begin|begins|beginning)\s+(?:(?:a|my|his|her|the)\s+)?"
    r"(?:new\s+)?(?:(?:job|position|role|work|working)\s+)?(?:at|with)"
    r"|join|joins|joining|joined|(?:got\s+)?hired\s+(?:at|by)"
    r"|(?:accepted|took|got)\s+(?:the|a|an|their)\s+(?:job\s+)?offer\s+(?:from|at|with))\s+"
    r"(?P<v>" + PLACE + r")"
    r"(?:[^;!?]{0,40}?\bas\s+(?:(?:a|an|the|their|its|our|his|her)\s+)?(?:new\s+)?"
    + _NO_ROLE
    + r"(?P<role>"
    + ROLE
    + r"))?"
)
#: A role named: "my new role is staff engineer", "I was promoted to senior analyst",
#: "I start my new job on Monday as a data engineer".
ROLENAMED = re.compile(
    r"\b(?:(?P<o>[Mm]y|[Hh]is|[Hh]er)\s+(?:new\s+)?(?:role|job title|title|position)\s+"
    r"(?:is|will be)\s+|"
    r"(?P<t>I|he|she|" + NAME + r")(?:'m|\s+am|\s+is|'ll|\s+will)?" + NOW + r"\s+"
    r"(?:start|starts|starting|begin|begins|beginning)\s+(?:my|his|her|a|the)\s+(?:new\s+)?"
    r"(?:job|position|role)\b(?![^;!?]{0,40}?\b(?:at|with)\s+[A-Z])[^,;!?]{0,40}?\bas\s+|"
    + SUBJECT
    + r"(?:\s+was|\s+got|'ve\s+been|\s+have\s+been|"
    r"\s+has\s+been|'m\s+being|\s+am\s+being)\s+promoted\s+to\s+)"
    r"(?:(?:a|an|the)\s+)?" + _NO_ROLE + r"(?P<role>" + ROLE + r")"
)


def _job_start(
    sentence: str, context: SentenceContext, when: str | None
) -> Iterable[tuple[str, Found]]:
    """The workplace and the role of a job begun or to begin, each in its slot and
    holding from the date the sentence names ("Ana works at Northwind (from
    2026-11-30).", "Ana works as a data engineer (from 2026-11-30).")."""
    for m in _JOB_START.finditer(sentence):
        who = context.resolve(m.group("s"))
        if who is None:
            continue
        place = attribute_fact("started_job", who[0], m.group("v").strip(), who[1])
        if place is None:
            continue
        yield who[0], dated(place, when, holds=True)
        role = m.group("role") and attribute_fact("works_as", who[0], m.group("role"), who[1])
        if role:
            yield who[0], dated(role, when, holds=True)
    for m in ROLENAMED.finditer(sentence):
        owner = m.group("o")
        subject = m.group("s") or m.group("t")
        who = context.resolve(subject) if owner is None else _owned(context, owner)
        found = who and attribute_fact("works_as", who[0], m.group("role"), who[1])
        if who and found:
            yield who[0], dated(found, when, holds=True)


def _owned(context: SentenceContext, owner: str) -> tuple[str, float] | None:
    """Who "my", "his" or "her" stands for, as sure as a relation's owner is."""
    name = context.owner(owner)
    return None if name is None else (name, 0.8)


def life_changes(
    sentence: str, context: SentenceContext, when: str | None
) -> Iterable[tuple[str, Found]]:
    """The jobs, roles and moves of house ``sentence`` tells, dated ``when`` (the date
    it names, as :func:`memstream.text.found_facts.date_of` writes it)."""
    yield from _job_start(sentence, context, when)
    for m in _WE_MOVED.finditer(sentence):  # the speaker moved, with others
        home = context.speaker and attribute_fact("moved_to", context.speaker, m["v"], 0.8)
        if context.speaker and home and a_home(home.value, sentence):
            yield context.speaker, dated(home, when)
