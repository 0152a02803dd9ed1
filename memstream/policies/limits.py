"""The limits every door, the settings and the use cases share, written once: the largest
context block one may ask for and the longest page of a list."""

from __future__ import annotations

__all__ = ["MAX_CONTEXT_TOKENS", "MAX_LISTED"]

#: The largest context block one may ask for, in tokens.
MAX_CONTEXT_TOKENS = 32_000
#: The most memories one page of a list holds.
MAX_LISTED = 200
