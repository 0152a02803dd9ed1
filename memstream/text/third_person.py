"""What a speaker says of themself, retold in the third person (pure).

"I maintain the build" said by Ana becomes "Ana maintains the build": pronouns swap,
the verb agrees with its new subject (English verb forms from lemminflect's tables), and
"we" keeps its number."""

from __future__ import annotations

import re

from lemminflect import getAllLemmas, getInflection

__all__ = ["agreeing_verb", "in_third_person", "third_person"]


_SWAPS = (
    (re.compile(r"\bI'm\b|\bI am\b"), "{who} is"),
    (re.compile(r"\bI've\b"), "{who} has"),
    (re.compile(r"\bI'll\b"), "{who} will"),
    (re.compile(r"\bI\b"), "{who}"),
    (re.compile(r"\bmy\b", re.IGNORECASE), "{who}'s"),
    (re.compile(r"\bme\b"), "{who}"),
    (re.compile(r"\bmyself\b"), "themself"),
)


def third_person(text: str, who: str) -> str:
    """``text`` with the speaker's first-person words replaced by their name."""
    if not who:
        return text
    for pattern, replacement in _SWAPS:
        text = pattern.sub(replacement.format(who=who), text)
    return text


words = str.split


_ADVERBS = (
    r"(?:\s+(?:really|also|just|still|usually|always|often|never|actually|sometimes|"
    r"typically|totally|definitely|even|mostly|now|generally|normally|rarely|already))*"
)


_I_VERB = re.compile(r"\b(?P<s>I|[Ww]e)(?P<adv>" + _ADVERBS + r")\s+(?P<verb>[a-z]+(?:n't)?)\b")


_PRESENT_AGREEMENT = {"am": "is", "have": "has", "do": "does", "don't": "doesn't", "are": "is"}


#: Verbs that take no "-s" after "he"/"she" (modals), and so stay as they are.
_MODALS = frozenset(words("can could will would shall should must might may ought need dare"))


_WE_SWAPS = (
    (re.compile(r"\b[Ww]e're\b"), "{who} and others are"),
    (re.compile(r"\b[Ww]e've\b"), "{who} and others have"),
    (re.compile(r"\b[Ww]e'll\b"), "{who} and others will"),
    (re.compile(r"\b[Ww]e\b"), "{who} and others"),
    (re.compile(r"\b[Oo]ur\b"), "{who}'s"),
    (re.compile(r"\bus\b"), "{who}"),
)


def in_third_person(sentence: str, who: str) -> str:
    """A first-person sentence of ``who``'s, told of them: "I", "my", "me", "we" and
    "our" replaced, the verbs after "I" agreeing."""
    text = third_person(_agreeing(sentence), who)
    for pattern, replacement in _WE_SWAPS:
        text = pattern.sub(replacement.format(who=who), text)
    return text


def _agreeing(sentence: str) -> str:
    """``sentence`` with the verbs after "I" in the third person singular ("I love" ->
    "I loves"), so that replacing "I" by a name reads right."""

    def agree(m: re.Match[str]) -> str:
        verb = m.group("verb")
        if m.group("s") != "I":
            return m.group(0)
        return f"{m.group('s')}{m.group('adv')} {agreeing_verb(verb)}"

    return _I_VERB.sub(agree, sentence)


def agreeing_verb(verb: str) -> str:
    """``verb`` as it follows "he" or "she" where it followed "I" ("am" -> "is",
    "charge" -> "charges"; "went", "can" and words that are no verb stay)."""
    if verb in _PRESENT_AGREEMENT:
        return _PRESENT_AGREEMENT[verb]
    if verb not in _MODALS and _is_base_verb(verb):
        return _third_singular(verb)
    return verb


def _is_base_verb(word: str) -> bool:
    """True when ``word`` is a verb's base form ("maintain", "ask"; not "went", "asked")."""
    lemmas: tuple[str, ...] | None = getAllLemmas(word).get("VERB")
    return lemmas == (word,)


def _third_singular(verb: str) -> str:
    """The third person singular of a base-form verb ("charge" -> "charges")."""
    forms: tuple[str, ...] = getInflection(verb, "VBZ")
    return forms[0] if forms else verb
