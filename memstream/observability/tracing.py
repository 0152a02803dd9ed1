"""Traces through the log, switched on by the standard OpenTelemetry environment.

With ``OTEL_EXPORTER_OTLP_ENDPOINT`` (or ``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT``, or
``OTEL_TRACES_EXPORTER=otlp``) set, and ``OTEL_SDK_DISABLED`` not ``true``, each process
exports its spans with the OTLP/HTTP exporter of the OpenTelemetry SDK, as the service
``OTEL_SERVICE_NAME`` (default ``memstream-<role>``). Otherwise nothing is set up and
each hook below costs one boolean check.

The trace crosses processes in the Kafka records: a publish (API, MCP or CLI) sends its
records inside a producer span and carries W3C ``traceparent`` (and ``tracestate``) in
their headers; the worker continues each record's trace with a consumer span for its
application, the embedder with one for its embedding. A batch mixes many traces: each
record that carries a trace gets its own span, timed as its batch.

What memstream does as a memory is also named as OpenTelemetry's semantic conventions
for generative AI name memory operations (:func:`memory_span`, beside the spans above):
``search_memory`` (a search, a context block), ``create_memory`` (a publish),
``upsert_memory`` (``remember``: it stores a new memory or answers the one that stands),
``update_memory`` (correct, confirm), ``delete_memory`` (forget) and
``delete_memory_store`` (a user's erasure). ``gen_ai.memory.store.id`` is the user id
(one user's memory is a store), ``gen_ai.memory.record.id`` the memory a command names,
``gen_ai.memory.record.count`` the memories returned (search), lines shown (context) or
events written; ``error.type`` the error's class. The query's text is recorded only when
``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT`` is ``true``, and the memories'
content never.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

from opentelemetry import context as otel_context
from opentelemetry import propagate, trace
from opentelemetry.trace import Span, SpanKind

__all__ = [
    "CAPTURE_CONTENT",
    "MemorySpan",
    "configure",
    "enabled",
    "memory_span",
    "message_spans",
    "producer_span",
    "record_headers",
    "shutdown",
    "span",
    "stage_spans",
    "wanted",
]

log = logging.getLogger(__name__)

_TRACER = "memstream"
_state = {"on": False}


def wanted(environ: Mapping[str, str] = os.environ) -> bool:
    """Whether the OpenTelemetry environment asks for traces to be exported."""
    if environ.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return False
    exporter = environ.get("OTEL_TRACES_EXPORTER", "").strip().lower()
    if exporter == "none":
        return False
    return bool(
        exporter == "otlp"
        or environ.get("OTEL_EXPORTER_OTLP_ENDPOINT")
        or environ.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
    )


def configure(role: str, environ: Mapping[str, str] = os.environ) -> bool:
    """Set up the exporter for this process if :func:`wanted`; True when tracing is on."""
    if _state["on"] or not wanted(environ):
        return _state["on"]
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    service = environ.get("OTEL_SERVICE_NAME") or f"memstream-{role}"
    provider = TracerProvider(resource=Resource.create({"service.name": service}))
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    trace.set_tracer_provider(provider)
    _state["on"] = True
    log.info("tracing on: spans go to the OTLP endpoint as service %s", service)
    return True


def enabled() -> bool:
    return _state["on"]


def shutdown() -> None:
    """Export the spans still buffered (at the end of a process)."""
    if _state["on"]:
        provider = trace.get_tracer_provider()
        if hasattr(provider, "shutdown"):
            provider.shutdown()


@contextmanager
def span(name: str, kind: SpanKind = SpanKind.INTERNAL, **attributes: Any) -> Iterator[Span | None]:
    """A span around the block when tracing is on (None otherwise)."""
    if not _state["on"]:
        yield None
        return
    with trace.get_tracer(_TRACER).start_as_current_span(
        name, kind=kind, attributes=_plain(attributes)
    ) as current:
        yield current


#: The environment variable that lets a memory span record the query's text.
CAPTURE_CONTENT = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"


class MemorySpan:
    """A memory operation's span, to which the count of records is told (nothing when
    tracing is off)."""

    def __init__(self, current: Span | None) -> None:
        self._current = current

    def records(self, count: int) -> None:
        """The number of memory records the operation returned or wrote."""
        if self._current is not None:
            self._current.set_attribute("gen_ai.memory.record.count", count)


@contextmanager
def memory_span(
    operation: str,
    store_id: str | None = None,
    record_id: str | None = None,
    query: str | None = None,
    environ: Mapping[str, str] = os.environ,
) -> Iterator[MemorySpan]:
    """A span named as OpenTelemetry's GenAI conventions name memory ``operation`` (see
    the module docstring), around the block, when tracing is on."""
    if not _state["on"]:
        yield MemorySpan(None)
        return
    attributes = {
        "gen_ai.operation.name": operation,
        "gen_ai.memory.store.id": store_id,
        "gen_ai.memory.record.id": record_id,
    }
    if query is not None and environ.get(CAPTURE_CONTENT, "").strip().lower() == "true":
        attributes["gen_ai.memory.query.text"] = query
    with trace.get_tracer(_TRACER).start_as_current_span(
        operation, kind=SpanKind.INTERNAL, attributes=_plain(attributes)
    ) as current:
        try:
            yield MemorySpan(current)
        except BaseException as exc:
            current.set_attribute("error.type", type(exc).__name__)
            raise


def producer_span(topic: str, records: int) -> Any:
    """The span a publish sends ``records`` to ``topic`` in (OpenTelemetry messaging)."""
    return span(
        f"send {topic}",
        SpanKind.PRODUCER,
        **{
            "messaging.system": "kafka",
            "messaging.operation.type": "send",
            "messaging.destination.name": topic,
            "messaging.batch.message_count": records,
        },
    )


def record_headers() -> list[tuple[str, bytes]] | None:
    """The headers that carry the current trace in a Kafka record (None when off)."""
    if not _state["on"]:
        return None
    carrier: dict[str, str] = {}
    propagate.inject(carrier)
    return [(k, v.encode()) for k, v in carrier.items()] or None


def _context_of(headers: Iterable[tuple[str, bytes]] | None) -> otel_context.Context | None:
    carrier = {
        k: bytes(v).decode("latin-1")
        for k, v in headers or ()
        if k in ("traceparent", "tracestate")
    }
    if "traceparent" not in carrier:
        return None
    return propagate.extract(carrier)


def message_spans(
    messages: Sequence[Any],
    started_ns: int,
    ended_ns: int,
    operation: str = "process",
    **attributes: Any,
) -> int:
    """A consumer span (``{operation} {topic}``) per message that carries a trace
    (``messages``: aiokafka or faust records, with ``headers``, ``topic``, ``partition``
    and ``offset``), timed as their batch; return how many were made. The records of one
    publish in one batch share a span."""
    if not _state["on"]:
        return 0
    tracer = trace.get_tracer(_TRACER)
    seen: set[str] = set()
    for message in messages:
        headers = getattr(message, "headers", None)
        parent = _context_of(headers.items() if isinstance(headers, Mapping) else headers)
        if parent is None:
            continue
        parent_id = trace.get_current_span(parent).get_span_context().span_id
        if f"{parent_id}" in seen:
            continue
        seen.add(f"{parent_id}")
        made = tracer.start_span(
            f"{operation} {message.topic}",
            context=parent,
            kind=SpanKind.CONSUMER,
            start_time=started_ns,
            attributes=_plain(
                {
                    "messaging.system": "kafka",
                    "messaging.operation.type": operation,
                    "messaging.destination.name": message.topic,
                    "messaging.destination.partition.id": str(message.partition),
                    "messaging.kafka.offset": message.offset,
                    "messaging.batch.message_count": len(messages),
                    **attributes,
                }
            ),
        )
        made.end(end_time=ended_ns)
    return len(seen)


def stage_spans(
    stages: Mapping[str, float], ended_ns: int, parts: Mapping[str, Sequence[str]]
) -> None:
    """Child spans of the current span for the stages of a search (milliseconds): the
    phases (``parts``' keys, in order) laid end to end so the last ends at ``ended_ns``,
    and each phase's parts (which run side by side) as its children, from its start."""
    if not _state["on"]:
        return
    tracer = trace.get_tracer(_TRACER)
    phases = [p for p in parts if p in stages]
    at = ended_ns - round(sum(stages[p] for p in phases) * 1e6)
    for phase in phases:
        made = tracer.start_span(phase, start_time=at)
        inside = trace.set_span_in_context(made)
        for part in parts[phase]:
            if part in stages:
                child = tracer.start_span(part, context=inside, start_time=at)
                child.end(end_time=at + round(stages[part] * 1e6))
        at += round(stages[phase] * 1e6)
        made.end(end_time=at)


def _plain(attributes: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in attributes.items() if v is not None}
