"""Building LanceDB filter expressions from values, never from request text.

Every value is rendered as a quoted SQL literal (single quotes doubled, control
characters refused), and column names must be plain identifiers known to the caller.
Query code composes these helpers; no other module writes filter strings by hand.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import UTC, datetime

__all__ = [
    "after",
    "all_of",
    "any_of",
    "at_least",
    "at_most",
    "before",
    "bytes_equal",
    "column_greater",
    "contains",
    "equals",
    "has_any",
    "is_in",
    "is_not_null",
    "is_null",
    "lacks",
    "literal",
    "starts_with",
]

_COLUMN = re.compile(r"^[a-z_][a-z0-9_]*$")


def _column(name: str) -> str:
    if not _COLUMN.match(name):
        raise ValueError(f"not a column name: {name!r}")
    return name


def literal(value: str | int | float | datetime) -> str:
    """Render a value as a SQL literal that cannot end the string it sits in."""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, datetime):
        if value.tzinfo is None:
            raise ValueError("datetimes in filters must be timezone-aware")
        return f"timestamp '{value.astimezone(UTC).strftime('%Y-%m-%d %H:%M:%S.%f')}'"
    if any(ord(ch) < 32 for ch in value):
        raise ValueError("filter values cannot contain control characters")
    return "'" + value.replace("'", "''") + "'"


def equals(column: str, value: str | int | float) -> str:
    return f"{_column(column)} = {literal(value)}"


def bytes_equal(column: str, value: bytes) -> str:
    """``column`` (binary) holds exactly ``value``, written as a hex literal."""
    return f"{_column(column)} = X'{value.hex()}'"


def is_in(column: str, values: Iterable[str]) -> str:
    rendered = [literal(v) for v in values]
    if not rendered:
        return "FALSE"
    return f"{_column(column)} IN ({', '.join(rendered)})"


def has_any(column: str, values: Iterable[str]) -> str:
    """A list column holding at least one of ``values`` (served by a label-list index)."""
    rendered = [literal(v) for v in values]
    if not rendered:
        return "FALSE"
    return f"array_has_any({_column(column)}, [{', '.join(rendered)}])"


def at_least(column: str, value: datetime) -> str:
    return f"{_column(column)} >= {literal(value)}"


def before(column: str, value: datetime) -> str:
    return f"{_column(column)} < {literal(value)}"


def at_most(column: str, value: datetime) -> str:
    return f"{_column(column)} <= {literal(value)}"


def after(column: str, value: datetime) -> str:
    return f"{_column(column)} > {literal(value)}"


def column_greater(left: str, right: str) -> str:
    """``left > right`` for two columns of the same row."""
    return f"{_column(left)} > {_column(right)}"


def contains(column: str, text: str) -> str:
    """``column`` (a string) contains ``text`` (which holds no ``%`` or ``_``)."""
    if "%" in text or "_" in text:
        raise ValueError("contains() takes text without LIKE wildcards")
    return f"{_column(column)} LIKE {literal('%' + text + '%')}"


def starts_with(column: str, text: str) -> str:
    """``column`` (a string) starts with ``text`` (which holds no ``%`` or ``_``)."""
    if "%" in text or "_" in text:
        raise ValueError("starts_with() takes text without LIKE wildcards")
    return f"{_column(column)} LIKE {literal(text + '%')}"


def lacks(column: str, text: str) -> str:
    """``column`` (a string) does not contain ``text``."""
    return f"NOT ({contains(column, text)})"


def is_null(column: str) -> str:
    return f"{_column(column)} IS NULL"


def is_not_null(column: str) -> str:
    return f"{_column(column)} IS NOT NULL"


def all_of(*parts: str) -> str:
    return " AND ".join(f"({p})" for p in parts if p)


def any_of(*parts: str) -> str:
    return "(" + " OR ".join(f"({p})" for p in parts if p) + ")"
