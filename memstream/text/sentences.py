"""Sentences and clauses of a turn, as the fact rules read them (pure).

A sentence ends at "." "!" or "?" before a space or the text's end, or at a line's end,
but not after an abbreviation or an initial; a sentence is cut into clauses at ";" and
where a second statement of the speaker starts ("and I", "but my"). A lead-in
("Quick update:") is dropped, and a request to the listener ("Can you ...") is told
apart from a statement."""

from __future__ import annotations

import re

__all__ = ["INTERJECTION", "clauses", "is_question"]


#: Where a sentence may end: "." "!" "?" before a space or the text's end (so "2.5",
#: "v1.2" and "notes.md" stay whole), or a line's end.
_SENTENCE_END = re.compile(r"[.!?]+(?=\s|$)|\n")


#: Words a "." ends that end no sentence ("Dr. Moreau", "e.g. this").
_ABBREVIATIONS = frozenset(
    {"dr", "mr", "mrs", "ms", "mx", "prof", "st", "jr", "sr", "vs", "etc", "approx", "fig"}
    | {"inc", "ltd", "mt", "ave", "dept", "univ", "e.g", "i.e"}
)


#: An initial or initials before a "." ("J", "J.K", "K"): no sentence ends there.
_INITIALS = re.compile(r"^(?:[A-Z]\.)*[A-Z]$")


def _sentences(text: str) -> list[str]:
    """The sentences of ``text``: split at :data:`_SENTENCE_END`, except after an
    abbreviation or an initial ("J. Smith")."""
    found, start = [], 0
    for end in _SENTENCE_END.finditer(text):
        before = text[start : end.start()].split()
        word = before[-1] if before else ""
        if end.group(0) == "." and (word.lower() in _ABBREVIATIONS or _INITIALS.match(word)):
            continue
        found.append(text[start : end.end()])
        start = end.end()
    found.append(text[start:])
    return [sentence for sentence in found if sentence.strip()]


_SHARED_IMAGE = re.compile(r"\[(?:shares|shared|sharing)[^\]]*\]?", re.IGNORECASE)


def clauses(content: str) -> list[str]:
    """The sentences of a turn, split further at ";" and at ", and I" / "and I'm"
    (each clause a statement of its own), shared-image captions, lead-ins ("Quick
    context:") and requests to the listener ("Help me plan my week: ...") left out."""
    text = _SHARED_IMAGE.sub(" ", content.replace("\u2019", "'"))
    out = []
    for sentence in _sentences(text):
        sentence = _LEAD_IN.sub("", sentence.strip())
        if _is_request(sentence) or is_question(sentence):
            continue
        for clause in _CLAUSE_BREAK.split(sentence):
            clause = clause.strip(" ,")
            if len(clause) >= 6:
                out.append(clause)
    return out


#: What a sentence opens with before the statement it introduces: "Quick context
#: before I ask for help:", "I should correct something:", "Big news:".
_LEAD_IN = re.compile(
    r"^[^:]{0,50}\b(?:context|correct|correction|update|news|note|background|reminder|"
    r"fyi|things? about me)\b[^:]{0,40}:\s+(?=\S)",
    re.IGNORECASE,
)


#: A request to the listener: an imperative ("Help me ...", "Remind me ...", "Write
#: ..."), a "can you" / "could you" / "I need you to", or "let's"; what follows asks
#: for something and asserts nothing.
_REQUEST = re.compile(
    r"^(?:(?:ok(?:ay)?|so|now|also|and|hey|hi|please|quick question)[\s,:!-]+)*"
    r"(?:please\s+)?(?:(?:help|remind|tell|show|give|write|find|explain|suggest|compare|"
    r"summari[sz]e|translate|draft|rewrite|list|check|fix|create|recommend|describe|"
    r"generate|calculate|convert|proofread|edit|format|outline|brainstorm|teach|walk)\s+"
    r"(?:me|us|a|an|the|my|our|this|that|these|those|some|three|two|\w+ing|what|how|why|"
    r"when|where|which|who|if|whether|it|them|out|up|through|down)\b|"
    r"(?:can|could|would|will)\s+you\b|i(?:'d| would) like you to\b|"
    r"i (?:need|want) you to\b|let's\b|let us\b)",
    re.IGNORECASE,
)


#: A question: it opens with a question word or an auxiliary that asks ("Which ... do
#: I", "Do I", "Should we"), and ends with "?" or inverts its verb and subject.
_QUESTION_OPENING = re.compile(
    r"^(?:(?:ok(?:ay)?|so|and|but|hey|hi|also|quick question)[\s,:!-]+)*"
    r"(?:(?:who|whom|whose|what|which|where|when|why|how)\b|"
    r"(?:do|does|did|am|is|are|was|were|can|could|should|would|will|shall|may|might|"
    r"have|has|had)\s+(?:i|you|we|they|he|she|it|my|your|our|the|this|that)\b)",
    re.IGNORECASE,
)
_INVERTED = re.compile(
    r"\b(?:do|does|did|am|is|are|was|were|can|could|should|would|will|have|has)\s+"
    r"(?:i|you|we|they|he|she|it)\b",
    re.IGNORECASE,
)


def is_question(sentence: str) -> bool:
    """Whether ``sentence`` asks rather than tells ("Which indentation do I prefer in
    Python code?", "Do I like tea"): nothing said in it is a fact or a preference. A
    statement with a question tag ("I moved to Porto, right?") is not one."""
    text = INTERJECTION.sub("", sentence).strip(" ,-\"'")
    if not _QUESTION_OPENING.match(text):
        return False
    return text.endswith("?") or bool(_INVERTED.search(text))


def _is_request(sentence: str) -> bool:
    """True when ``sentence`` asks the listener for something rather than telling."""
    return bool(_REQUEST.match(INTERJECTION.sub("", sentence).lstrip(" ,-")))


_CLAUSE_BREAK = re.compile(r"\s*;\s*|,?\s+(?:and|but|so)\s+(?=I\b|I'm\b|I've\b|my\b)")


#: Leading words that carry nothing ("Wow, ", "Yeah! ", "Thanks, Jo! ").
INTERJECTION = re.compile(
    r"^(?:(?:oh|ooh|wow|whoa|yeah|yes|yep|no|nah|well|haha|hah|lol|hey|hi|hello|so|and|but|"
    r"also|ah|aw+|omg|totally|exactly|definitely|sure|true|okay|ok|cool|great|awesome|nice|"
    r"man|dude|btw|anyway|honestly|actually|right)\b[\s,!.-]*)+",
    re.IGNORECASE,
)
