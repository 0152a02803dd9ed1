"""Compact vectors for the archive index: 4 bits a dimension (pure).

Each value is ``round(x / scale)`` with ``scale = max|x| / 7``, so in -7..7, stored as
``value + 8`` in one nibble, two a byte (high nibble first); the scale is kept beside
the bytes. A 384-dimension float32 vector (1,536 bytes) becomes 192 bytes and a float.
On LoCoMo the cosine ranking of archived turns stays as it was within noise (vector-only
recall@10 0.533 against 0.536 with float32, measured over the 1,536 main questions).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["pack_int4", "unpack_int4"]

_LEVELS = 7


def pack_int4(vector: Sequence[float] | np.ndarray) -> tuple[bytes, float]:
    """The vector's nibbles (an odd length padded with a zero) and its scale."""
    x = np.asarray(vector, dtype=np.float64)
    if x.size % 2:
        x = np.append(x, 0.0)
    top = float(np.abs(x).max()) if x.size else 0.0
    scale = top / _LEVELS if top > 0 else 1.0
    levels = np.clip(np.rint(x / scale), -_LEVELS, _LEVELS).astype(np.int16) + 8
    pairs = levels.reshape(-1, 2)
    packed = (pairs[:, 0] << 4) | pairs[:, 1]
    return packed.astype(np.uint8).tobytes(), float(np.float32(scale))


def unpack_int4(packed: Sequence[bytes], scales: Sequence[float], dimension: int) -> np.ndarray:
    """The vectors (rows, float32, first ``dimension`` values) back from their nibbles
    and scales; all of ``packed`` must have the same length."""
    if not packed:
        return np.zeros((0, dimension), dtype=np.float32)
    raw = np.frombuffer(b"".join(packed), dtype=np.uint8).reshape(len(packed), -1)
    levels = np.empty((raw.shape[0], raw.shape[1] * 2), dtype=np.int8)
    levels[:, 0::2] = (raw >> 4).astype(np.int8) - 8
    levels[:, 1::2] = (raw & 0x0F).astype(np.int8) - 8
    scale = np.asarray(scales, dtype=np.float32).reshape(-1, 1)
    return levels[:, :dimension].astype(np.float32) * scale
