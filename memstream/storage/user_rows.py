"""One user's rows of one projection table, kept in memory and brought up to date by
reading only what was written since.

A :class:`UserRows` holds the rows of a table that one user owns (optionally narrowed
by a fixed filter, such as the vectors of one model). When the table's version moves,
it reads only the rows whose row address is above the highest it has seen: LanceDB
writes every insert, every update (a merge writes the new row and marks the old one
deleted) and every compaction into new fragments, whose addresses are above all older
ones. A newer row replaces the kept row with the same key. Deletions leave no new row,
so each refresh also counts the user's rows: when the count differs from what is
kept, the rows are read whole again. A refresh of a table nobody wrote to costs one
version check. A refresh that only added rows of new keys says so (``appended``): the
rows kept before are then the first rows, in the same order, and what was made of them
can be grown rather than made again.

The result is the table's rows for the user as of the version it read, in no
particular order, with the same columns every time.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from memstream.storage import filters

__all__ = ["UserRows"]

_ROW_ADDRESS = "_rowid"


class UserRows:
    """The rows of ``table_name`` with ``user_id``, kept current (see the module docstring).

    Args:
        store: the projection store (anything with ``table``, ``version`` and ``count``).
        table_name: the table.
        user_id: whose rows.
        columns: the columns kept (the key among them).
        key: the column identifying a row.
        where: a further fixed filter (a filters expression), or "".
        recheck_seconds: how stale the rows may be: whether the table moved is asked
            at most this often (:meth:`ProjectionStore.version`; 0: every time).
    """

    def __init__(
        self,
        store: Any,
        table_name: str,
        user_id: str,
        columns: Sequence[str],
        key: str,
        where: str = "",
        recheck_seconds: float = 0.0,
    ) -> None:
        self._store = store
        self._name = table_name
        self._key = key
        self._columns = list(dict.fromkeys([key, *columns]))
        #: those of the columns the table has, as of the last whole read
        self._present: list[str] | None = None
        self._where = filters.all_of(filters.equals("user_id", user_id), where)
        self._lock = threading.Lock()
        self._recheck = recheck_seconds
        self._version = -1
        self._rows: pa.Table | None = None
        self._addresses = np.zeros(0, dtype=np.uint64)
        #: full reads and partial reads so far (what a refresh cost)
        self.full_reads = 0
        self.partial_reads = 0
        #: counts refreshes that changed the rows; ``written`` is what the last one
        #: added or replaced, or None when it read the rows whole; ``appended`` says the
        #: last one only added rows of new keys, after the rows kept (in that order)
        self.generation = 0
        self.written: pa.Table | None = None
        self.appended = False

    def current(self) -> tuple[pa.Table, int]:
        """The user's rows as of the table's newest version (or, within
        ``recheck_seconds`` of the last look, as of the version seen then), and that
        version."""
        version = self._store.version(self._name, self._recheck)
        with self._lock:
            if self._rows is None or version != self._version:
                self._refresh(version)
            assert self._rows is not None
            return self._rows, self._version

    def __len__(self) -> int:
        return 0 if self._rows is None else self._rows.num_rows

    def _refresh(self, version: int) -> None:
        if self._rows is None:
            self._read_all(version)
            return
        since = (
            filters.all_of(self._where, f"{_ROW_ADDRESS} > {int(self._addresses.max())}")
            if len(self._addresses)
            else self._where
        )
        written = self._read(since)
        if written.num_rows:
            self.partial_reads += 1
            fresh_keys = pc.is_in(self._rows.column(self._key), value_set=written.column(self._key))
            self.appended = not pc.any(fresh_keys).as_py()
            self.written = written.drop_columns([_ROW_ADDRESS])
            if self.appended:  # new keys only: the kept rows stay as they are
                self._addresses = np.concatenate([self._addresses, _addresses(written)])
                self._rows = _compacted(pa.concat_tables([self._rows, self.written]))
            else:
                kept = pc.invert(fresh_keys)
                self._addresses = np.concatenate(
                    [self._addresses[kept.to_numpy(zero_copy_only=False)], _addresses(written)]
                )
                self._rows = pa.concat_tables([self._rows.filter(kept), self.written])
            self.generation += 1
        if self._store.count(self._name, self._where) != self._rows.num_rows:
            self._read_all(version)  # rows were deleted
            return
        self._version = version

    def _read_all(self, version: int) -> None:
        self.full_reads += 1
        rows = self._read(self._where, whole=True)
        self._addresses = _addresses(rows)
        self._rows = rows.drop_columns([_ROW_ADDRESS])
        self._version = version
        self.generation += 1
        self.written = None
        self.appended = False

    def _read(self, where: str, whole: bool = False) -> pa.Table:
        table = self._store.table(self._name)
        if whole or self._present is None:
            # a version written before a column was added (a past moment) has none of
            # it: its rows come without the column, as rows that never had it. Asked on
            # a whole read only (reading a schema costs about 0.3 ms; a refresh after
            # another process's write must not pay it)
            names = set(table.schema.names)
            self._present = [c for c in self._columns if c in names]
        columns = self._present
        found: pa.Table = (
            table.search().where(where).select(columns).with_row_id(True).limit(None)
        ).to_arrow()
        return found.select([*columns, _ROW_ADDRESS])


#: Appends leave the kept rows in a chunk each; past this many they are made one again
#: (what reads them slows with the chunks, a copy of them all costs the same each time).
_MOST_CHUNKS = 64


def _compacted(rows: pa.Table) -> pa.Table:
    if rows.num_columns and rows.column(0).num_chunks > _MOST_CHUNKS:
        return rows.combine_chunks()
    return rows


def _addresses(rows: pa.Table) -> np.ndarray:
    column = rows.column(_ROW_ADDRESS)
    found: np.ndarray = column.to_numpy().astype(np.uint64, copy=False)
    return found
