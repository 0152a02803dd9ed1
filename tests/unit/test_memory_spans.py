"""Spans named as OpenTelemetry's semantic conventions for generative AI name memory
operations, seen by the SDK's in-memory exporter: names, the user as the store, counts,
the error's class, and the query's text only when its capture is asked for."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from memstream.application import NotFound, Operations
from memstream.observability import tracing
from memstream.queries.search.request import SearchRequest


@pytest.fixture
def exported() -> Iterator[InMemorySpanExporter]:
    provider = trace.get_tracer_provider()
    if not isinstance(provider, TracerProvider):
        provider = TracerProvider()
        trace.set_tracer_provider(provider)
    exporter = InMemorySpanExporter()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    was = tracing._state["on"]
    tracing._state["on"] = True
    yield exporter
    tracing._state["on"] = was
    exporter.shutdown()  # its processor exports nothing more


def _named(exporter: InMemorySpanExporter, name: str) -> list[dict]:
    return [dict(s.attributes or {}) for s in exporter.get_finished_spans() if s.name == name]


def test_a_search_and_a_block_are_search_memory_spans(
    operations: Operations, exported: InMemorySpanExporter, monkeypatch: pytest.MonkeyPatch
) -> None:
    found = asyncio.run(operations.reads.search(SearchRequest(user_id="ana", query="Miso", k=5)))
    block = asyncio.run(operations.reads.context("ana", "What does Miso like to eat?"))
    searched, assembled = _named(exported, "search_memory")
    assert searched["gen_ai.operation.name"] == "search_memory"
    assert searched["gen_ai.memory.store.id"] == "ana"
    assert searched["gen_ai.memory.record.count"] == len(found.results) > 0
    lines = sum(len(section["lines"]) for section in block.sections)
    assert assembled["gen_ai.memory.record.count"] == lines > 0
    assert "gen_ai.memory.query.text" not in searched  # content only when asked for
    assert {s.name for s in exported.get_finished_spans()} >= {"search", "context"}  # beside

    exported.clear()
    monkeypatch.setenv(tracing.CAPTURE_CONTENT, "true")
    asyncio.run(operations.reads.search(SearchRequest(user_id="ana", query="Miso", k=5)))
    (asked,) = _named(exported, "search_memory")
    assert asked["gen_ai.memory.query.text"] == "Miso"


def test_a_failed_command_names_its_error(
    operations: Operations, exported: InMemorySpanExporter
) -> None:
    with pytest.raises(NotFound):
        asyncio.run(operations.changes.forget("ana", "ep-0000000000000000"))
    (forgot,) = _named(exported, "delete_memory")
    assert forgot["gen_ai.memory.record.id"] == "ep-0000000000000000"
    assert forgot["error.type"] == "NotFound"


def test_nothing_is_made_when_tracing_is_off(operations: Operations) -> None:
    assert not tracing.enabled()
    with tracing.memory_span("search_memory", "ana") as span:
        span.records(3)  # a no-op
