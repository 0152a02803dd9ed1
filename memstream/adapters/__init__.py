"""Adapters to models: the offline MiniLM embedder and OpenAI's, the Anthropic and OpenAI
language models, and what memstream asks of them (fact extraction, summaries,
reflections), document parsing and token counts. Every network or ONNX call memstream
makes lives here.

Its modules, named in ``__all__``, are imported by name; importing the package alone
loads none of them."""

from __future__ import annotations

__all__ = [
    "document_parsing",
    "embedders",
    "extractor",
    "language_models",
    "minilm_fusions",
    "minilm_graph",
    "query_batches",
    "reflection",
    "retries",
    "summarizer",
    "tokens",
]
