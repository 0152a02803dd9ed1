"""Summaries of memories being archived: local and extractive by default (pure,
deterministic), or by a language model when one is configured.

A memory of at most ``WHOLE_CHARS`` characters (a chat turn, a short note) is its own
summary: archiving it loses no word a search could look for. A longer one keeps its
two or three most telling sentences, in their original order: sentences are scored by
what a later search is likely to ask about (names, dates and times, numbers), with a
small bonus for the first sentence, and the summary stays under ``max_chars``. A
language model, when configured, summarizes only the longer ones.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from datetime import UTC, datetime

from pydantic import BaseModel

from memstream.adapters.language_models import JsonModel, ModelError
from memstream.text.time_phrases import find_spans

__all__ = ["WHOLE_CHARS", "ModelSummarizer", "SummaryAnswer", "local_summaries", "summarize"]

log = logging.getLogger(__name__)
_MAX_SUMMARY = 1000
#: A memory this short is its own summary.
WHOLE_CHARS = 600

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
    if len(clean) <= WHOLE_CHARS:
        return clean
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


_MODEL_SYSTEM = """\
You maintain the long-term memory of an assistant. Each numbered memory below is being \
moved to cold storage; write for each a summary of two or three sentences that keeps \
every name, date and number, so that a later search still finds it. Answer with one \
summary per memory, in the same order."""


class SummaryAnswer(BaseModel):
    """The model's summaries, one per memory, in order."""

    summaries: list[str]


class ModelSummarizer:
    """Summaries by a language model, one call per batch of memories; a failed call or
    an answer of the wrong length falls back to the local :func:`summarize` (archiving
    never waits for a model)."""

    def __init__(self, model: JsonModel, batch: int = 20) -> None:
        self.model = model
        self._batch = batch

    def __call__(self, texts: Sequence[str]) -> list[str]:
        out = [summarize(t) for t in texts]  # the short ones are their own summary
        long = [i for i, t in enumerate(texts) if len(" ".join(t.split())) > WHOLE_CHARS]
        for i, summary in zip(long, self._by_model([texts[i] for i in long]), strict=True):
            out[i] = summary
        return out

    def _by_model(self, texts: Sequence[str]) -> list[str]:
        out: list[str] = []
        for start in range(0, len(texts), self._batch):
            chunk = texts[start : start + self._batch]
            prompt = "\n".join(f"[{i}] {text}" for i, text in enumerate(chunk, start=1))
            try:
                answer, _ = self.model.ask(_MODEL_SYSTEM, prompt, SummaryAnswer)
                if len(answer.summaries) != len(chunk):
                    raise ModelError(
                        f"{self.model.name} answered {len(answer.summaries)} summaries "
                        f"for {len(chunk)} memories"
                    )
            except ModelError as exc:
                log.warning("model summaries failed (%s); using local summaries", exc)
                out.extend(summarize(t) for t in chunk)
                continue
            out.extend(
                s.strip()[:_MAX_SUMMARY] or summarize(t)
                for s, t in zip(answer.summaries, chunk, strict=True)
            )
        return out


def local_summaries(texts: Sequence[str]) -> list[str]:
    """:func:`summarize` over many texts."""
    return [summarize(t) for t in texts]
