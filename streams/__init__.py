"""The write side: the embedded broker, topics, the durable publisher and its journal,
the batch consumer and projector, the embedding lane, lifecycle jobs and their timer,
replay and re-embedding, and the worker process of ``memstream up``.

Its modules, named in ``__all__``, are imported by name (``from streams import
replay``); importing the package alone loads none of them."""

from __future__ import annotations

__all__ = [
    "app",
    "archiver",
    "batch_consumer",
    "batches",
    "broker",
    "components",
    "deployment_identity",
    "embedder_process",
    "embedding_agent",
    "embedding_backfill",
    "errors",
    "fencing",
    "history",
    "journal_lane",
    "journal_sweeper",
    "lanes",
    "lifecycle",
    "lifecycle_schedule",
    "lifecycle_timer",
    "lifeline",
    "log_lines",
    "log_reader",
    "partitioning",
    "ports",
    "projector",
    "publisher",
    "recovery",
    "reembedding",
    "replay",
    "sealing",
    "settings",
    "topics",
    "unread_documents",
    "worker",
]
