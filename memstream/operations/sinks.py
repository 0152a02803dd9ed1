"""Where operations publish: the durable publisher of :mod:`streams.publisher`, opened on
first use, refusing events while memstream stops or a disk is nearly full.

Every front door publishes through a :class:`BrokerSink`; the HTTP API's child of
``memstream up`` gives it the :class:`DrainState` its parent drives.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from collections.abc import AsyncIterator, Iterator, Sequence
from typing import Protocol

from memstream.operations.errors import StorageFull, Unavailable
from projections.events import Event
from storage.headroom import Headroom
from streams.errors import DiskFull, StreamsError
from streams.publisher import CheckedLine, Publisher, headroom_of, publisher_for
from streams.settings import Settings

__all__ = ["BrokerSink", "DrainState", "EventSink"]

log = logging.getLogger(__name__)


class EventSink(Protocol):
    """Where operations publish events (the log)."""

    async def publish(self, events: Sequence[Event]) -> list[str]: ...

    async def publish_lines(self, lines: Sequence[CheckedLine]) -> None: ...

    async def close(self) -> None: ...


class DrainState:
    """Whether publishes are still taken, and how many are in flight."""

    def __init__(self) -> None:
        self.draining = False
        self.reason = "memstream is stopping: publish again once it is back"
        self._in_flight = 0
        self._lock = threading.Lock()

    @contextlib.contextmanager
    def publishing(self) -> Iterator[None]:
        with self._lock:
            self._in_flight += 1
        try:
            yield
        finally:
            with self._lock:
                self._in_flight -= 1

    @property
    def in_flight(self) -> int:
        with self._lock:
            return self._in_flight

    def wait_idle(self, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while self.in_flight and time.monotonic() < deadline:
            time.sleep(0.01)
        return self.in_flight == 0


class BrokerSink:
    """A publisher connected at ``start`` or at the first publish if the broker was down
    then, so reads never wait for the broker."""

    def __init__(
        self,
        settings: Settings,
        drain: DrainState | None = None,
        headroom: Headroom | None = None,
    ) -> None:
        self._settings = settings
        self._drain = drain or DrainState()
        self._headroom = headroom if headroom is not None else headroom_of(settings)
        self._publisher: Publisher | None = None
        self._connecting = asyncio.Lock()

    async def start(self) -> None:
        """Connect now if the broker is there; otherwise at the first publish."""
        try:
            await self._connect()
        except Unavailable as exc:
            log.warning("%s; publishing will be retried on demand", exc)

    async def _connect(self) -> Publisher:
        async with self._connecting:
            if self._publisher is None:
                try:
                    publisher = publisher_for(self._settings)
                    await publisher.__aenter__()
                except DiskFull as exc:
                    raise StorageFull(str(exc)) from None
                except StreamsError as exc:
                    raise Unavailable(str(exc)) from None
                self._publisher = publisher
            return self._publisher

    async def close(self) -> None:
        if self._publisher is not None:
            publisher, self._publisher = self._publisher, None
            await publisher.__aexit__(None, None, None)

    @contextlib.asynccontextmanager
    async def _publishing(self) -> AsyncIterator[Publisher]:
        if self._drain.draining:
            raise Unavailable(self._drain.reason)
        shortage = self._headroom.shortage() if self._headroom is not None else None
        if shortage is not None:
            raise StorageFull(shortage)
        with self._drain.publishing():
            publisher = await self._connect()
            yield publisher

    async def publish(self, events: Sequence[Event]) -> list[str]:
        """Append ``events`` to the log durably; their ids once acknowledged.

        Raises:
            Unavailable: (StorageFull for a full disk) naming in ``taken`` the events
                that were taken before the refusal.
        """
        async with self._publishing() as publisher:
            try:
                return await publisher.publish(events)
            except StreamsError as exc:
                raise _refusal(exc, [e.event_id for e in events]) from None

    async def publish_lines(self, lines: Sequence[CheckedLine]) -> None:
        """Publish checked input lines: events to their topics, the rest dead-lettered."""
        async with self._publishing() as publisher:
            try:
                await publisher.publish_lines(lines)
            except StreamsError as exc:
                names = [f"line {line.number}" for line in lines if line.sendable]
                raise _refusal(exc, names) from None


def _refusal(exc: StreamsError, names: Sequence[str]) -> Unavailable:
    """The operations' refusal for a publisher's error; ``names``: of the records it was
    given, in order (what its ``taken`` indexes point at)."""
    taken = tuple(names[i] for i in getattr(exc, "taken", ()))
    message = str(exc)
    if taken:
        message += (
            f"; {len(taken)} of the {len(names)} were taken all the same and will be applied "
            "(listed in 'accepted'): publishing all of them again with the same event ids "
            "is safe"
        )
    kind = StorageFull if isinstance(exc, DiskFull) else Unavailable
    return kind(message, taken)
