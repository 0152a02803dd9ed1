"""Compacting an insert-only table while fenced writers go on inserting into it.

A keyed insert updates its partition's fence row in the same commit
(:mod:`memstream.storage.lance.fence_rows`), and an update deletes the row it replaces.
LanceDB refuses a compaction whose rewritten fragments a concurrent commit deleted rows
from ("Rewrite ... preempted by concurrent transaction Update"), so a compaction of the
whole table beside such writers almost never commits (11 of 12 failed beside two fenced
writers, measured). Here the fragments that hold a live fence row at the version the
compaction plans on are left out of it (Lance's ``excluded_fragment_ids``: they stay as
they are and bound the runs compacted around them). A writer's next update deletes its
fence row from the fragment that held it at its own read version, which is that
fragment unless a commit of the same partition came between, and then LanceDB refuses
the writer's commit anyway (the fence row's conflict is what fences are for). So what a
writer deletes is never among what the compaction rewrites, and neither has to wait
for the other: no window in which writers give up their fence rows, and no merge that
scans every key meanwhile. The fragments left out are at most one per partition and
are compacted once their fence row has moved on.

Index upkeep (new rows added to the full-text, key and vector indexes) and pruning old
versions follow, each on the newest version: neither conflicts with an insert, fenced
or not. The table's key is never read: the fence rows are found through the
``user_id`` index (a fence row's user is the empty id).

LanceDB's Python ``Table.optimize`` does compaction, pruning and index upkeep in one
call with no say over which fragments are rewritten; these steps are Lance's own
(``pylance``, the same Lance release the installed LanceDB embeds).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from memstream.storage.lance.fence_rows import IS_FENCE_ROW

__all__ = ["Compacted", "compact_around_fences", "fence_fragments"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Compacted:
    """What one compaction of a table did."""

    #: fragments that held a live fence row, left as they were
    left_out: tuple[int, ...]
    fragments_removed: int
    fragments_added: int


def fence_fragments(dataset: Any) -> list[int]:
    """The ids of the fragments of ``dataset`` (a Lance dataset at one version of a
    fenced table) that hold a live fence row."""
    found = dataset.to_table(columns=["user_id"], filter=IS_FENCE_ROW, with_row_address=True)
    return sorted({int(address) >> 32 for address in found.column("_rowaddr").to_pylist()})


def compact_around_fences(table: Any, retain: timedelta, fenced: bool) -> Compacted | None:
    """Compact ``table`` (a LanceDB table, insert-only; ``fenced``: one with fence rows)
    leaving out the fragments that hold a live fence row, then bring its indexes up to
    date and drop the versions older than ``retain``; None for an empty table. Raises
    LanceDB's commit conflict if a commit it did not foresee (an erasure's or an
    archive's delete) preempted the compaction: nothing changed then."""
    table.checkout_latest()
    dataset = table.to_lance()
    if dataset.count_rows() == 0:
        return None
    left_out = fence_fragments(dataset) if fenced else []
    # planned and read at the one version whose fence rows were just found
    metrics = dataset.optimize.compact_files(excluded_fragment_ids=left_out)
    table.checkout_latest()
    newest = table.to_lance()
    newest.optimize.optimize_indices()
    newest.cleanup_old_versions(older_than=retain)
    table.checkout_latest()
    log.debug(
        "compacted %s around %d fence fragments: %d fragments into %d",
        table.name, len(left_out), metrics.fragments_removed, metrics.fragments_added,
    )  # fmt: skip
    return Compacted(tuple(left_out), int(metrics.fragments_removed), int(metrics.fragments_added))
