"""A document's text, cut into chunks an agent can cite.

A parsed document is a list of :class:`Block` (a paragraph, a list, a table, a code
block), each with its page and the path of headings above it. :func:`chunk_blocks` cuts
them into chunks of about ``target`` tokens: a chunk ends where a top-level section
ends, where a subsection ends once the chunk holds a useful amount of text, or where the
next block would overflow it; a block longer
than a chunk is cut between sentences (between words, as a last resort). A chunk that
goes on with the section of the chunk before it starts with the last sentences of that
chunk (about ``overlap`` tokens), so a statement cut in two is whole in one of them. A
chunk knows its first and last page, its heading path (the path its sections share)
and its span of characters in the document's text (the blocks joined by blank lines).

Pure: tokens are counted by the function passed in (memstream's tokenizer in the
worker), so the same blocks always give the same chunks.
"""

from __future__ import annotations

import re
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

_SENTENCE_END = re.compile(r"(?<=[.!?;:])\s+|\n+")


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


def document_text(blocks: Sequence[Block]) -> str:
    """The text of a document: its blocks joined by :data:`BLOCK_SEPARATOR`."""
    return BLOCK_SEPARATOR.join(b.text for b in blocks)


def chunk_blocks(
    blocks: Sequence[Block],
    count: Callable[[str], int],
    target: int = 400,
    overlap: int = 40,
    least: int | None = None,
) -> list[Chunk]:
    """Cut ``blocks`` into chunks of at most about ``target`` tokens (``count``
    counts them), a new section starting a new chunk once the current one holds
    ``least`` tokens (a quarter of ``target`` by default), and continuation chunks
    starting with about ``overlap`` tokens of the chunk before."""
    least = target // 4 if least is None else least
    whole = document_text(blocks)
    pieces = _pieces(blocks, count, max(1, target - overlap))  # room for the overlap
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
            new_section = piece.headings != current[-1].headings
            other_part = piece.headings[:1] != current[-1].headings[:1]
            if new_section and (size >= least or other_part):
                close()
            elif size + piece.tokens > target:
                tail = _tail(current, count, overlap)
                close()
                if tail and piece.headings == tail[-1].headings:
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


def _tail(pieces: list[_Piece], count: Callable[[str], int], overlap: int) -> list[_Piece]:
    """The last sentences of ``pieces``, about ``overlap`` tokens (none if the last
    sentence alone is longer than twice that)."""
    if overlap <= 0 or not pieces:
        return []
    last = pieces[-1]
    sentences = _sentences(last.text, last.start)
    taken: list[tuple[str, int]] = []
    tokens = 0
    for text, start in reversed(sentences):
        size = count(text)
        if taken and tokens + size > overlap:
            break
        if not taken and size > 2 * overlap:
            return []
        taken.insert(0, (text, start))
        tokens += size
    if not taken:
        return []
    start = taken[0][1]
    text = last.text[start - last.start :]
    return [_Piece(text, last.page, last.headings, start, tokens)]


def _pieces(blocks: Sequence[Block], count: Callable[[str], int], target: int) -> list[_Piece]:
    """The blocks placed in the document's text, those longer than ``target`` tokens
    cut between sentences (or words)."""
    pieces: list[_Piece] = []
    start = 0
    for block in blocks:
        tokens = count(block.text)
        if tokens <= target:
            pieces.append(_Piece(block.text, block.page, block.headings, start, tokens))
        else:
            pieces.extend(_cut(block, start, count, target))
        start += len(block.text) + len(BLOCK_SEPARATOR)
    return pieces


def _cut(block: Block, start: int, count: Callable[[str], int], target: int) -> list[_Piece]:
    """A long block in parts of at most ``target`` tokens, cut after sentences."""
    units: list[tuple[str, int, int]] = []  # text, start, tokens
    for text, at in _sentences(block.text, start):
        size = count(text)
        if size <= target:
            units.append((text, at, size))
        else:
            units.extend(_words(text, at, count, target))
    parts: list[_Piece] = []
    group: list[tuple[str, int, int]] = []
    for unit in units:
        if group and sum(u[2] for u in group) + unit[2] > target:
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
        at = match.end()
    if at < len(text):
        found.append((text[at:], start + at))
    return found


def _words(
    text: str, start: int, count: Callable[[str], int], target: int
) -> list[tuple[str, int, int]]:
    """A sentence longer than a chunk, in runs of words of at most ``target`` tokens."""
    runs: list[tuple[str, int, int]] = []
    for match in re.finditer(r"\S+", text):
        word, at = match.group(), start + match.start()
        size = count(word)
        if runs and runs[-1][2] + size <= target:
            _, run_at, run_size = runs[-1]
            runs[-1] = (text[run_at - start : at - start] + word, run_at, run_size + size)
        else:
            runs.append((word, at, size))
    return runs
