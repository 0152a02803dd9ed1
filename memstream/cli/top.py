"""``memstream top``: a live view of one deployment, read from its metrics.

It scrapes the API's ``/metrics`` and each worker's and embedder's metrics port every
``--every`` seconds and shows, with ``rich``: readiness of each process, ingest
(events applied per second), embeddings per second and the embedding backlog, search
latency (p50 and p99 over the last interval), refusals and dead letters, lifecycle job
runs, and the lag of each partition. Rates and quantiles are worked out between two
scrapes (:mod:`memstream.observability.readings`), as PromQL's ``rate`` and
``histogram_quantile`` would. ``--once`` prints one view (after two scrapes) and exits.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

import httpx
from rich.console import Console, Group
from rich.live import Live
from rich.panel import Panel
from rich.table import Table

from memstream.observability.readings import Scrape, merged, parse, quantile, rate

__all__ = ["Endpoint", "run_top", "view"]


@dataclass
class Endpoint:
    """One process's metrics: what it answered last, and whether it is ready."""

    url: str
    last: Scrape | None = None
    before: Scrape | None = None
    ready: str = "?"

    def scrape(self, client: httpx.Client) -> None:
        try:
            answer = client.get(f"{self.url}/metrics")
            answer.raise_for_status()
            ready = client.get(f"{self.url}/readyz")
        except httpx.HTTPError as exc:
            self.ready = f"unreachable ({type(exc).__name__})"
            return
        self.before, self.last = self.last, parse(answer.text, time.monotonic())
        self.ready = "ready" if ready.status_code == 200 else _reasons(ready)


def _reasons(answer: httpx.Response) -> str:
    try:
        reasons = answer.json().get("reasons", {})
    except ValueError:
        return f"not ready ({answer.status_code})"
    return "not ready: " + "; ".join(f"{k}: {v}" for k, v in reasons.items())


def _f(value: float | None, unit: str = "", scale: float = 1.0, digits: int = 1) -> str:
    return "-" if value is None else f"{value * scale:,.{digits}f}{unit}"


def view(endpoints: Sequence[Endpoint]) -> Group:
    """The view of one moment: a table of processes, one of rates, one of partitions."""
    answered = [e for e in endpoints if e.last is not None]
    now = time.monotonic()
    last = merged([e.last for e in answered if e.last], now)
    before = None
    if answered and all(e.before is not None for e in answered):
        before = merged([e.before for e in answered if e.before], now - _span(answered))

    processes = Table(title="processes", expand=True)
    for column in ("metrics", "role", "readiness"):
        processes.add_column(column)
    for e in endpoints:
        processes.add_row(e.url, _role(e), e.ready)

    work = Table(title="work", expand=True)
    work.add_column("what")
    work.add_column("now", justify="right")
    work.add_column("in all", justify="right")
    counters = {
        "events applied /s": "memstream_events_applied_total",
        "embeddings /s": "memstream_embeddings_total",
        "searches /s": "memstream_searches_total",
        "refusals /s": "memstream_refusals_total",
        "dead letters /s": "memstream_dead_letters_total",
        "lifecycle runs /s": "memstream_lifecycle_runs_total",
    }
    for name, series in counters.items():
        work.add_row(name, _f(rate(before, last, series)), f"{last.total(series):,.0f}")
    p50 = quantile(0.5, before, last, "memstream_search_duration_seconds", operation="search")
    p99 = quantile(0.99, before, last, "memstream_search_duration_seconds", operation="search")
    work.add_row("search p50 / p99", f"{_f(p50, ' ms', 1000)} / {_f(p99, ' ms', 1000)}", "")
    gauges = {
        "memories without a vector": last.total("memstream_embedding_lag_memories"),
        "stalled partitions": last.total("memstream_stalled_partitions"),
        "lifecycle runs failed": last.total("memstream_lifecycle_runs_total", outcome="failed"),
    }
    for name, value in gauges.items():
        work.add_row(name, "", f"{value:,.0f}")

    lag = Table(title="partitions with records waiting (most first)", expand=True)
    for column in ("group", "topic", "partition", "lag"):
        lag.add_column(column, justify="right" if column in ("partition", "lag") else "left")
    partitions = sorted(last.labelled("memstream_consumer_lag_records"), key=_most_waiting)
    for labels, waiting in [p for p in partitions if p[1] > 0][:24]:
        lag.add_row(
            labels.get("messaging_consumer_group_name", ""),
            labels.get("messaging_destination_name", ""),
            labels.get("messaging_destination_partition_id", ""),
            f"{waiting:,.0f}",
        )
    total = sum(v for _, v in partitions)
    lag.caption = f"{len(partitions)} partitions held, {total:,.0f} records waiting in all" + (
        "" if total else ": all caught up"
    )
    return Group(processes, Panel(work), lag)


def _role(endpoint: Endpoint) -> str:
    if endpoint.last is not None:
        for labels, _ in endpoint.last.labelled("memstream_build_info"):
            return labels.get("role", "?")
    return "?"


def _most_waiting(item: tuple[dict[str, str], float]) -> tuple[float, str, int]:
    labels, waiting = item
    number = labels.get("messaging_destination_partition_id", "0")
    topic = labels.get("messaging_destination_name", "")
    return -waiting, topic, int(number) if number.isdigit() else 0


def _span(endpoints: Sequence[Endpoint]) -> float:
    spans = [e.last.at - e.before.at for e in endpoints if e.last and e.before]
    return max(spans) if spans else 0.0


def run_top(urls: Sequence[str], every: float, once: bool, console: Console | None = None) -> int:
    """Show the view until Ctrl-C (``once``: print it once, after two scrapes)."""
    console = console or Console()
    endpoints = [Endpoint(url.rstrip("/")) for url in urls]
    with httpx.Client(timeout=max(1.0, every)) as client:
        if once:
            for _ in range(2):
                for e in endpoints:
                    e.scrape(client)
                time.sleep(min(every, 1.0))
            console.print(view(endpoints))
            return 0
        with Live(console=console, refresh_per_second=1, screen=False) as live:
            while True:
                for e in endpoints:
                    e.scrape(client)
                live.update(view(endpoints))
                time.sleep(every)
