"""Where operations publish: the durable publisher of :mod:`memstream.streams.publisher`, opened on
first use, refusing events while memstream stops or a disk is nearly full.

When the broker stops answering, the publisher is closed (so no client library retries
and logs in the background) and publishes are refused at once (503, in well under a
second: a TCP connect to the bootstrap addresses says whether anything listens) until a
broker answers again. The first refusal is logged; the rest are counted and summed up in
one line a minute.

Every front door publishes through a :class:`BrokerSink`; the HTTP API's child of
``memstream up`` gives it the :class:`DrainState` its parent drives.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from typing import Protocol

from memstream.application.errors import StorageFull, Unavailable
from memstream.events.vocabulary import Event
from memstream.settings import Settings
from memstream.storage.headroom import Headroom
from memstream.storage.write_tokens import WriteToken
from memstream.streams.broker import is_listening
from memstream.streams.errors import DiskFull, StreamsError
from memstream.streams.publisher import (
    CheckedLine,
    Published,
    Publisher,
    headroom_of,
    publisher_for,
)

__all__ = ["BrokerSink", "DrainState", "EventSink"]

#: While the broker is gone, how long a knock that found nobody is trusted (a publish
#: meanwhile is refused at once: every search reports its access).
PROBE_SECONDS = 0.5

log = logging.getLogger(__name__)


class EventSink(Protocol):
    """Where operations publish events (the log)."""

    async def publish(self, events: Sequence[Event]) -> Published: ...

    async def publish_lines(self, lines: Sequence[CheckedLine]) -> WriteToken | None: ...

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
        self._probed_at = -float("inf")  # when the broker last did not answer a knock
        self._connecting = asyncio.Lock()
        self._outage = _Outage()

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

    async def _broker_answers(self) -> bool:
        """Whether anything listens at the bootstrap addresses again. While the broker is
        gone it is knocked on at most every PROBE_SECONDS: every search reports its
        access, and a knock each would be a connection each."""
        if time.monotonic() - self._probed_at < PROBE_SECONDS:
            return False
        if await asyncio.to_thread(_anything_listens, self._settings.bootstrap):
            return True
        self._probed_at = time.monotonic()
        return False

    @contextlib.asynccontextmanager
    async def _publishing(self) -> AsyncIterator[Publisher]:
        if self._drain.draining:
            raise Unavailable(self._drain.reason)
        shortage = self._headroom.shortage() if self._headroom is not None else None
        if shortage is not None:
            raise StorageFull(shortage)
        if self._outage.reason is not None and not await self._broker_answers():
            self._outage.refused()
            bootstrap = self._settings.bootstrap
            raise Unavailable(f"no broker answers at {bootstrap}: {self._outage.reason}")
        with self._drain.publishing():
            try:
                publisher = await self._connect()
                yield publisher
            except StorageFull:
                raise
            except Unavailable as exc:
                if self._outage.reason is None:
                    self._outage.began(str(exc))
                    await self.close()  # no background reconnects while it is gone
                else:
                    self._outage.refused()
                raise
        self._outage.ended()

    async def publish(self, events: Sequence[Event]) -> Published:
        """Append ``events`` to the log durably; their ids and where they were put, once
        acknowledged.

        Raises:
            Unavailable: (StorageFull for a full disk) naming in ``taken`` the events
                that were taken before the refusal.
        """
        async with self._publishing() as publisher:
            try:
                return await publisher.publish(events)
            except StreamsError as exc:
                raise _refusal(exc, [e.event_id for e in events]) from None

    async def publish_lines(self, lines: Sequence[CheckedLine]) -> WriteToken | None:
        """Publish checked input lines: events to their topics, the rest dead-lettered;
        where they were put."""
        async with self._publishing() as publisher:
            try:
                return await publisher.publish_lines(lines)
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


def _anything_listens(bootstrap: str) -> bool:
    """Whether a TCP connect to any of the bootstrap addresses succeeds (0.3 s each)."""
    for address in bootstrap.split(","):
        host, _, port = address.strip().rpartition(":")
        if host and port.isdigit() and is_listening(host.strip("[]"), int(port), timeout=0.3):
            return True
    return False


class _Outage:
    """Whether the broker is known to be gone, and the logging of it: one line when it
    goes, one a minute summing up the refusals while it stays gone, one when it is back."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.reason: str | None = None
        self._clock = clock
        self._count = 0
        self._summed_at = 0.0

    def began(self, reason: str) -> None:
        self.reason, self._count, self._summed_at = reason, 1, self._clock()
        log.warning("publishing refused: %s; refusing at once until a broker answers", reason)

    def refused(self) -> None:
        self._count += 1
        if self._clock() - self._summed_at >= 60:
            log.warning(
                "the broker is still gone: %d publishes refused since %s",
                self._count,
                self.reason,
            )
            self._summed_at = self._clock()

    def ended(self) -> None:
        if self.reason is not None:
            log.info("the broker answers again (%d publishes were refused)", self._count)
            self.reason = None
