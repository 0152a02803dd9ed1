"""The served projection: one row per answer memstream gave a caller (pure).

``served_records`` turns ``ContextServed`` events into ``served`` rows, keyed by the
event's id (a batch applied twice inserts each once), leaving out those older than
the log of what was served keeps (``retain``): a replay of an old log rebuilds only
what is still kept. The rows hold ids and shapes, never the memories' text.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import Any

from memstream.events.vocabulary import ContextServed

__all__ = ["served_records"]


def served_records(
    events: Iterable[ContextServed], now: datetime, retain: timedelta
) -> list[dict[str, Any]]:
    """The ``served`` rows of ``events`` served within ``retain`` of ``now``."""
    rows: list[dict[str, Any]] = []
    for event in events:
        if event.served_at < now - retain:
            continue
        lines = [line.model_dump(mode="json", exclude_defaults=True) for line in event.lines]
        rows.append(
            {
                "served_id": event.event_id,
                "user_id": event.user_id,
                "served_at": event.served_at,
                "answer": event.answer,
                "door": event.door,
                "key_id": event.key_id,
                "tenant": event.tenant,
                "agent": event.agent,
                "session_id": event.session_id,
                "project_id": event.project_id,
                "question": event.question,
                "as_of": event.as_of,
                "asked_as_of": event.asked_as_of,
                "budget_tokens": event.budget_tokens,
                "memory_ids": list(
                    dict.fromkeys(i for line in event.lines for i in (line.memory_id, *line.facts))
                ),
                "lines": json.dumps(lines, separators=(",", ":"), ensure_ascii=False),
                "digest": event.digest,
            }
        )
    return rows
