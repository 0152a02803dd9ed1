"""Errors raised by the write side (broker, topics, publishing, the worker).

Hierarchy::

    StreamsError              root of every error this package raises
    ├── BrokerError           the embedded broker could not start, or no broker answers
    └── PublishError          events could not be handed to the broker
"""

from __future__ import annotations

__all__ = ["BrokerError", "PublishError", "StreamsError"]


class StreamsError(Exception):
    """Root of every error raised by ``streams``."""


class BrokerError(StreamsError):
    """No Kafka-compatible broker is reachable, or the embedded one failed to start."""


class PublishError(StreamsError):
    """The broker did not accept events."""
