"""How fresh an answer is (:class:`Freshness`): the position of the user's partitions
of the log its reads reflect, the records there not applied yet, and the user's
memories still waiting for their vector; and the pure function that computes it from
the worker's checkpoints and the log's ends."""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import BaseModel, ConfigDict, Field

from memstream.storage.log_records import Checkpoints
from memstream.storage.write_tokens import token_of_checkpoints

__all__ = ["Freshness", "freshness_of", "records_behind"]


class Freshness(BaseModel):
    """How fresh an answer is, for its user."""

    model_config = ConfigDict(frozen=True)

    #: a write token of the positions of the user's partitions the answer reflects at
    #: least: a read given it as ``after_write`` sees at least as much (None: nothing
    #: of the user's partitions is applied yet)
    position: str | None
    #: records of the user's partitions of the log (theirs and their partition
    #: neighbours') accepted and not applied yet (None: the log's end is not known)
    pending_writes: int | None = Field(default=None, ge=0)
    #: the user's memories that have no vector yet: a search finds them by their words
    #: only (None: this deployment makes no vectors)
    pending_vectors: int | None = Field(default=None, ge=0)


def records_behind(
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


def freshness_of(
    partition: int,
    checkpoints: Checkpoints | None,
    end_offsets: Mapping[tuple[str, int], int] | None,
    log_epoch: str | None,
    pending_vectors: int | None,
    *,
    applied: Checkpoints | None = None,
) -> Freshness:
    """The freshness of a read of a user whose records are in ``partition`` of every
    topic, that reflects ``checkpoints`` (None: nothing known); ``end_offsets`` (of any
    partitions, None if not known) are the log's ends, whose epoch is ``log_epoch``, and
    the pending writes are counted from ``applied`` (the worker's newest checkpoints;
    by default ``checkpoints``)."""
    mine = {key: at for key, at in (checkpoints or {}).items() if key[1] == partition}
    position = token_of_checkpoints(mine)
    done = mine if applied is None else {k: v for k, v in applied.items() if k[1] == partition}
    pending = None
    if end_offsets is not None:
        ends = {key: end for key, end in end_offsets.items() if key[1] == partition}
        pending = records_behind(done, ends, log_epoch)
    return Freshness(
        position=position.text() if position is not None else None,
        pending_writes=pending,
        pending_vectors=pending_vectors,
    )
