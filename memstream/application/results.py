"""What operations answer: plain frozen values a front door renders as it likes."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any

from memstream.events.vocabulary import Event
from memstream.queries.as_of import AsOf
from memstream.queries.freshness import Freshness
from memstream.streams.publisher import Published

__all__ = [
    "Accepted",
    "ArchiveReport",
    "ContextBlock",
    "Erased",
    "Expanded",
    "JobReport",
    "erasure_document",
]


@dataclass(frozen=True)
class Accepted:
    """Events the log took, the memory they name (for the memory commands), and the
    write token saying where they were put (see :mod:`memstream.storage.write_tokens`;
    None when nothing was published)."""

    event_ids: list[str]
    memory_id: str | None = None
    token: str | None = None

    @classmethod
    def of(cls, published: Published, memory_id: str | None = None) -> Accepted:
        token = published.token.text() if published.token is not None else None
        return cls(published.event_ids, memory_id, token)


@dataclass(frozen=True)
class Erased:
    """A user's erasure: the keys destroyed, and whether every projection and the cold
    store have dropped the user yet (``complete``)."""

    user_id: str
    key_ids: tuple[str, ...]
    requested_at: datetime
    complete: bool
    took_seconds: float
    #: whether memstream held anything of the user when asked (data keys, memories or
    #: documents): an erasure of a user it never heard of says so
    held: bool = True
    #: the signed receipt of a complete erasure (see
    #: :mod:`memstream.application.erasure_receipts`); None until it is complete
    receipt: dict[str, Any] | None = None


def erasure_document(erased: Erased) -> dict[str, Any]:
    """An erasure as the front doors answer it (no key material, ids only)."""
    return {
        "user_id": erased.user_id,
        "held": erased.held,
        "complete": erased.complete,
        "keys_destroyed": list(erased.key_ids),
        "requested_at": erased.requested_at.isoformat(),
        "took_seconds": round(erased.took_seconds, 3),
        "receipt": erased.receipt,
    }


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
    #: the candidates left out of the block, and why (each with its memory id, section
    #: and reason: under the relevance floor, said above, no room, trimmed)
    left_out: list[dict[str, str]] = field(default_factory=list)
    #: how fresh the block is (see :class:`~memstream.queries.freshness.Freshness`)
    freshness: Freshness | None = None
    #: with ``as_of``: the moment the block reflects (see :mod:`memstream.queries.as_of`)
    as_of: AsOf | None = None

    def document(self) -> dict[str, Any]:
        """The block as JSON values (what the API and MCP answer)."""
        found = asdict(self)
        found["freshness"] = self.freshness.model_dump() if self.freshness else None
        found["as_of"] = self.as_of.model_dump(mode="json") if self.as_of else None
        return found
