"""Merging values that only move one way (pure): the least and the greatest of two,
where None means "not known yet". Rows merged with these give the same result in
any order and however often an event is applied."""

from __future__ import annotations

from typing import Any

__all__ = ["greatest", "least"]


def least(a: Any, b: Any) -> Any:
    """The smaller of two values, ignoring None."""
    if a is None:
        return b
    if b is None:
        return a
    return min(a, b)


def greatest(a: Any, b: Any) -> Any:
    """The greater of two values, ignoring None."""
    if a is None:
        return b
    if b is None:
        return a
    return max(a, b)
