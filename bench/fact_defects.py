"""What no derived fact may be: a request or a question, a name with letters lost, a
sentence cut where it went on. Judged from the fact's words and the turns it cites
alone (not with the extractor's own rules), by ``bench/facts.py`` and the tests.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

#: A request or a question to the assistant, in the words a fact keeps of it ("Help
#: Ana plan Ana's week", "Remind Tomás what to eat"): the opening verbs of requests,
#: an auxiliary before a pronoun ("Should I ..."), a question mark, a hedge.
REQUEST = re.compile(
    r"^(?:please\s+)?(?:help|remind|tell|show|give|write|make|find|explain|suggest|compare|"
    r"summari[sz]e|translate|draft|rewrite|list|let's|check|fix|create|recommend|describe)\b|"
    r"^(?:hmm\b|(?:can|could|would|should|do|does|did|is|are|will)\s+(?:you|i|we|he|she|"
    r"they|it)\b)|\?",
    re.IGNORECASE,
)
_WORD = re.compile(r"\w+")
_DATE_NOTE = re.compile(r"\s*\((?:on|in|the week of) [^)]*\)\.?$")
_TITLES = frozenset({"dr", "mr", "mrs", "ms", "mx", "prof", "st"})


def is_request(content: str) -> bool:
    """True when ``content`` is a request or a question ("Help Ana plan Ana's week: ...",
    "Should Tomás cancel ...?")."""
    return bool(REQUEST.search(content.strip()))


def broken_names(content: str, source: str, speakers: set[str]) -> list[str]:
    """Capitalised words of ``content`` that are a word of ``source`` with its last one
    or two letters lost ("Jos" for "José"); the speakers' names (what "I" becomes) are
    whole."""
    said = set(_WORD.findall(source))
    broken = []
    for word in set(_WORD.findall(content)):
        if word in said or word in speakers or not word[:1].isupper():
            continue
        if any(w.startswith(word) and 0 < len(w) - len(word) <= 2 for w in said):
            broken.append(word)
    return broken


def is_cut(content: str, source: str) -> bool:
    """True when ``content`` ends where its sentence went on: after a title or an
    initial ("Dr."), or inside a number or a name with a dot ("2." of "2.5")."""
    text = _DATE_NOTE.sub("", content.strip()).rstrip()
    if not text.endswith("."):
        return False
    words = text[:-1].split()
    if not words:
        return False
    last = words[-1]
    if last.lower() in _TITLES or (len(last) == 1 and last.isupper()):
        return True
    return bool(re.search(re.escape(last) + r"\.\w", source))


def name_words(names: Iterable[str]) -> set[str]:
    """The words of ``names`` (the speakers': what "I" becomes in a fact)."""
    return {word for name in names for word in _WORD.findall(name)}
