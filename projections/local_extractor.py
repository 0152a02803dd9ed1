"""The local fact extractor: rules over a closed session's turns (pure, deterministic).

Each sentence is read for statements about a person: first person ("I", "my", "me",
resolved to the speaker), third person by name ("Maria moved to Porto"), or by pronoun
("she", "he", resolved to the last person named in the session other than the speaker).
The rules cover identity and age, where someone lives or comes from and moves, work and
job changes, occupations, relations (partner, family, friends, pets), likes, dislikes
and favourites, plans with dates, possessions, habits, opinions, and dated events ("I
went to the support group yesterday" becomes a fact with the resolved date).
Sentences are split into clauses at ";" and at "and I"; what a speaker says of themself
that no rule reads becomes a third-person ``statement`` fact tagged with its topic.

Every fact keeps its provenance (the event ids of the turns it came from). Facts about
where someone lives, where they work, their job, name, age, partner and favourites are
exclusive: a later one supersedes an earlier one. Nothing here reads a clock: relative
dates are resolved against the time of the turn that said them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from lemminflect import getAllLemmas, getInflection

from memstream.projections.derived import derived_memory_id
from memstream.projections.entities import is_nationality, is_ordinary_word, person_names_in
from memstream.projections.events import DerivedKind, DerivedMemory, TokenUsage
from memstream.projections.place_names import PLACE_NAMES
from memstream.projections.timephrases import TimeSpan, find_spans

__all__ = ["LOCAL_EXTRACTOR", "LocalExtractor", "Turn", "extract_facts"]

LOCAL_EXTRACTOR = "local/1"


@dataclass(frozen=True, slots=True)
class Turn:
    """One turn of a session, as consolidation reads it."""

    event_id: str
    speaker: str | None
    role: str | None
    content: str
    occurred_at: datetime


@dataclass(frozen=True, slots=True)
class _Found:
    kind: DerivedKind
    attribute: str
    value: str
    content: str
    exclusive: bool
    confidence: float
    importance: float
    tags: tuple[str, ...]


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


_NAME = r"[A-Z][\w'-]+(?:\s+[A-Z][\w'-]+){0,3}"
_PLACE = r"(?:the\s+)?[A-Z][\w'.-]+(?:(?:\s+|,\s*)[A-Z][\w'.-]+){0,3}"
#: A phrase, up to the end of its clause: a dot or comma inside a number, a version or
#: a name ("2.0", "Fly.io", "€1,200") does not end it.
_PHRASE = r"(?:[^,.;!?]|[.,](?=\w)){2,80}?"
_END = (
    r"(?=\s*(?:[,.;!?](?!\w)|$|\s+(?:and|but|because|so|since|which|when|with|after|"
    r"before)\b))"
)
_FIRST = r"(?P<s>I)"
#: Adverbs between a subject and its verb ("I now work", "she also quit").
_NOW = r"(?:\s+(?:now|also|just|recently|finally|currently|still|actually))*"
#: A job title of up to three words, up to a preposition ("software tester at ...").
_NOT_ROLE = r"(?!(?:at|for|in|with|and|but|on|since)\b)"
_ROLE = r"(?:" + _NOT_ROLE + r"[a-z-]+\s+){0,2}" + _NOT_ROLE + r"[a-z-]+"
_WORKPLACE_NOUN = (
    r"(?:hospital|clinic|school|university|college|company|firm|bank|agency|restaurant|cafe|"
    r"caf\u00e9|bakery|shop|store|startup|studio|office|factory|lab|library|hotel|gym|job)"
)

_OCCUPATIONS = frozenset(
    [
        "accountant",
        "actor",
        "actress",
        "architect",
        "artist",
        "author",
        "baker",
        "barista",
        "carpenter",
        "chef",
        "cleaner",
        "coach",
        "consultant",
        "counselor",
        "counsellor",
        "dancer",
        "dentist",
        "designer",
        "developer",
        "doctor",
        "driver",
        "economist",
        "editor",
        "electrician",
        "engineer",
        "farmer",
        "firefighter",
        "journalist",
        "judge",
        "lawyer",
        "librarian",
        "manager",
        "mechanic",
        "musician",
        "nurse",
        "painter",
        "paramedic",
        "pharmacist",
        "photographer",
        "physician",
        "pilot",
        "plumber",
        "poet",
        "policeman",
        "professor",
        "programmer",
        "psychologist",
        "researcher",
        "scientist",
        "singer",
        "student",
        "surgeon",
        "teacher",
        "therapist",
        "translator",
        "tester",
        "cashier",
        "clerk",
        "officer",
        "receptionist",
        "secretary",
        "soldier",
        "technician",
        "tutor",
        "veterinarian",
        "vet",
        "waiter",
        "waitress",
        "writer",
        "volunteer",
        "entrepreneur",
        "analyst",
        "intern",
    ]
)
_IDENTITIES = frozenset(
    [
        "woman",
        "man",
        "mother",
        "father",
        "mom",
        "dad",
        "parent",
        "vegetarian",
        "vegan",
        "christian",
        "muslim",
        "jewish",
        "atheist",
        "introvert",
        "extrovert",
        "runner",
        "gamer",
    ]
)
_RELATIONS_EXCLUSIVE = frozenset(
    [
        "wife",
        "husband",
        "partner",
        "boyfriend",
        "girlfriend",
        "fiance",
        "fiancé",
        "fiancee",
        "fiancée",
        "boss",
        "manager",
    ]
)
_RELATIONS = frozenset(
    [
        "son",
        "daughter",
        "sister",
        "brother",
        "mom",
        "mother",
        "dad",
        "father",
        "grandma",
        "grandmother",
        "grandpa",
        "grandfather",
        "aunt",
        "uncle",
        "cousin",
        "niece",
        "nephew",
        "friend",
        "bestie",
        "roommate",
        "colleague",
        "coworker",
        "neighbor",
        "neighbour",
        "mentor",
        "teacher",
        "tutor",
        "coach",
        "doctor",
        "physio",
        "physiotherapist",
        "therapist",
        "dentist",
        "vet",
        "builder",
        "landlord",
        "dog",
        "cat",
        "puppy",
        "kitten",
        "pet",
    ]
)
_NOT_NAMES = frozenset(
    [
        "I",
        "The",
        "A",
        "An",
        "My",
        "Our",
        "This",
        "That",
        "It",
        "He",
        "She",
        "They",
        "We",
        "You",
        "Yes",
        "No",
        "Oh",
        "Hey",
        "Hi",
        "Thanks",
    ]
)


def _first_person(pattern: str) -> re.Pattern[str]:
    return re.compile(r"\b" + _FIRST + r"\s+" + pattern, re.IGNORECASE)


# (pattern, builder) where the pattern's "s" group is the subject ("I", a name, he/she).
_SUBJECT = r"(?P<s>I|he|she|" + _NAME + r")"

_RULES: list[tuple[re.Pattern[str], str]] = [
    (
        re.compile(
            r"\b" + _SUBJECT + r"\s+(?:just\s+|recently\s+|finally\s+|have\s+|has\s+|'ve\s+)?"
            r"(?:moved|relocated)\s+(?:back\s+)?to\s+(?P<v>" + _PLACE + r")"
        ),
        "moved_to",
    ),
    (
        re.compile(
            r"\b" + _SUBJECT + r"(?:\s+|'m\s+\s+)(?:now\s+|currently\s+|still\s+)?"
            r"(?:live|lives|am living|is living|living)\s+in\s+(?P<v>" + _PLACE + r")"
        ),
        "lives_in",
    ),
    (
        re.compile(
            r"\b" + _SUBJECT + r"(?:'m|\s+am|\s+is|'s)\s+(?:originally\s+)?from\s+"
            r"(?P<v>" + _PLACE + r")"
        ),
        "from",
    ),
    (
        re.compile(r"\b" + _SUBJECT + r"\s+grew\s+up\s+in\s+(?P<v>" + _PLACE + r")"),
        "from",
    ),
    (
        re.compile(
            r"\b" + _SUBJECT + r"(?:\s+just|\s+finally|\s+recently|'ve|\s+have|\s+has)?\s+"
            r"(?:started|got|landed|accepted|took)\s+(?:a\s+|the\s+)?(?:new\s+)?"
            r"(?:job|position|role)\s+(?:at|with)\s+(?P<v>" + _PLACE + r")"
        ),
        "works_at",
    ),
    (
        re.compile(
            r"\b" + _SUBJECT + r"(?:'m|\s+am|\s+is)?\s+(?:now\s+|currently\s+)?"
            r"(?:work|works|working)\s+(?:at|for)\s+(?P<v>" + _PLACE + r")"
        ),
        "works_at",
    ),
    (
        re.compile(
            r"\b" + _SUBJECT + r"(?:\s+just|\s+recently)?\s+(?:got\s+hired\s+(?:at|by)|joined)\s+"
            r"(?P<v>[A-Z][\w'&.-]+(?:\s+[A-Z][\w'&.-]+){0,3})"
        ),
        "works_at",
    ),
    (
        re.compile(
            r"\b" + _SUBJECT + _NOW + r"\s+(?:quit|left)\s+(?:my|his|her)\s+job"
            r"(?:\s+at\s+(?P<v>" + _PLACE + r"))?"
        ),
        "left_job",
    ),
    (
        re.compile(
            r"\b"
            + _SUBJECT
            + _NOW
            + r"\s+(?:quit|resigned\s+from)\s+(?:the\s+|my\s+|his\s+|her\s+)?"
            r"(?P<v>" + _WORKPLACE_NOUN + r"|" + _PLACE + r")"
        ),
        "left_job",
    ),
    (
        re.compile(
            r"\b" + _SUBJECT + _NOW + r"(?:'m|\s+am|\s+is)?\s+(?:now\s+)?"
            r"(?:work|works|working)\s+as\s+(?:a|an)\s+(?P<v>" + _ROLE + r")"
        ),
        "works_as",
    ),
    (
        re.compile(
            r"\b" + _SUBJECT + _NOW + r"(?:'m|\s+am|\s+is)?\s+(?:now\s+)?"
            r"(?:work|works|working)\s+as\s+(?:a|an)\s+" + _ROLE + r"\s+(?:at|for)\s+"
            r"(?P<v>" + _PLACE + r"(?:\s+" + _WORKPLACE_NOUN + r")?)"
        ),
        "works_at",
    ),
    (
        re.compile(
            r"\b" + _SUBJECT + _NOW + r"(?:'m|\s+am|\s+is|\s+work|\s+works|\s+became|\s+become|"
            r"'ve become|\s+started working)\s+(?:now\s+|as\s+)?(?:a|an)\s+"
            r"(?P<v>" + _ROLE + r")\b"
        ),
        "is_a",
    ),
    (
        re.compile(r"\b(?P<s>I)(?:'m|\s+am)\s+(?P<v>\d{1,3})(?:\s+years\s+old)?\b", re.I),
        "age",
    ),
    (
        re.compile(r"\b(?P<s>I)\s+(?:just\s+)?turned\s+(?P<v>\d{1,3})\b", re.I),
        "age",
    ),
    (
        re.compile(r"\bmy\s+name\s+is\s+(?P<v>" + _NAME + r")"),
        "name",
    ),
]

_RELATION = re.compile(
    r"\b(?P<owner>[Mm]y|[Hh]is|[Hh]er|[A-Z][\w-]+'s)\s+(?:(?:new|little|older|younger|big|best|late)\s+)?"
    r"(?P<rel>[a-zé]+)(?:\s+is\s+named|\s+named|\s+called|'s\s+name\s+is|\s+is|,)?\s+"
    r"(?P<v>(?:(?:Dr|Mr|Mrs|Ms|Mx|Prof)\.?\s+)?" + _NAME + r")"
)


def _verb_pattern(adverbs: str, verbs: str, link: str = r"\s+") -> re.Pattern[str]:
    """The pattern of "<subject> [adverb] <verb> <phrase>", the phrase ending a clause;
    ``link`` joins the subject to the adverb or verb ("I'm allergic": ``'m``)."""
    return re.compile(
        r"\b" + _SUBJECT + link + r"(?:(?:" + adverbs + r")\s+)?(?P<verb>" + verbs + r")\s+"
        r"(?P<v>" + _PHRASE + r")" + _END
    )


_LIKE = _verb_pattern(
    "really|absolutely|just|also|totally", "love|loves|like|likes|enjoy|enjoys|adore|adores"
)
_DISLIKE = _verb_pattern(
    "really", "hate|hates|dislike|dislikes|can't stand|don't like|do not like|doesn't like"
)
_PREFER = _verb_pattern("really|much|usually|also", "prefer|prefers")
_ALLERGIC = _verb_pattern(
    "very|severely|badly|also", r"allergic\s+to", link=r"(?:'m|\s+am|\s+is|'s)\s+"
)
_FAVORITE = re.compile(
    r"\b(?P<owner>[Mm]y|[Hh]is|[Hh]er)\s+(?:all-time\s+)?favou?rite\s+(?P<what>[a-z ]{2,30}?)\s+"
    r"(?:is|was|has to be)\s+(?P<v>" + _PHRASE + r")" + _END
)
_PLAN = re.compile(
    r"\b" + _SUBJECT + r"(?:'m|\s+am|\s+is)?\s+(?:going to|gonna|planning to|planning on|"
    r"plan to|plans to|hoping to|about to|will|'ll)\s+(?P<v>" + _PHRASE + r")" + _END
)
_HAS = re.compile(
    r"\b" + _SUBJECT + r"(?:\s+just)?\s+(?P<verb>have|has|'ve got|own|owns|bought|adopted)\s+"
    r"(?P<v>(?:a|an|two|three|four|five|\d+)\s+" + _PHRASE + r")" + _END
)
#: (pattern, kind, attribute, verb in the sentence written, importance, tag) of
#: statements "<subject> <verb> <phrase>" that differ only in these.
_SIMPLE_STATEMENTS: tuple[tuple[re.Pattern[str], DerivedKind, str, str, float, str], ...] = (
    (_LIKE, "preference", "likes", "likes", 0.5, "preference"),
    (_DISLIKE, "preference", "dislikes", "dislikes", 0.5, "preference"),
    (_PREFER, "preference", "prefers", "prefers", 0.5, "preference"),
    (_ALLERGIC, "fact", "allergy", "is allergic to", 0.8, "health"),
    (_HAS, "fact", "has", "has", 0.4, "possession"),
)
_HABIT = re.compile(
    r"\b" + _SUBJECT + r"\s+(?P<freq>usually|always|often|regularly|sometimes|normally)\s+"
    r"(?P<v>" + _PHRASE + r")" + _END
)
_EVERY = re.compile(
    r"\b(?P<freq>every\s+(?:morning|day|evening|night|week|weekend|month|year|summer|"
    r"monday|tuesday|wednesday|thursday|friday|saturday|sunday))\s*,?\s+(?P<s>I)\s+"
    r"(?P<v>" + _PHRASE + r")" + _END,
    re.IGNORECASE,
)
_OPINION = re.compile(
    r"\b(?P<s>I)\s+(?:really\s+)?(?:think|believe|feel like|feel that)\s+(?:that\s+)?"
    r"(?P<v>[^.;!?]{12,200})",
)
_PROCEDURE = re.compile(
    r"\b(?:to|when you want to|if you want to)\s+(?P<goal>[a-z][^,]{3,60}),\s*"
    r"(?:you|I|we)\s+(?:need to|have to|should|must|always)\s+(?P<v>[^.;!?]{6,200})",
    re.IGNORECASE,
)
_PAST_EVENT = re.compile(
    r"\b(?P<s>I)\s+(?:just\s+|finally\s+|also\s+)?(?P<v>(?:went|visited|attended|ran|joined|"
    r"started|finished|took|had|met|saw|painted|signed|volunteered|won|lost|bought|made|"
    r"got|did|gave|received|moved|traveled|travelled|celebrated|read|wrote|watched|"
    r"played|tried|learned|learnt|adopted|applied|graduated|organized|hosted|climbed|"
    r"camped|hiked|baked|cooked)\b(?:[^.;!?]|\.(?=\w)){2,160})",
    re.IGNORECASE,
)


def extract_facts(user_id: str, session_id: str, turns: Sequence[Turn]) -> list[DerivedMemory]:
    """The facts the rules find in a session's turns, in order, without duplicates."""
    memories: dict[tuple[str, str, str], DerivedMemory] = {}
    sources: dict[tuple[str, str, str], list[str]] = {}
    last_person: str | None = None
    people = _people(turns)
    # standing instructions are given to an assistant, not between friends ("never stop
    # believing")
    with_assistant = any(turn.role == "assistant" for turn in turns)

    def keep(subject: str, found: _Found, turn: Turn, speaker: str) -> None:
        key = (subject.lower(), found.attribute, found.value.lower())
        sources.setdefault(key, [])
        if turn.event_id not in sources[key]:
            sources[key].append(turn.event_id)
        if key not in memories:
            memories[key] = _memory(user_id, session_id, subject, speaker, found, turn)

    for turn in turns:
        # a document's "I" is the user who added it (their notes), as a chat's unnamed user
        speaker = (turn.speaker or ("the user" if turn.role in _USERS_WORDS else "")).strip()
        unmatched: list[str] = []
        for sentence in _clauses(turn.content):
            context = _Context(speaker, last_person, people, turn)
            matched = False
            instruction = (
                _instruction(sentence, speaker)
                if with_assistant and turn.role != "assistant"
                else None
            )
            if instruction is not None:
                keep(speaker, instruction, turn, speaker)
                continue
            for subject, found in _statements(sentence, context):
                keep(subject, found, turn, speaker)
                # a relation read out of a sentence ("my manager Serkan") leaves the
                # rest of it ("I'll ask ... on Monday") to be said too
                matched = matched or "relation" not in found.tags
            if not matched:
                unmatched.append(sentence)
            others = _people_named(sentence, speaker)
            if others:
                last_person = others[-1]
        # what no rule reads is said of themself by a speaker, never by a document (a
        # manual's "we recommend" is nobody's statement)
        statement = (
            _statement(unmatched, speaker, turn.occurred_at) if turn.role != "document" else None
        )
        if statement is not None:
            keep(speaker, statement, turn, speaker)
    return [
        m.model_copy(update={"source_event_ids": sources[k]}) if len(sources[k]) > 1 else m
        for k, m in memories.items()
    ]


#: The roles of turns whose unnamed "I" is the user: a chat's, a document's they added.
_USERS_WORDS = frozenset({"user", "document"})


def _memory(
    user_id: str, session_id: str, subject: str, speaker: str, found: _Found, turn: Turn
) -> DerivedMemory:
    return DerivedMemory(
        memory_id=derived_memory_id(
            "fact", user_id, session_id, subject.lower(), found.attribute, found.value
        ),
        kind=found.kind,
        content=found.content,
        subject=subject,
        attribute=found.attribute,
        value=found.value,
        exclusive=found.exclusive,
        confidence=found.confidence,
        importance=found.importance,
        tags=list(found.tags),
        speaker=speaker or None,
        session_id=session_id,
        source_event_ids=[turn.event_id],
        occurred_at=turn.occurred_at,
    )


_SHARED_IMAGE = re.compile(r"\[(?:shares|shared|sharing)[^\]]*\]?", re.IGNORECASE)


def _clauses(content: str) -> list[str]:
    """The sentences of a turn, split further at ";" and at ", and I" / "and I'm"
    (each clause a statement of its own), shared-image captions, lead-ins ("Quick
    context:") and requests to the listener ("Help me plan my week: ...") left out."""
    text = _SHARED_IMAGE.sub(" ", content.replace("\u2019", "'"))
    out = []
    for sentence in _sentences(text):
        sentence = _LEAD_IN.sub("", sentence.strip())
        if _is_request(sentence):
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


#: An instruction to the listener that holds from now on ("Always include security
#: advice when I ask about auth", "Never suggest Terragrunt to me", "Please don't use
#: unwrap in examples"); not "don't worry" and the like, which are pleasantries.
_INSTRUCTION = re.compile(
    r"^(?:(?:please|and|also|oh|btw)[\s,]+)*(?P<how>always|never|don't|do not)\s+"
    r"(?P<v>(?!(?:worry|mind|hesitate|be|feel|apologi[sz]e|thank|forget|stop)\b)"
    r"[a-z][^.!?]{3,200})",
    re.IGNORECASE,
)


def _instruction(sentence: str, speaker: str) -> _Found | None:
    """The standing instruction ``sentence`` gives the listener, as a ``procedure`` of
    the speaker's ("Priya's standing instruction: always include security advice when
    Priya asks about auth."), or None."""
    m = _INSTRUCTION.match(_INTERJECTION.sub("", sentence.strip()).lstrip(" ,-"))
    if m is None or not speaker:
        return None
    how = m.group("how").lower()
    said = _in_third_person(f"{how} {m.group('v').strip()}", speaker).rstrip(" ,")
    return _Found(
        "procedure",
        f"instruction:{said.lower()[:60]}",
        said,
        f"{speaker[0].upper()}{speaker[1:]}'s standing instruction: {said}.",
        False,
        0.9,
        0.8,
        ("instruction",),
    )


def _is_request(sentence: str) -> bool:
    """True when ``sentence`` asks the listener for something rather than telling."""
    return bool(_REQUEST.match(_INTERJECTION.sub("", sentence).lstrip(" ,-")))


_CLAUSE_BREAK = re.compile(r"\s*;\s*|,?\s+(?:and|but|so)\s+(?=I\b|I'm\b|I've\b|my\b)")


@dataclass(frozen=True, slots=True)
class _Context:
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
            if verb in _THIRD_PERSON_VERBS:
                return None
            return (self.speaker, 0.9) if self.speaker else None
        if verb in _BASE_VERBS:
            return None
        if lowered in {"he", "she"}:
            return (self.last_person, 0.6) if self.last_person else None
        if word in self.people:
            return word, 0.8
        return None

    def owner(self, word: str) -> str | None:
        if word.endswith("'s"):
            name = word[:-2]
            return name if name in self.people and name not in _NOT_NAMES else None
        return (self.speaker or None) if word.lower() == "my" else self.last_person


_BASE_VERBS = frozenset(
    ["like", "love", "enjoy", "adore", "hate", "dislike", "have", "own", "don't", "don", "do"]
)
_THIRD_PERSON_VERBS = frozenset(
    [
        "likes",
        "loves",
        "enjoys",
        "adores",
        "hates",
        "dislikes",
        "has",
        "owns",
        "doesn't",
        "doesn",
        "does",
    ]
)


_SUBJECT_OF_VERB = re.compile(
    r"\b([A-Z][a-z'-]+)\s+(?:lives|works|moved|is|was|has|likes|loves|said|went|got|started)\b"
)
_AFTER_PREPOSITION = re.compile(r"\b(?:in|to|at|from|near|visit|visited|visiting|for)\s+$", re.I)


def _people(turns: Sequence[Turn]) -> frozenset[str]:
    """The speakers of a session, the person names its turns mention, and capitalized
    words that are the subject of a verb ("Maria lives...")."""
    names = {t.speaker.strip() for t in turns if t.speaker}
    for t in turns:
        names.update(
            n for n in person_names_in(t.content) if n not in _NOT_NAMES and not is_nationality(n)
        )
        names.update(
            m.group(1)
            for m in _SUBJECT_OF_VERB.finditer(t.content)
            if m.group(1) not in _NOT_NAMES
            and not is_ordinary_word(m.group(1))
            and not is_nationality(m.group(1))
        )
    return frozenset(names)


def _people_named(sentence: str, speaker: str) -> list[str]:
    """Names in ``sentence`` that could be a "he" or "she" later: not the speaker, not
    after a preposition (places: "in Porto", "to Berlin")."""
    found = []
    for name in person_names_in(sentence) + _SUBJECT_OF_VERB.findall(sentence):
        if name == speaker or name in _NOT_NAMES or is_ordinary_word(name) or is_nationality(name):
            continue
        at = sentence.find(name)
        if at >= 0 and _AFTER_PREPOSITION.search(sentence[:at]):
            continue
        found.append((at, name))
    return [name for _, name in sorted(found)]


class LocalExtractor:
    """The default extractor: :func:`extract_facts`, no model and no network."""

    name = LOCAL_EXTRACTOR

    def extract(
        self, user_id: str, session_id: str, turns: Sequence[Turn]
    ) -> tuple[list[DerivedMemory], TokenUsage | None]:
        return extract_facts(user_id, session_id, turns), None


def _statements(sentence: str, context: _Context) -> Iterable[tuple[str, _Found]]:
    for pattern, attribute in _RULES:
        for m in pattern.finditer(sentence):
            owner = m.groupdict().get("s") or "I"
            who = context.resolve(owner)
            if who is None:
                continue
            found = _attribute_fact(attribute, who[0], (m.group("v") or "").strip(), who[1])
            if found is not None:
                yield who[0], found
    for m in _RELATION.finditer(sentence):
        owner = context.owner(m.group("owner"))
        relation = m.group("rel").lower()
        if owner is None or relation not in _RELATIONS | _RELATIONS_EXCLUSIVE:
            continue
        name = _clean_name(m.group("v"))
        if name is None:
            continue
        exclusive = relation in _RELATIONS_EXCLUSIVE
        yield (
            owner,
            _Found(
                "fact",
                f"{relation}" if exclusive else f"{relation}:{name.lower()}",
                name,
                f"{owner}'s {relation} is {name}.",
                exclusive,
                0.8,
                0.7,
                ("relation",),
            ),
        )
    yield from _phrase_facts(sentence, context)
    yield from _tool_facts(sentence, context)


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


def _tool_facts(sentence: str, context: _Context) -> Iterable[tuple[str, _Found]]:
    """What the speaker switched to (in the slot of what it replaced) or works with."""
    speaker = context.speaker
    if not speaker:
        return
    said = _in_third_person(sentence if sentence[-1] in ".!" else sentence + ".", speaker)
    content = said[0].upper() + said[1:]
    when = _when(find_spans(sentence, context.turn.occurred_at))
    if when is not None:  # "We switched to Postgres yesterday": on that day
        content = f"{content.rstrip('.!')} ({when})."
    switch = _SWITCH.search(sentence)
    if switch is not None and context.resolve("I") is not None:
        old, new = _tool_key(switch.group("old")), switch.group("new").strip()
        if old and new and not _a_move(switch):
            yield (
                speaker,
                _Found(
                    "fact", f"uses:{old}", new, content, True, 0.8, 0.5, (_topic(content), "tool")
                ),
            )
        return
    uses = _USES.search(sentence)
    if uses is not None and context.resolve("I") is not None:
        tool = _tool_key(uses.group("v"))
        if tool:
            yield (
                speaker,
                _Found(
                    "fact",
                    f"uses:{tool}",
                    uses.group("v"),
                    content,
                    True,
                    0.7,
                    0.4,
                    (_topic(content), "tool"),
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


def _phrase_facts(sentence: str, context: _Context) -> Iterable[tuple[str, _Found]]:
    def who_of(m: re.Match[str]) -> tuple[str, float] | None:
        verb = m.groupdict().get("verb")
        return context.resolve(m.group("s"), verb.split()[0].lower() if verb else None)

    def phrase(m: re.Match[str], who: tuple[str, float] | None, words: int = 8) -> str | None:
        value = _clean_phrase(m.group("v"), words)
        if value is None or who is None:
            return None
        if value.lower().startswith("to ") and len(value.split()) < 3:
            return None
        return _third_person(value, who[0])

    for pattern, kind, attribute, verb, importance, tag in _SIMPLE_STATEMENTS:
        for m in pattern.finditer(sentence):
            who = who_of(m)
            value = phrase(m, who)
            if who and value:
                yield (
                    who[0],
                    _Found(
                        kind,
                        f"{attribute}:{value.lower()}",
                        value,
                        f"{who[0]} {verb} {value}.",
                        False,
                        who[1],
                        importance,
                        (tag,),
                    ),
                )
    for m in _FAVORITE.finditer(sentence):
        owner = context.owner(m.group("owner"))
        value = _clean_phrase(m.group("v"))
        what = m.group("what").strip()
        if owner and value:
            yield (
                owner,
                _Found(
                    "preference",
                    f"favorite:{what}",
                    value,
                    f"{owner}'s favorite {what} is {value}.",
                    True,
                    0.85,
                    0.6,
                    ("preference",),
                ),
            )
    spans = find_spans(sentence, context.turn.occurred_at)
    when = _when(spans)
    for m in _PLAN.finditer(sentence):
        who = who_of(m)
        value = phrase(m, who, words=12)
        if who and value:
            dated = f" ({when})" if when else ""
            yield (
                who[0],
                _Found(
                    "fact",
                    f"plan:{value.lower()}",
                    value,
                    f"{who[0]} plans to {value}{dated}.",
                    False,
                    who[1] if when else who[1] - 0.2,
                    0.6 if when else 0.4,
                    ("plan",),
                ),
            )
    for m in [*_HABIT.finditer(sentence), *_EVERY.finditer(sentence)]:
        who = who_of(m)
        value = phrase(m, who, words=12)
        if who and value and len(value.split()) >= 2:
            freq = m.group("freq").lower()
            if m.group("s") == "I":  # "I usually charge" -> "Aoife usually charges"
                verb, _, rest = value.partition(" ")
                value = f"{_agreeing_verb(verb)} {rest}"
            yield (
                who[0],
                _Found(
                    "fact",
                    f"habit:{value.lower()}",
                    value,
                    f"{who[0]} {freq} {value}.",
                    False,
                    who[1] - 0.1,
                    0.5,
                    ("habit",),
                ),
            )
    for m in _OPINION.finditer(sentence):
        who = who_of(m)
        value = _third_person(m.group("v").strip(), who[0] if who else "")
        if who and len(value.split()) >= 3:
            yield (
                who[0],
                _Found(
                    "opinion",
                    f"opinion:{value.lower()[:60]}",
                    value,
                    f"{who[0]} thinks {value}.",
                    False,
                    0.6,
                    0.4,
                    ("opinion",),
                ),
            )
    for m in _PROCEDURE.finditer(sentence):
        goal, steps = m.group("goal").strip(), m.group("v").strip()
        subject = context.speaker or "the user"
        yield (
            subject,
            _Found(
                "procedure",
                f"howto:{goal.lower()}",
                steps,
                f"To {goal}: {steps}.",
                False,
                0.7,
                0.6,
                ("procedure",),
            ),
        )
    if when:
        for m in _PAST_EVENT.finditer(sentence):
            who = who_of(m)
            if who is None:
                continue
            event = _third_person(m.group("v").strip().rstrip(",;"), who[0])
            if len(event.split()) - len(spans[0].text.split()) < 3:
                continue
            yield (
                who[0],
                _Found(
                    "fact",
                    f"did:{event.lower()[:80]}",
                    event,
                    f"{who[0]} {event} ({when}).",
                    False,
                    who[1],
                    0.6,
                    ("event",),
                ),
            )


_ATTRIBUTE_BUILDERS: dict[
    str, Callable[[str, str], tuple[str, str, bool, float, tuple[str, ...]]]
] = {
    "moved_to": lambda who, v: ("lives_in", f"{who} moved to {v}.", True, 0.85, ("home",)),
    "lives_in": lambda who, v: ("lives_in", f"{who} lives in {v}.", True, 0.8, ("home",)),
    "from": lambda who, v: ("from", f"{who} is from {v}.", True, 0.7, ("origin",)),
    "works_at": lambda who, v: ("works_at", f"{who} works at {v}.", True, 0.85, ("work",)),
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


def _attribute_fact(attribute: str, who: str, value: str, confidence: float) -> _Found | None:
    if attribute == "is_a":
        return _is_a(who, value, confidence)
    if attribute in {"lives_in", "moved_to", "from", "works_at"}:
        place = _clean_place(value)
        if place is None:
            return None
        value = place
    if attribute == "age" and not 1 <= int(value) <= 120:
        return None
    if attribute == "name":
        cleaned = _clean_name(value)
        if cleaned is None:
            return None
        value = cleaned
    name, content, exclusive, importance, tags = _ATTRIBUTE_BUILDERS[attribute](who, value)
    return _Found("fact", name, value, content, exclusive, confidence, importance, tags)


def _is_a(who: str, phrase: str, confidence: float) -> _Found | None:
    words = phrase.lower().split()
    head = words[-1]
    if head in _OCCUPATIONS or head.rstrip("s") in _OCCUPATIONS:
        return _Found(
            "fact",
            "occupation",
            phrase,
            f"{who} is {_a(phrase)} {phrase}.",
            True,
            confidence,
            0.8,
            ("work",),
        )
    if head in _IDENTITIES:
        return _Found(
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
    while words and words[-1] in _NOT_NAMES:
        words.pop()
    if not words or words[0] in _NOT_NAMES:
        return None
    return value[: len(" ".join(words)) + value.count(",")].strip(" ,") or None


def _clean_name(value: str) -> str | None:
    """The name in ``value``, without the words that are no name and a possessive "'s"
    ("Nils" and "Elias" keep their "s")."""
    words = [w for w in value.split() if w not in _NOT_NAMES]
    if not words:
        return None
    name = " ".join(words)
    return name[:-2] if name.endswith("'s") else name


_FILLER = re.compile(r"\b(?:so much|a lot|too|really|very much|lol|haha)\b", re.IGNORECASE)


def _clean_phrase(value: str, words: int = 8) -> str | None:
    value = _FILLER.sub("", value).strip(" ,-")
    value = re.sub(r"\s+", " ", value)
    tokens = value.split()
    if not tokens or len(tokens) > words:
        return None
    first = tokens[0].lower()
    if first in _VAGUE_STARTS or (len(tokens) == 1 and first in _VAGUE_ALONE):
        return None
    if len(tokens) >= 2 and f"{first} {tokens[1].lower()}" in _VAGUE_PAIRS:
        return None
    return value


_VAGUE_STARTS = frozenset(
    [
        "how",
        "what",
        "when",
        "where",
        "why",
        "who",
        "whether",
        "if",
        "that",
        "this",
        "it",
        "it's",
        "its",
        "there",
        "here",
        "your",
        "you",
        "her",
        "him",
        "them",
        "us",
        "me",
        "myself",
        "yourself",
    ]
)
_VAGUE_ALONE = frozenset(["to", "be", "a", "the", "one", "some"])
_VAGUE_PAIRS = frozenset({"the idea", "the way", "the thought", "the fact", "a lot"})


_SWAPS = (
    (re.compile(r"\bI'm\b|\bI am\b"), "{who} is"),
    (re.compile(r"\bI've\b"), "{who} has"),
    (re.compile(r"\bI'll\b"), "{who} will"),
    (re.compile(r"\bI\b"), "{who}"),
    (re.compile(r"\bmy\b", re.IGNORECASE), "{who}'s"),
    (re.compile(r"\bme\b"), "{who}"),
    (re.compile(r"\bmyself\b"), "themself"),
)


def _third_person(text: str, who: str) -> str:
    """``text`` with the speaker's first-person words replaced by their name."""
    if not who:
        return text
    for pattern, replacement in _SWAPS:
        text = pattern.sub(replacement.format(who=who), text)
    return text


def _when(spans: list[TimeSpan]) -> str | None:
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


# -- what a speaker says of themself, when no rule above reads it -------------------

#: Sentences a speaker says of themself ("I ...", "my ...", "we ...").
_FIRST_PERSON = re.compile(r"\b(?:I|I'm|I've|I'd|I'll|[Ww]e|[Ww]e're|[Ww]e've|[Mm]y|[Oo]ur)\b")
_SECOND_PERSON = re.compile(r"\b(?:you|your|you're|you've|yours|yourself)\b", re.IGNORECASE)
#: Leading words that carry nothing ("Wow, ", "Yeah! ", "Thanks, Jo! ").
_INTERJECTION = re.compile(
    r"^(?:(?:oh|ooh|wow|whoa|yeah|yes|yep|no|nah|well|haha|hah|lol|hey|hi|hello|so|and|but|"
    r"also|ah|aw+|omg|totally|exactly|definitely|sure|true|okay|ok|cool|great|awesome|nice|"
    r"man|dude|btw|anyway|honestly|actually|right)\b[\s,!.-]*)+",
    re.IGNORECASE,
)
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
_words = str.split
_STATEMENT_STOPWORDS = frozenset(
    _words(
        """a an the and or but so to of in on at for with it is was be been am are were
    i i'm i've i'd i'll me my we our us that this just really so very too also it's its
    have has had do did does not no yes oh wow yeah lol haha"""
    )
)


def _statement(sentences: Sequence[str], speaker: str, occurred_at: datetime) -> _Found | None:
    """What ``speaker`` said of themself in a turn's ``sentences`` that no rule read,
    in the third person: "I typically hold it for 30-60 seconds." becomes "Maria
    typically holds it for 30-60 seconds."; None when they said nothing of themself."""
    if not speaker:
        return None
    said = [s for s in (_said_of_self(s) for s in sentences) if s is not None]
    if not said:
        return None
    kept = said[:_STATEMENT_SENTENCES]
    text = " ".join(_in_third_person(s if s[-1] in ".!" else s + ".", speaker) for s in kept)
    text = text[0].upper() + text[1:]
    value = text.rstrip(".!") + "."
    # each sentence's phrases in its own tense ("I accepted the offer! I start on
    # Monday": the next Monday)
    when = _when([span for s in kept for span in find_spans(s, occurred_at)])
    if when is not None:
        value = f"{value[:-1]} ({when})."
    return _Found(
        "fact",
        f"said:{value.lower()[:60]}",
        value,
        value,
        False,
        0.6,
        0.4,
        (_topic(value), "statement"),
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
    text = _ASIDE.sub("", _INTERJECTION.sub("", sentence.strip())).strip(" ,-")
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


_ADVERBS = (
    r"(?:\s+(?:really|also|just|still|usually|always|often|never|actually|sometimes|"
    r"typically|totally|definitely|even|mostly|now|generally|normally|rarely|already))*"
)
_I_VERB = re.compile(r"\b(?P<s>I|[Ww]e)(?P<adv>" + _ADVERBS + r")\s+(?P<verb>[a-z]+(?:n't)?)\b")
_PRESENT_AGREEMENT = {"am": "is", "have": "has", "do": "does", "don't": "doesn't", "are": "is"}
#: Verbs that take no "-s" after "he"/"she" (modals), and so stay as they are.
_MODALS = frozenset(_words("can could will would shall should must might may ought need dare"))


_WE_SWAPS = (
    (re.compile(r"\b[Ww]e're\b"), "{who} and others are"),
    (re.compile(r"\b[Ww]e've\b"), "{who} and others have"),
    (re.compile(r"\b[Ww]e'll\b"), "{who} and others will"),
    (re.compile(r"\b[Ww]e\b"), "{who} and others"),
    (re.compile(r"\b[Oo]ur\b"), "{who}'s"),
    (re.compile(r"\bus\b"), "{who}"),
)


def _in_third_person(sentence: str, who: str) -> str:
    """A first-person sentence of ``who``'s, told of them: "I", "my", "me", "we" and
    "our" replaced, the verbs after "I" agreeing."""
    text = _third_person(_agreeing(sentence), who)
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
        return f"{m.group('s')}{m.group('adv')} {_agreeing_verb(verb)}"

    return _I_VERB.sub(agree, sentence)


def _agreeing_verb(verb: str) -> str:
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


def _topic(text: str) -> str:
    """The tag of what a statement is about (work, family, plan, ...), else "event"."""
    for name, pattern in _TOPICS:
        if pattern.search(text):
            return name
    return "event"
