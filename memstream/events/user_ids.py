"""What a user id says of itself: its tenant (the part before its first ``:``, as in
``acme:bob``; an id without one belongs to no tenant), which known ids are most like
one that is not known (a typo, another case: ``Ana`` for ``ana``), and which user the
bytes of an event that did not validate name."""

from __future__ import annotations

import difflib

from memstream.events.identifier_rules import is_identifier
from memstream.events.json_text import JsonProblem, parse_json

__all__ = ["claimed_user", "closest_users", "tenant_of"]

#: How many ids a suggestion names at most, and how alike they must be (difflib's ratio).
_SUGGESTED, _ALIKE = 3, 0.6


def tenant_of(user_id: str) -> str | None:
    """The tenant of ``user_id``: the part before its first ``:``, if any."""
    return user_id.split(":", 1)[0] if ":" in user_id else None


def closest_users(user_id: str, known: list[str]) -> list[str]:
    """The known ids most like ``user_id``, of its tenant, best first: the same id in
    another case, then those difflib finds alike."""
    tenant = tenant_of(user_id)
    mates = [k for k in known if k != user_id and (tenant is None or tenant_of(k) == tenant)]
    folded = [k for k in mates if k.casefold() == user_id.casefold()]
    alike = difflib.get_close_matches(user_id.casefold(), [k.casefold() for k in mates],
                                      n=_SUGGESTED, cutoff=_ALIKE)  # fmt: skip
    by_fold = {k.casefold(): k for k in mates}
    return list(dict.fromkeys([*folded, *(by_fold[a] for a in alike)]))[:_SUGGESTED]


def claimed_user(raw: bytes) -> str | None:
    """The user an event's bytes name (its ``user_id``, when the bytes are a JSON object
    and it is a well-formed id), even if the event is invalid otherwise: where a rejected
    line is counted, keyed and erased. None when they name none."""
    try:
        document = parse_json(raw)
    except JsonProblem:
        return None
    if not isinstance(document, dict):
        return None
    user = document.get("user_id")
    return user if is_identifier(user) else None
