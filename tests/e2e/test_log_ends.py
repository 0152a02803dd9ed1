"""The log's ends, asked of the real embedded broker over one connection for several
topics at once: exact per (topic, partition), though Tansu answers ListOffsets with the
base offset of a partition's last batch plus one."""

from __future__ import annotations

import asyncio

import pytest
from aiokafka import AIOKafkaProducer

from memstream.streams.topics import TopicSpec, end_offsets, ensure_topics, log_ends
from memstream.testing import embedded_broker

pytestmark = [pytest.mark.broker]


async def _written(bootstrap: str) -> tuple[dict[tuple[str, int], int], dict[int, int]]:
    await ensure_topics(bootstrap, [TopicSpec("ends.a", 3), TopicSpec("ends.b", 2)])
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap, linger_ms=200)
    await producer.start()
    try:
        await (await producer.send("ends.a", b"y", partition=1))  # a batch of its own
        # then seven records sent together: the partition's last batch is one of seven,
        # based at offset 1 (Tansu reports 2 as its end)
        sent = [await producer.send("ends.a", b"x", partition=1) for _ in range(7)]
        await asyncio.gather(*sent)
        await (await producer.send("ends.b", b"z", partition=0))
    finally:
        await producer.stop()
    return await log_ends(bootstrap, ("ends.a", "ends.b")), await end_offsets(bootstrap, "ends.a")


def test_the_ends_of_several_topics_are_exact_past_batches_of_many_records() -> None:
    with embedded_broker() as bootstrap:
        ends, alone = asyncio.run(_written(bootstrap))
    assert ends == {
        ("ends.a", 0): 0,
        ("ends.a", 1): 8,
        ("ends.a", 2): 0,
        ("ends.b", 0): 1,
        ("ends.b", 1): 0,
    }
    assert alone == {0: 0, 1: 8, 2: 0}  # one topic: the same answer
