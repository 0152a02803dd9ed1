"""Counts that describe the projected state: memories by kind, dead letters, offsets, lag.

``stats`` reads the store; the log's end offsets are passed in by the caller (the
broker may be down, in which case lag is unknown and reported as None). A user's stats
say only what is that user's (the user's memories, entities and the dead letters keyed
by the user); the log's offsets and lag, and every user's dead letters, are the
deployment's and are in the stats of no user.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from memstream.policies.scope import valid_identifier
from memstream.projections.archiving import ARCHIVED
from memstream.queries.freshness import freshness_of, records_behind
from memstream.queries.hidden import hidden_memories
from memstream.storage import filters
from memstream.storage.lance.store import ProjectionStore
from memstream.storage.lance.tables import ARCHIVE_INDEX, DEAD_LETTERS, ENTITIES, MEMORIES, VECTORS
from memstream.storage.log_records import Checkpoints
from memstream.storage.write_tokens import token_of_checkpoints
from memstream.text.passages import OWN_VECTORS

__all__ = ["embedding_lag", "lag", "stats", "user_freshness"]


def lag(
    checkpoints: Checkpoints,
    end_offsets: Mapping[tuple[str, int], int],
    log_epoch: str | None,
) -> int:
    """Records in the log not yet applied: end offset minus the next offset to apply."""
    return records_behind(checkpoints, end_offsets, log_epoch)


def embedding_lag(store: ProjectionStore, user_id: str) -> int:
    """How many of the user's memories have no vector yet."""
    mine = filters.equals("user_id", valid_identifier("user_id", user_id))
    embedded = store.count(VECTORS, filters.all_of(mine, OWN_VECTORS))
    return max(0, store.count(MEMORIES, mine) - embedded)


def user_freshness(
    user_id: str,
    partition: int,
    checkpoints: Checkpoints,
    end_offsets: Mapping[tuple[str, int], int] | None,
    log_epoch: str | None,
    pending_vectors: int | None,
) -> dict[str, Any]:
    """How fresh reads of ``user_id`` (whose records are in ``partition`` of every
    topic) are (see :class:`~memstream.queries.freshness.Freshness`), with the user."""
    found = freshness_of(partition, checkpoints, end_offsets, log_epoch, pending_vectors)
    return {"user_id": user_id, **found.model_dump()}


def stats(
    store: ProjectionStore,
    user_id: str | None = None,
    *,
    end_offsets: Mapping[tuple[str, int], int] | None = None,
    log_epoch: str | None = None,
) -> dict[str, Any]:
    """The stats document (``memstream stats --json``): of one user, or (``user_id``
    None) of the deployment, with the log's offsets and lag.

    ``memories`` counts the memories reads show, by kind; ``hidden`` those they leave
    out (superseded, forgotten: a removed document's chunks and facts among them).
    ``embedding_lag`` counts the memories that have no vector yet. A user's document
    counts the user's own dead letters and, given ``end_offsets`` (those of the user's
    partition), the lag of that partition: the records the user's new memories wait
    behind.
    """
    where = filters.equals("user_id", valid_identifier("user_id", user_id)) if user_id else None
    kinds = store.scan(MEMORIES, columns=["kind"], where=where).column("kind").to_pylist()
    held = Counter(kinds)
    hidden: Counter[str] = Counter()
    for (_, kind), n in hidden_memories(store, user_id).items():
        hidden[kind] += n
    live = {kind: n - hidden[kind] for kind, n in sorted(held.items()) if n > hidden[kind]}
    counts = {
        "user_id": user_id,
        "memories": live,
        "hidden": sum(hidden.values()),
        "archived": store.count(
            ARCHIVE_INDEX, ARCHIVED if where is None else filters.all_of(where, ARCHIVED)
        ),
        "entities": store.count(ENTITIES, where),
        "embedding_lag": max(
            0, len(kinds) - store.count(VECTORS, filters.all_of(where or "", OWN_VECTORS))
        ),
    }
    checkpoints = store.load_checkpoints()
    if user_id is not None:
        keyed = filters.bytes_equal("key", user_id.encode("utf-8"))
        document = {**counts, "dead_letters": store.count(DEAD_LETTERS, keyed)}
        if end_offsets is not None:
            document["lag"] = lag(checkpoints, end_offsets, log_epoch)
        return document
    return {
        **counts,
        "dead_letters": store.count(DEAD_LETTERS),
        "lag": None if end_offsets is None else lag(checkpoints, end_offsets, log_epoch),
        "log_epoch": log_epoch,
        "position": _position(checkpoints),
        "applied_offsets": {
            f"{topic}/{partition}": {"log_epoch": at.log_epoch, "offset": at.offset}
            for (topic, partition), at in sorted(checkpoints.items())
        },
    }


def _position(checkpoints: Checkpoints) -> str | None:
    """The token of every write the projections hold (None: they hold none)."""
    token = token_of_checkpoints(checkpoints)
    return token.text() if token is not None else None
