"""The pieces of observability on their own: stall detection, readings of a scrape,
readiness, the metrics port on a real socket, the API's route labels, tracing's
switch, the log's format and quiet, and the docs and dashboard that name the series."""

from __future__ import annotations

import json
import re
import socket
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from hypothesis import given
from hypothesis import strategies as st
from prometheus_client import REGISTRY
from prometheus_client.parser import text_string_to_metric_families

from memstream.http.metering import Metering
from memstream.observability import metrics, reference, tracing
from memstream.observability.lag import Position, StallWatch, lag_of
from memstream.observability.readings import parse, quantile, rate
from memstream.runtime.exposition import MetricsServer, Readiness, bind_metrics
from memstream.streams.listener import PortInUse
from memstream.testing import free_port

ROOT = Path(__file__).resolve().parents[2]
P = ("memstream.episodes", "memory.messages", 3)


# -- lag and stalls ----------------------------------------------------------------------


def test_a_partition_standing_still_with_records_waiting_is_reported_once() -> None:
    watch = StallWatch(threshold=30)
    assert watch.observe({P: Position(end=50, next=10)}, now=0) == []
    assert watch.observe({P: Position(end=60, next=10)}, now=29) == []
    (stall,) = watch.observe({P: Position(end=60, next=10)}, now=31)
    assert (stall.lag, stall.seconds) == (50, 31)
    assert "memory.messages/3 has not moved for 31 s with 50 records waiting" in str(stall)
    assert watch.observe({P: Position(end=60, next=10)}, now=90) == []  # once per stall
    assert watch.stalled == 1
    assert watch.observe({P: Position(end=60, next=20)}, now=91) == []  # it moved
    assert watch.stalled == 0


def test_the_wait_counts_from_when_records_were_first_seen_waiting() -> None:
    """A partition caught up at one sample and behind at the next has waited since the
    second, not the first: records waiting for their batch are not a stall."""
    watch = StallWatch(threshold=10)
    assert watch.observe({P: Position(end=10, next=10)}, now=0) == []
    assert watch.observe({P: Position(end=85, next=10)}, now=5) == []
    assert watch.observe({P: Position(end=85, next=10)}, now=10) == []  # 5 s, not 10
    (stall,) = watch.observe({P: Position(end=85, next=10)}, now=15)
    assert stall.seconds == 10


@given(st.lists(st.tuples(st.integers(0, 1000), st.floats(0.1, 100)), min_size=1, max_size=40))
def test_an_idle_partition_is_never_stalled_however_long(steps: list[tuple[int, float]]) -> None:
    """No lag is no stall: a partition without traffic stays quiet forever."""
    watch, now = StallWatch(threshold=10), 0.0
    for offset, elapsed in steps:
        now += elapsed
        assert watch.observe({P: Position(end=offset, next=offset)}, now) == []


@given(st.lists(st.integers(1, 50), min_size=1, max_size=40))
def test_a_partition_that_keeps_moving_is_never_stalled(advances: list[int]) -> None:
    watch, at, now = StallWatch(threshold=10), 0, 0.0
    for advance in advances:
        at += advance
        now += 60  # far past the threshold between samples, but it moved each time
        assert watch.observe({P: Position(end=at + 1000, next=at)}, now) == []


def test_lag_is_never_negative() -> None:
    # Tansu reports the start of the last batch as the end: a consumer may be past it
    assert Position(end=5, next=9).lag == 0
    assert lag_of({P: Position(5, 9), ("g", "t", 1): Position(10, 4)}) == 6


# -- readings of a scrape ----------------------------------------------------------------

_BEFORE = """# TYPE memstream_events_applied_total counter
memstream_events_applied_total{type="message"} 100
# TYPE memstream_search_duration_seconds histogram
memstream_search_duration_seconds_bucket{operation="search",le="0.01"} 10
memstream_search_duration_seconds_bucket{operation="search",le="0.1"} 10
memstream_search_duration_seconds_bucket{operation="search",le="+Inf"} 10
memstream_search_duration_seconds_count{operation="search"} 10
memstream_search_duration_seconds_sum{operation="search"} 0.05
"""
_AFTER = """# TYPE memstream_events_applied_total counter
memstream_events_applied_total{type="message"} 300
# TYPE memstream_search_duration_seconds histogram
memstream_search_duration_seconds_bucket{operation="search",le="0.01"} 10
memstream_search_duration_seconds_bucket{operation="search",le="0.1"} 110
memstream_search_duration_seconds_bucket{operation="search",le="+Inf"} 110
memstream_search_duration_seconds_count{operation="search"} 110
memstream_search_duration_seconds_sum{operation="search"} 5.05
"""


