"""The local weekly reflection: what was learned about a user in a week (pure).

It lists the week's new facts, preferences and plans (most important first) and the
people, places and things mentioned most, in a few sentences, and keeps provenance:
the facts it sums up and their source events. Deterministic: the same week gives the
same reflection, with an id derived from the user and the week.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from projections.derived import derived_memory_id
from projections.events import DerivedMemory, ReflectionWritten

__all__ = ["LOCAL_REFLECTOR", "local_reflection"]

LOCAL_REFLECTOR = "local/1"
_MAX_FACTS = 8
_MAX_ENTITIES = 5


def local_reflection(
    user_id: str,
    start: datetime,
    end: datetime,
    facts: Sequence[Mapping[str, Any]],
    mentions: Mapping[str, int],
    decided_at: datetime,
) -> ReflectionWritten | None:
    """The reflection for ``[start, end)``, or None when nothing was learned.

    ``facts`` are the week's derived memories (rows); ``mentions`` counts how often each
    entity (by name) was mentioned in the week's episodes.
    """
    if not facts:
        return None
    ranked = sorted(
        facts,
        key=lambda f: (-(f.get("importance") or 0), f["occurred_at"], f["memory_id"]),
    )
    chosen = ranked[:_MAX_FACTS]
    subjects = sorted({f["subject"] for f in facts if f.get("subject")})
    week = f"{start.date().isoformat()} to {end.date().isoformat()}"
    about = f" about {', '.join(subjects)}" if subjects else ""
    lines = [f"Week of {week}: learned {len(facts)} things{about}."]
    lines.extend(f"- {f['content']}" for f in chosen)
    if len(facts) > len(chosen):
        lines.append(f"- and {len(facts) - len(chosen)} more.")
    top = sorted(mentions.items(), key=lambda item: (-item[1], item[0]))[:_MAX_ENTITIES]
    if top:
        lines.append("Most mentioned: " + ", ".join(f"{name} ({n})" for name, n in top) + ".")
    sources = sorted({e for f in facts for e in (f.get("source_event_ids") or [])})
    memory = DerivedMemory(
        memory_id=derived_memory_id("refl", user_id, start.isoformat(), end.isoformat()),
        kind="reflection",
        content="\n".join(lines),
        confidence=0.9,
        importance=0.6,
        tags=["reflection"],
        source_event_ids=sources[:1000],
        source_memory_ids=sorted(f["memory_id"] for f in facts)[:1000],
        occurred_at=end,
    )
    return ReflectionWritten(
        event_id=f"reflection|{user_id}|{start.isoformat()}",
        user_id=user_id,
        period_start=start,
        period_end=end,
        writer=LOCAL_REFLECTOR,
        memory=memory,
        decided_at=decided_at,
    )
