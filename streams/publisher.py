"""Publishing events: messages to ``memory.messages``, others to their own topics.

Lines from a JSONL file are checked with the same codec the worker uses, so the caller
can report each rejected line, and then published exactly as written: the log holds
what the channel sent, and the worker sends what does not validate to ``memory.dlq``.
A line without an ``event_id`` gets one derived from its bytes, so publishing the same
file twice stores each message once. Records are keyed by ``user_id``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from types import TracebackType

from aiokafka import AIOKafkaProducer
from aiokafka.errors import KafkaError

from projections.codec import decode, encode
from projections.errors import InvalidEvent
from projections.events import Event
from streams.errors import BrokerError, PublishError
from streams.topics import MESSAGES, topic_for

__all__ = ["CheckedLine", "Publisher", "check_lines"]


@dataclass(frozen=True)
class CheckedLine:
    """One input line: its bytes, and the event or the problems found in it."""

    number: int
    raw: bytes
    event: Event | None
    problems: tuple[str, ...] = ()


def check_lines(lines: Iterable[bytes]) -> list[CheckedLine]:
    """Validate each non-blank line as an event (line numbers start at 1)."""
    checked = []
    for number, line in enumerate(lines, start=1):
        raw = line.strip()
        if not raw:
            continue
        try:
            checked.append(CheckedLine(number, raw, decode(raw)))
        except InvalidEvent as exc:
            checked.append(CheckedLine(number, raw, None, tuple(exc.problems)))
    return checked


class Publisher:
    """An idempotence-free, acks=all producer for memstream's topics (async)."""

    def __init__(self, bootstrap: str) -> None:
        self._bootstrap = bootstrap
        self._producer = AIOKafkaProducer(
            bootstrap_servers=bootstrap,
            acks="all",
            linger_ms=5,
            max_batch_size=1 << 20,
            request_timeout_ms=15_000,
        )

    async def __aenter__(self) -> Publisher:
        try:
            await self._producer.start()
        except KafkaError as exc:
            await self._producer.stop()
            raise BrokerError(
                f"no Kafka broker answers at {self._bootstrap}: start `memstream up` first, "
                "or pass --kafka ADDRESS"
            ) from exc
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self._producer.stop()

    async def publish(self, events: Sequence[Event]) -> list[str]:
        """Publish events (each to its type's topic); return their ids once the broker has
        them all."""
        by_topic: dict[str, list[tuple[bytes | None, bytes]]] = {}
        for e in events:
            by_topic.setdefault(topic_for(e.type), []).append((e.user_id.encode(), encode(e)))
        for topic, records in by_topic.items():
            await self._send_all(records, topic)
        return [e.event_id for e in events]

    async def publish_lines(self, lines: Sequence[CheckedLine]) -> None:
        """Publish checked lines as written (invalid ones too: the worker dead-letters them)."""
        by_topic: dict[str, list[tuple[bytes | None, bytes]]] = {}
        for line in lines:
            topic = topic_for(line.event.type) if line.event else MESSAGES
            key = line.event.user_id.encode() if line.event else None
            by_topic.setdefault(topic, []).append((key, line.raw))
        for topic, records in by_topic.items():
            await self._send_all(records, topic)

    async def _send_all(
        self, records: Sequence[tuple[bytes | None, bytes]], topic: str = MESSAGES
    ) -> None:
        try:
            futures = [await self._producer.send(topic, value=v, key=k) for k, v in records]
            for future in futures:
                await future
        except KafkaError as exc:
            raise PublishError(f"the broker did not accept the events: {exc}") from exc