def test_rates_and_quantiles_between_two_scrapes() -> None:
    before, after = parse(_BEFORE, at=0), parse(_AFTER, at=10)
    assert rate(before, after, "memstream_events_applied_total") == 20
    assert rate(None, after, "memstream_events_applied_total") is None
    # the 100 searches of the interval all fell in (0.01, 0.1]: p50 halfway through it
    p50 = quantile(0.5, before, after, "memstream_search_duration_seconds", operation="search")
    assert p50 == pytest.approx(0.055)
    # all time: 10 of 110 below 0.01, the rest above
    p05 = quantile(0.05, None, after, "memstream_search_duration_seconds")
    assert p05 == pytest.approx(0.0055)
    assert quantile(0.5, after, after, "memstream_search_duration_seconds") is None


def test_a_counter_that_went_down_counts_from_zero_after_a_restart() -> None:
    restarted = parse(_BEFORE.replace(" 100\n", " 40\n"), at=10)
    assert rate(parse(_AFTER, at=0), restarted, "memstream_events_applied_total") == 4


# -- readiness and the metrics port ------------------------------------------------------


def test_readiness_names_each_failing_check_and_caches_its_answer() -> None:
    calls = []
    now = [0.0]

    def broker() -> str | None:
        calls.append(now[0])
        return "the broker at 127.0.0.1:9 does not answer"

    def store() -> str | None:
        raise OSError("no such folder")

    readiness = Readiness(cache_seconds=2.0, clock=lambda: now[0])
    readiness.add("broker", broker)
    readiness.add("store", store)
    readiness.add("consumer", lambda: None)
    assert readiness.problems() == {
        "broker": "the broker at 127.0.0.1:9 does not answer",
        "store": "OSError: no such folder",
    }
    now[0] = 1.0
    readiness.problems()
    now[0] = 2.5
    readiness.problems()
    assert calls == [0.0, 2.5]


def test_the_metrics_port_serves_metrics_health_and_readiness() -> None:
    metrics.APPLIED.labels("message").inc(0)  # the series exists in this process
    problems: dict[str, str | None] = {"consumer": None}
    readiness = Readiness(cache_seconds=0)
    readiness.add("consumer", lambda: problems["consumer"])
    listener = bind_metrics("127.0.0.1", free_port())
    assert listener is not None
    server = MetricsServer(listener, readiness).start()
    try:
        url = server.address
        text = httpx.get(f"{url}/metrics").text
        names = {s.name for f in text_string_to_metric_families(text) for s in f.samples}
        assert "memstream_events_applied_total" in names
        assert httpx.get(f"{url}/healthz").json() == {"status": "ok"}
        assert httpx.get(f"{url}/readyz").status_code == 200
        problems["consumer"] = "12000 records wait"
        answer = httpx.get(f"{url}/readyz")
        assert answer.status_code == 503
        assert answer.json() == {
            "status": "not ready",
            "reasons": {"consumer": "12000 records wait"},
        }
        assert httpx.get(f"{url}/other").status_code == 404
        # a page whose name was made to resolve here, or another site's page: refused
        rebound = httpx.get(f"{url}/metrics", headers={"Host": "evil.example:8788"})
        assert rebound.status_code == 421 and "Host" in rebound.json()["detail"]
        foreign = httpx.get(f"{url}/readyz", headers={"Origin": "http://evil.example"})
        assert foreign.status_code == 403
        assert httpx.get(f"{url}/healthz", headers={"Host": "localhost"}).status_code == 200
    finally:
        server.stop()


def test_a_busy_metrics_port_is_refused_in_one_sentence_naming_the_setting() -> None:
    assert bind_metrics("127.0.0.1", 0) is None  # 0: no metrics port
    with socket.create_server(("127.0.0.1", 0)) as holder:
        port = holder.getsockname()[1]
        with pytest.raises(PortInUse) as refused:
            bind_metrics("127.0.0.1", port)
    assert str(refused.value) == (
        f"the metrics port {port} on 127.0.0.1 is in use by another program: choose another "
        "with MEMSTREAM_METRICS_PORT (0: no metrics port)"
    )


# -- the API's labels --------------------------------------------------------------------


def test_requests_are_labelled_by_route_template_and_refusals_counted() -> None:
    app = FastAPI()

    @app.get("/v1/memories/{memory_id:path}")
    async def one(memory_id: str) -> dict[str, str]:
        return {"memory_id": memory_id}

    @app.post("/v1/events")
    async def refuse() -> None:
        from fastapi import HTTPException

        raise HTTPException(503, "draining")

    app.add_middleware(Metering)
    client = TestClient(app, base_url="http://127.0.0.1:8787")

    def count(**labels: str) -> float:
        return REGISTRY.get_sample_value("memstream_http_requests_total", labels) or 0.0

    def refusals() -> float:
        labels = {"status": "503", "route": "/v1/events"}
        return REGISTRY.get_sample_value("memstream_refusals_total", labels) or 0.0

    before = count(method="GET", route="/v1/memories/{memory_id}", status="200")
    refused = refusals()
    unmatched = count(method="GET", route="unmatched", status="404")
    for memory_id in ("ep-1", "ep-2", "some/odd id"):
        assert client.get(f"/v1/memories/{memory_id}").status_code == 200
    assert client.post("/v1/events").status_code == 503
    assert client.get("/no/such/path/123").status_code == 404
    assert count(method="GET", route="/v1/memories/{memory_id}", status="200") == before + 3
    assert refusals() == refused + 1
    assert count(method="GET", route="unmatched", status="404") == unmatched + 1


