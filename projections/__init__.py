"""The event vocabulary and pure logic: events, the codec, the folds that turn events
into rows, policies (decay, coldness, sessions), time phrases and ranking. No I/O.

Its modules, named in ``__all__``, are imported by name; importing the package alone
loads none of them."""

from __future__ import annotations

__all__ = [
    "access",
    "archiving",
    "clock",
    "codec",
    "coldness",
    "compact_vectors",
    "context",
    "decay",
    "derived",
    "digest",
    "entities",
    "episodes",
    "errors",
    "events",
    "intent",
    "json_text",
    "lattice",
    "lifecycle_policy",
    "local_extractor",
    "memory_rows",
    "memory_state",
    "neighbours",
    "omissions",
    "ranking",
    "scope",
    "sealing",
    "sessions",
    "short_ids",
    "speakers",
    "timephrases",
    "user_ids",
    "vectors",
]
