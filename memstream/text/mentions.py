"""Entity mentions in a message, by rules (pure): capitalised runs typed by their cues
("my dog Rex", "at Acme Corp", "in Porto") and the gazetteer, nationalities and
ordinary words told apart from names, and e-mail addresses, URLs, handles, hashtags,
amounts of money and times of day; the entity types and how a name is normalised."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from memstream.text.name_words import (
    ABBREVIATIONS,
    MONTH_AND_DAY_NAMES,
    NATIONALITIES,
    ORDINARY_WORDS,
    PLACE_ABBREVIATIONS,
    split_words,
)
from memstream.text.place_names import PLACE_NAMES
from memstream.text.time_phrases import find_spans

__all__ = [
    "MAX_MENTIONS",
    "NAMED",
    "NAMED_TYPES",
    "EntityMention",
    "entity_group",
    "extract_mentions",
    "is_nationality",
    "is_ordinary_word",
    "normalize_name",
    "person_names_in",
    "type_of_name",
]


EntityType = Literal[
    "person",
    "place",
    "organization",
    "pet",
    "product",
    "email",
    "url",
    "hashtag",
    "date",
    "time",
    "money",
]


#: Types of named things: one key group ("person", as before there were kinds of them),
#: so a name keeps its entity id whatever a sentence says it is.
NAMED_TYPES = frozenset({"person", "place", "organization", "pet", "product"})


NAMED = NAMED_TYPES


#: The typographic apostrophe (U+2019).
_RSQUO = "\u2019"


#: Lowercase words allowed inside a name ("Leonardo da Vinci", "Ludwig van Beethoven");
#: "&" joins one too ("Weights & Biases", "Procter & Gamble").
_NAME_CONNECTORS = frozenset(
    {"da", "de", "del", "della", "der", "di", "du", "la", "le", "van", "von", "bin", "al", "&"}
)


_UPPER = "".join(ch for ch in map(chr, range(0x3000)) if ch.isupper() and ch.isalpha())


_CAPITALIZED = rf"[{re.escape(_UPPER)}][\w'{_RSQUO}\-]*"


_CONNECTOR = "|".join(sorted(_NAME_CONNECTORS))


_CAPITALIZED_RUN = re.compile(
    rf"(?<![\w'{_RSQUO}\-]){_CAPITALIZED}(?: (?:(?:{_CONNECTOR}|&) )?{_CAPITALIZED})*"
)


#: What ends a sentence before a capitalized word (a line break does too).
_ENDS_SENTENCE = frozenset('.!?…:;"“”()[]')


_EMAIL = re.compile(r"(?<![\w.+-])[\w.+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+")


_URL = re.compile(r"\bhttps?://[^\s<>\"']+|\bwww\.[^\s<>\"']+", re.I)


_HANDLE = re.compile(r"(?<![\w.@])@([A-Za-z0-9_](?:[A-Za-z0-9_.]*[A-Za-z0-9_])?)")


_HASHTAG = re.compile(r"(?<![\w&#])#([^\W\d_][\w]*|\d+[^\W\d_][\w]*)")


_MONEY = re.compile(
    r"(?P<cur>[$€£¥])\s?(?P<amount>\d[\d,]*(?:\.\d+)?)(?:\s?(?P<scale>k|m|bn|million|billion|thousand)\b)?"
    r"|\b(?P<amount2>\d[\d,]*(?:\.\d+)?)\s?(?P<scale2>k|million|billion|thousand)?\s?"
    r"(?P<word>dollars?|euros?|pounds?|bucks|usd|eur|gbp)\b",
    re.I,
)


_DIGIT = re.compile(r"\d")


_TIME = re.compile(
    r"\b(?P<hour>[01]?\d|2[0-3])(?::(?P<minute>[0-5]\d))?\s?(?P<ampm>[ap]\.?m\.?)(?!\w)"
    r"|\b(?P<hour2>[01]?\d|2[0-3]):(?P<minute2>[0-5]\d)\b",
    re.I,
)


_CURRENCY = {
    "$": "USD",
    "€": "EUR",
    "£": "GBP",
    "¥": "JPY",
    "dollar": "USD",
    "dollars": "USD",
    "bucks": "USD",
    "usd": "USD",
    "euro": "EUR",
    "euros": "EUR",
    "eur": "EUR",
    "pound": "GBP",
    "pounds": "GBP",
    "gbp": "GBP",
}


_SCALE = {"k": 1e3, "thousand": 1e3, "m": 1e6, "million": 1e6, "bn": 1e9, "billion": 1e9}


_TRAILING_PUNCTUATION = ".,;:!?)]}'\""


@dataclass(frozen=True, slots=True)
class EntityMention:
    """One entity a message mentions.

    Attributes:
        type: person, place, organization, pet, product, email, url, hashtag, date,
            time or money.
        name: the display name ("Vitaly Petrov", "2023-05-07", "USD 1200").
        key: the normalized name within its type group: what resolution compares.
    """

    type: EntityType
    name: str
    key: str


def normalize_name(name: str) -> str:
    """Case-, accent- and ``@``-insensitive form of a name: "@Zoë" -> "zoe"."""
    folded = unicodedata.normalize("NFKD", name.strip().lstrip("@#")).casefold()
    plain = "".join(ch for ch in folded if not unicodedata.combining(ch))
    return " ".join(plain.replace(_RSQUO, "'").split())


#: The most entities one text mentions: a long paste (a log, a listing) names thousands,
#: each an entity row to update and an id on the memory; the first ones are kept.
MAX_MENTIONS = 256


def extract_mentions(text: str, speaker: str | None, occurred_at: datetime) -> list[EntityMention]:
    """Every entity ``text`` mentions (the speaker included), in a stable order, once
    each, at most :data:`MAX_MENTIONS` of them (the first)."""
    found: list[EntityMention] = []
    if speaker and normalize_name(speaker):
        found.append(EntityMention("person", speaker.strip(), normalize_name(speaker)))
    masked = text
    has_at, has_digit = "@" in text, _DIGIT.search(text) is not None
    for pattern, kind, present in (
        (_URL, "url", "http" in text or "www." in text),
        (_EMAIL, "email", has_at),
    ):
        if not present:
            continue
        for match in pattern.finditer(masked):
            value = match.group(0).rstrip(_TRAILING_PUNCTUATION)
            key = value.lower().rstrip("/") if kind == "url" else value.lower()
            found.append(EntityMention(kind, value, key))  # type: ignore[arg-type]
        masked = pattern.sub(_blank, masked)
    if has_at:
        for match in _HANDLE.finditer(masked):
            found.append(EntityMention("person", match.group(1), normalize_name(match.group(1))))
        masked = _HANDLE.sub(_blank, masked)
    if "#" in masked:
        for match in _HASHTAG.finditer(masked):
            found.append(EntityMention("hashtag", "#" + match.group(1), match.group(1).casefold()))
        masked = _HASHTAG.sub(_blank, masked)
    for name in person_names_in(masked):
        found.append(EntityMention(type_of_name(name, masked), name, normalize_name(name)))
    for span in find_spans(masked, occurred_at, seasons=False):
        found.append(EntityMention("date", span.label, span.label))
    if has_digit:
        found.extend(_time_mention(match) for match in _TIME.finditer(masked))
        for match in _MONEY.finditer(masked):
            mention = _money_mention(match)
            if mention is not None:
                found.append(mention)
    unique: dict[tuple[str, str], EntityMention] = {}
    for mention in found:
        if mention.key:
            unique.setdefault((entity_group(mention.type), mention.key), mention)
    return list(unique.values())[:MAX_MENTIONS]


def person_names_in(text: str) -> list[str]:
    """Person-like names: runs of capitalized words that are not ordinary words.

    A run of two or more capitalized words is a name wherever it stands ("Maria
    Gonzalez"); a single capitalized word is one unless it is an ordinary word or a
    month or day name ("Today", "May"); at the start of a sentence a single word must
    also look like a name elsewhere in the text, or be followed by "'s".
    """
    runs = [(m.start(), m.group(0).split(" ")) for m in _CAPITALIZED_RUN.finditer(text)]
    if not runs:
        return []
    mid_sentence = {
        _strip_possessive(tokens[0]) for start, tokens in runs if not _sentence_initial(text, start)
    }
    names: list[str] = []
    for start, tokens in runs:
        tokens = [t for t in tokens if t]
        initial = _sentence_initial(text, start)
        # Drop ordinary words at the edges ("Hey Maria" -> "Maria", "Thanks Jo" -> "Jo").
        while tokens and (is_ordinary_word(tokens[0]) or tokens[0] in _NAME_CONNECTORS):
            tokens, initial = tokens[1:], False
        while tokens and (is_ordinary_word(tokens[-1]) or tokens[-1] in _NAME_CONNECTORS):
            tokens = tokens[:-1]
        if not tokens:
            continue
        if len(tokens) == 1:
            token = _strip_possessive(tokens[0])
            possessive = token != tokens[0]
            if len(token) < 2 or _shouting(token) or token in ABBREVIATIONS:
                continue
            if initial and not possessive and token not in mid_sentence:
                continue
            names.append(token)
            continue
        names.append(" ".join([*tokens[:-1], _strip_possessive(tokens[-1])]))
    return names


def entity_group(entity_type: str) -> str:
    """The group whose ids an entity of ``entity_type`` takes: every named kind
    (person, place, organization, pet, product) shares one, so a name keeps its id when a
    later sentence tells its kind."""
    return "person" if entity_type in NAMED else entity_type


def _shouting(token: str) -> bool:
    """An all-capitals word longer than an acronym ("WOW", "AMAZING")."""
    return len(token) > 6 and token.isupper()


def _blank(match: re.Match[str]) -> str:
    return " " * len(match.group(0))


def is_nationality(token: str) -> bool:
    """True for a nationality or a language ("Japanese", "Portuguese"): nobody a "she"
    can stand for. (The entities table still files such a word as a name, as the
    oldest logs' entities were written.)"""
    return _strip_possessive(token).casefold() in NATIONALITIES


def is_ordinary_word(token: str) -> bool:
    """True for a common word, month or day name, or its plural ("Tuesdays"),
    capitalized or not: not a name."""
    lower = _strip_possessive(token).casefold()
    if lower in ORDINARY_WORDS or lower in MONTH_AND_DAY_NAMES:
        return True
    return lower.endswith("s") and lower[:-1] in MONTH_AND_DAY_NAMES


def _acronym(token: str) -> bool:
    """An all-capitals word of two to five letters ("NASA", "LGBTQ")."""
    return 2 <= len(token) <= 5 and token.isupper()


def _camel_case(name: str) -> bool:
    """One word with a capital inside it ("GitHub", "FastAPI"): a product's name."""
    return " " not in name and any(c.isupper() for c in name[1:]) and not name.isupper()


def _strip_possessive(token: str) -> str:
    for suffix in ("'s", _RSQUO + "s"):
        if token.endswith(suffix):
            return token[: -len(suffix)]
    return token.rstrip("'-" + _RSQUO)


def _sentence_initial(text: str, start: int) -> bool:
    """Whether ``start`` begins a sentence: nothing but spaces before it, or a line
    break or a sentence's end (:data:`_ENDS_SENTENCE`) before its spaces. Looks back
    over those spaces alone, so a long text's runs cost time linear in the text."""
    at = start
    while at > 0 and text[at - 1].isspace():
        at -= 1
    return at == 0 or text[at - 1] in _ENDS_SENTENCE or "\n" in text[at:start]


def _time_mention(match: re.Match[str]) -> EntityMention:
    if match.group("hour2") is not None:
        hour, minute = int(match.group("hour2")), int(match.group("minute2"))
    else:
        hour, minute = int(match.group("hour")), int(match.group("minute") or 0)
        pm = match.group("ampm").lower().startswith("p")
        if hour == 12:
            hour = 12 if pm else 0
        elif pm:
            hour += 12
    label = f"{hour % 24:02d}:{minute:02d}"
    return EntityMention("time", label, label)


def _money_mention(match: re.Match[str]) -> EntityMention | None:
    amount_text = match.group("amount") or match.group("amount2")
    symbol = match.group("cur") or match.group("word")
    scale = (match.group("scale") or match.group("scale2") or "").lower()
    try:
        amount = float(amount_text.replace(",", "")) * _SCALE.get(scale, 1.0)
    except ValueError:
        return None
    currency = _CURRENCY.get(symbol.lower() if symbol else "", "USD")
    if currency == "USD" and symbol and symbol.lower() == "m":
        return None
    value = f"{amount:,.2f}".rstrip("0").rstrip(".")
    label = f"{currency} {value}"
    return EntityMention("money", label, label.lower())


_PET_NOUN = (
    r"(?:cat|dog|puppy|pup|kitten|kitty|pet|hamster|rabbit|bunny|parrot|bird|fish|turtle|"
    r"tortoise|horse|pony|guinea pig|snake|lizard|gecko|ferret|goldfish)s?"
)


_OWNER = r"(?:[Mm]y|[Hh]is|[Hh]er|[Oo]ur|[Tt]heir|[A-Z][\w-]*'s)"


#: The words the cues before a name end with (pet nouns, "named", prepositions,
#: articles, verbs of playing and buying).
_CUE_LAST_WORDS = frozenset(
    split_words(
        """
        cat dog puppy pup kitten kitty pet hamster rabbit bunny parrot bird fish turtle
        tortoise horse pony pig snake lizard gecko ferret goldfish cats dogs puppies pups
        kittens pets hamsters rabbits bunnies parrots birds turtles horses ponies pigs
        snakes named called at for with joined by founded co-founded the in near to from
        visit visits visited visiting explore explored exploring play plays played playing
        bought buy buying ordered drive drives driving downloaded installed using a an my
        new
        """
    )
)


#: How many characters around a name the cues below are looked for in.
_CUE_REACH = 64


#: "my cat Miso", "Ana's dog, named Rex": the words before a pet's name.
_PET_BEFORE = re.compile(
    rf"\b{_OWNER}\s+(?:[a-z]+\s+)?{_PET_NOUN},?\s+(?:(?:is\s+)?(?:named|called)\s+)?$"
)


#: "Buddy, our puppy": the words after it.
_PET_AFTER = re.compile(rf"^,?\s+(?:my|our|his|her|their|the)\s+(?:[a-z]+\s+)?{_PET_NOUN}\b")


_ORG_SUFFIXES = frozenset(
    split_words(
        """
        inc inc. corp corp. corporation ltd ltd. llc plc gmbh co co. company labs lab group
        bank university college school hospital clinic institute foundation studio studios
        records cafe café restaurant bakery club center centre academy airlines airways motors
        systems technologies press media agency association society church museum gallery
        """
    )
)


_ORG_NOUN_AFTER = re.compile(
    r"^\s+(?:hospital|clinic|university|college|school|company|bank|cafe|restaurant|bakery|"
    r"studio|gym|academy|museum|church|library|hotel|store|shop|startup|team)\b",
    re.I,
)


_ORG_BEFORE = re.compile(
    r"\b(?:(?:work|works|worked|working|job|intern|interning|internship|employed|position|role)"
    r"\s+(?:at|for|with)|as\s+an?\s+(?:[a-z-]+\s+){1,3}(?:at|for)|joined|hired\s+by|founded|"
    r"co-founded)\s+(?:the\s+)?$",
    re.I,
)


_PLACE_BEFORE = re.compile(
    r"\b(?:(?:live|lives|lived|living|born|grew\s+up|stay|stayed|staying|vacation|holiday|"
    r"trip|based|located|city\s+of|streets\s+of)\s+(?:in|at|near)|in|near|"
    r"(?:move|moved|moving|go|going|went|goes|trip|flew|fly|flying|travel|traveled|travelled|"
    r"traveling|travelling|drove|driving|headed|heading|back|road\s+trip|visit|visits)\s+to|"
    r"(?:'m|am|is|are|was|come|comes|came|originally|back|flew|moved)\s+from|"
    r"visit|visited|visiting|explore|explored|exploring)\s+(?:the\s+)?$",
    re.I,
)


#: "at" before a name, where it is not a place: mostly an organisation ("met at Google"),
#: unless a person is looked, smiled or shouted at.
_AT_BEFORE = re.compile(r"\\bat\\s+(?:the\\s+)?$", re.I)


_AT_A_PERSON = re.compile(
    r"\\b(?:look|looks|looked|looking|mad|angry|smiled|smiling|smile|laughed|laughing|yelled|"
    r"shouted|glanced|stared|staring|waved|pointed|upset|annoyed|grinned|winked)\\s+at\\s+$",
    re.I,
)


#: "at" before a name, where it is not a place: mostly an organisation ("met at Google"),
#: unless a person is looked, smiled or shouted at.
_AT_BEFORE = re.compile(r"\bat\s+(?:the\s+)?$", re.I)


_AT_A_PERSON = re.compile(
    r"\b(?:look|looks|looked|looking|mad|angry|smiled|smiling|smile|laughed|laughing|yelled|"
    r"shouted|glanced|stared|staring|waved|pointed|upset|annoyed|grinned|winked)\s+at\s+$",
    re.I,
)


#: A lowercase word after a name that makes it part of a longer name ("the LGBTQ support
#: group"), where words before it would otherwise say place or organisation.
_NOUN_AFTER = re.compile(
    r"^\s+(?!(?:and|or|but|with|for|to|in|on|at|last|this|next|yesterday|today|tomorrow|"
    r"again|too|soon|because|since|so|where|when|before|after|from|by|of|is|was|were|are|"
    r"has|had|will|would|for|which|who|that|while|now|then|once|every|all|together)\b)[a-z]"
)


_PRODUCT_BEFORE = re.compile(
    r"\b(?:play|plays|played|playing|bought|buy|buying|ordered|drive|drives|driving|"
    r"downloaded|installed|using)\s+(?:a\s+|an\s+|the\s+|my\s+|new\s+)*$",
    re.I,
)


def type_of_name(name: str, text: str) -> EntityType:
    """What a capitalized name in ``text`` is: a pet ("my cat Miso"), an organisation
    ("Acme Corp", "works at Farfetch", "Santa Maria hospital"), a place (a country,
    continent, US state or large city, or "moved to Braga"), a product ("playing
    Valorant"), or else a person."""
    at = text.find(name)
    if at < 0:
        before = after = ""
    else:  # the words that tell are next to the name: look no further
        before = text[max(0, at - _CUE_REACH) : at]
        after = text[at + len(name) : at + len(name) + _CUE_REACH]
    # The cues before a name all end in one of a few words: without one, none is tried.
    cued = _last_word(before) in _CUE_LAST_WORDS
    if (cued and _PET_BEFORE.search(before)) or _PET_AFTER.match(after):
        return "pet"
    if (
        name.split()[-1].lower() in _ORG_SUFFIXES
        or _ORG_NOUN_AFTER.match(after)
        or " & " in name  # "Procter & Gamble", "Weights & Biases": a firm's two names
    ):
        return "organization"
    if name in PLACE_NAMES:
        return "place"
    if _acronym(name):  # "NASA", "LGBTQ": a body, not a person
        return "place" if name in PLACE_ABBREVIATIONS else "organization"
    if _camel_case(name):  # "GitHub": a product, or the company ("works at GitHub")
        at_company = cued and (_ORG_BEFORE.search(before) or _AT_BEFORE.search(before))
        return "organization" if at_company else "product"
    if not cued or _NOUN_AFTER.match(after):
        return "person"
    if _ORG_BEFORE.search(before):
        return "organization"
    if _PLACE_BEFORE.search(before):
        return "place"
    if _AT_BEFORE.search(before) and not _AT_A_PERSON.search(before):
        return "organization"
    if _PRODUCT_BEFORE.search(before):
        return "product"
    return "person"


def _last_word(text: str) -> str:
    words = text.split()
    return words[-1].lower().rstrip(",") if words else ""
