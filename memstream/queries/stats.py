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
from memstream.storage import filters
from memstream.storage.lance.store import ProjectionStore
from memstream.storage.lance.tables import ARCHIVE_INDEX, DEAD_LETTERS, ENTITIES, MEMORIES, VECTORS
from memstream.storage.log_records import Checkpoints
from memstream.text.passages import OWN_VECTORS

__all__ = ["lag", "stats"]


def lag(
    checkpoints: Checkpoints,
    end_offsets: Mapping[tuple[str, int], int],
    log_epoch: str | None,
) -> int:
    """Records in the log not yet applied: end offset minus the next offset to apply."""
    pending = 0
    for key, end in end_offsets.items():
        stored = checkpoints.get(key)
        current = stored is not None and stored.log_epoch == log_epoch
        applied_next = stored.offset + 1 if stored is not None and current else 0
        pending += max(0, end - applied_next)
    return pending


def stats(
    store: ProjectionStore,
    user_id: str | None = None,
    *,
    end_offsets: Mapping[tuple[str, int], int] | None = None,
    log_epoch: str | None = None,
) -> dict[str, Any]:
    """The stats document (``memstream stats --json``): of one user, or (``user_id``
    None) of the deployment, with the log's offsets and lag.

    ``embedding_lag`` counts the memories that have no vector yet. A user's document
    counts the user's own dead letters and, given ``end_offsets`` (those of the user's
    partition), the lag of that partition: the records the user's new memories wait
    behind.
    """
    where = filters.equals("user_id", valid_identifier("user_id", user_id)) if user_id else None
    kinds = store.scan(MEMORIES, columns=["kind"], where=where).column("kind").to_pylist()
    counts = {
        "user_id": user_id,
        "memories": dict(sorted(Counter(kinds).items())),
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
        "applied_offsets": {
            f"{topic}/{partition}": {"log_epoch": at.log_epoch, "offset": at.offset}
            for (topic, partition), at in sorted(checkpoints.items())
        },
    }
