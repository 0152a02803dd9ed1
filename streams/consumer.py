"""A faust consumer that resumes from the offsets stored with the projection.

faust seeks every assigned partition to the consumer group's committed offsets once a
rebalance completes. memstream's truth is the checkpoint stored in LanceDB with the rows
(the group's commits may be ahead of it after a crash, or belong to another data folder),
so this consumer seeks again, right after faust, to the projection's own resume offsets.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from faust.transport.drivers.aiokafka import AIOKafkaConsumerThread, Consumer

__all__ = ["CheckpointSeekingConsumer", "ResumeOffset"]

log = logging.getLogger(__name__)

#: Given (topic, partition), the offset to read next; None leaves faust's position.
ResumeOffset = Callable[[str, int], int | None]


#: faust fixes the fetch long-poll at 1.5 s; Tansu answers a fetch only when the wait
#: runs out, so that wait is added to the latency of every new message.
FETCH_MAX_WAIT_MS = 50


class _ShortPollThread(AIOKafkaConsumerThread):
    def _create_worker_consumer(self, transport: Any) -> Any:
        consumer = super()._create_worker_consumer(transport)
        consumer._fetch_max_wait_ms = FETCH_MAX_WAIT_MS
        return consumer


class CheckpointSeekingConsumer(Consumer):
    """faust's aiokafka consumer, plus a seek to the projection's checkpoints."""

    def _new_consumer_thread(self) -> AIOKafkaConsumerThread:
        return _ShortPollThread(self, loop=self.loop, beacon=self.beacon)

    resume_offset: ResumeOffset = staticmethod(lambda topic, partition: None)

    async def perform_seek(self) -> None:
        await super().perform_seek()
        for tp in self.assignment():
            offset = self.resume_offset(tp.topic, tp.partition)
            if offset is None:
                continue
            log.info("%s/%d resumes at offset %d", tp.topic, tp.partition, offset)
            await self.seek(tp, offset)


def install(app: Any, resume_offset: ResumeOffset) -> None:
    """Make ``app`` create a :class:`CheckpointSeekingConsumer` using ``resume_offset``."""
    consumer_class = type(
        "ProjectionConsumer",
        (CheckpointSeekingConsumer,),
        {"resume_offset": staticmethod(resume_offset)},
    )
    app.transport.Consumer = consumer_class
