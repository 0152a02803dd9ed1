"""What happened to a memory after it was written, as mergeable rows (pure).

``memories`` rows are never rewritten. Supersession, forgetting, pruning, confirmation
and decay are kept in ``memory_state`` rows, one per memory something happened to. Each
column pair merges by a fixed rule, so the row is a join of everything the log said,
in whatever order it said it:

- superseded: the earliest ``(valid_until, superseded_by)``;
- forgotten or pruned: the earliest ``(forgotten_at, forgotten_reason)``;
- confirmed (protected from decay): the earliest ``protected_at``;
- decayed: the newest ``(confidence_as_of, confidence)``;
- linked: the union of the earlier memories it refers back to, each once (the
  strongest link to it, ties broken by relation), in ``linked_id`` order.

Supersession of facts with a slot (one subject, one attribute, one value at a time) is
worked out from the set of the slot's facts, not from arrival order: sorted by
``(occurred_at, memory_id)``, each fact is superseded by the next. A fact about an
earlier time that arrives late takes its place in the chain instead of overriding the
newer one.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

__all__ = [
    "StateChange",
    "effective_confidence",
    "is_hidden",
    "links_of",
    "merge_state_rows",
    "merge_states",
    "slot_links",
    "state_id",
]

Row = dict[str, Any]


def state_id(user_id: str, memory_id: str) -> str:
    """The key of a state row: the memory as seen by its owner."""
    return f"{user_id}|{memory_id}"


@dataclass(frozen=True, slots=True)
class StateChange:
    """A partial ``memory_state`` row: what one event says about one memory."""

    memory_id: str
    user_id: str
    valid_until: datetime | None = None
    superseded_by: str | None = None
    forgotten_at: datetime | None = None
    forgotten_reason: str | None = None
    protected_at: datetime | None = None
    confidence: float | None = None
    confidence_as_of: datetime | None = None
    #: (earlier memory id, relation, strength) of each earlier memory it refers back to
    links: tuple[tuple[str, str, float], ...] = ()

    def row(self) -> Row:
        return {
            "state_id": state_id(self.user_id, self.memory_id),
            "memory_id": self.memory_id,
            "user_id": self.user_id,
            "valid_until": self.valid_until,
            "superseded_by": self.superseded_by,
            "forgotten_at": self.forgotten_at,
            "forgotten_reason": self.forgotten_reason,
            "protected_at": self.protected_at,
            "confidence": self.confidence,
            "confidence_as_of": self.confidence_as_of,
            "links": _link_list(self.links),
        }


def _link_list(links: Iterable[tuple[str, str, float]]) -> list[Row] | None:
    """Links as the ``links`` column holds them: one per earlier memory, the strongest
    (then the greatest relation), sorted by id; None when there is none."""
    best: dict[str, tuple[float, str]] = {}
    for linked_id, relation, strength in links:
        held = best.get(linked_id)
        if held is None or (strength, relation) > held:
            best[linked_id] = (strength, relation)
    if not best:
        return None
    return [
        {"linked_id": m, "relation": relation, "strength": strength}
        for m, (strength, relation) in sorted(best.items())
    ]


def links_of(state: Mapping[str, Any] | None) -> list[tuple[str, str, float]]:
    """(earlier memory id, relation, strength) of each memory a state row links to."""
    if state is None:
        return []
    return [(x["linked_id"], x["relation"], x["strength"]) for x in state.get("links") or ()]


def _earliest(a: tuple[Any, Any], b: tuple[Any, Any]) -> tuple[Any, Any]:
    if a[0] is None:
        return b
    if b[0] is None:
        return a
    return min(a, b, key=lambda pair: (pair[0], pair[1] or ""))


def _newest(a: tuple[Any, Any], b: tuple[Any, Any]) -> tuple[Any, Any]:
    if a[0] is None:
        return b
    if b[0] is None:
        return a
    return max(a, b, key=lambda pair: (pair[0], pair[1] if pair[1] is not None else -1.0))


def merge_state_rows(a: Mapping[str, Any], b: Mapping[str, Any]) -> Row:
    """The join of two state rows of one memory (commutative, associative, idempotent)."""
    superseded = _earliest(
        (a["valid_until"], a["superseded_by"]), (b["valid_until"], b["superseded_by"])
    )
    forgotten = _earliest(
        (a["forgotten_at"], a["forgotten_reason"]), (b["forgotten_at"], b["forgotten_reason"])
    )
    protected = _earliest((a["protected_at"], None), (b["protected_at"], None))[0]
    decayed = _newest(
        (a["confidence_as_of"], a["confidence"]), (b["confidence_as_of"], b["confidence"])
    )
    return {
        "state_id": a["state_id"],
        "memory_id": a["memory_id"],
        "user_id": a["user_id"],
        "valid_until": superseded[0],
        "superseded_by": superseded[1],
        "forgotten_at": forgotten[0],
        "forgotten_reason": forgotten[1],
        "protected_at": protected,
        "confidence": decayed[1],
        "confidence_as_of": decayed[0],
        "links": _link_list([*links_of(a), *links_of(b)]),
    }


def merge_states(
    existing: Mapping[str, Mapping[str, Any]], changes: Iterable[StateChange]
) -> dict[str, Row]:
    """The state rows ``changes`` alter, merged into the ``existing`` rows (by state id)."""
    changed: dict[str, Row] = {}
    for change in changes:
        row = change.row()
        key = row["state_id"]
        base = changed.get(key) or existing.get(key)
        changed[key] = row if base is None else merge_state_rows(base, row)
    return changed


def slot_links(user_id: str, members: Iterable[Mapping[str, Any]]) -> list[StateChange]:
    """Supersessions within each slot: every fact is superseded by the next one in
    ``(occurred_at, memory_id)`` order, from the time that one occurred."""
    by_slot: dict[str, list[Mapping[str, Any]]] = {}
    for m in members:
        if m.get("slot"):
            by_slot.setdefault(m["slot"], []).append(m)
    changes: list[StateChange] = []
    for facts in by_slot.values():
        facts.sort(key=lambda m: (m["occurred_at"], m["memory_id"]))
        for older, newer in itertools.pairwise(facts):
            changes.append(
                StateChange(
                    older["memory_id"],
                    user_id,
                    valid_until=newer["occurred_at"],
                    superseded_by=newer["memory_id"],
                )
            )
    return changes


def is_hidden(state: Mapping[str, Any] | None) -> bool:
    """True when search leaves the memory out: superseded, forgotten or pruned."""
    if state is None:
        return False
    return state["superseded_by"] is not None or state["forgotten_at"] is not None


def effective_confidence(base: float | None, state: Mapping[str, Any] | None) -> float:
    """The confidence ranking uses: 1 when confirmed, else the newest decayed value,
    else the confidence the memory was written with."""
    if state is not None:
        if state["protected_at"] is not None:
            return 1.0
        if state["confidence"] is not None:
            return float(state["confidence"])
    return 1.0 if base is None else float(base)
