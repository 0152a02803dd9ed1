"""The words the fact rules know (pure data): occupations, identities, relations (and which of
them one has only one of), words that are never names, and the starts of phrases too
vague to be a fact."""

from __future__ import annotations

__all__ = [
    "BASE_VERBS",
    "IDENTITIES",
    "NOT_NAMES",
    "OCCUPATIONS",
    "RELATIONS",
    "RELATIONS_EXCLUSIVE",
    "THIRD_PERSON_VERBS",
    "USERS_WORDS",
    "VAGUE_ALONE",
    "VAGUE_PAIRS",
    "VAGUE_STARTS",
    "WORKPLACE_NOUN",
]


WORKPLACE_NOUN = (
    r"(?:hospital|clinic|school|university|college|company|firm|bank|agency|restaurant|cafe|"
    r"caf\u00e9|bakery|shop|store|startup|studio|office|factory|lab|library|hotel|gym|job)"
)


OCCUPATIONS = frozenset(
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


IDENTITIES = frozenset(
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


RELATIONS_EXCLUSIVE = frozenset(
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


RELATIONS = frozenset(
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


NOT_NAMES = frozenset(
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


#: Who a derived statement of an unnamed user is by, and about: "The user is vegan."
#: from a chat's "I'm vegan" (its speaker, subject and owner). No one's name: a query
#: that says it is embedded with it, and a block judges no statement by it.
UNNAMED_USER = "the user"


#: The roles of turns whose unnamed "I" is the user: a chat's, a document's they added.
USERS_WORDS = frozenset({"user", "document"})


BASE_VERBS = frozenset(
    ["like", "love", "enjoy", "adore", "hate", "dislike", "have", "own", "don't", "don", "do"]
)


THIRD_PERSON_VERBS = frozenset(
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


VAGUE_STARTS = frozenset(
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


VAGUE_ALONE = frozenset(["to", "be", "a", "the", "one", "some"])


VAGUE_PAIRS = frozenset({"the idea", "the way", "the thought", "the fact", "a lot"})
