"""The limits every door, the settings and the use cases share, written once: the largest
context block one may ask for, the longest page of a list, and how near in meaning a
result sharing no word with the question must be to stay in a block."""

from __future__ import annotations

__all__ = ["CONTEXT_MIN_SIMILARITY", "MAX_CONTEXT_TOKENS", "MAX_LISTED"]

#: The largest context block one may ask for, in tokens.
MAX_CONTEXT_TOKENS = 32_000
#: The most memories one page of a list holds.
MAX_LISTED = 200
#: The cosine at which a result sharing no word or name with a question still bears on
#: it, for a context block (:mod:`memstream.queries.context.relevance`; chosen by
#: ``python bench/relevance_floor.py --context``).
CONTEXT_MIN_SIMILARITY = 0.3
