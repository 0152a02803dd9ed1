"""Weekly reflections: what was learned about a user in a week.

The local reflection (pure, deterministic) lists the week's new facts, preferences and
plans (most important first) and the people, places and things mentioned most. The
model reflection asks a language model to write the same in a short paragraph. Both
keep provenance (the facts summed up and their source events) and take their id from
the user and the week, so the week has one reflection whoever wrote it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pydantic import BaseModel

from memstream.adapters.language_models import JsonModel
from memstream.events.identifier_rules import derived_memory_id
from memstream.events.vocabulary import DerivedMemory, ReflectionWritten, TokenUsage

__all__ = [
    "LOCAL_REFLECTOR",
    "LocalReflector",
    "ModelReflector",
    "ReflectionAnswer",
    "Week",
    "local_reflection",
    "reflection_event",
]

LOCAL_REFLECTOR = "local/1"
_MAX_FACTS = 8
_MAX_ENTITIES = 5


@dataclass(frozen=True)
class Week:
    """What a user's week ``[start, end)`` brought: its derived memories (rows) and how
    often each entity (by name) was mentioned in its episodes."""

    user_id: str
    start: datetime
    end: datetime
    facts: Sequence[Mapping[str, Any]]
    mentions: Mapping[str, int]

    def most_mentioned(self) -> list[tuple[str, int]]:
        return sorted(self.mentions.items(), key=lambda item: (-item[1], item[0]))[:_MAX_ENTITIES]


def local_reflection(week: Week, decided_at: datetime) -> ReflectionWritten | None:
    """The week's reflection, or None when nothing was learned."""
    facts = week.facts
    if not facts:
        return None
    ranked = sorted(
        facts,
        key=lambda f: (-(f.get("importance") or 0), f["occurred_at"], f["memory_id"]),
    )
    chosen = ranked[:_MAX_FACTS]
    subjects = sorted({f["subject"] for f in facts if f.get("subject")})
    dates = f"{week.start.date().isoformat()} to {week.end.date().isoformat()}"
    about = f" about {', '.join(subjects)}" if subjects else ""
    lines = [f"Week of {dates}: learned {len(facts)} things{about}."]
    lines.extend(f"- {f['content']}" for f in chosen)
    if len(facts) > len(chosen):
        lines.append(f"- and {len(facts) - len(chosen)} more.")
    top = week.most_mentioned()
    if top:
        lines.append("Most mentioned: " + ", ".join(f"{name} ({n})" for name, n in top) + ".")
    return reflection_event(week, "\n".join(lines), LOCAL_REFLECTOR, decided_at)


class LocalReflector:
    """The default reflection writer: :func:`local_reflection`, no model."""

    name = LOCAL_REFLECTOR

    def reflect(self, week: Week, decided_at: datetime) -> ReflectionWritten | None:
        return local_reflection(week, decided_at)


def reflection_event(
    week: Week,
    content: str,
    writer: str,
    decided_at: datetime,
    usage: TokenUsage | None = None,
) -> ReflectionWritten:
    """The ``ReflectionWritten`` event of a week's reflection text, with provenance."""
    user_id, start, end, facts = week.user_id, week.start, week.end, week.facts
    sources = sorted({e for f in facts for e in (f.get("source_event_ids") or [])})
    memory = DerivedMemory(
        memory_id=derived_memory_id("refl", user_id, start.isoformat(), end.isoformat()),
        kind="reflection",
        content=content[:4000],
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
        writer=writer,
        memory=memory,
        usage=usage,
        decided_at=decided_at,
    )


_REFLECTION_SYSTEM = """\
You maintain the long-term memory of an assistant. Given what was learned about a user \
in one week (facts, preferences, plans) and who was mentioned most, write a short \
paragraph (at most five sentences) saying what the week taught about the user and the \
people around them: names, places, dates and plans first, no speculation."""


class ReflectionAnswer(BaseModel):
    """The model's reflection for a week."""

    summary: str


class ModelReflector:
    """Writes the weekly reflection with a language model."""

    def __init__(self, model: JsonModel) -> None:
        self.model = model
        self.name = model.name

    def reflect(self, week: Week, decided_at: datetime) -> ReflectionWritten | None:
        """The week's reflection, or None when nothing was learned; raises
        :class:`~memstream.adapters.language_models.ModelError` when the model fails."""
        if not week.facts:
            return None
        dates = f"{week.start.date().isoformat()} to {week.end.date().isoformat()}"
        lines = [f"Week {dates}. Learned:"]
        lines += [f"- {f['content']}" for f in sorted(week.facts, key=lambda f: f["occurred_at"])]
        top = week.most_mentioned()
        if top:
            lines.append("Most mentioned: " + ", ".join(f"{n} ({c})" for n, c in top))
        answer, usage = self.model.ask(_REFLECTION_SYSTEM, "\n".join(lines), ReflectionAnswer)
        summary = answer.summary.strip()
        if not summary:
            return None
        return reflection_event(week, summary, self.name, decided_at, usage)
