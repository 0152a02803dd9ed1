"""Hybrid search: the request and its answer, the searcher that orchestrates the
retrievers, the per-user read model and its BM25 index, sign codes for big users,
ranking (fusion and adjustments), query intent, speakers, neighbours, the links
followed from the best candidates and what the
turns around a candidate said.

Its modules, named in ``__all__``, are imported by name; importing the package alone
loads none of them."""

from __future__ import annotations

__all__ = [
    "candidates",
    "intent",
    "linked",
    "neighbours",
    "ranking",
    "read_model",
    "request",
    "retrievers",
    "searcher",
    "session_turns",
    "sign_codes",
    "speakers",
    "term_index",
    "trace",
    "tracing",
    "user_caches",
    "user_view",
]
