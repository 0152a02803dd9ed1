"""How a memory an agent framework stored as a JSON document reads to an agent (pure).

The LangGraph store (:mod:`memstream.integrations.langgraph`) keeps each item as the
JSON of ``{"key", "namespace", "value"}``: what the store reads the item back from, and
what search reads. A context block shows it as its key and what its value says
(``bike: where: in the garage on Rua Nova``), not as JSON: the quotes, braces and the
namespace are no part of what the agent should know. Any other content is shown as it
is.
"""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["readable"]

#: The keys of a LangGraph item's document, exactly.
_ITEM_KEYS = frozenset({"key", "namespace", "value"})
#: A value's field whose name says nothing beyond "the text" ({"text": "..."}).
_PLAIN_FIELDS = frozenset(
    {"text", "content", "memory", "data", "value", "note", "fact", "summary", "body"}
)
#: A key that is an identifier (a UUID, a digest, a number), not a word worth showing.
_IDENTIFIER = re.compile(r"^[0-9a-fA-F-]{8,}$|^[\d_.:-]+$")


def readable(content: str) -> str:
    """``content`` as an agent should read it: a LangGraph item's key and value as
    text, anything else unchanged."""
    if not content.startswith("{"):
        return content
    try:
        document = json.loads(content)
        if not isinstance(document, dict) or set(document) != _ITEM_KEYS:
            return content
        key, value = document["key"], document["value"]
        if not isinstance(key, str) or not isinstance(value, dict):
            return content
        said = _text(value)
    except (ValueError, RecursionError):  # not JSON, or nested past what is read
        return content
    if not said:
        return key
    return said if _IDENTIFIER.match(key) else f"{key}: {said}"


def _text(value: Any) -> str:
    """What a JSON value says, as text: strings as they are, lists joined by commas,
    objects as ``field: value`` pairs (a lone plain field as its value)."""
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, list):
        return ", ".join(part for part in (_text(v) for v in value) if part)
    if isinstance(value, dict):
        if len(value) == 1 and next(iter(value)).lower() in _PLAIN_FIELDS:
            return _text(next(iter(value.values())))
        pairs = ((str(field), _text(v)) for field, v in value.items())
        return "; ".join(f"{field}: {said}" for field, said in pairs if said)
    return "" if value is None else json.dumps(value)
