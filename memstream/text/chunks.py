"""A document's text, cut into chunks an agent can cite.

A parsed document is a list of :class:`Block` (a paragraph, a list, a table, a code
block), each with its page and the path of headings above it. :func:`chunk_blocks` cuts
them into chunks of about ``target`` tokens and at most ``max_chars`` characters: a
chunk ends where a top-level section ends, where a subsection ends once the chunk holds
a useful amount of text, or where the next block would overflow it; a block longer than
a chunk is cut between sentences (those ended by the ideographic full stop too),
between words, and as a last resort between characters (a run without spaces: CJK
prose, an inline image, minified JSON, a long address), never inside a character and
the marks that combine with it. Both bounds hold for any text: the characters bound
is what keeps a run the tokenizer counts as few tokens from making a chunk of
any length. A chunk that
goes on with the section of the chunk before it starts with the last sentences of that
chunk (about ``overlap`` tokens), so a statement cut in two is whole in one of them. A
chunk knows its first and last page, its heading path (the path its sections share)
and its span of characters in the document's text (the blocks joined by blank lines).

Pure: tokens are counted by the function passed in (memstream's tokenizer in the
worker), so the same blocks always give the same chunks.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

__all__ = [
    "BLOCK_SEPARATOR",
    "Block",
    "Chunk",
    "chunk_blocks",
    "document_text",
]

#: What joins blocks in a document's text (the text chunk spans point into).
BLOCK_SEPARATOR = "\n\n"

_SENTENCE_END = re.compile(r"(?<=[.!?;:])\s+|(?<=[\u3002\uff01\uff1f\uff1b])\s*|\n+")

#: Characters that belong to the one before them: never cut in front of one.
_JOINERS = frozenset("\u200c\u200d\ufe0e\ufe0f")


@dataclass(frozen=True)
class Block:
    """A paragraph-like piece of a document: its text, its page (1-based; 1 for
    documents without pages) and the headings above it, outermost first."""

    text: str
    page: int = 1
    headings: tuple[str, ...] = ()


@dataclass(frozen=True)
class Chunk:
    """A chunk of a document: ``index`` from 0, its pages, heading path, and the span
    ``[start, end)`` of its text in :func:`document_text` (overlap included)."""

    index: int
    text: str
    page: int
    last_page: int
    headings: tuple[str, ...]
    start: int
    end: int
    tokens: int


@dataclass(frozen=True)
class _Piece:
    """A block, or a part of one no longer than a chunk, placed in the document."""

    text: str
    page: int
    headings: tuple[str, ...]
    start: int
    tokens: int

    @property
    def end(self) -> int:
        """Where the piece ends in the document's text."""
        return self.start + len(self.text)


@dataclass(frozen=True)
class _Bounds:
    """How much a piece of text may hold: ``tokens`` and ``chars``."""

    tokens: int
    chars: int


def document_text(blocks: Sequence[Block]) -> str:
    """The text of a document: its blocks joined by :data:`BLOCK_SEPARATOR`."""
    return BLOCK_SEPARATOR.join(b.text for b in blocks)


