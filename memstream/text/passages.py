"""A long turn's passages: where it is cut so that each piece fits what the embedder reads.

The embedder reads a text's first 256 tokens (about 1,000 characters of English, fewer
of code), so a long answer's vector says what its opening says. A turn longer than
:data:`LONG_TURN_CHARACTERS` is also embedded as passages of about
:data:`PASSAGE_CHARACTERS`, cut before a heading, else at a blank line, a line end, a
sentence end or a space; each passage is a vector row of its own
(``<memory id>+p<index>``), and search finds the turn by its best passage and says where
that passage is. The turn stays one memory. The cuts depend on the content alone, so
the same turn always has the same passages (pure).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memstream.storage import filters

__all__ = [
    "LONG_TURN_CHARACTERS",
    "OWN_VECTORS",
    "PASSAGE_CHARACTERS",
    "PASSAGE_MARK",
    "PASSAGE_VECTORS",
    "Passage",
    "marked_cut",
    "passage_id",
    "passage_of",
    "passages",
]

#: A turn longer than this is embedded as passages too.
LONG_TURN_CHARACTERS = 1_200
#: The longest passage (a passage is at least half of this, unless it ends the turn).
PASSAGE_CHARACTERS = 800
#: A passage may run this much longer to take in the end of the turn.
_TAIL = PASSAGE_CHARACTERS // 4
#: What joins a memory id and a passage index in a vector row id.
PASSAGE_MARK = "+p"
#: The filters on ``vectors`` that keep memories' own vectors, or their passages'.
OWN_VECTORS = filters.lacks("memory_id", PASSAGE_MARK)
PASSAGE_VECTORS = filters.contains("memory_id", PASSAGE_MARK)
#: Where a passage may end, best first: before a heading, after a blank line, a line, a
#: sentence, a word.
_BREAKS = (
    re.compile(r"\n\s*\n(?=#{1,6} )"),
    re.compile(r"\n\s*\n"),
    re.compile(r"\n"),
    re.compile(r"[.!?:;][\"')\]]?\s"),
    re.compile(r"\s"),
)


@dataclass(frozen=True)
class Passage:
    """Passage ``index`` of a turn: its characters ``start`` to ``end`` of the content."""

    index: int
    start: int
    end: int


def passages(content: str) -> list[Passage]:
    """The passages of ``content`` when it is a long turn (else none), in order; they
    cover the content without overlap, blank edges left out."""
    if len(content) <= LONG_TURN_CHARACTERS:
        return []
    found: list[Passage] = []
    start = _skip_space(content, 0)
    while start < len(content):
        end = _cut(content, start)
        stripped = len(content[start:end].rstrip())
        if stripped:
            found.append(Passage(len(found), start, start + stripped))
        start = _skip_space(content, end)
    return found


def _cut(content: str, start: int) -> int:
    """Where the passage that begins at ``start`` ends."""
    limit = start + PASSAGE_CHARACTERS
    if len(content) - start <= PASSAGE_CHARACTERS + _TAIL:
        return len(content)  # the rest, rather than a last scrap
    window = content[start + PASSAGE_CHARACTERS // 2 : limit]
    for pattern in _BREAKS:
        ends = [
            found.end()
            for found in pattern.finditer(window)
            if not _heading_before(window, found.start())
        ]
        if ends:
            return start + PASSAGE_CHARACTERS // 2 + ends[-1]
    return limit  # one unbroken run (a hash, a minified line): cut it anywhere


def _heading_before(window: str, at: int) -> bool:
    """Whether the line that ends at ``at`` is a Markdown heading (a passage does not
    end with the heading of what follows)."""
    return window[window.rfind("\n", 0, at) + 1 : at].lstrip().startswith("#")


def _skip_space(content: str, at: int) -> int:
    while at < len(content) and content[at].isspace():
        at += 1
    return at


def passage_id(memory_id: str, index: int) -> str:
    """The vector row id of passage ``index`` of ``memory_id``."""
    return f"{memory_id}{PASSAGE_MARK}{index}"


def passage_of(vector_id: str) -> tuple[str, int | None]:
    """(memory id, passage index) of a vector row id; the index is None for a memory's
    own vector."""
    memory_id, mark, index = vector_id.rpartition(PASSAGE_MARK)
    if not mark or not index.isdigit():
        return vector_id, None
    return memory_id, int(index)


def marked_cut(content: str, start: int, end: int) -> str:
    """Characters ``start`` to ``end`` of ``content``, with "…" where it was cut."""
    before = "… " if start > 0 else ""
    after = " …" if end < len(content) else ""
    return f"{before}{content[start:end]}{after}"
