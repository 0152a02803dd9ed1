"""Publishing events: messages to ``memory.messages``, others to their own topics.

Lines from a JSONL file are checked with the same codec the worker uses, so the caller
can report each rejected line, and then published as written (a line that does not say
when it happened with the time added, as at every door): the log holds what the channel
sent, and the worker sends what does not validate to ``memory.dlq``. A valid event of a
type no channel may publish (a lifecycle decision, an erasure) is reported and not sent.
A line without an ``event_id`` gets one derived from its bytes, so publishing the same
file twice stores each message once. Records are keyed by ``user_id``.

Records carry the publisher's trace in their headers when tracing is on
(:mod:`memstream.observability.tracing`); a record the journal publishes again after a crash
carries none.

With a journal (the embedded broker, whose log lives in memory), records are fsync'd to
the intake journal before they are produced, and a publish returns only once both the
journal and the broker have them: what memstream acknowledged survives any crash of
its processes (see :mod:`memstream.storage.journal`). Access reports are not journaled: they are
best effort and follow every search.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Any

from aiokafka import AIOKafkaProducer
from aiokafka.errors import KafkaError

from memstream.events.codec import decode, encode, size_problem
from memstream.events.errors import InvalidEvent
from memstream.events.json_text import JsonProblem, parse_json
from memstream.events.omissions import needs_time, stamped
from memstream.events.user_ids import claimed_user
from memstream.events.vocabulary import CHANNEL_TYPES, ERASURE_TYPES, Event
from memstream.observability import tracing
from memstream.settings import Settings
from memstream.storage.headroom import Headroom
from memstream.storage.journal import Journal, JournalRecord, Positions
from memstream.storage.write_tokens import WriteToken
from memstream.streams.errors import BrokerError, DiskFull, PublishError
from memstream.streams.journal_lane import JournalLane
from memstream.streams.sealing import RecordKeys, record_keys_of
from memstream.streams.topics import ACCESS, MESSAGES, read_epoch, topic_for

__all__ = [
    "CheckedLine",
    "Published",
    "Publisher",
    "check_lines",
    "headroom_of",
    "publisher_for",
]


@dataclass(frozen=True)
class Published:
    """Events the broker has, and where in the log they were put (the write token: None
    for an empty publish)."""

    event_ids: list[str]
    token: WriteToken | None


@dataclass(frozen=True)
class CheckedLine:
    """One input line: its bytes, and the event or the problems found in it.

    ``sendable`` is False for a line too large for the log: it is reported, not sent.
    """

    number: int
    raw: bytes
    event: Event | None
    problems: tuple[str, ...] = ()
    sendable: bool = True


def check_lines(lines: Iterable[bytes], now: datetime) -> list[CheckedLine]:
    """Validate each non-blank line as an event (line numbers start at 1). A line that
    does not say when it happened happened ``now``, as at every door
    (:mod:`memstream.events.omissions`): it is published with that time added."""
    checked = []
    for number, line in enumerate(lines, start=1):
        raw = line.strip()
        if not raw:
            continue
        too_large = size_problem(raw)
        if too_large is not None:
            checked.append(CheckedLine(number, raw, None, (too_large,), sendable=False))
            continue
        raw = _timed(raw, now)
        try:
            event = decode(raw)
        except InvalidEvent as exc:
            checked.append(CheckedLine(number, raw, None, tuple(exc.problems)))
            continue
        if event.type not in CHANNEL_TYPES:  # the worker would apply it: never sent
            problem = f"type: must be one of {', '.join(sorted(CHANNEL_TYPES))}"
            checked.append(CheckedLine(number, raw, None, (problem,), sendable=False))
            continue
        checked.append(CheckedLine(number, raw, event))
    return checked


def _timed(raw: bytes, now: datetime) -> bytes:
    """``raw``, with ``occurred_at`` added when it is a timed channel event that says no
    time (anything that does not parse is left for the codec to refuse)."""
    if not raw:
        return raw
    try:
        document = parse_json(raw)
    except JsonProblem:
        return raw
    if not needs_time(document):
        return raw
    return json.dumps(stamped(document, now), ensure_ascii=False).encode("utf-8")


def headroom_of(settings: Settings) -> Headroom:
    """The local folders a deployment writes to, with its reserve of free space."""
    folders = [settings.local_dir]
    if settings.data_location.is_local:
        folders.append(Path(settings.data_location.path))
    return Headroom(folders, settings.min_free_bytes)


def publisher_for(settings: Settings) -> Publisher:
    """The publisher a deployment's processes use: journaled with the embedded broker.

    Raises:
        BrokerError: the journal folder does not exist (no ``memstream up`` ever ran
            with this data folder, so nothing would ever recover it).
        DiskFull: a local folder of the deployment is under its reserve of free space.
    """
    shortage = headroom_of(settings).shortage()
    if shortage is not None:
        raise DiskFull(shortage)
    journal = None
    if settings.journaled:
        journal = Journal(settings.journal_dir)
        if not journal.exists:
            raise BrokerError(
                f"no intake journal in {journal.folder}: start `memstream up` with this data "
                "folder first, or pass the --data it uses"
            )
    return Publisher(settings.bootstrap, journal=journal, keys=record_keys_of(settings))


class Publisher:
    """An idempotence-free, acks=all producer for memstream's topics (async).

    Args:
        bootstrap: the Kafka bootstrap address.
        journal: the intake journal to fsync records to before producing them (None:
            the broker's acknowledgement is the durability, as on a Kafka cluster).
        keys: seals each user's records under the user's data key before they are
            journaled or produced (None: plaintext).
    """

    def __init__(
        self, bootstrap: str, journal: Journal | None = None, keys: RecordKeys | None = None
    ) -> None:
        self._bootstrap = bootstrap
        self._keys = keys
        self._lane = JournalLane(journal) if journal is not None else None
        self._log_epoch: str | None = None
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
        if self._lane is not None:
            self._lane.close()

    async def publish(self, events: Sequence[Event]) -> Published:
        """Publish events (each to its type's topic); return their ids and where they
        were put once the broker has them all.

        Raises:
            PublishError: naming in ``taken`` the events that were taken all the same.
        """
        positions = await self._send(
            self._records(
                [(topic_for(e.type), e.user_id.encode(), encode(e)) for e in events],
                sealed=[e.type not in ERASURE_TYPES for e in events],
            )
        )
        return Published([e.event_id for e in events], await self._token(positions))

    async def _token(self, positions: Positions) -> WriteToken | None:
        """The write token of ``positions`` in the log's current life (read once from
        ``memory.meta``; None when the log has none yet, or nothing was put)."""
        if not positions:
            return None
        if self._log_epoch is None:
            try:
                self._log_epoch = await read_epoch(self._bootstrap, datetime.now(UTC), create=False)
            except (BrokerError, KafkaError):
                return None  # the write is durable all the same; a later one says where
        if self._log_epoch is None:
            return None
        return WriteToken(self._log_epoch, dict(positions))

    def _records(
        self,
        records: Sequence[tuple[str, bytes | None, bytes]],
        sealed: Sequence[bool] | None = None,
    ) -> list[JournalRecord]:
        """The records to journal and produce, each sealed under its user's key (but an
        erasure, which says nothing of the user: sealing it would make the erased user
        a new key)."""
        values = [value for _, _, value in records]
        if self._keys is not None:
            keep = sealed or [True] * len(records)
            values = self._keys.seal_all(
                [
                    (key if seal else None, value)
                    for (_, key, value), seal in zip(records, keep, strict=True)
                ]
            )
        return [
            JournalRecord(topic, key, value)
            for (topic, key, _), value in zip(records, values, strict=True)
        ]

    async def publish_lines(self, lines: Sequence[CheckedLine]) -> WriteToken | None:
        """Publish checked lines as written (invalid ones too: the worker dead-letters them,
        keyed by the user their bytes name, if any, so the dead letter is counted and
        erased with that user; they are not sealed: no key is made for a name in a line
        that did not validate. Lines too large for the log are not sent); where they
        were put."""
        sent = [line for line in lines if line.sendable]
        records: list[tuple[str, bytes | None, bytes]] = []
        for line in sent:
            if line.event is not None:
                records.append((topic_for(line.event.type), line.event.user_id.encode(), line.raw))
            else:
                named = claimed_user(line.raw)
                records.append((MESSAGES, named.encode() if named else None, line.raw))
        sealed = [line.event is not None for line in sent]
        positions = await self._send(self._records(records, sealed))
        return await self._token(positions)

    async def republish(self, records: Sequence[JournalRecord]) -> Positions:
        """Produce journaled records again, as they are (not journaled a second time);
        return the highest offset each (topic, partition) got."""
        return await self._send(records, journaled=False)

    async def _send(self, records: Sequence[JournalRecord], journaled: bool = True) -> Positions:
        """Produce ``records`` topic by topic (each topic journaled first, unless told not
        to or it is ``memory.access``); return the highest offset per partition.

        Raises:
            PublishError: with ``taken``, the indexes of the records that were taken
                (journaled, or acknowledged by the broker) before it failed.
        """
        by_topic: dict[str, list[int]] = {}
        for index, r in enumerate(records):
            by_topic.setdefault(r.topic, []).append(index)
        positions: dict[tuple[str, int], int] = {}
        taken: set[int] = set()
        lane = self._lane
        for topic, indexes in by_topic.items():
            batch = [records[i] for i in indexes]
            appended = None
            try:
                if journaled and topic != ACCESS and lane is not None:
                    appended = await lane.append(batch)
                    taken.update(indexes)  # on disk: a sweep produces them if this fails
                produced = await self._produce(batch, topic)
            except BaseException as exc:
                if appended is not None and lane is not None:
                    lane.acknowledge(appended, None)
                if isinstance(exc, PublishError):
                    taken.update(indexes[i] for i in exc.taken)
                    exc.taken = tuple(sorted(taken))
                raise
            if appended is not None and lane is not None:
                lane.acknowledge(appended, produced)
            taken.update(indexes)
            positions.update(produced)
        return positions

    async def _produce(
        self, records: Sequence[JournalRecord], topic: str
    ) -> dict[tuple[str, int], int]:
        """Produce ``records``; the highest offset each partition got.

        Raises:
            PublishError: a record was not acknowledged (``taken``: the indexes of those
                that were).
        """
        futures: list[asyncio.Future[Any]] = []
        failure: BaseException | None = None
        with tracing.producer_span(topic, len(records)):
            headers = tracing.record_headers()  # the trace, carried to the worker
            try:
                for r in records:
                    futures.append(
                        await self._producer.send(topic, value=r.value, key=r.key, headers=headers)
                    )
            except KafkaError as exc:
                failure = exc
        positions: dict[tuple[str, int], int] = {}
        acknowledged: list[int] = []
        outcomes = await asyncio.gather(*futures, return_exceptions=True)
        for index, outcome in enumerate(outcomes):
            if isinstance(outcome, BaseException):
                failure = failure or outcome
                continue
            acknowledged.append(index)
            at = (topic, outcome.partition)
            positions[at] = max(outcome.offset, positions.get(at, -1))
        if failure is not None:
            error = PublishError(f"the broker did not accept the events: {failure}")
            error.taken = tuple(acknowledged)
            raise error from failure
        return positions
