"""Errors raised by the write side (broker, topics, publishing, the worker).

Hierarchy::

    StreamsError              root of every error this package raises
    ├── BrokerError           the embedded broker could not start, or no broker answers
    └── PublishError          events could not be handed to the broker
        └── DiskFull          a disk memstream writes to is (nearly) full: nothing published
"""

from __future__ import annotations

from memstream.storage.errors import MemstreamError

__all__ = ["BrokerError", "DiskFull", "PublishError", "StreamsError"]


class StreamsError(MemstreamError):
    """Root of every error raised by ``streams``."""


class BrokerError(StreamsError):
    """No Kafka-compatible broker is reachable, or the embedded one failed to start."""


class PublishError(StreamsError):
    """The broker did not accept events.

    Attributes:
        taken: the indexes (in the order given) of the records that were taken all the
            same (fsync'd to the intake journal, or acknowledged by the broker): they
            reach the log and are applied. The rest were not.
    """

    taken: tuple[int, ...] = ()


class DiskFull(PublishError):
    """A disk memstream writes to is full, or under its reserve of free space: nothing
    was published; publish again once space is freed."""
