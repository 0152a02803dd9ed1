"""Fence rows: how two writers of one partition are kept from both inserting a new key,
at a cost that grows with the batch, not with the table.

Each table that holds users' rows keeps one *fence row* per partition of the log (key
``|fence|<partition>``, user ``''``, which no user can be). Every keyed write of a
partition's writer updates that partition's fence row in the same merge as its own
rows. Two writers of one partition (a worker frozen past its session waking beside its
successor) therefore always both delete the same row, and LanceDB's commit check
refuses the second of two such commits as a conflict; its merge is then run again
against the first one's rows, where the key it meant to insert is now found and
updated, not inserted twice. So the merge may join through the key's BTree (a few
milliseconds, whatever the table holds) instead of scanning every key, which the
conflict check on inserted keys needs (lance-format/lance#9238) and which costs about
165 ms per million rows per merge.

Writers of different partitions update different fence rows and do not conflict
(LanceDB merges their deletions). A fence row is created once per table and partition
through the scanning merge (:func:`~memstream.storage.lance.merges.keyed_merge`), so
that two writers creating it at once cannot make two.

Readers never see fence rows: :class:`~memstream.storage.lance.store.ProjectionStore`
leaves them out of scans and counts, and every other read names a user.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from datetime import UTC, datetime
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from memstream.storage import filters

__all__ = [
    "FENCE_USER",
    "IS_FENCE_ROW",
    "NOT_FENCE_ROW",
    "fence_key",
    "fence_rows",
    "fenced_merge",
    "without_fence_rows",
]

#: The user a fence row belongs to: none (a user's id is never empty).
FENCE_USER = ""
#: A merge's or a filter's condition for the fence rows, and for every other row.
IS_FENCE_ROW = f"user_id = {filters.literal(FENCE_USER)}"
NOT_FENCE_ROW = f"user_id <> {filters.literal(FENCE_USER)}"
_TARGET_IS_FENCE_ROW = f"target.{IS_FENCE_ROW}"


def fence_key(partition: str) -> str:
    """The key of ``partition``'s fence row (no key a user's row has starts with ``|``)."""
    return f"|fence|{partition}"


def _zero(field: pa.Field) -> Any:
    """A value for a column a fence row has no meaning for (a vector a unit one: LanceDB
    takes no row without a vector, and a zero vector has no cosine)."""
    kind = field.type
    if pa.types.is_fixed_size_list(kind):
        return [1.0] + [0.0] * (kind.list_size - 1)
    if field.nullable:
        return None
    if pa.types.is_string(kind) or pa.types.is_large_string(kind):
        return ""
    if pa.types.is_integer(kind) or pa.types.is_floating(kind):
        return 0
    if pa.types.is_boolean(kind):
        return False
    if pa.types.is_timestamp(kind):
        return datetime(1970, 1, 1, tzinfo=UTC)
    if pa.types.is_list(kind) or pa.types.is_large_list(kind):
        return []
    raise TypeError(f"no fence value for column {field.name} of type {kind}")


def fence_rows(schema: pa.Schema, key: str, partitions: Iterable[str]) -> pa.Table:
    """The fence rows of ``partitions`` for a table of ``schema`` keyed on ``key``."""
    rows = []
    for partition in sorted(set(partitions)):
        row = {field.name: _zero(field) for field in schema}
        row[key] = fence_key(partition)
        row["user_id"] = FENCE_USER
        rows.append(row)
    return pa.Table.from_pylist(rows, schema=schema)


def fenced_merge(
    table: Any,
    key: str,
    data: pa.Table,
    partitions: Collection[str],
    *,
    update: bool,
    where: str | None = None,
) -> Any:
    """Merge ``data`` into ``table`` on ``key`` through the key's index, updating the
    fence rows of ``partitions`` in the same commit (they must exist). Rows whose key is
    new are inserted; with ``update``, stored rows are replaced by the new ones (only
    where ``where`` holds, when given); without it they are left as they are."""
    rows = pa.concat_tables([data, fence_rows(data.schema, key, partitions)])
    if not update:
        matched: str | None = _TARGET_IS_FENCE_ROW
    elif where is not None:
        matched = f"({where}) OR {_TARGET_IS_FENCE_ROW}"
    else:
        matched = None
    return (
        table.merge_insert(key)
        .when_matched_update_all(where=matched)
        .when_not_matched_insert_all()
        .execute(rows)
    )


def without_fence_rows(rows: pa.Table) -> pa.Table:
    """``rows`` (with a ``user_id`` column) without the fence rows among them."""
    if rows.num_rows == 0:
        return rows
    mask = pc.not_equal(rows.column("user_id"), pa.scalar(FENCE_USER))
    return rows.filter(pc.fill_null(mask, True))
