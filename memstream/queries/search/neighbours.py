"""Where a turn stands in its session, and a search score shared with the turns beside
it (pure).

A conversation answers across turns: a question is asked in one turn and answered in
the next, a story is told over three. A search that finds one of them has found the
place, so the turns near a found turn in its session get a share of its score
("spreading"): each turn gets, from each side, ``share`` of the best score found among
the ``reach`` turns on that side. A turn found on its own and as a neighbour adds
both; a neighbour that was not found at all enters the ranking with its share alone.

Only the best of each side counts, so a turn gets at most two shares however many of
its neighbours were found: summing the shares of all four within two turns let a turn
amid found ones outrank the best match itself in a small store, where most turns are
found. On LoCoMo (main recall@10, tuning / checking half, in process) a reach of two
turns, best per side, moved 0.768 / 0.757 to 0.773 / 0.765 (aged store 0.759 / 0.748
to 0.773 / 0.759; e5-small 0.779 / 0.766 to 0.782 / 0.769); with reach one it is the
old spreading to the turn just before and after.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from typing import Any

from memstream.text.passages import LONG_TURN_CHARACTERS

__all__ = [
    "REPLIES",
    "SHORT_REPLY_CHARACTERS",
    "SessionOrder",
    "handed_back",
    "questions_lowered",
    "spread",
    "turn_said",
]


@dataclass(frozen=True)
class SessionOrder:
    """The turns of some sessions in the order they were said.

    Attributes:
        position: each turn's memory id -> (session id, index in the session).
        at: (session id, index) -> that turn's memory id.
    """

    position: Mapping[str, tuple[str, int]]
    at: Mapping[tuple[str, int], str]

    @classmethod
    def of(cls, turns: Iterable[Mapping[str, Any]]) -> SessionOrder:
        """The order of ``turns`` (rows with ``memory_id``, ``session_id`` and
        ``occurred_at``) within each session: by time, then by memory id. Rows without
        a session are left out."""
        ordered = sorted(
            (r for r in turns if r.get("session_id")),
            key=lambda r: (r["session_id"], _seconds(r["occurred_at"]), r["memory_id"]),
        )
        return cls.of_sorted([r["memory_id"] for r in ordered], [r["session_id"] for r in ordered])

    @classmethod
    def of_sorted(cls, memory_ids: Sequence[str], sessions: Sequence[str | None]) -> SessionOrder:
        """The order of turns given already sorted by session, then as said."""
        position: dict[str, tuple[str, int]] = {}
        at: dict[tuple[str, int], str] = {}
        current, index = None, 0
        for memory_id, session in zip(memory_ids, sessions, strict=True):
            if session is None:
                continue
            if session != current:
                current, index = session, 0
            position[memory_id] = (session, index)
            at[(session, index)] = memory_id
            index += 1
        return cls(position, at)

    def neighbours(self, memory_id: str, reach: int = 1) -> list[str]:
        """The turns up to ``reach`` before and after ``memory_id`` in its session, in
        the order said (none when it is not a turn of these sessions)."""
        return [m for m, _ in self.sides(memory_id, reach)]

    def sides(self, memory_id: str, reach: int = 1) -> list[tuple[str, bool]]:
        """:meth:`neighbours`, each with whether it was said after ``memory_id``."""
        place = self.position.get(memory_id)
        if place is None:
            return []
        session, index = place
        at = self.at
        return [
            (m, after)
            for d, after in _offsets(reach)
            if (m := at.get((session, index + d))) is not None
        ]

    def before(self, memory_id: str) -> str | None:
        """The turn said just before ``memory_id`` in its session, if any."""
        place = self.position.get(memory_id)
        return None if place is None else self.at.get((place[0], place[1] - 1))


@cache
def _offsets(reach: int) -> tuple[tuple[int, bool], ...]:
    """The steps to the turns up to ``reach`` either side, each with whether it is after."""
    return tuple((d, d > 0) for d in range(-reach, reach + 1) if d)


def spread(
    scores: Mapping[str, float], order: SessionOrder, share: float, reach: int = 2
) -> dict[str, float]:
    """``scores`` after each turn got ``share`` of the best score among the ``reach``
    turns before it and ``share`` of the best among the ``reach`` after it (``share``
    or ``reach`` 0 changes nothing). Only the scores found are spread: a neighbour's
    new score does not spread again."""
    out = dict(scores)
    if share <= 0:
        return out
    best: dict[tuple[str, bool], float] = {}  # (turn, whether it came from before) -> best
    position, at, offsets = order.position, order.at, _offsets(reach)
    for memory_id, score in scores.items():  # order.sides, walked here: once per candidate
        place = position.get(memory_id)
        if place is None:
            continue
        session, index = place
        for d, after in offsets:
            neighbour = at.get((session, index + d))
            if neighbour is not None:
                key = (neighbour, after)
                held = best.get(key, 0.0)
                best[key] = score if score > held else held
    for (neighbour, _), score in best.items():
        out[neighbour] = out.get(neighbour, 0.0) + share * score
    return out


#: What a turn is, for :func:`handed_back`: the user stating something, the user asking
#: (every sentence a question), the assistant replying at length or in a few words, or
#: anything else.
STATEMENT, QUESTION, REPLY, SHORT_REPLY, OTHER = (
    "statement", "question", "reply", "short reply", "other"
)  # fmt: skip

#: An assistant's reply of at most this many characters is a short one: an
#: acknowledgement or a restatement of what the user just said ("Kids and glasses, it
#: always happens."), not an answer of its own. In the project's corpus every reply
#: that answers a question is longer than 300 characters, and 190 of the 214 replies
#: are at most 160.
SHORT_REPLY_CHARACTERS = 200
#: The assistant's turns, long or short.
REPLIES = frozenset({REPLY, SHORT_REPLY})

_SENTENCE_END = re.compile(r"[.!?]+(?=\s|$)")


def turn_said(role: str | None, content: str) -> str:
    """What a turn of ``role`` saying ``content`` is: :data:`STATEMENT`,
    :data:`QUESTION`, :data:`REPLY` or :data:`OTHER`. A turn longer than a short turn
    (a paste, a long message) tells something whatever its sentences end in: it is
    not read through, since this runs for every candidate of every search."""
    if role == "assistant":
        return SHORT_REPLY if len(content) <= SHORT_REPLY_CHARACTERS else REPLY
    if role != "user":
        return OTHER
    if "?" not in content or len(content) > LONG_TURN_CHARACTERS:
        return STATEMENT
    ends = _SENTENCE_END.findall(content.strip())
    return QUESTION if ends and all(end.endswith("?") for end in ends) else STATEMENT


def handed_back(
    scores: Mapping[str, float],
    order: SessionOrder,
    said: Mapping[str, str],
    share: float,
    restatement_weight: float = 1.0,
) -> tuple[dict[str, float], dict[str, str]]:
    """``scores`` after each assistant's reply found handed ``share`` of its score to the
    user's statement it replies to (the turn just before it, when that is one): the
    statement gets at least that much. Also: each statement the hand-back raised, and
    the reply it was found through.

    A reply restates what the user told it in the words a later question uses ("a slow
    weight loss plan with longer walks" after "the vet said the dog has to lose two
    kilos"): the reply is found, while the statement, the user's own memory, shares no
    word with the question. A user's question is not handed anything: the reply is what
    answers it. ``said`` holds :func:`turn_said` of the turns involved; ``share`` 0
    changes nothing.

    A short reply (:data:`SHORT_REPLY`) to a statement restates it: the statement gets
    all of the reply's score, and the reply is ranked at ``restatement_weight`` of its
    own (1: as found), so what the user said comes before the assistant's echo of it."""
    out = dict(scores)
    through: dict[str, str] = {}
    if share <= 0:
        return out, through
    for memory_id, score in scores.items():
        kind = said.get(memory_id)
        if kind not in REPLIES:
            continue
        statement = order.before(memory_id)
        if statement is None or said.get(statement) != STATEMENT:
            continue
        handed = score if kind == SHORT_REPLY else share * score
        if handed > out.get(statement, 0.0):
            out[statement] = handed
            through[statement] = memory_id
        if kind == SHORT_REPLY:
            out[memory_id] = out[memory_id] * restatement_weight
    return out, through


def questions_lowered(
    scores: Mapping[str, float], said: Mapping[str, str], weight: float
) -> dict[str, float]:
    """``scores`` with each user's question (``said``: :func:`turn_said`) at ``weight``
    of its score (1 changes nothing). A question is what the user asked, not what they
    told: it shares the words of a later question about the same thing ("which boots
    should I buy?") and crowds out the turns that hold the answer."""
    if weight == 1:
        return dict(scores)
    return {m: s * weight if said.get(m) == QUESTION else s for m, s in scores.items()}


def _seconds(at: datetime | None) -> float:
    return at.timestamp() if at is not None else float("-inf")
