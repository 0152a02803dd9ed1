"""Context assembly: the memory block an agent gets before it answers, within a token
budget (pure; the candidates are gathered by :mod:`memstream.queries.context.gathering`).

The budget is shared out in order: facts 40%, entity profiles 25%, temporal context 25%,
evidence 10%. Lines that bear not on the question (marked ``unrelated`` by the
gathering) and an assistant's short replies (``reply``) are left out, and so are lines
the search scored far below the best one (under ``RELEVANCE_FLOOR`` of its score), so a
block is as long as the evidence, not the budget.
Each section takes its lines best first while they fit its share (a line
that does not fit is skipped, a shorter one may still fit); what a section leaves unused
flows to the next. The block never exceeds the budget, counted with the tokenizer the
caller passes in, and is None when there is nothing to say.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

__all__ = [
    "A_SHORT_REPLY",
    "NO_ROOM",
    "RELEVANCE_FLOOR",
    "SAID_ABOVE",
    "SECTIONS",
    "TRIMMED",
    "UNDER_FLOOR",
    "UNRELATED",
    "Assembly",
    "ContextLine",
    "Profile",
    "Section",
    "SectionName",
    "assemble",
    "complexity",
    "profile_text",
    "render_sections",
    "said_by",
]

SectionName = Literal["facts", "entities", "temporal", "evidence"]
#: The sections in order, with their share of the budget and their heading.
SECTIONS: tuple[tuple[SectionName, float, str], ...] = (
    ("facts", 0.40, "## What is known"),
    ("entities", 0.25, "## People, places and things"),
    ("temporal", 0.25, "## Around that time"),
    ("evidence", 0.10, "## Said before"),
)

#: Lines scored under this share of the best line's score are left out of a block: past
#: it, reciprocal rank fusion's scores say neither retriever found the line near the top.
RELEVANCE_FLOOR = 0.4
#: Why a candidate line was left out of the block (:attr:`Assembly.left_out`).
UNDER_FLOOR = f"scored under {RELEVANCE_FLOOR:g} of the best line"
#: ... bore not on the question (see :mod:`memstream.queries.context.relevance`)
UNRELATED = "bears not on the question: too little of its words, no name of it, far in meaning"
#: ... was an assistant's short reply (see :func:`memstream.queries.context.relevance.short_reply`)
A_SHORT_REPLY = "an assistant's short reply: the turn it replies to stands for it"
SAID_ABOVE = "said in an earlier section"
NO_ROOM = "no room left in its section's share"
TRIMMED = "trimmed: the block ran over the budget"

#: Words and shapes of questions that want more context (several pieces of evidence, a
#: comparison, a reason, a span of time).
_COMPLEX = re.compile(
    r"\b(why|how come|how did|how has|compare|compared|difference|between|both|all the|"
    r"every time|over time|since|history|timeline|relationship|summari[sz]e|"
    r"what happened|what changed)\b",
    re.IGNORECASE,
)


def complexity(query: str) -> Literal["simple", "complex"]:
    """``complex`` for a question that wants several pieces of evidence (a long one, two
    questions at once, a reason, a comparison, a span of time), else ``simple``."""
    words = query.split()
    if len(words) > 16 or query.count("?") > 1 or _COMPLEX.search(query):
        return "complex"
    return "simple"


@dataclass(frozen=True)
class Profile:
    """What an entity profile's line says: the entity's name, the other names it is
    known by, its type and counts, and the facts it states (ids and texts)."""

    name: str
    aliases: tuple[str, ...]
    type: str
    mentions: int
    first_seen: datetime
    last_seen: datetime
    facts: tuple[tuple[str, str], ...] = ()


def profile_text(profile: Profile) -> str:
    """``Ana (person; also Ana Silva): 3 mentions, first ..., last .... Facts.``"""
    parts = [f"{profile.name} ({profile.type}"]
    parts.append(f"; also {', '.join(profile.aliases)})" if profile.aliases else ")")
    mentions = profile.mentions
    parts.append(
        f": {mentions} mention{'s' if mentions != 1 else ''}, "
        f"first {profile.first_seen:%Y-%m-%d}, last {profile.last_seen:%Y-%m-%d}"
    )
    if profile.facts:
        parts.append(". " + " ".join(text for _, text in profile.facts))
    return "".join(parts)


def said_by(speaker: str | None, role: str | None = None) -> str:
    """Who said a turn, as a line names them: its speaker's name, else its role (an
    assistant's turn published without a name: "assistant")."""
    return speaker or role or "someone"


