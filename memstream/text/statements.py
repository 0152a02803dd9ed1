"""What a speaker says of themself that no rule reads, kept as a third-person ``statement``
fact tagged with its topic (pure): a few sentences in the first person, not a
pleasantry, not addressed to the listener, not an aside."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime

from memstream.text.found_facts import Found, date_of
from memstream.text.sentences import INTERJECTION
from memstream.text.third_person import in_third_person, words
from memstream.text.time_phrases import find_spans

__all__ = ["statement_fact", "topic"]


#: Sentences a speaker says of themself ("I ...", "my ...", "we ...").
_FIRST_PERSON = re.compile(r"\b(?:I|I'm|I've|I'd|I'll|[Ww]e|[Ww]e're|[Ww]e've|[Mm]y|[Oo]ur)\b")


_SECOND_PERSON = re.compile(r"\b(?:you|your|you're|you've|yours|yourself)\b", re.IGNORECASE)


#: Sentences about the conversation rather than the speaker's life.
_PLEASANTRY = re.compile(
    r"^(?:I(?:'m| am)\s+(?:so\s+|really\s+|super\s+)?(?:glad|happy for|sorry|sure|here|"
    r"thrilled for|proud of you|excited for you|curious|all ears)|"
    r"I\s+(?:really\s+|totally\s+|completely\s+)?(?:hope|know|understand|agree|bet|guess|see|"
    r"appreciate|feel you|get it|get what|can imagine|can see|can tell|can't wait to see|"
    r"remember you|wish you|mean|couldn't agree|'d love to (?:see|hear)|would love to (?:see|"
    r"hear)|'ll keep|will keep|can't imagine|admire|love that you|love how you|"
    r"love your|like your|think you|can't wait to (?:hear|see|read))|"
    r"(?:my\s+)?(?:thanks|thank)\b|[Mm]e too|[Mm]y pleasure|[Ww]e should)",
    re.IGNORECASE,
)


_STATEMENT_SENTENCES = 3


_STATEMENT_WORDS = (3, 45)


_STATEMENT_STOPWORDS = frozenset(
    words(
        """a an the and or but so to of in on at for with it is was be been am are were
    i i'm i've i'd i'll me my we our us that this just really so very too also it's its
    have has had do did does not no yes oh wow yeah lol haha"""
    )
)


def statement_fact(sentences: Sequence[str], speaker: str, occurred_at: datetime) -> Found | None:
    """What ``speaker`` said of themself in a turn's ``sentences`` that no rule read,
    in the third person: "I typically hold it for 30-60 seconds." becomes "Maria
    typically holds it for 30-60 seconds."; None when they said nothing of themself."""
    if not speaker:
        return None
    said = [s for s in (_said_of_self(s) for s in sentences) if s is not None]
    if not said:
        return None
    kept = said[:_STATEMENT_SENTENCES]
    text = " ".join(in_third_person(s if s[-1] in ".!" else s + ".", speaker) for s in kept)
    text = text[0].upper() + text[1:]
    value = text.rstrip(".!") + "."
    # each sentence's phrases in its own tense ("I accepted the offer! I start on
    # Monday": the next Monday)
    when = date_of([span for s in kept for span in find_spans(s, occurred_at)])
    if when is not None:
        value = f"{value[:-1]} ({when})."
    return Found(
        "fact",
        f"said:{value.lower()[:60]}",
        value,
        value,
        False,
        0.6,
        0.4,
        (topic(value), "statement"),
    )


#: What a sentence ends with that says nothing of the speaker: ", thanks", ", by the
#: way", ", haha" (before the sentence's own end mark).
_ASIDE = re.compile(
    r",\s*(?:thanks|thank you|by the way|btw|haha|lol|though|anyway)(?=\s*[.!]*\s*$)",
    re.IGNORECASE,
)


def _said_of_self(sentence: str) -> str | None:
    """``sentence`` without its leading interjections and trailing asides ("..., thanks",
    "..., by the way") when it is a statement the speaker makes of themself; None for
    questions, pleasantries and small talk."""
    text = _ASIDE.sub("", INTERJECTION.sub("", sentence.strip())).strip(" ,-")
    if not text or text.endswith(("?", ":")) or not _FIRST_PERSON.search(text):
        return None  # a question, or what introduces a quote ("Here's my contract:")
    if _PLEASANTRY.match(text) or _SECOND_PERSON.search(text):
        return None
    words = text.split()
    if not _STATEMENT_WORDS[0] <= len(words) <= _STATEMENT_WORDS[1]:
        return None
    content = [w for w in words if w.lower().strip(",.!'\"") not in _STATEMENT_STOPWORDS]
    if len(content) < 2:
        return None
    return text


_TOPICS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (name, re.compile(r"\b(?:" + words + r")", re.IGNORECASE))
    for name, words in (
        ("pet", r"dog|cat|pet|pupp|kitten|turtle|guinea pig|hamster|parrot|horse"),
        (
            "family",
            r"kid|son\b|daughter|wife|husband|mom\b|dad\b|mother|father|sister|brother|"
            r"family|parent|grand|child|baby|married|wedding",
        ),
        (
            "work",
            r"job|work|career|boss|compan|office|business|promot|hired|interview|client|"
            r"colleague|shop|store|startup|salary|team\b",
        ),
        ("home", r"live\b|lives\b|moved|house|apartment|home\b|neighbo|city|town\b"),
        ("health", r"health|doctor|hospital|injur|sick|diet|gym|workout|therap|surgery|pain"),
        ("plan", r"going to|plan|'ll\b|will\b|next (?:week|month|year)|hope to|want to|soon"),
        ("preference", r"love|like|enjoy|favou?rite|hate|prefer|fan of|passion"),
        (
            "hobby",
            r"paint|read|book|hik|yoga|music|guitar|piano|game|gaming|danc|cook|bak|"
            r"photograph|garden|camp|sport|art\b|writ",
        ),
    )
)


def topic(text: str) -> str:
    """The tag of what a statement is about (work, family, plan, ...), else "event"."""
    for name, pattern in _TOPICS:
        if pattern.search(text):
            return name
    return "event"
