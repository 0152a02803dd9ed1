"""Merging values that only move one way (pure): the least and the greatest of two,
where None means "not known yet". Rows merged with these give the same result in
any order and however often an event is applied."""

from __future__ import annotations

from typing import Any

__all__ = ["greatest", "least"]


def least(a: Any, b: Any) -> Any:
    """The smaller of two values, ignoring None."""
    return b if a is None else a if b is None else min(a, b)


def greatest(a: Any, b: Any) -> Any:
    """The greater of two values, ignoring None."""
    return b if a is None else a if b is None else max(a, b)
