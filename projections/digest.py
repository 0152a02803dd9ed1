"""A digest of projected state that ignores physical order, versions and log positions.

Two stores that hold the same memories give the same digest, whichever order the rows
were written in, how many versions the tables went through, or which life of the log
the rows came from. Used to check that a replay rebuilds the live state.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

__all__ = ["digest_rows", "digest_tables"]


def _canonical(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, bytes):
        return value.hex()
    if isinstance(value, list | tuple):
        return [_canonical(v) for v in value]
    if isinstance(value, dict):
        return {k: _canonical(v) for k, v in value.items()}
    if isinstance(value, float):
        return round(value, 9)
    return value


def digest_rows(rows: Iterable[Mapping[str, Any]], ignore: Iterable[str] = ()) -> str:
    """SHA-256 over the rows as a set, each without the ``ignore`` columns."""
    skipped = set(ignore)
    lines = sorted(
        json.dumps(
            {k: _canonical(v) for k, v in row.items() if k not in skipped},
            sort_keys=True,
            ensure_ascii=False,
        )
        for row in rows
    )
    hasher = hashlib.sha256()
    for line in lines:
        hasher.update(line.encode("utf-8"))
        hasher.update(b"\n")
    return hasher.hexdigest()


def digest_tables(
    tables: Mapping[str, Iterable[Mapping[str, Any]]], ignore: Iterable[str] = ()
) -> str:
    """One digest over several named tables."""
    skipped = tuple(ignore)
    hasher = hashlib.sha256()
    for name in sorted(tables):
        hasher.update(f"{name}:{digest_rows(tables[name], skipped)}\n".encode())
    return hasher.hexdigest()
