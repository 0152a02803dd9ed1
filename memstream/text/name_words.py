"""The words the mention rules know (pure data): ordinary words and month and day names
that are capitalised without being names, nationalities, abbreviations that are not
names, and the abbreviations of places."""

from __future__ import annotations

__all__ = [
    "ABBREVIATIONS",
    "MONTH_AND_DAY_NAMES",
    "NATIONALITIES",
    "ORDINARY_WORDS",
    "PLACE_ABBREVIATIONS",
]


split_words = str.split


#: Capitalized words that start sentences or sit in them without naming anyone.
ORDINARY_WORDS = frozenset(
    split_words(
        """
        a about after again ah all also although always am an and another any anyway are as
        at aw awesome aww back be because been before being best better both but by can
        cheers congrats congratulations cool could dear definitely did do does doing done
        each either even ever every exactly excellent for from glad go going good goodbye
        great had has have having he hello her here hers hey hi him his hmm honestly how
        however i i'd i'll i'm i've if in indeed interesting is it it's its just let let's
        like lol look love maybe me mine more most much my neither never nice no nope nor
        not nothing now of oh ok okay on once one only or other our ours out over perfect
        please plus really right same see she should since so some something sometimes sorry
        still such sure thank thanks that that's the their theirs them then there there's
        these they they're thing things this those though through thus to today tomorrow too
        totally true try um unfortunately until up us very want was we we're well were what
        what's whatever when where whether which while who whoa why will with wow would yay
        yeah yep yes yesterday yet you you're your yours absolutely actually agreed alright
        amazing anyway anything around bye certainly check didn't don't everyone everything
        good-bye guess haha happy hope huh isn't keep lots made make many meanwhile mom mum
        dad mother father grandma grandpa sis bro guys folks none nobody our speaking tell
        thinking totally wait wasn't welcome whoever wonderful yours lately recently tonight
        morning afternoon evening night weekend week month year god christmas easter
        halloween thanksgiving new happy birthday woah wow omg
        """
    )
)


MONTH_AND_DAY_NAMES = frozenset(
    split_words(
        """
        january february march april may june july august september october november
        december monday tuesday wednesday thursday friday saturday sunday jan feb mar apr
        jun jul aug sep sept oct nov dec mon tue wed thu fri sat sun
        """
    )
)


#: Nationalities and languages: capitalized, but nobody's name ("Léa loves Japanese
#: food. She hates coriander": "she" is Léa).
NATIONALITIES = frozenset(
    split_words(
        """
        american arabic argentinian australian austrian belgian brazilian british
        bulgarian canadian chilean chinese colombian croatian cuban czech danish dutch
        egyptian english estonian ethiopian european filipino finnish french german
        greek hindi hungarian icelandic indian indonesian iranian irish israeli italian
        japanese kenyan korean latin latvian lebanese lithuanian malaysian mandarin
        mexican moroccan nepalese nigerian norwegian pakistani persian peruvian polish
        portuguese romanian russian scottish serbian slovak spanish swedish swiss syrian
        taiwanese thai turkish ukrainian vietnamese welsh cantonese catalan basque
        """
    )
)


#: Abbreviations of things, not of anyone or anywhere: request methods, formats, roles.
ABBREVIATIONS = frozenset(
    {
        "GET",
        "POST",
        "PUT",
        "PATCH",
        "DELETE",
        "HEAD",
        "API",
        "APIS",
        "URL",
        "URLS",
        "URI",
        "HTTP",
        "HTTPS",
        "JSON",
        "YAML",
        "XML",
        "HTML",
        "CSS",
        "SQL",
        "CLI",
        "SDK",
        "UI",
        "UX",
        "UUID",
        "CPU",
        "GPU",
        "RAM",
        "SSD",
        "OS",
        "PDF",
        "CSV",
        "ID",
        "IDS",
        "ETA",
        "FAQ",
        "FYI",
        "ASAP",
        "TBD",
        "TODO",
        "OK",
        "AM",
        "PM",
        "CEO",
        "CTO",
        "CFO",
        "COO",
        "VP",
        "HR",
        "PR",
        "QA",
        "DM",
        "DMS",
        "PS",
        "RSVP",
        "DIY",
        "TV",
    }
)


#: Places written as abbreviations.
PLACE_ABBREVIATIONS = frozenset({"UK", "US", "USA", "UAE", "EU", "NYC", "LA", "SF", "DC"})
