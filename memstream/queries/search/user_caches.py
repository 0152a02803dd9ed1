"""What a searcher keeps of each user between searches, in one object with one
:meth:`UserCaches.forget`: the read model's view of the user, the speakers of that view,
row counts, whether the user has archived memories, and decoded archive vectors.

Each cache is keyed by the user first, so erasing a user drops every entry of theirs;
none holds anything of one user under another's key. Loading is passed in (the searcher
reads the store); the caches only keep, bound and forget.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable

import numpy as np
import pyarrow as pa

from memstream.queries.search.read_model import ReadModel

__all__ = ["ArchivedVectors", "UserCaches"]

#: The search columns of archived memories and their unit vectors, row by row.
ArchivedVectors = tuple[pa.Table, np.ndarray]

#: How many users' speakers are kept.
SPEAKERS_KEPT = 10_000
#: Most archived vectors kept decoded (float32: 1.5 kB each at 384 dimensions).
COLD_ROWS_KEPT = 100_000
#: How long a user's row count is trusted, in seconds.
COUNT_SECONDS = 60.0


class UserCaches:
    """The per-user caches of one searcher (see the module docstring).

    Args:
        read_model: the users' hot memories in memory (None: every search reads the
            tables).
    """

    def __init__(self, read_model: ReadModel | None) -> None:
        self.read_model = read_model
        self._lock = threading.Lock()
        self._speakers: OrderedDict[str, frozenset[str]] = OrderedDict()
        self._counts: dict[tuple[str, str], tuple[int, float]] = {}
        #: the archive index's version, and which users have rows in it then
        self._archive_users: tuple[int, dict[str, bool]] = (-1, {})
        self._cold: OrderedDict[tuple[str, str, int], ArchivedVectors] = OrderedDict()

    def forget(self, user_id: str) -> None:
        """Drop everything kept of ``user_id`` (the user was erased)."""
        if self.read_model is not None:
            self.read_model.forget(user_id)
        with self._lock:
            self._speakers.pop(user_id, None)
            for key in [k for k in self._counts if k[0] == user_id]:
                del self._counts[key]
            self._archive_users[1].pop(user_id, None)
            for cold in [k for k in self._cold if k[0] == user_id]:
                del self._cold[cold]

    def speakers(self, user_id: str) -> frozenset[str] | None:
        """The speakers of the user's last view, if one was made."""
        with self._lock:
            return self._speakers.get(user_id)

    def remember_speakers(self, user_id: str, speakers: frozenset[str] | None) -> None:
        """Keep the speakers of the user's view (None: the user has no view now)."""
        with self._lock:
            if speakers is None:
                self._speakers.pop(user_id, None)
                return
            self._speakers[user_id] = speakers
            self._speakers.move_to_end(user_id)
            while len(self._speakers) > SPEAKERS_KEPT:
                self._speakers.popitem(last=False)

    def count(self, user_id: str, table: str, counted: Callable[[], int]) -> int:
        """The user's rows of ``table``, counted by ``counted`` at most once a minute."""
        now = time.monotonic()
        with self._lock:
            cached = self._counts.get((user_id, table))
        if cached is None or now - cached[1] > COUNT_SECONDS:
            cached = (counted(), now)
            with self._lock:
                self._counts[(user_id, table)] = cached
        return cached[0]

    def has_archived(self, user_id: str, version: int, asked: Callable[[], bool]) -> bool:
        """Whether the user has rows in the archive index at ``version`` (asked with
        ``asked`` once per version of the index)."""
        with self._lock:
            if self._archive_users[0] != version:
                self._archive_users = (version, {})
            known = self._archive_users[1].get(user_id)
        if known is None:
            known = asked()
            with self._lock:
                if self._archive_users[0] == version:
                    self._archive_users[1][user_id] = known
        return known

    def archived_vectors(
        self, user_id: str, where: str, version: int, loaded: Callable[[], ArchivedVectors]
    ) -> ArchivedVectors:
        """The archived vectors ``where`` selects of the user at the index's ``version``,
        loaded with ``loaded`` once and kept while they fit."""
        key = (user_id, where, version)
        with self._lock:
            cached = self._cold.get(key)
            if cached is not None:
                self._cold.move_to_end(key)
                return cached
        found = loaded()
        with self._lock:
            self._cold[key] = found
            while sum(t.num_rows for t, _ in self._cold.values()) > COLD_ROWS_KEPT:
                self._cold.popitem(last=False)
        return found
