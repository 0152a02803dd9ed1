"""Views of memory at a past moment: an ``as_of`` read's store and searcher.

An ``as_of`` (:mod:`memstream.queries.as_of`) resolves, in the user's partition, to a
moment the worker recorded (:mod:`memstream.storage.moments`): the last recorded at or
before the time asked, or the first that holds the write token asked for. Its view is
the store with every state table checked out at the moment's versions, and a searcher
over it that shares the live searcher's query embedder and weights; the few views read
last are kept open (opening one checks out every table).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from datetime import datetime

import pyarrow as pa
import pyarrow.compute as pc

from memstream.application.errors import NotFound
from memstream.queries.as_of import AsOf, parse_as_of
from memstream.queries.search.searcher import Searcher
from memstream.storage.lance.store import MomentGone, ProjectionStore
from memstream.storage.moments import Moment, first_covering, last_at_or_before

__all__ = ["PastView", "PastViews", "find_moment", "no_longer_kept"]

#: Views kept open at once (each holds a checked-out handle of every table).
KEPT_VIEWS = 4


@dataclass(frozen=True)
class PastView:
    """Memory as it stood at a moment: what to read it with, and what to say of it."""

    store: ProjectionStore
    searcher: Searcher
    as_of: AsOf

    @property
    def recorded_at(self) -> datetime:
        return self.as_of.recorded_at


def find_moment(store: ProjectionStore, consumer: str, partition: int, asked: str) -> Moment:
    """The moment of ``partition`` that ``asked`` (an ``as_of``) names.

    Raises:
        InvalidQuery: ``asked`` is neither a time nor a write token.
        NotFound: nothing of the partition was recorded by then, or the token names no
            write of it.
    """
    wanted = parse_as_of(asked)
    if isinstance(wanted, datetime):
        moment = last_at_or_before(store.moments(consumer, partition, wanted), wanted)
        if moment is None:
            raise NotFound(
                f"as_of: no memory of this user was recorded by {wanted.isoformat()}"
                + _first_kept(store.moments(consumer, partition))
            )
        return moment
    moment = first_covering(store.moments(consumer, partition), wanted)
    if moment is None:
        raise NotFound(
            "as_of: no moment holds that write for this user (it names another user's "
            "partition, or is not applied yet)"
        )
    return moment


def _first_kept(moments: pa.Table) -> str:
    if moments.num_rows == 0:
        return ""
    first = pc.min(moments.column("recorded_at")).as_py()
    return f" (the first moment kept: {first.isoformat()})"


class PastViews:
    """The views of past moments a reader opened last (see the module docstring)."""

    def __init__(self, live: Searcher) -> None:
        self._live = live
        self._open: OrderedDict[tuple[tuple[str, int], ...], tuple[ProjectionStore, Searcher]]
        self._open = OrderedDict()
        self._lock = threading.Lock()

    def view(self, store: ProjectionStore, moment: Moment, asked: str) -> PastView:
        """The view of ``moment`` (blocking: it may check out every table).

        Raises:
            NotFound: upkeep has removed a version the moment names.
        """
        key = tuple(sorted(moment.versions.items()))
        with self._lock:
            found = self._open.get(key)
            if found is not None:
                self._open.move_to_end(key)
        if found is None:
            try:
                pinned = store.pinned(moment.versions)
            except MomentGone:
                raise no_longer_kept(moment.recorded_at) from None
            # a view left out is let go, not closed: a read may still be using it (its
            # search threads end when it is collected)
            made = (pinned, self._live.over(pinned))
            with self._lock:
                found = self._open.setdefault(key, made)  # another read may have opened it
                while len(self._open) > KEPT_VIEWS:
                    self._open.popitem(last=False)
        as_of = AsOf(asked=asked, recorded_at=moment.recorded_at, position=moment.position.text())
        return PastView(found[0], found[1], as_of)

    def forget(self, view: PastView) -> None:
        """Let ``view`` go: a read found its files removed since it was opened."""
        with self._lock:
            for key, (store, _) in list(self._open.items()):
                if store is view.store:
                    del self._open[key]


def no_longer_kept(recorded_at: datetime) -> NotFound:
    """The refusal of a read of a moment whose table versions are gone."""
    return NotFound(
        f"as_of: memory as of {recorded_at.isoformat()} is no longer kept (table versions "
        "older than retain_versions_seconds are removed, and an erasure removes every "
        "older version)"
    )
