"""What operations answer: plain frozen values a front door renders as it likes."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from projections.events import Event

__all__ = ["Accepted", "ArchiveReport", "ContextBlock", "Expanded", "JobReport"]


@dataclass(frozen=True)
class Accepted:
    """Events the log took, and the memory they name (for the memory commands)."""

    event_ids: list[str]
    memory_id: str | None = None


@dataclass(frozen=True)
class Expanded:
    """An archived memory's original, and whether reading it started a restore."""

    memory_id: str
    original: dict[str, Any]
    restoring: bool


@dataclass(frozen=True)
class JobReport:
    """What a lifecycle job decided, what it could not do, and whether it published."""

    events: list[Event]
    failed: dict[str, str] = field(default_factory=dict)
    published: bool = False


@dataclass(frozen=True)
class ArchiveReport:
    """What the archive job moved to cold storage, and how many cold files it merged."""

    events: list[Event]
    merged_files: int


@dataclass(frozen=True)
class ContextBlock:
    """A context block for an agent (None when nothing relevant was found), its sections,
    its size against its budget, and how the query was judged."""

    context: str | None
    sections: list[dict[str, Any]]
    tokens: int
    budget_tokens: int
    complexity: str
    took_ms: float
