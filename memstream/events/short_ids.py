"""Memory ids as people read and type them: ``ep-1a2b3c4d`` for
``ep-1a2b3c4d5e6f…`` (the kind's prefix and the first eight hex digits).

Plain output shows the short form; ``explain``, ``history``, ``correct``, ``confirm``,
``forget``, ``expand`` and ``restore`` take it back, as a prefix of one of the user's
memory ids (:func:`prefix_range` is the filter that finds it).
"""

from __future__ import annotations

import re

__all__ = ["SHORT_DIGITS", "looks_short", "prefix_range", "short_id"]

#: Hex digits a short id keeps.
SHORT_DIGITS = 8
_ID = re.compile(r"^([a-z]+)-([0-9a-f]+)$")


def short_id(memory_id: str) -> str:
    """The short form of ``memory_id`` (an id of another shape is left as it is)."""
    found = _ID.match(memory_id)
    if found is None or len(found.group(2)) <= SHORT_DIGITS:
        return memory_id
    return f"{found.group(1)}-{found.group(2)[:SHORT_DIGITS]}"


def looks_short(memory_id: str) -> bool:
    """Whether ``memory_id`` may be a prefix of a full id: a kind's prefix and at
    least four, fewer than 32, hex digits."""
    found = _ID.match(memory_id)
    return found is not None and 4 <= len(found.group(2)) < 32


def prefix_range(prefix: str) -> tuple[str, str]:
    """The ids that start with ``prefix`` are those at or after the first and before the
    second (ids are ASCII below DEL)."""
    return prefix, prefix + "\x7f"
