"""The episodes consumer's batching against the real embedded broker and LanceDB tables:
a partial batch waits for more records until its oldest has waited
``batch_within_seconds``; a full batch goes at once."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from memstream.runtime.worker import prepare_log
from memstream.settings import Settings
from memstream.storage.filesystems import resolve_location
from memstream.storage.lance.store import ProjectionStore
from memstream.storage.lance.tables import MEMORIES
from memstream.streams.batch_consumer import EpisodeConsumer
from memstream.streams.fetch_wait import FetchWait
from memstream.streams.projector import BatchResult, Projector
from memstream.streams.publisher import Publisher
from memstream.streams.topics import MESSAGES
from memstream.testing import FakeClock, embedded_broker, message

pytestmark = [pytest.mark.broker]


async def _batches(bootstrap: str, store: ProjectionStore, batch_size: int) -> list[int]:
    """Publish 30 messages in three bursts 0.2 s apart; the sizes of the batches the
    consumer applied them in."""
    settings = Settings(
        kafka=bootstrap, batch_within_seconds=3.0, batch_size=batch_size, messages_partitions=1
    )
    epoch = await prepare_log(settings)
    applied: list[int] = []

    async def count(result: BatchResult) -> None:
        applied.append(result.applied)

    projector = Projector(store, consumer="memstream", clock=FakeClock())
    consumer = EpisodeConsumer(settings, projector, epoch, on_applied=count)
    await consumer.start()
    running = asyncio.create_task(consumer.run())
    try:
        async with asyncio.timeout(60):  # the group joined: what comes next is fetched live
            while not consumer.assigned(MESSAGES):
                await asyncio.sleep(0.05)
        # The group settles after it first joins (a second rebalance re-reads from the
        # checkpoint, and the batches would count records twice); aiokafka says nothing
        # when it has settled, so this waits for it.
        await asyncio.sleep(0.5)
        async with Publisher(bootstrap) as publisher:
            for burst in range(3):
                await publisher.publish(
                    [message(event_id=f"m{burst}-{i}", user_id="ana") for i in range(10)]
                )
                await asyncio.sleep(0.2)
        async with asyncio.timeout(60):
            while sum(applied) < 30:
                await asyncio.sleep(0.05)
    finally:
        running.cancel()
        await consumer.stop()
    return applied


def test_a_partial_batch_waits_for_more_and_a_full_one_goes_at_once(tmp_path: Path) -> None:
    with embedded_broker() as bootstrap:
        store = ProjectionStore.at(resolve_location(str(tmp_path / "lingering")))
        assert asyncio.run(_batches(bootstrap, store, batch_size=2000)) == [30]
        assert store.count(MEMORIES) == 30
    with embedded_broker() as bootstrap:
        store = ProjectionStore.at(resolve_location(str(tmp_path / "full")))
        assert asyncio.run(_batches(bootstrap, store, batch_size=10)) == [10, 10, 10]


async def _waits(bootstrap: str, store: ProjectionStore) -> tuple[int | None, list[int | None]]:
    """The consumer's fetch wait after a quiet spell, and at each batch applied after it."""
    settings = Settings(kafka=bootstrap, batch_within_seconds=0.1, messages_partitions=1)
    epoch = await prepare_log(settings)
    at_batches: list[int | None] = []

    async def note(result: BatchResult) -> None:
        at_batches.append(consumer.fetch_wait_ms)

    projector = Projector(store, consumer="memstream", clock=FakeClock())
    waits = FetchWait(active_ms=50, idle_ms=400, quiet_seconds=1.5)
    consumer = EpisodeConsumer(settings, projector, epoch, on_applied=note, fetch_wait=waits)
    await consumer.start()
    running = asyncio.create_task(consumer.run())
    try:
        async with asyncio.timeout(60):
            while not consumer.assigned(MESSAGES):
                await asyncio.sleep(0.05)
        async with asyncio.timeout(30):  # nothing to read: the wait grows
            while consumer.fetch_wait_ms != 400:
                await asyncio.sleep(0.05)
        quiet = consumer.fetch_wait_ms
        async with Publisher(bootstrap) as publisher:
            await publisher.publish([message(event_id="after-a-lull", user_id="ana")])
        async with asyncio.timeout(60):
            while not at_batches:
                await asyncio.sleep(0.05)
    finally:
        running.cancel()
        await consumer.stop()
    return quiet, at_batches


def test_fetches_wait_longer_when_the_log_is_quiet_and_short_again_once_records_come(
    tmp_path: Path,
) -> None:
    """The wait is set on aiokafka's real fetcher: after a quiet spell the next fetches
    wait the idle time, and the batch that brings a record sets the short one again."""
    with embedded_broker() as bootstrap:
        store = ProjectionStore.at(resolve_location(str(tmp_path / "waits")))
        quiet, at_batches = asyncio.run(_waits(bootstrap, store))
    assert quiet == 400
    assert at_batches == [50]
    assert store.count(MEMORIES) == 1
