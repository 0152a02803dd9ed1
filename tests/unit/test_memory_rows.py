"""A ``memories`` row has the table's columns, in the schema's order, whoever builds it."""

from __future__ import annotations

from datetime import UTC, datetime

import pyarrow as pa

from memstream.projections.memory_rows import memory_row
from memstream.storage.log_records import LogPosition
from memstream.storage.schemas import MEMORIES_SCHEMA

AT = datetime(2024, 5, 1, tzinfo=UTC)


def test_a_memory_row_has_exactly_the_schemas_columns() -> None:
    row = memory_row(
        memory_id="m1",
        kind="fact",
        user_id="ana",
        content="Ana lives in Porto.",
        search_text="Ana lives in Porto.",
        position=LogPosition("e1", "memory.lifecycle", 3, 42, AT),
        occurred_at=AT,
    )
    assert list(row) == MEMORIES_SCHEMA.names
    table = pa.Table.from_pylist([row], schema=MEMORIES_SCHEMA)  # every value fits its type
    assert table.column("log_offset").to_pylist() == [42]
    assert table.column("ingested_at").to_pylist() == [AT]
