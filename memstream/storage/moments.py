"""Moments: which versions of the state tables held what a writer had applied, and when.

Every time a writer saves its checkpoints it records, per partition it moved, a moment:
the position it had applied there (a write token of every topic's offset in that
partition), the time, and the version of each state table it had committed by then.
Only the partition's owner writes that partition's users' rows, so those versions hold
exactly the user's memory as that position left it: nothing recorded later, and (other
partitions' rows aside) nothing missing.

An ``as_of`` read finds the moment it asks for (the last recorded at or before a time,
or the first that covers a write token) and reads the tables checked out at its versions
(:meth:`memstream.storage.lance.store.ProjectionStore.pinned`): memory as it stood then,
built from the versions LanceDB keeps (until upkeep removes those older than
``retain_versions_seconds``), not from a copy of the tables per moment.

This module is pure: rows in, moments out; the store reads and writes them.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from memstream.storage.log_records import Checkpoints, LogPosition
from memstream.storage.write_tokens import WriteToken, behind, parse_token

__all__ = ["Moment", "first_covering", "last_at_or_before", "moment_rows"]


@dataclass(frozen=True)
class Moment:
    """A partition's memory as a writer had applied it: where, when, in which versions."""

    partition: int
    recorded_at: datetime
    position: WriteToken
    versions: Mapping[str, int]


def moment_rows(
    consumer: str,
    applied: Checkpoints,
    partitions: Iterable[int],
    versions: Mapping[str, int],
    now: datetime,
) -> list[dict[str, Any]]:
    """The rows recording, for each of ``partitions``, what ``applied`` (every position
    the writer has applied) says was applied there, at ``now``, held by ``versions``.
    A partition with nothing applied in the newest life of the log is left out."""
    if not applied:
        return []
    newest = max(at.log_epoch for at in applied.values())
    encoded = json.dumps(dict(sorted(versions.items())), separators=(",", ":"))
    rows = []
    for partition in sorted(set(partitions)):
        here = {
            at.topic_partition: at.offset
            for at in applied.values()
            if at.partition == partition and at.log_epoch == newest
        }
        if not here:
            continue
        rows.append(
            {
                "moment_id": uuid.uuid4().hex,
                "consumer": consumer,
                "partition": partition,
                "recorded_at": now,
                "position": WriteToken(newest, here).text(),
                "versions": encoded,
            }
        )
    return rows


def _moment(row: Mapping[str, Any]) -> Moment:
    return Moment(
        partition=int(row["partition"]),
        recorded_at=row["recorded_at"],
        position=parse_token(str(row["position"])),
        versions={str(k): int(v) for k, v in json.loads(row["versions"]).items()},
    )


def last_at_or_before(moments: pa.Table, when: datetime) -> Moment | None:
    """The moment of ``moments`` (one partition's) recorded last at or before ``when``."""
    times = moments.column("recorded_at")
    earlier = moments.filter(pc.less_equal(times, pa.scalar(when, times.type)))
    if earlier.num_rows == 0:
        return None
    last = pc.index(earlier.column("recorded_at"), pc.max(earlier.column("recorded_at")))
    return _moment(earlier.slice(last.as_py(), 1).to_pylist()[0])


def first_covering(moments: pa.Table, token: WriteToken) -> Moment | None:
    """The moment of ``moments`` (one partition's) recorded first that holds every write
    ``token`` names in that partition.

    A partition's moments hold more the later they are recorded (its writer only moves
    forward), so the first that holds the token is found by halving: a few positions
    read, not every moment's."""
    ordered = moments.sort_by("recorded_at")
    low, high = 0, ordered.num_rows  # the first holding it is in [low, high]
    while low < high:
        middle = (low + high) // 2
        if _holds(_moment(ordered.slice(middle, 1).to_pylist()[0]), token):
            high = middle
        else:
            low = middle + 1
    if low == ordered.num_rows:
        return None
    found = _moment(ordered.slice(low, 1).to_pylist()[0])
    return found if _holds(found, token) else None


def _holds(moment: Moment, token: WriteToken) -> bool:
    """Whether ``moment`` holds every write ``token`` names in its partition (False when
    the token names none there)."""
    wanted = {at: offset for at, offset in token.positions.items() if at[1] == moment.partition}
    if not wanted:
        return False
    held = {
        at: LogPosition(moment.position.log_epoch, at[0], at[1], offset)
        for at, offset in moment.position.positions.items()
    }
    return not behind(WriteToken(token.log_epoch, wanted), held)
