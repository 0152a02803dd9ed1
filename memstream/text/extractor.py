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

A job begun or to begin, a role, a move and a job left are facts in their slots, dated
by their sentence ("Ana works at Northwind (from 2026-11-30)."); a move is one of house
only to a known place (a country, a state, a large city) or in a sentence that speaks
of a home: "we moved to Kubernetes" is no new home.

Every fact keeps its provenance (the event ids of the turns it came from). Facts about
where someone lives, where they work, their job, name, age, partner and favourites are
exclusive: a later one supersedes an earlier one. Nothing here reads a clock: relative
dates are resolved against the time of the turn that said them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from memstream.events.identifier_rules import derived_memory_id
from memstream.events.vocabulary import DerivedKind, DerivedMemory, TokenUsage
from memstream.text.fact_patterns import END as _END
from memstream.text.fact_patterns import NAME as _NAME
from memstream.text.fact_patterns import NOW as _NOW
from memstream.text.fact_patterns import PHRASE as _PHRASE
from memstream.text.fact_patterns import PLACE as _PLACE
from memstream.text.fact_patterns import ROLE as _ROLE
from memstream.text.fact_patterns import SUBJECT as _SUBJECT
from memstream.text.fact_words import (
    RELATIONS,
    RELATIONS_EXCLUSIVE,
    UNNAMED_USER,
    USERS_WORDS,
    WORKPLACE_NOUN,
)
from memstream.text.found_facts import (
    Found,
    attribute_fact,
    clean_name,
    clean_phrase,
    date_of,
    dated,
)
from memstream.text.life_facts import a_home, life_changes
from memstream.text.sentences import INTERJECTION, clauses
from memstream.text.session_people import SentenceContext, Turn, people_named, session_people
from memstream.text.statements import statement_fact
from memstream.text.third_person import agreeing_verb, in_third_person, third_person
from memstream.text.time_phrases import find_spans
from memstream.text.tool_facts import tool_facts

__all__ = ["LOCAL_EXTRACTOR", "LocalExtractor", "Turn", "extract_facts"]

LOCAL_EXTRACTOR = "local/1"


# (pattern, builder) where the pattern's "s" group is the subject ("I", a name, he/she).

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
        "started_job",
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
        "started_job",
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
            r"\b" + _SUBJECT + _NOW + r"\s+(?:quit|resigned\s+from)\s+(?!(?:my|his|her)\s+job\b)"
            r"(?:the\s+|my\s+|his\s+|her\s+)?"
            r"(?P<v>" + WORKPLACE_NOUN + r"|" + _PLACE + r")"
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
            r"(?P<v>" + _PLACE + r"(?:\s+" + WORKPLACE_NOUN + r")?)"
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
    r"(?P<rel>[a-zé]+)(?:\s+is\s+(?:named|called)|\s+named|\s+called|'s\s+name\s+is|\s+is|,)?\s+"
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


_PRONOUN = re.compile(r"\b(?:he|she)\b", re.IGNORECASE)


def _named_before_pronoun(sentence: str, speaker: str) -> str | None:
    """The last person ``sentence`` names before its first "he" or "she", who that
    pronoun stands for ("Rui doesn't live in Coimbra anymore, he moved to Aveiro")."""
    pronoun = _PRONOUN.search(sentence)
    if pronoun is None:
        return None
    named = people_named(sentence[: pronoun.start()], speaker)
    return named[-1] if named else None


def extract_facts(user_id: str, session_id: str, turns: Sequence[Turn]) -> list[DerivedMemory]:
    """The facts the rules find in a session's turns, in order, without duplicates."""
    memories: dict[tuple[str, str, str], DerivedMemory] = {}
    sources: dict[tuple[str, str, str], list[str]] = {}
    last_person: str | None = None
    people = session_people(turns)
    # standing instructions are given to an assistant, not between friends ("never stop
    # believing")
    with_assistant = any(turn.role == "assistant" for turn in turns)

    def keep(subject: str, found: Found, turn: Turn, speaker: str) -> None:
        key = (subject.lower(), found.attribute, found.value.lower())
        sources.setdefault(key, [])
        if turn.event_id not in sources[key]:
            sources[key].append(turn.event_id)
        if key not in memories:
            memories[key] = _memory(user_id, session_id, subject, speaker, found, turn)

    for turn in turns:
        # a document's "I" is the user who added it (their notes), as a chat's unnamed user
        speaker = (turn.speaker or (UNNAMED_USER if turn.role in USERS_WORDS else "")).strip()
        unmatched: list[str] = []
        for sentence in clauses(turn.content):
            context = SentenceContext(
                speaker, _named_before_pronoun(sentence, speaker) or last_person, people, turn
            )
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
            others = people_named(sentence, speaker)
            if others:
                last_person = others[-1]
        # what no rule reads is said of themself by a speaker, never by a document (a
        # manual's "we recommend" is nobody's statement)
        statement = (
            statement_fact(unmatched, speaker, turn.occurred_at)
            if turn.role != "document"
            else None
        )
        if statement is not None:
            keep(speaker, statement, turn, speaker)
    return [
        m.model_copy(update={"source_event_ids": sources[k]}) if len(sources[k]) > 1 else m
        for k, m in memories.items()
    ]


