"""A searcher's per-user caches forget an erased user whole, and only that user."""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from memstream.queries.search.user_caches import UserCaches


def _filled(caches: UserCaches, user_id: str) -> None:
    caches.remember_speakers(user_id, frozenset({user_id.title()}))
    caches.count(user_id, "memories", lambda: 3)
    caches.has_archived(user_id, 7, lambda: True)
    rows = pa.table({"memory_id": [f"{user_id}-1"]})
    caches.archived_vectors(
        user_id, f"user_id = '{user_id}'", 7, lambda: (rows, np.ones((1, 4), np.float32))
    )


def _asked(caches: UserCaches, user_id: str) -> list[str]:
    """Which of the user's caches had to load again."""
    loads: list[str] = []

    def loading(name: str, value: object) -> object:
        loads.append(name)
        return value

    caches.count(user_id, "memories", lambda: loading("count", 3))
    caches.has_archived(user_id, 7, lambda: loading("archived", True))
    rows = pa.table({"memory_id": [f"{user_id}-1"]})
    caches.archived_vectors(
        user_id,
        f"user_id = '{user_id}'",
        7,
        lambda: loading("vectors", (rows, np.ones((1, 4), np.float32))),
    )
    if caches.speakers(user_id) is None:
        loads.append("speakers")
    return loads


def test_forgetting_a_user_drops_each_of_their_caches_and_no_one_elses() -> None:
    caches = UserCaches(read_model=None)
    for user in ("ana", "bob"):
        _filled(caches, user)
    assert _asked(caches, "ana") == [] and _asked(caches, "bob") == []
    caches.forget("ana")
    assert _asked(caches, "ana") == ["count", "archived", "vectors", "speakers"]
    assert _asked(caches, "bob") == []


def test_a_user_named_like_a_table_is_forgotten_as_a_user() -> None:
    caches = UserCaches(read_model=None)
    _filled(caches, "memories")
    _filled(caches, "ana")
    caches.forget("memories")
    assert _asked(caches, "ana") == []
    assert "count" in _asked(caches, "memories")
