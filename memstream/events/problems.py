"""Pydantic's validation errors in memstream's words: one line per problem, led by the
field it is about ("content: must have at least 1 character", "kinds.0: must be one of
episode, fact"). Every door says a refusal this way: the events' codec, the API, MCP,
the console and the command line. Light to import: it needs no model.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from memstream.events.identifier_rules import (
    IDENTIFIER_PATTERN,
    IDENTIFIER_RULE,
    TAG_PATTERN,
    TAG_RULE,
)

if TYPE_CHECKING:
    from pydantic import ValidationError

__all__ = ["message_of", "problems_of"]

#: A pattern that is a choice of plain words.
_CHOICES = re.compile(r"\^\(([a-z_]+(?:\|[a-z_]+)+)\)\$")
#: What a value that breaks a field's pattern is told, by pattern.
_RULES = {IDENTIFIER_PATTERN: IDENTIFIER_RULE, TAG_PATTERN: TAG_RULE}


def problems_of(error: ValidationError) -> list[str]:
    """One line per validation problem: ``field.path: message``, in memstream's words
    where pydantic's would puzzle a user ("must be one of a, b", "required")."""
    lines = []
    for item in error.errors(include_url=False):
        where = ".".join(str(part) for part in item["loc"]) or "event"
        lines.append(f"{where}: {message_of(item)}")
    return lines


def message_of(item: Any) -> str:
    """One pydantic error (an item of ``errors()``) in memstream's words."""
    kind, context = item["type"], item.get("ctx") or {}
    if kind == "extra_forbidden":
        return "unknown field"
    if kind == "missing":
        return "required"
    if kind == "string_pattern_mismatch":
        pattern = str(context.get("pattern"))
        choices = _CHOICES.fullmatch(pattern)
        if choices:  # ^(a|b|c)$: a list of words, said as one
            return f"must be one of {', '.join(choices.group(1).split('|'))}"
        return _RULES.get(pattern, "has characters or a form not allowed here")
    if kind == "literal_error":
        return f"must be one of {context.get('expected', '').replace(' or ', ', ')}"
    if kind in _BOUNDS:
        key, words = _BOUNDS[kind]
        bound = context.get(key)
        said = words.format(n=bound)
        return (
            said.removesuffix("s")
            if bound == 1 and said.endswith(("characters", "items"))
            else said
        )
    if kind in _EXPECTED:
        return _EXPECTED[kind]
    return str(item["msg"]).removeprefix("Value error, ")


#: Pydantic's bound errors: the context key of the bound, and the words for them.
_BOUNDS = {
    "greater_than_equal": ("ge", "must be at least {n}"),
    "greater_than": ("gt", "must be more than {n}"),
    "less_than_equal": ("le", "must be at most {n}"),
    "less_than": ("lt", "must be less than {n}"),
    "string_too_short": ("min_length", "must have at least {n} characters"),
    "string_too_long": ("max_length", "must have at most {n} characters"),
    "too_short": ("min_length", "must have at least {n} items"),
    "too_long": ("max_length", "must have at most {n} items"),
}
#: Pydantic's type errors, said plainly.
_EXPECTED = {
    "int_parsing": "must be a whole number",
    "int_type": "must be a whole number",
    "float_parsing": "must be a number",
    "float_type": "must be a number",
    "bool_parsing": "must be true or false",
    "bool_type": "must be true or false",
    "string_type": "must be text",
    "list_type": "must be a list",
    "dict_type": "must be an object",
    "datetime_parsing": "must be a date and time, as 2024-05-01T10:00:00Z",
    "datetime_from_date_parsing": "must be a date and time, as 2024-05-01T10:00:00Z",
    "datetime_type": "must be a date and time, as 2024-05-01T10:00:00Z",
    "timezone_aware": "must say its time zone, as 2024-05-01T10:00:00Z",
}