def _memory(
    user_id: str, session_id: str, subject: str, speaker: str, found: Found, turn: Turn
) -> DerivedMemory:
    return DerivedMemory(
        memory_id=derived_memory_id(
            "fact", user_id, session_id, subject.lower(), found.attribute, found.value
        ),
        kind=found.kind,
        content=found.content[:1].upper() + found.content[1:],  # "The user lives in ..."
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


#: An instruction to the listener that holds from now on ("Always include security
#: advice when I ask about auth", "Never suggest Terragrunt to me", "Please don't use
#: unwrap in examples"); not "don't worry" and the like, which are pleasantries.
_INSTRUCTION = re.compile(
    r"^(?:(?:please|and|also|oh|btw)[\s,]+)*(?P<how>always|never|don't|do not)\s+"
    r"(?P<v>(?!(?:worry|mind|hesitate|be|feel|apologi[sz]e|thank|forget|stop)\b)"
    r"[a-z][^.!?]{3,200})",
    re.IGNORECASE,
)


def _instruction(sentence: str, speaker: str) -> Found | None:
    """The standing instruction ``sentence`` gives the listener, as a ``procedure`` of
    the speaker's ("Priya's standing instruction: always include security advice when
    Priya asks about auth."), or None."""
    m = _INSTRUCTION.match(INTERJECTION.sub("", sentence.strip()).lstrip(" ,-"))
    if m is None or not speaker:
        return None
    how = m.group("how").lower()
    said = in_third_person(f"{how} {m.group('v').strip()}", speaker).rstrip(" ,")
    return Found(
        "procedure",
        f"instruction:{said.lower()[:60]}",
        said,
        f"{speaker[0].upper()}{speaker[1:]}'s standing instruction: {said}.",
        False,
        0.9,
        0.8,
        ("instruction",),
    )


class LocalExtractor:
    """The default extractor: :func:`extract_facts`, no model and no network."""

    name = LOCAL_EXTRACTOR

    def extract(
        self, user_id: str, session_id: str, turns: Sequence[Turn]
    ) -> tuple[list[DerivedMemory], TokenUsage | None]:
        return extract_facts(user_id, session_id, turns), None


#: The rules whose fact is an event of a life, dated by its sentence ("Ana moved to
#: Porto (the week of 2026-11-16)."), and those of a state it starts ("from").
_DATED_EVENTS = frozenset({"moved_to", "left_job"})
_DATED_STATES = frozenset({"started_job"})


def _statements(sentence: str, context: SentenceContext) -> Iterable[tuple[str, Found]]:
    when = date_of(find_spans(sentence, context.turn.occurred_at))
    dated_life = False  # a life's event read here carries the sentence's date
    for pattern, attribute in _RULES:
        for m in pattern.finditer(sentence):
            owner = m.groupdict().get("s") or "I"
            who = context.resolve(owner)
            if who is None:
                continue
            found = attribute_fact(attribute, who[0], (m.group("v") or "").strip(), who[1])
            if found is None or (attribute == "moved_to" and not a_home(found.value, sentence)):
                continue
            if when and attribute in _DATED_EVENTS | _DATED_STATES:
                found = dated(found, when, holds=attribute in _DATED_STATES)
                dated_life = True
            yield who[0], found
    for person, change in life_changes(sentence, context, when):
        dated_life = dated_life or when is not None
        yield person, change
    for m in _RELATION.finditer(sentence):
        owner = context.owner(m.group("owner"))
        relation = m.group("rel").lower()
        if owner is None or relation not in RELATIONS | RELATIONS_EXCLUSIVE:
            continue
        name = clean_name(m.group("v"))
        if name is None:
            continue
        exclusive = relation in RELATIONS_EXCLUSIVE
        yield (
            owner,
            Found(
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
    yield from _phrase_facts(sentence, context, events=not dated_life)
    yield from tool_facts(sentence, context)


def _phrase_facts(
    sentence: str, context: SentenceContext, events: bool = True
) -> Iterable[tuple[str, Found]]:
    """The facts of phrases a verb introduces (likes, plans, habits, opinions, how-tos),
    and with ``events``, the dated events ("Ana went to the support group (on ...)")."""

    def who_of(m: re.Match[str]) -> tuple[str, float] | None:
        verb = m.groupdict().get("verb")
        return context.resolve(m.group("s"), verb.split()[0].lower() if verb else None)

    def phrase(m: re.Match[str], who: tuple[str, float] | None, words: int = 8) -> str | None:
        value = clean_phrase(m.group("v"), words)
        if value is None or who is None:
            return None
        if value.lower().startswith("to ") and len(value.split()) < 3:
            return None
        return third_person(value, who[0])

    for pattern, kind, attribute, verb, importance, tag in _SIMPLE_STATEMENTS:
        for m in pattern.finditer(sentence):
            who = who_of(m)
            value = phrase(m, who)
            if who and value:
                yield (
                    who[0],
                    Found(
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
        value = clean_phrase(m.group("v"))
        what = m.group("what").strip()
        if owner and value:
            yield (
                owner,
                Found(
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
    when = date_of(spans)
    for m in _PLAN.finditer(sentence):
        who = who_of(m)
        value = phrase(m, who, words=12)
        if who and value:
            dated = f" ({when})" if when else ""
            yield (
                who[0],
                Found(
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
                value = f"{agreeing_verb(verb)} {rest}"
            yield (
                who[0],
                Found(
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
        value = third_person(m.group("v").strip(), who[0] if who else "")
        if who and len(value.split()) >= 3:
            yield (
                who[0],
                Found(
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
        subject = context.speaker or UNNAMED_USER
        yield (
            subject,
            Found(
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
    if when and events:
        for m in _PAST_EVENT.finditer(sentence):
            who = who_of(m)
            if who is None:
                continue
            event = third_person(m.group("v").strip().rstrip(",;"), who[0])
            if len(event.split()) - len(spans[0].text.split()) < 3:
                continue
            yield (
                who[0],
                Found(
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


# -- what a speaker says of themself, when no rule above reads it -------------------
