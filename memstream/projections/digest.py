"""A digest of projected state that ignores physical order, versions and log positions.

Two stores that hold the same memories give the same digest, whichever order the rows
were written in, how many versions the tables went through, or which life of the log
the rows came from. Used to check that a replay rebuilds the live state.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from typing import Any

from memstream.storage.canonical import canonical

__all__ = ["digest_rows", "digest_tables"]

#: Floats are compared to this many decimals (storage may round-trip them).
_FLOAT_DIGITS = 9


def digest_rows(rows: Iterable[Mapping[str, Any]], ignore: Iterable[str] = ()) -> str:
    """SHA-256 over the rows as a set, each without the ``ignore`` columns."""
    skipped = set(ignore)
    lines = sorted(
        json.dumps(
            {k: canonical(v, _FLOAT_DIGITS) for k, v in row.items() if k not in skipped},
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
