"""Finding keys held twice among the rows written since the last look, at a cost that
grows with those rows, not with the table.

Every append or merge of a LanceDB table adds whole fragments, numbered in commit
order, and a row's address is its fragment's number times 2^32 plus its place there
(``_rowaddr``). A look starts from the address the last one ended at (``since``): a
filter on ``_rowaddr`` reads only the fragments added since, whatever the table holds
(10,000 new rows of a 2,000,000-row table: 17 ms, against 625 ms for every key). Each of
their keys is then counted over the whole table through the key's BTree where there is
one (a scan of the key column where not). Compaction rewrites rows into new fragments,
so what a compaction merged is looked at once more; what it left alone is not.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pyarrow.compute as pc

from memstream.storage import filters

__all__ = ["READ_ALL_BELOW", "NewKeys", "address_after", "end_address", "new_keys_held_twice"]

#: How many keys one counting query names.
_CHUNK = 500
#: A row address's fragment number is its high 32 bits.
_FRAGMENT_BITS = 32
#: From this many rows, :func:`end_address` asks for the last fragment rather than
#: reading every row's address (upkeep keeps large tables in few fragments).
READ_ALL_BELOW = 500_000


@dataclass(frozen=True)
class NewKeys:
    """What a look found: the keys held twice (of the rows it read), how many rows it
    read, and the row address the next look starts from."""

    repeated: list[str]
    read: int
    upto: int


def new_keys_held_twice(table: Any, key: str, since: int) -> NewKeys:
    """The keys of ``table``'s rows at row addresses from ``since`` on that more than
    one row of the table holds; ``table`` read at its newest version."""
    table.checkout_latest()
    fresh = (
        table.search()
        .where(f"_rowaddr >= {int(since)}")
        .select([key, "_rowaddr"])
        .limit(None)
        .to_arrow()
    )
    if fresh.num_rows == 0:
        return NewKeys([], 0, since)
    upto = address_after(fresh.column("_rowaddr"))
    keys = [str(k) for k in pc.unique(fresh.column(key)).to_pylist() if k is not None]
    repeated: list[str] = []
    for start in range(0, len(keys), _CHUNK):
        repeated += _held_twice(table, key, keys[start : start + _CHUNK])
    return NewKeys(sorted(set(repeated)), fresh.num_rows, upto)


def address_after(addresses: Any) -> int:
    """The first row address of the fragment after the last one ``addresses`` (row
    addresses, an Arrow array) come from; 0 for none."""
    if len(addresses) == 0:
        return 0
    return ((int(pc.max(addresses).as_py()) >> _FRAGMENT_BITS) + 1) << _FRAGMENT_BITS


def _held_twice(table: Any, key: str, keys: Sequence[str]) -> list[str]:
    found = table.search().where(filters.is_in(key, keys)).select([key]).limit(None).to_arrow()
    counts = pc.value_counts(found.column(key))
    return [
        str(value)
        for value, count in zip(
            counts.field("values").to_pylist(), counts.field("counts").to_pylist(), strict=True
        )
        if count > 1
    ]


def end_address(table: Any, read_all_below: int = READ_ALL_BELOW) -> int:
    """The row address a look starting now would start from: the first one after every
    fragment ``table`` holds at its newest version.

    A table of fewer than ``read_all_below`` rows has its row addresses read (no column
    of the rows: 8 bytes a row; about 250 ms a million rows here). A larger one is asked
    for one row at or after a fragment's first address, the fragment number doubling,
    then the gap halving: about 2 log2(fragments) questions, each of which passes over
    the fragments' metadata, not their rows (7 ms in all for a compacted table of a
    million rows; 15 ms a question among 1,000 fragments). A worker asks at start, for
    every table, so its start does not grow with what the tables hold."""
    table.checkout_latest()
    if table.count_rows() < read_all_below:
        addresses = table.search().select(["_rowaddr"]).limit(None).to_arrow()
        return address_after(addresses.column("_rowaddr"))
    first = _address_from(table, 0)
    if first is None:
        return 0
    low, step = first >> _FRAGMENT_BITS, 1  # a fragment holding rows
    while (found := _address_from(table, low + step)) is not None:
        low, step = found >> _FRAGMENT_BITS, step * 2
    high = low + step  # no row from this fragment on
    while high - low > 1:
        found = _address_from(table, (low + high) // 2)
        if found is None:
            high = (low + high) // 2
        else:
            low = found >> _FRAGMENT_BITS
    return (low + 1) << _FRAGMENT_BITS


def _address_from(table: Any, fragment: int) -> int | None:
    """The address of a row of ``table`` in fragment ``fragment`` or a later one (None:
    no row there)."""
    found = (
        table.search()
        .where(f"_rowaddr >= {fragment << _FRAGMENT_BITS}")
        .select(["_rowaddr"])
        .limit(1)
        .to_arrow()
    )
    return int(found.column("_rowaddr")[0].as_py()) if found.num_rows else None