def test_dead_letters_are_counted_by_reason_class_not_by_text() -> None:
    assert metrics.dead_letter_reason("cannot be applied: KeyError: 'x'") == "unappliable"
    assert metrics.dead_letter_reason("user_id: required; content: required") == "invalid_event"


# -- tracing's switch --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("environ", "wanted"),
    [
        ({}, False),
        ({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"}, True),
        ({"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://127.0.0.1:4318/v1/traces"}, True),
        ({"OTEL_TRACES_EXPORTER": "otlp"}, True),
        ({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://x:4318", "OTEL_SDK_DISABLED": "true"}, False),
        ({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://x:4318", "OTEL_TRACES_EXPORTER": "none"}, False),
    ],
)
def test_tracing_is_on_only_when_the_opentelemetry_environment_asks(
    environ: dict[str, str], wanted: bool
) -> None:
    assert tracing.wanted(environ) is wanted


def test_with_tracing_off_records_carry_no_headers_and_no_spans_are_made() -> None:
    assert not tracing.enabled()
    assert tracing.record_headers() is None
    with tracing.span("search") as current:
        assert current is None
    assert tracing.message_spans([object()], 0, 1) == 0


# -- logs --------------------------------------------------------------------------------

_LOGGING = """
import logging
from memstream.observability.logs import configure_logging
configure_logging("INFO", "{format}")
logging.getLogger("memstream.runtime.worker").info("ready: %s", "HTTP API on http://x")
logging.getLogger("faust.transport.drivers.aiokafka").error(
    "Stream has not started processing %r (started %s).", "TP(topic='memory.lifecycle')", "5 min"
)
logging.getLogger("faust.transport.drivers.aiokafka").error(
    "Aiokafka has not sent fetch request for %r since start (started %s)",
    "TP(topic='memory.documents', partition=7)", "14.00 seconds ago",
)
logging.getLogger("aiokafka.consumer.group_coordinator").warning(
    "Heartbeat failed for group %s because it is rebalancing", "memstream"
)
logging.getLogger("aiokafka.consumer.subscription_state").info("Updating subscribed topics")
logging.getLogger("mode.supervisors").info("[^--Supervisor]: Starting...")
logging.getLogger("faust.transport.drivers.aiokafka").error("Broker stopped responding")
"""


def _log_lines(log_format: str) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-c", _LOGGING.replace("{format}", log_format)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return done.stderr.splitlines()


def test_logs_are_quiet_about_idle_partitions_and_library_chatter() -> None:
    lines = _log_lines("text")
    assert len(lines) == 2, lines
    assert re.search(r" INFO memstream\.runtime\.worker: ready: HTTP API on http://x$", lines[0])
    assert " ERROR faust.transport.drivers.aiokafka: Broker stopped responding" in lines[1]


def test_json_logs_are_one_object_per_line() -> None:
    first, second = (json.loads(line) for line in _log_lines("json"))
    assert first["level"] == "INFO" and first["logger"] == "memstream.runtime.worker"
    assert first["message"] == "ready: HTTP API on http://x" and "time" in first
    assert second["level"] == "ERROR"


# -- what names the series ---------------------------------------------------------------


def test_the_metrics_reference_lists_every_series() -> None:
    assert (ROOT / "docs" / "metrics.md").read_text() == reference.render(), (
        "docs/metrics.md is stale: run "
        "python -m memstream.observability.reference > docs/metrics.md"
    )


def test_every_series_follows_prometheus_naming() -> None:
    for s in reference.series():
        assert re.fullmatch(r"memstream_[a-z0-9_]+", s.name), s.name
        if s.kind == "histogram":
            assert s.name.endswith("_seconds"), s.name  # base units
        assert "user_id" not in s.labels and "user" not in s.labels


def test_every_query_of_the_dashboard_names_a_series_that_exists() -> None:
    dashboard = json.loads((ROOT / "deploy" / "grafana" / "memstream-dashboard.json").read_text())
    exposed = reference.series_names()
    queries = [t["expr"] for panel in dashboard["panels"] for t in panel["targets"]]
    assert len(queries) >= 20
    for query in queries:
        named = set(re.findall(r"\bmemstream_[a-z0-9_]+", query))
        assert named, query
        assert named <= exposed, f"{query}: {named - exposed} is no series memstream exports"
