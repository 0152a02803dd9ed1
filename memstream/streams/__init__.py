"""The Kafka runtime: the embedded broker, topics, the durable publisher and its
journal lane and sweeper, the batch consumer and the projector that applies batches,
exactly-once delivery (:mod:`.delivery`), sealing on the log, replay sources and
the log's identity.

Its modules, named in ``__all__``, are imported by name; importing the package alone
loads none of them."""

from __future__ import annotations

__all__ = [
    "batch_consumer",
    "batches",
    "broker",
    "delivery",
    "deployment_identity",
    "errors",
    "fetch_wait",
    "history",
    "journal_lane",
    "journal_sweeper",
    "lifeline",
    "listener",
    "log_reader",
    "partitioning",
    "ports",
    "projector",
    "publisher",
    "recovery",
    "sealing",
    "topics",
    "user_history",
]
