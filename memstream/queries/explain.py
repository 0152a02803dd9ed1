"""Why a memory exists and why it stands where it does: the turns and memories it came
from, the chain of memories that replaced one another through it, what commands did to
it, the entities it links, and how its confidence got to where it is now."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from memstream.policies.decay import decayed_confidence
from memstream.projections.episodes import memory_id_for
from memstream.queries.profiles import hot_memory_document, memory_history
from memstream.storage import filters
from memstream.storage.lance.store import ProjectionStore
from memstream.storage.lance.tables import MEMORIES

__all__ = ["explanation"]

_BRIEF = ("memory_id", "kind", "content", "speaker", "session_id", "occurred_at")


def explanation(
    store: ProjectionStore,
    user_id: str,
    memory_id: str,
    now: datetime,
    decay_rates: Mapping[str, float],
) -> dict[str, Any] | None:
    """The explanation of ``memory_id`` as of ``now`` (None if the user has no such
    memory in the hot tables)."""
    memory = hot_memory_document(store, user_id, memory_id)
    if memory is None:
        return None
    chain = memory_history(store, user_id, memory_id) or [memory]
    return {
        "memory": {k: memory.get(k) for k in (*_BRIEF, "tags", "entities", "importance")},
        "derived_from": {
            "turns": _brief_rows(
                store, user_id, [memory_id_for(user_id, e) for e in memory["source_event_ids"]]
            ),
            "memories": _brief_rows(store, user_id, list(memory["source_memory_ids"] or ())),
        },
        "history": [
            {
                **{k: m.get(k) for k in ("memory_id", "kind", "content", "occurred_at")},
                "valid_until": m["valid_until"],
                "superseded_by": m["superseded_by"],
            }
            for m in chain
        ],
        "commands": {
            "confirmed": memory["protected"],
            "forgotten_at": memory["forgotten_at"],
            "forgotten_reason": memory["forgotten_reason"],
            "corrects": memory["supersedes"],
            "superseded_by": memory["superseded_by"],
        },
        "entities": memory["entities"],
        "confidence": _confidence(memory, now, decay_rates),
    }


def _brief_rows(store: ProjectionStore, user_id: str, ids: list[str]) -> list[dict[str, Any]]:
    if not ids:
        return []
    rows = store.by_ids(MEMORIES, ids, list(_BRIEF), where=filters.equals("user_id", user_id))
    order = {memory_id: i for i, memory_id in enumerate(ids)}
    return sorted(rows, key=lambda r: order[r["memory_id"]])


def _confidence(
    memory: Mapping[str, Any], now: datetime, decay_rates: Mapping[str, float]
) -> dict[str, Any]:
    """Where the confidence started, where decay and accesses put it, and why."""
    written = memory["written_confidence"]
    rate = decay_rates.get(memory["kind"])
    since = memory["last_accessed"] or memory["occurred_at"]
    days = max(0.0, (now - since).total_seconds() / 86400) if since is not None else 0.0
    if memory["protected"]:
        rule, today = "confirmed: full confidence, never decays", 1.0
    elif rate is None or written is None:
        kind = memory["kind"]
        rule, today = (
            f"{'an' if kind[:1] in 'aeiou' else 'a'} {kind} does not decay",
            memory["confidence"],
        )
    else:
        rule = (
            f"written {written:.2f} * exp(-{rate} * {days:.1f} days^0.8) + "
            f"0.05 * ln(1 + {memory['access_count']} accesses / 20)"
        )
        today = decayed_confidence(float(written), rate, days, int(memory["access_count"]))
    return {
        "written": written,
        "stored": memory["confidence"],
        "now": today,
        "rule": rule,
        "access_count": memory["access_count"],
        "last_accessed": memory["last_accessed"],
        "days_since_used": round(days, 3),
    }
