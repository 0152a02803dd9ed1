"""Seeing inside real processes: a ``memstream up`` (API child and worker) and a second
``memstream worker`` on the same broker and data, traced to an OTLP/HTTP endpoint on
loopback.

What an operator relies on is checked on what the processes serve: ``/metrics`` parses
with ``prometheus_client``'s parser; consumer lag rises while records wait and falls to
0; the applied counters of both workers add up to what was published; the search
histogram counts the searches made; ``/readyz`` and ``/healthz`` answer on every port;
one published message yields spans of the API, the worker's application and the
embedding under one trace id; start-up takes at most 15 lines ending in ``ready``; and
nothing is logged at WARNING or above while the deployment is healthy, idle partitions
included (faust's stall checks run on ``stall_seconds``, here 10 s, instead of 5
minutes, so its checks of idle partitions fire many times within the test).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from memstream.testing import SpanReceiver, WorkerProcess, wait_until

pytestmark = [pytest.mark.broker, pytest.mark.slow]

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


def scrape(url: str) -> Samples:
    """Every sample at ``url``/metrics, parsed by prometheus_client's own parser."""
    text = httpx.get(f"{url}/metrics", timeout=10).text
    return {
        (s.name, frozenset(s.labels.items())): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def total(samples: Samples, name: str, **labels: str) -> float:
    wanted = set(labels.items())
    return sum(v for (n, got), v in samples.items() if n == name and wanted <= got)


def lag(url: str) -> float:
    return total(scrape(url), "memstream_consumer_lag_records")


def messages(count: int, tag: str) -> list[dict[str, Any]]:
    return [
        {
            "type": "message",
            "event_id": f"{tag}-{i}",
            "user_id": f"user-{i % 16}",
            "session_id": f"s-{i % 16}",
            "role": "user",
            "content": f"note {i} of {tag}: the greenhouse tomatoes need water on Tuesdays",
        }
        for i in range(count)
    ]


def warnings_in(log: str) -> list[str]:
    return [line for line in log.splitlines() if re.search(r" (WARNING|ERROR|CRITICAL) ", line)]


def tracing_env(endpoint: str) -> dict[str, str]:
    """Spans exported to ``endpoint`` (OTLP/HTTP), every 200 ms."""
    return {"OTEL_EXPORTER_OTLP_ENDPOINT": endpoint, "OTEL_BSP_SCHEDULE_DELAY": "200"}


@contextmanager
def deployment(tmp_path: Path, endpoint: str) -> Iterator[tuple[WorkerProcess, WorkerProcess]]:
    env = {
        "MEMSTREAM_EMBEDDER": "minilm",
        # records wait up to 6 s for a full batch: lag is seen before it is applied
        "MEMSTREAM_BATCH_WITHIN_SECONDS": "6",
        "MEMSTREAM_STALL_SECONDS": str(STALL_SECONDS),
        **tracing_env(endpoint),
    }
    data = tmp_path / "data"
    up = WorkerProcess(data, env=env, log_path=tmp_path / "up.log")
    second = WorkerProcess(data, env=env, log_path=tmp_path / "second.log", command=("worker",))
    try:
        up.start().wait_serving()
        second.kafka = up.bootstrap
        second.start().wait_ready()
        yield up, second
    finally:
        second.stop()
        up.stop()


#: faust's stall checks and memstream's stall watch run on this (default 120 s)
STALL_SECONDS = 10


def test_metrics_traces_health_and_logs_of_a_deployment(tmp_path: Path) -> None:
    started = time.monotonic()
    with SpanReceiver() as receiver, deployment(tmp_path, receiver.endpoint) as (up, second):
        startup = up.log().splitlines()
        assert len(startup) <= 15, "\n".join(startup)
        ready = [line for line in startup if " INFO memstream.runtime.worker: ready: " in line]
        assert len(ready) == 1 and f"HTTP API on {up.api_url}" in ready[0], startup
        assert f"metrics on {up.metrics_url}/metrics" in ready[0]

        workers = (up.metrics_url, second.metrics_url)
        for url in (up.api_url, *workers):
            assert httpx.get(f"{url}/healthz", timeout=5).status_code == 200
            wait_until(lambda url=url: httpx.get(f"{url}/readyz", timeout=5).status_code == 200)

        # one message in a trace of the caller's own: the API continues it
        trace_id = uuid.uuid4().hex
        traced = messages(1, "traced")
        answer = httpx.post(
            f"{up.api_url}/v1/events",
            json=traced,
            headers={"traceparent": f"00-{trace_id}-{uuid.uuid4().hex[:16]}-01"},
        )
        assert answer.status_code == 202, answer.text

        # and one from the command line, which starts a trace of its own
        cli = subprocess.run(
            [
                sys.executable, "-m", "memstream", "publish", "--data", str(up.data),
                "--kafka", up.bootstrap, "--user", "user-1", "--session", "s-cli",
                "traced from the command line",
            ],
            capture_output=True, text=True, timeout=60,
            env={**os.environ, **tracing_env(receiver.endpoint)},
        )  # fmt: skip
        assert cli.returncode == 0 and "accepted 1 of 1" in cli.stdout, cli.stderr

        published = messages(400, "bulk")
        for start in range(0, len(published), 100):
            answer = httpx.post(f"{up.api_url}/v1/events", json=published[start : start + 100])
            assert answer.status_code == 202, answer.text

        # the records wait for their batch: lag shows them, then falls to 0
        wait_until(lambda: sum(lag(url) for url in workers) > 0, timeout=20)
        wait_until(lambda: sum(lag(url) for url in workers) == 0, timeout=60)
        applied = [scrape(url) for url in workers]
        assert sum(total(s, "memstream_events_applied_total", type="message") for s in applied) == (
            len(published) + len(traced) + 1  # and the command line's
        )
        assert sum(total(s, "memstream_apply_batch_duration_seconds_count") for s in applied) >= 2

        searches = 7
        for _ in range(searches):
            found = httpx.post(
                f"{up.api_url}/v1/search",
                json={"user_id": "user-3", "query": "greenhouse tomatoes"},
            )
            assert found.status_code == 200, found.text
        api = scrape(up.api_url)
        assert total(api, "memstream_search_duration_seconds_count", operation="search") == searches
        assert total(api, "memstream_searches_total", operation="search", outcome="ok") == searches
        assert total(api, "memstream_http_requests_total", route="/v1/search") == searches
        # the command line's message went through the running server, as a client of it
        assert total(api, "memstream_events_published_total", type="message", door="api") == (
            len(published) + len(traced) + 1
        )
        for samples in (api, *applied):
            assert total(samples, "memstream_build_info") == 1

        def traced_spans() -> set[tuple[str, str]]:
            return {(name, service) for t, name, service in receiver.spans if t == trace_id}

        wait_until(
            lambda: (
                {"process memory.messages", "embed memory.messages"}
                <= {name for name, _ in traced_spans()}
            ),
            timeout=60,
        )
        spans = traced_spans()
        assert ("send memory.messages", "memstream-api") in spans, spans
        assert ("POST /v1/events", "memstream-api") in spans, spans
        # named as OpenTelemetry's GenAI conventions name memory operations, too
        assert ("create_memory", "memstream-api") in spans, spans
        assert ("search_memory", "memstream-api") in {(n, s) for _, n, s in receiver.spans}
        assert {service for name, service in spans if name.endswith("memory.messages")} >= {
            "memstream-api",
            "memstream-worker",
        }
        (cli_trace,) = {t for t, name, service in receiver.spans if service == "memstream-cli"}
        cli_spans = {(name, service) for t, name, service in receiver.spans if t == cli_trace}
        assert ("publish", "memstream-cli") in cli_spans, cli_spans
        assert ("POST /v1/events", "memstream-api") in cli_spans, cli_spans
        wait_until(
            lambda: (
                ("process memory.messages", "memstream-worker")
                in {(n, s) for t, n, s in receiver.spans if t == cli_trace}
            )
        )

        # the live view, once: every process ready, the work done
        view = subprocess.run(
            [
                sys.executable, "-m", "memstream", "top", "--once", "--every", "0.5",
                "--api", up.api_url, "--metrics", up.metrics_url, "--metrics", second.metrics_url,
            ],
            capture_output=True, text=True, timeout=60, env={**os.environ, "COLUMNS": "120"},
        )  # fmt: skip
        assert view.returncode == 0, view.stderr
        assert view.stdout.count(" ready ") == 3, view.stdout
        (row,) = [line for line in view.stdout.splitlines() if "events applied /s" in line]
        in_all = int(re.findall(r"[\d,]+", row)[-1].replace(",", ""))
        assert in_all >= len(published) + len(traced)  # messages, and their vectors
        assert re.search(r"\d+ partitions held, [\d,]+ records waiting in all", view.stdout)

        # idle partitions all along, and at least three stall thresholds since the start:
        # faust's checks of idle partitions have fired (as they did after 5 minutes with
        # its defaults), and nothing was logged
        time.sleep(max(0.0, started + 3 * STALL_SECONDS - time.monotonic()))
        for process in (up, second):
            assert warnings_in(process.log()) == [], process.log()[-3000:]
