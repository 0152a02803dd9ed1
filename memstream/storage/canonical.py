"""The canonical JSON form of row values, for digests and checksums.

Datetimes become ISO strings, bytes hex, mappings sorted; floats are either rounded (a
digest that tolerates float noise) or kept exactly (a checksum: ``repr``, and a list of
floats — a vector — as the hex of its IEEE-754 doubles, which is also much faster).
"""

from __future__ import annotations

import struct
from collections.abc import Mapping
from datetime import datetime
from typing import Any

__all__ = ["canonical"]


def canonical(value: Any, float_digits: int | None = None) -> Any:
    """``value`` in a JSON-ready form; floats rounded to ``float_digits``, or exact."""
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, bytes):
        return value.hex()
    if isinstance(value, float):
        return repr(value) if float_digits is None else round(value, float_digits)
    if isinstance(value, Mapping):
        return {k: canonical(v, float_digits) for k, v in sorted(value.items())}
    if isinstance(value, list | tuple):
        if float_digits is None and value and type(value[0]) is float:
            return "f64:" + struct.pack(f"<{len(value)}d", *value).hex()
        return [canonical(v, float_digits) for v in value]
    return value
