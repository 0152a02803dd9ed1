"""Errors raised by the write side (broker, topics, publishing, the worker).

Hierarchy::

    StreamsError              root of every error this package raises
    ├── BrokerError           the embedded broker could not start, or no broker answers
    └── PublishError          events could not be handed to the broker
        └── JournalUnavailable  the intake journal could not be written (a full disk)
"""

from __future__ import annotations

__all__ = ["BrokerError", "JournalUnavailable", "PublishError", "StreamsError"]


class StreamsError(Exception):
    """Root of every error raised by ``streams``."""


class BrokerError(StreamsError):
    """No Kafka-compatible broker is reachable, or the embedded one failed to start."""


class PublishError(StreamsError):
    """The broker did not accept events."""


class JournalUnavailable(PublishError):
    """The intake journal could not be written, so nothing was published (a full disk)."""
