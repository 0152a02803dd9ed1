"""Sign codes: a big user's vectors shortlisted by one bit a dimension before the
exact product.

A search of a user held in memory scores the query against every one of the user's
vectors. Past some tens of thousands of vectors that pass is bound by memory bandwidth
(a 50,000-vector user is 77 MB of float32, read whole for each search, pushing the
query model's weights out of the caches on the way). Each vector's signs, packed into
64-bit words, are 32 times smaller: the Hamming distance between a vector's signs and
the query's ranks all of them in a fraction of the time (for unit vectors it falls as
the angle between them does), and only a shortlist of the nearest by signs is scored
exactly. The results are the exact cosines of the shortlisted vectors; what the
shortlist can miss is a vector whose signs disagree with the query's far more than its
angle says, and :func:`shortlist_size` keeps the shortlist a fixed share of the user's
vectors so that this stays rare at every size (``bench/sign_codes.py`` measures how
many of the exact nearest the shortlist keeps, on real MiniLM vectors).

The codes are stored word-major (one row per 64 dimensions, one column per vector), so
each step of the distance is one vectorised pass over a contiguous array.
"""

from __future__ import annotations

from concurrent.futures import Executor

import numpy as np

__all__ = ["SHORTLIST_SHARE", "SIGN_CODED_ROWS", "shortlist", "shortlist_size", "sign_codes"]

#: Users with at least this many vectors are shortlisted by signs; below it the exact
#: product over all of them is as fast (20,000 vectors: 1.2 ms exact, 0.8 ms coded).
SIGN_CODED_ROWS = 20_000
#: The share of a user's vectors scored exactly (1 in 20), and at least 20 for each
#: result wanted (see ``bench/sign_codes.py`` for what shares keep).
SHORTLIST_SHARE = 20
_PER_RESULT = 20


def sign_codes(vectors: np.ndarray) -> np.ndarray:
    """The sign bits of each row of ``vectors`` ((rows, dimensions) float), as
    (words, rows) uint64 (the dimensions padded with zero bits to whole words)."""
    rows, dimensions = vectors.shape
    width = -(-dimensions // 64) * 8  # bytes in whole 64-bit words
    packed = np.zeros((rows, width), dtype=np.uint8)
    packed[:, : -(-dimensions // 8)] = np.packbits(vectors > 0, axis=1)
    return np.ascontiguousarray(packed.view(np.uint64).T)


def shortlist_size(rows: int, wanted: int) -> int:
    """How many of ``rows`` vectors are scored exactly for ``wanted`` results."""
    return min(rows, max(rows // SHORTLIST_SHARE, _PER_RESULT * wanted))


def shortlist(
    codes: np.ndarray,
    query: np.ndarray,
    size: int,
    allowed: np.ndarray,
    pool: Executor | None = None,
) -> np.ndarray:
    """The positions of (at least) ``size`` of the vectors ``allowed`` lets through whose
    signs are nearest the signs of ``query`` (all of them when they are fewer), in
    ascending order. A distance shared at the cut is kept whole, so the answer does
    not depend on the order the vectors are held in. With ``pool``, the distances of
    the two halves of the vectors are counted at once (numpy lets go of the
    interpreter lock)."""
    query_code = sign_codes(query.reshape(1, -1))[:, 0]
    words, rows = codes.shape
    distance = np.zeros(rows, dtype=np.uint16)
    if pool is None:
        _count_distances(codes, query_code, distance, 0, rows)
    else:
        half = rows // 2
        second = pool.submit(_count_distances, codes, query_code, distance, half, rows)
        _count_distances(codes, query_code, distance, 0, half)
        second.result()
    distance[~allowed] = np.iinfo(np.uint16).max
    counts = np.bincount(distance, minlength=words * 64 + 1)[: words * 64 + 1]
    cut = int(np.searchsorted(np.cumsum(counts), size))  # the distance of the size-th nearest
    found: np.ndarray = np.flatnonzero(distance <= cut)
    return found


def _count_distances(
    codes: np.ndarray, query_code: np.ndarray, distance: np.ndarray, start: int, stop: int
) -> None:
    """Add to ``distance[start:stop]`` the bits in which those vectors' signs differ
    from ``query_code``."""
    differing = np.empty(stop - start, dtype=np.uint64)
    bits = np.empty(stop - start, dtype=np.uint8)
    into = distance[start:stop]
    for w in range(codes.shape[0]):
        np.bitwise_xor(codes[w, start:stop], query_code[w], out=differing)
        into += np.bitwise_count(differing, out=bits)