@dataclass(frozen=True)
class ContextLine:
    """One line of the block: what it says, and what an agent needs to act on it."""

    memory_id: str
    text: str
    occurred_at: datetime | None = None
    kind: str | None = None
    archived: bool = False
    #: the log events (turns, commands) the line rests on: its provenance
    sources: tuple[str, ...] = ()
    #: how relevant the search found it (None: always worth its place)
    score: float | None = None
    #: it bears not on the question (:mod:`.relevance`): left out of the block
    unrelated: bool = False
    #: an assistant's short reply (:func:`.relevance.short_reply`): left out of the
    #: block, the turn it replies to stands for it
    reply: bool = False
    #: how ``text`` was made of the memory, so that a served line renders again from its
    #: id (:mod:`memstream.queries.served`): the stored item's readable text; a long
    #: turn's window of characters; after who said it (:func:`said_by`); an entity's
    #: profile
    readable: bool = False
    cut: tuple[int, int] | None = None
    speaker: bool = False
    profile: Profile | None = None

    def render(self) -> str:
        """``- [kind] text (date, id)``; ``[archived]`` for an archived memory's summary
        (the agent can expand it by id)."""
        label = "archived" if self.archived else self.kind
        when = self.occurred_at.date().isoformat() if self.occurred_at else "undated"
        prefix = f"[{label}] " if label else ""
        return f"- {prefix}{' '.join(self.text.split())} ({when}, {self.memory_id})"


@dataclass(frozen=True)
class Section:
    """A filled section: its lines and the tokens they take (heading included)."""

    name: SectionName
    lines: list[ContextLine] = field(default_factory=list)
    tokens: int = 0


@dataclass(frozen=True)
class Assembly:
    """The block (None when nothing was found), its sections and its size."""

    context: str | None
    sections: list[Section]
    tokens: int
    budget_tokens: int
    #: the candidates left out and why: (memory id, section, reason), in the order met
    left_out: list[tuple[str, str, str]] = field(default_factory=list)


def assemble(
    candidates: Mapping[SectionName, Sequence[ContextLine]],
    budget_tokens: int,
    count_tokens: Callable[[str], int],
    floor: float = RELEVANCE_FLOOR,
) -> Assembly:
    """Fill the budget with ``candidates`` (each section's lines best first), leaving
    out lines scored under ``floor`` times the best score: the block stops where the
    evidence stops, whatever budget is left."""
    left_out: list[tuple[str, str, str]] = [
        (line.memory_id, name, UNRELATED if line.unrelated else A_SHORT_REPLY)
        for name, lines in candidates.items()
        for line in lines
        if line.unrelated or line.reply
    ]
    candidates = {
        name: [line for line in lines if not (line.unrelated or line.reply)]
        for name, lines in candidates.items()
    }
    best = max((line.score for lines in candidates.values() for line in lines
                if line.score is not None), default=0.0)  # fmt: skip
    left_out += [
        (line.memory_id, name, UNDER_FLOOR)
        for name, lines in candidates.items()
        for line in lines
        if line.score is not None and line.score < floor * best
    ]
    candidates = {
        name: [line for line in lines if line.score is None or line.score >= floor * best]
        for name, lines in candidates.items()
    }
    sections: list[Section] = []
    carried = 0
    used_total = 0
    seen: set[str] = set()
    for name, share, heading in SECTIONS:
        room = int(budget_tokens * share) + carried
        lines: list[ContextLine] = []
        used = 0
        heading_tokens = count_tokens(heading) + 1  # the blank line before it
        for line in candidates.get(name, ()):
            if line.memory_id in seen:
                left_out.append((line.memory_id, name, SAID_ABOVE))
                continue  # a memory says its piece once
            cost = count_tokens(line.render())
            if used + cost + (0 if lines else heading_tokens) > room:
                left_out.append((line.memory_id, name, NO_ROOM))
                continue
            used += cost + (0 if lines else heading_tokens)
            lines.append(line)
            seen.add(line.memory_id)
        carried = room - used
        used_total += used
        sections.append(Section(name, lines, used))
    text = render_sections(sections)
    if text is None:
        return Assembly(None, sections, 0, budget_tokens, left_out)
    tokens = count_tokens(text)
    while tokens > budget_tokens:  # the parts' count is a bound, not a promise: trim
        last = max(i for i, s in enumerate(sections) if s.lines)
        left_out.append((sections[last].lines[-1].memory_id, sections[last].name, TRIMMED))
        sections = _without_last_line(sections)
        text = render_sections(sections)
        if text is None:
            return Assembly(None, sections, 0, budget_tokens, left_out)
        tokens = count_tokens(text)
    return Assembly(text, sections, tokens, budget_tokens, left_out)


def render_sections(sections: Sequence[Section]) -> str | None:
    """The block's text: each section with lines, under its heading (None: no line)."""
    headings = {name: heading for name, _, heading in SECTIONS}
    parts = [
        "\n".join([headings[s.name], *(line.render() for line in s.lines)])
        for s in sections
        if s.lines
    ]
    return "\n\n".join(parts) if parts else None


def _without_last_line(sections: list[Section]) -> list[Section]:
    last = max(i for i, s in enumerate(sections) if s.lines)
    trimmed = sections[last]
    return [
        *sections[:last],
        Section(trimmed.name, trimmed.lines[:-1], trimmed.tokens),
        *sections[last + 1 :],
    ]
