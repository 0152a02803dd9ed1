"""Which partition a user's events go to: Kafka's default partitioner over the user id.

Every projected topic has the same number of partitions and is keyed by user, so a
user's messages, commands, accesses, embeddings and lifecycle events share one
partition number, and whoever owns that number owns the user (see
:mod:`memstream.streams.delivery.fencing`). Lifecycle jobs use this to work only on the users of the
partitions their worker owns.
"""

from __future__ import annotations

from aiokafka.partitioner import murmur2

__all__ = ["partition_of"]


def partition_of(user_id: str, partitions: int) -> int:
    """The partition Kafka's default partitioner puts ``user_id``'s records in."""
    return int(murmur2(user_id.encode("utf-8")) & 0x7FFFFFFF) % partitions
