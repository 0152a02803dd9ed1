"""The shape of a user's ``json`` export (``GET /v1/users/{user_id}/export?format=json``):
the header, then the user's rows of every projection table it carries, each row typed by
its table's Arrow schema. The export is streamed, so these models document it in
``/openapi.json`` (and schemathesis checks the streamed answer against them); they are
built from the schemas, so a column added to a table is in the document with it."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pyarrow as pa
from pydantic import BaseModel, ConfigDict, create_model

from memstream.storage.lance.tables import EXPORTED_TABLES, FIXED_SCHEMAS

__all__ = ["UserExport", "row_model"]


def _python_type(arrow: pa.DataType, name: str) -> Any:
    """The JSON value an Arrow column's value (``name``: the column's) is written as, as
    a Python type."""
    if pa.types.is_list(arrow) or pa.types.is_large_list(arrow):
        return list[_python_type(arrow.value_type, f"{name}_item")]  # type: ignore[misc]
    if pa.types.is_struct(arrow):
        return _model(name, [arrow.field(i) for i in range(arrow.num_fields)])
    if pa.types.is_timestamp(arrow):
        return datetime
    if pa.types.is_boolean(arrow):
        return bool
    if pa.types.is_integer(arrow):
        return int
    if pa.types.is_floating(arrow):
        return float
    return str  # strings; binary is written as its text


def row_model(name: str, schema: pa.Schema) -> type[BaseModel]:
    """A model of one row of table ``name`` (every column, null where it may be)."""
    return _model(f"{name}_row", list(schema))


def _model(name: str, columns: list[pa.Field]) -> type[BaseModel]:
    """A model of a row or a struct of ``columns``, titled after ``name``."""
    fields: dict[str, Any] = {}
    for column in columns:
        kind = _python_type(column.type, f"{name}_{column.name}")
        fields[column.name] = (kind, ...) if not column.nullable else (kind | None, None)
    title = "".join(part.capitalize() for part in name.split("_"))
    model: type[BaseModel] = create_model(
        title, __config__=ConfigDict(extra="forbid", title=title), **fields
    )
    return model


_ROWS: dict[str, Any] = {
    name: (list[row_model(name, FIXED_SCHEMAS[name])], ...)  # type: ignore[misc]
    for name in EXPORTED_TABLES
}
_TABLES: type[BaseModel] = create_model(
    "ExportedTables", __config__=ConfigDict(extra="forbid"), **_ROWS
)


class UserExport(BaseModel):
    """A user's ``json`` export: who, when, and the user's rows of each table."""

    model_config = ConfigDict(extra="forbid")

    #: the export format's version
    memstream_export: int
    format: str
    user_id: str
    exported_at: datetime
    tables: _TABLES