def chunk_blocks(
    blocks: Sequence[Block],
    count: Callable[[str], int],
    target: int = 400,
    overlap: int = 40,
    least: int | None = None,
    max_chars: int | None = None,
) -> list[Chunk]:
    """Cut ``blocks`` into chunks of at most about ``target`` tokens (``count``
    counts them) and ``max_chars`` characters (eight per token of ``target`` by
    default), a new section starting a new chunk once the current one holds ``least``
    tokens (a quarter of ``target`` by default), and continuation chunks starting with
    about ``overlap`` tokens of the chunk before."""
    least = target // 4 if least is None else least
    max_chars = 8 * target if max_chars is None else max_chars
    overlap = min(overlap, target // 2)
    room = _Bounds(max(1, target - overlap), max(1, max_chars - max_chars * overlap // target))
    carry = _Bounds(overlap, max_chars * overlap // target)
    whole = document_text(blocks)
    pieces = _pieces(blocks, count, room)  # room for the overlap
    chunks: list[Chunk] = []
    current: list[_Piece] = []
    carried: list[_Piece] = []  # the overlap the current chunk starts with

    def close() -> None:
        nonlocal current, carried
        if not current:
            return
        chunks.append(_chunk(len(chunks), [*carried, *current], whole, count))
        carried, current = [], []

    for piece in pieces:
        if current:
            size = sum(p.tokens for p in (*carried, *current))
            first = (carried or current)[0]
            new_section = piece.headings != current[-1].headings
            other_part = piece.headings[:1] != current[-1].headings[:1]
            if new_section and (size >= least or other_part):
                close()
            elif size + piece.tokens > target or piece.end - first.start > max_chars:
                tail = _tail(current, count, carry)
                close()
                if (
                    tail
                    and piece.headings == tail[-1].headings
                    and piece.end - tail[0].start <= max_chars
                ):
                    carried = tail
        current.append(piece)
    close()
    return chunks


def _chunk(index: int, pieces: list[_Piece], whole: str, count: Callable[[str], int]) -> Chunk:
    first, last = pieces[0], pieces[-1]
    start, end = first.start, last.start + len(last.text)
    text = whole[start:end]
    return Chunk(
        index=index,
        text=text,
        page=first.page,
        last_page=last.page,
        headings=_shared(p.headings for p in pieces),
        start=start,
        end=end,
        tokens=count(text),
    )


def _shared(paths: Iterable[tuple[str, ...]]) -> tuple[str, ...]:
    """The heading path pieces of several sections share (the one path if one)."""
    shared: tuple[str, ...] | None = None
    for path in paths:
        if shared is None:
            shared = path
            continue
        common = 0
        while common < min(len(shared), len(path)) and shared[common] == path[common]:
            common += 1
        shared = shared[:common]
    return shared or ()


def _tail(pieces: list[_Piece], count: Callable[[str], int], overlap: _Bounds) -> list[_Piece]:
    """The last sentences of ``pieces``, about ``overlap`` (none if the last sentence
    alone is longer than twice that)."""
    if overlap.tokens <= 0 or not pieces:
        return []
    last = pieces[-1]
    sentences = _sentences(last.text, last.start)
    taken: list[tuple[str, int]] = []
    tokens = 0
    end = last.end
    for text, start in reversed(sentences):
        size = count(text)
        if taken and (tokens + size > overlap.tokens or end - start > overlap.chars):
            break
        if not taken and (size > 2 * overlap.tokens or end - start > 2 * overlap.chars):
            return []
        taken.insert(0, (text, start))
        tokens += size
    if not taken:
        return []
    start = taken[0][1]
    text = last.text[start - last.start :]
    return [_Piece(text, last.page, last.headings, start, tokens)]


def _pieces(blocks: Sequence[Block], count: Callable[[str], int], room: _Bounds) -> list[_Piece]:
    """The blocks placed in the document's text, those longer than ``room`` cut between
    sentences (or words, or characters)."""
    pieces: list[_Piece] = []
    start = 0
    for block in blocks:
        tokens = count(block.text) if len(block.text) <= room.chars else room.tokens + 1
        if tokens <= room.tokens:
            pieces.append(_Piece(block.text, block.page, block.headings, start, tokens))
        else:
            pieces.extend(_cut(block, start, count, room))
        start += len(block.text) + len(BLOCK_SEPARATOR)
    return pieces


def _cut(block: Block, start: int, count: Callable[[str], int], room: _Bounds) -> list[_Piece]:
    """A long block in parts within ``room``, cut after sentences."""
    units: list[tuple[str, int, int]] = []  # text, start, tokens
    for text, at in _sentences(block.text, start):
        size = count(text) if len(text) <= room.chars else room.tokens + 1
        if size <= room.tokens:
            units.append((text, at, size))
        else:
            units.extend(_words(text, at, count, room))
    parts: list[_Piece] = []
    group: list[tuple[str, int, int]] = []
    for unit in units:
        end = unit[1] + len(unit[0])
        if group and (
            sum(u[2] for u in group) + unit[2] > room.tokens or end - group[0][1] > room.chars
        ):
            parts.append(_merged(group, block, start))
            group = []
        group.append(unit)
    if group:
        parts.append(_merged(group, block, start))
    return parts


def _merged(group: list[tuple[str, int, int]], block: Block, block_start: int) -> _Piece:
    first, last = group[0], group[-1]
    text = block.text[first[1] - block_start : last[1] - block_start + len(last[0])]
    return _Piece(text, block.page, block.headings, first[1], sum(u[2] for u in group))


def _sentences(text: str, start: int) -> list[tuple[str, int]]:
    """The sentences of ``text`` (and its lines) with where each starts in the document."""
    found = []
    at = 0
    for match in _SENTENCE_END.finditer(text):
        if match.start() > at:
            found.append((text[at : match.start()], start + at))
        at = max(at, match.end())
    if at < len(text):
        found.append((text[at:], start + at))
    return found


def _words(
    text: str, start: int, count: Callable[[str], int], room: _Bounds
) -> list[tuple[str, int, int]]:
    """A sentence longer than a chunk, in runs of words within ``room`` (a word longer
    than that in runs of characters)."""
    runs: list[tuple[str, int, int]] = []
    for match in re.finditer(r"\S+", text):
        word, at = match.group(), start + match.start()
        size = count(word) if len(word) <= room.chars else room.tokens + 1
        if size > room.tokens:
            runs.extend(_letters(word, at, count, room))
            continue
        if (
            runs
            and runs[-1][2] + size <= room.tokens
            and at + len(word) - runs[-1][1] <= room.chars
        ):
            _, run_at, run_size = runs[-1]
            runs[-1] = (text[run_at - start : at - start] + word, run_at, run_size + size)
        else:
            runs.append((word, at, size))
    return runs


def _letters(
    word: str, start: int, count: Callable[[str], int], room: _Bounds
) -> list[tuple[str, int, int]]:
    """A run without spaces in parts within ``room``, each cut in front of a character
    that stands alone (not a combining mark or a joiner)."""
    parts: list[tuple[str, int, int]] = []
    at = 0
    while at < len(word):
        size = min(room.chars, len(word) - at)
        while True:
            end = _cut_before(word, at, at + size)
            tokens = count(word[at:end])
            if tokens <= room.tokens or end - at <= 1:
                break
            size = max(1, min(end - at - 1, (end - at) * room.tokens // tokens))
        parts.append((word[at:end], start + at, tokens))
        at = end
    return parts


def _cut_before(text: str, first: int, end: int) -> int:
    """``end``, or the nearest place before it (after ``first``) that does not part a
    character from the marks that combine with it."""
    at = end
    while first + 1 < at < len(text) and (
        unicodedata.combining(text[at]) or text[at] in _JOINERS or text[at - 1] in _JOINERS
    ):
        at -= 1
    return at if at > first else end
