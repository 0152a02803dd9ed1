"""Work beside the consumer: the lifecycle jobs and their timer and schedule, the
look-up behind a session's links and the model's choice among them, the archiver,
replay and re-embedding, the embedding lane (agent and backfill) and the documents lane
(agent, reader, queue).

Its modules, named in ``__all__``, are imported by name; importing the package alone
loads none of them."""

from __future__ import annotations

__all__ = [
    "archiver",
    "document_agent",
    "document_lane",
    "document_queue",
    "embedding_agent",
    "embedding_backfill",
    "lifecycle",
    "lifecycle_runs",
    "lifecycle_schedule",
    "linking",
    "model_linking",
    "reembedding",
    "replay",
    "unread_documents",
]
