"""The console's last hour: the log's end offsets, what is applied, and this server's
search latency, sampled every ``console_sample_seconds`` by a task of the API process.

A sample costs one look at the broker (end offsets) and one read of the checkpoints
table; the health page and its charts read the samples, so opening the page (or leaving
it open) asks the broker nothing. Each API replica keeps its own hour.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import math
import time
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from prometheus_client import generate_latest

from memstream.observability.deployment_sample import Offsets, Sample
from memstream.observability.readings import Scrape, parse, quantile

__all__ = ["Samples", "sampling"]

log = logging.getLogger(__name__)


@dataclass
class Samples:
    """The last hour of samples (newest last)."""

    every_seconds: float
    kept: deque[Sample] = field(default_factory=deque)
    _scrape: Scrape | None = None

    def __post_init__(self) -> None:
        self.kept = deque(maxlen=math.ceil(3600 / self.every_seconds) + 1)

    def latest(self) -> Sample | None:
        return self.kept[-1] if self.kept else None

    def add(
        self, at: datetime, ends: Offsets | None, applied: Offsets, log_epoch: str | None = None
    ) -> Sample:
        """Record a sample (``ends`` None: the broker did not answer; the last known
        ends are kept), with this process's search rate and latency since the last."""
        scrape = parse(generate_latest().decode(), time.monotonic())
        before, self._scrape = self._scrape, scrape
        rate = p50 = p99 = None
        if before is not None:
            span = scrape.at - before.at
            done = scrape.total("memstream_searches_total", operation="search") - before.total(
                "memstream_searches_total", operation="search"
            )
            rate = done / span if span > 0 else None
            series = "memstream_search_duration_seconds"
            if done > 0:
                p50 = _ms(quantile(0.5, before, scrape, series, operation="search"))
                p99 = _ms(quantile(0.99, before, scrape, series, operation="search"))
        last = self.latest()
        known = ends if ends is not None else (last.ends if last is not None else {})
        epoch = log_epoch if ends is not None else (last.log_epoch if last is not None else None)
        sample = Sample(at, dict(known), applied, rate, p50, p99, ends is not None, epoch)
        self.kept.append(sample)
        return sample

    def series(self) -> dict[str, Any]:
        """The samples as columns for the charts: times (seconds since the epoch), lag in
        all and per partition of each topic, ingest (records a second), search rate and
        latency."""
        samples = list(self.kept)
        times = [s.at.timestamp() for s in samples]
        ingest: list[float | None] = [None]
        for before, after in itertools.pairwise(samples):
            span = (after.at - before.at).total_seconds()
            grown = sum(after.ends.values()) - sum(before.ends.values())
            ingest.append(grown / span if span > 0 else None)
        keys = sorted({k for s in samples for k in s.ends})
        return {
            "times": times,
            "lag": [s.lag() for s in samples],
            "partitions": {
                f"{topic}/{partition}": [
                    max(0, s.ends.get((topic, partition), 0) - s.applied.get((topic, partition), 0))
                    for s in samples
                ]
                for topic, partition in keys
            },
            "ingest_per_second": ingest[: len(samples)],
            "searches_per_second": [s.searches_per_second for s in samples],
            "search_p50_ms": [s.search_p50_ms for s in samples],
            "search_p99_ms": [s.search_p99_ms for s in samples],
        }


def _ms(seconds: float | None) -> float | None:
    return None if seconds is None else round(seconds * 1000, 2)


@contextlib.asynccontextmanager
async def sampling(samples: Samples, take: Callable[[], Awaitable[None]]) -> AsyncIterator[None]:
    """Run ``take`` (one sample) every ``samples.every_seconds`` while the context lasts."""

    async def loop() -> None:
        while True:
            try:
                await take()
            except Exception:  # a sample missed is a gap in a chart, not an outage
                log.debug("console sample failed", exc_info=True)
            await asyncio.sleep(samples.every_seconds)

    task = asyncio.create_task(loop(), name="console-samples")
    try:
        yield
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
