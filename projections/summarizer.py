"""The local extractive summary of a memory being archived (pure, deterministic).

A memory of at most three sentences that fits is its own summary. A longer one keeps
its two or three most telling sentences, in their original order: sentences are
scored by what a later search is likely to ask about (names, dates and times,
numbers), with a small bonus for the first sentence, and the summary stays under
``max_chars``.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

from projections.timephrases import find_spans

__all__ = ["summarize"]

_SENTENCE = re.compile(r"[^.!?\n]+[.!?]*")
_NAME = re.compile(r"(?<![.!?]\s)(?<!^)\b[A-Z][a-z]+")
_NUMBER = re.compile(r"\d+(?:[.,:]\d+)*")
#: Time phrases are only counted; any reference time will do.
_REFERENCE = datetime(2000, 1, 1, tzinfo=UTC)


def _score(sentence: str, first: bool) -> float:
    names = len(_NAME.findall(sentence))
    numbers = len(_NUMBER.findall(sentence))
    dates = len(find_spans(sentence, _REFERENCE))
    return 2.0 * names + 1.5 * numbers + 3.0 * dates + (1.0 if first else 0.0)


def summarize(text: str, max_sentences: int = 3, max_chars: int = 320) -> str:
    """Two or three sentences of ``text`` keeping its names, dates and numbers."""
    clean = " ".join(text.split())
    sentences = [m.group(0).strip() for m in _SENTENCE.finditer(clean) if m.group(0).strip()]
    if len(sentences) <= max_sentences and len(clean) <= max_chars:
        return clean
    ranked = sorted(range(len(sentences)), key=lambda i: (-_score(sentences[i], i == 0), i))
    chosen: list[int] = []
    size = 0
    for i in ranked:
        if len(chosen) == max_sentences:
            break
        if size + len(sentences[i]) + 1 > max_chars and chosen:
            continue
        chosen.append(i)
        size += len(sentences[i]) + 1
    summary = " ".join(sentences[i] for i in sorted(chosen))
    return summary if len(summary) <= max_chars else summary[: max_chars - 1].rstrip() + "…"
