"""The tools a working session uses, as facts in a slot per tool (pure): "we use SQLite
for now" is ``uses:sqlite``; "we switched from SQLite to Postgres" is a dated fact in
the slot of what it replaced, so the old fact is superseded. A move between places
("I moved from Lisbon to Porto") is not a switch of tools."""

from __future__ import annotations

import re
from collections.abc import Iterable

from memstream.text.found_facts import Found, date_of
from memstream.text.place_names import PLACE_NAMES
from memstream.text.session_people import SentenceContext
from memstream.text.statements import topic
from memstream.text.third_person import in_third_person
from memstream.text.time_phrases import find_spans

__all__ = ["tool_facts"]


#: "we switched from Redis to Postgres advisory locks for ...": a change of what the
#: speaker works with, written in the slot of what it replaced, so that the fact they
#: used it is superseded.
_SWITCH = re.compile(
    r"\b(?P<s>I|[Ww]e)(?:'ve|'d)?\s+(?:(?:have|had|just|finally|recently|now|also)\s+)*"
    r"(?P<verb>switched|moved|migrated|changed|went)\s+(?:over\s+|everything\s+|it\s+)?"
    r"from\s+(?P<old>[^,.;!?]{1,40}?)\s+(?:over\s+)?to\s+(?P<new>[^,.;!?]{1,40}?)"
    r"(?=\s+(?:for|with|because|since|as|on|in|at|last|this|after|and)\b|\s*[,.;!?]|\s*$)"
)


#: "we use Jest", "we track experiments in Weights & Biases": what the speaker works
#: with, a slot per tool.
_USES = re.compile(
    r"\b(?P<s>I|[Ww]e)(?:'re|'m|\s+are|\s+am)?\s+"
    r"(?:(?:still|currently|now|mostly|mainly|also|only)\s+)?"
    r"(?:use|using|rely\s+on|relying\s+on|(?:track|run|host|deploy|keep|store|manage|build)"
    r"\s+(?:[a-z]+\s+){0,2}(?:in|on|with))\s+"
    r"(?P<v>[A-Z][\w.+#-]*(?:\s+(?:&\s+)?[A-Z][\w.+#-]*){0,3})"
)


_NOT_A_TOOL = re.compile(r"\b(?:the|our|my|a|an|old|new|whole|entire|current)\b", re.I)


def tool_facts(sentence: str, context: SentenceContext) -> Iterable[tuple[str, Found]]:
    """What the speaker switched to (in the slot of what it replaced) or works with."""
    speaker = context.speaker
    if not speaker:
        return
    said = in_third_person(sentence if sentence[-1] in ".!" else sentence + ".", speaker)
    content = said[0].upper() + said[1:]
    when = date_of(find_spans(sentence, context.turn.occurred_at))
    if when is not None:  # "We switched to Postgres yesterday": on that day
        content = f"{content.rstrip('.!')} ({when})."
    switch = _SWITCH.search(sentence)
    if switch is not None and context.resolve("I") is not None:
        old, new = _tool_key(switch.group("old")), switch.group("new").strip()
        if old and new and not _a_move(switch):
            yield (
                speaker,
                Found(
                    "fact", f"uses:{old}", new, content, True, 0.8, 0.5, (topic(content), "tool")
                ),
            )
        return
    uses = _USES.search(sentence)
    if uses is not None and context.resolve("I") is not None:
        tool = _tool_key(uses.group("v"))
        if tool:
            yield (
                speaker,
                Found(
                    "fact",
                    f"uses:{tool}",
                    uses.group("v"),
                    content,
                    True,
                    0.7,
                    0.4,
                    (topic(content), "tool"),
                ),
            )


def _a_move(switch: re.Match[str]) -> bool:
    """Whether "moved" or "went" from one thing to another is a move between places
    ("I moved from Lisbon to Porto"): unless both are names and neither a known place."""
    if switch.group("verb") not in ("moved", "went"):
        return False
    ends = (switch.group("old").strip(), switch.group("new").strip())
    return any(not end[:1].isupper() or end in PLACE_NAMES for end in ends)


def _tool_key(phrase: str) -> str:
    """The slot word of a tool as a sentence names it: its capitalized words ("our old
    Jenkins setup" is "jenkins"), else the phrase without articles; lower case."""
    capitalized = re.findall(r"\b[A-Z][\w.+#-]*", phrase)
    words = capitalized or _NOT_A_TOOL.sub(" ", phrase).split()
    return " ".join(words).lower()[:40]
