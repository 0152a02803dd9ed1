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


def last_at_or_before(rows: Iterable[Mapping[str, Any]], when: datetime) -> Moment | None:
    """The moment of ``rows`` (one partition's) recorded last at or before ``when``."""
    best = None
    for row in rows:
        if row["recorded_at"] <= when and (
            best is None or row["recorded_at"] > best["recorded_at"]
        ):
            best = row
    return None if best is None else _moment(best)


def first_covering(rows: Iterable[Mapping[str, Any]], token: WriteToken) -> Moment | None:
    """The moment of ``rows`` (one partition's) recorded first that holds every write
    ``token`` names in that partition."""
    found = None
    for row in sorted(rows, key=lambda r: r["recorded_at"]):
        moment = _moment(row)
        wanted = {at: offset for at, offset in token.positions.items() if at[1] == moment.partition}
        if not wanted:
            continue
        held = {
            at: LogPosition(moment.position.log_epoch, at[0], at[1], offset)
            for at, offset in moment.position.positions.items()
        }
        if not behind(WriteToken(token.log_epoch, wanted), held):
            found = moment
            break
    return found
