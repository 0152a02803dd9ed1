"""Text a channel must not lose, made fit for an event: lone surrogates repaired and
what is longer than a field cut with a note saying so (pure).

The doors refuse text that is not valid Unicode and content longer than a message
holds, as they must; a hook or an adapter passing on what an agent said would lose the
whole turn. These give it text a door takes, and say so in the text where any was cut.
"""

from __future__ import annotations

import re

__all__ = ["MESSAGE_CHARS", "trimmed", "well_formed"]

#: The most characters a message's content holds (``MessageEvent.content``).
MESSAGE_CHARS = 100_000

_SURROGATE = re.compile("[\ud800-\udfff]")


def well_formed(text: str) -> str:
    """``text`` with each lone surrogate replaced by U+FFFD (a pair of surrogates, as a
    JSON escape gives them, joined into its character)."""
    if text.isascii() or _SURROGATE.search(text) is None:
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def trimmed(text: str, limit: int = MESSAGE_CHARS) -> str:
    """``text`` well formed and at most ``limit`` characters: when longer, its start
    and a note of how many characters were not kept."""
    text = well_formed(text)
    if len(text) <= limit:
        return text
    note = f"\n[… {len(text) - limit:,}+ characters more, not kept]"
    return text[: limit - len(note)] + note
