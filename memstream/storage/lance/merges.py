"""The one way memstream starts a LanceDB merge on a key column: one that a concurrent
insert of the same new key conflicts with.

LanceDB refuses (and retries) the second of two concurrent merges that insert the same
new key only when the key column is marked as the primary key *and* the merge records
the keys it inserted in its transaction. It records them when it joins by scanning the
key column, not when it joins through a scalar index on the key: there, two writers
inserting one new key both commit, and the table holds the key twice (measured on
lancedb 0.40: three processes merging 800 overlapping new keys into a table with a
BTree on its key left 921 rows for 801 keys; without the index, or with
`.use_index(False)``, 801; lance-format/lance#9238 describes the gap). A keyed merge
without a partition's fence row therefore scans the key column: about 165 ms per
million rows. The projector's writes name their partitions and go through the key's
index, updating the partitions' fence rows instead (:mod:`.fence_rows`); this merge is
for the rest (claims, leases, the fence rows' own creation, a replay's catch-up).

Rows that share a key within one insert keep the first (:func:`first_of_each_key`), within
one upsert the last (:func:`last_of_each_key`): a merge given two rows of one key fails
when it scans the keys, and inserts both when it joins through their index.
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa

__all__ = ["first_of_each_key", "keyed_merge", "last_of_each_key"]


def keyed_merge(table: Any, key: str) -> Any:
    """A merge-insert builder on ``key`` for ``table`` whose inserts conflict with any
    concurrent insert of the same key (the caller adds its when-clauses)."""
    return table.merge_insert(key).use_index(False)


def first_of_each_key(table: pa.Table, key: str) -> pa.Table:
    """``table`` without the rows whose key an earlier row already has."""
    return _one_of_each_key(table, key, last=False)


def last_of_each_key(table: pa.Table, key: str) -> pa.Table:
    """``table`` without the rows whose key a later row has too (the last one replaces
    them, as a later write would)."""
    return _one_of_each_key(table, key, last=True)


def _one_of_each_key(table: pa.Table, key: str, *, last: bool) -> pa.Table:
    numbered = list(enumerate(table.column(key).to_pylist()))
    kept = {k: i for i, k in (numbered if last else reversed(numbered))}
    if len(kept) == len(numbered):
        return table
    return table.take(pa.array(sorted(kept.values()), type=pa.int64()))
