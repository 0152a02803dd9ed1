"""Reading a deployment from its metrics (pure): samples, rates between two scrapes, and
quantiles of histograms, as PromQL's ``rate`` and ``histogram_quantile`` work them out.
``memstream top`` shows what these find.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from prometheus_client.parser import text_string_to_metric_families

__all__ = ["Samples", "Scrape", "merged", "parse", "quantile", "rate"]

#: (sample name, sorted labels) -> value
Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


@dataclass(frozen=True)
class Scrape:
    """What one endpoint answered at ``at`` (seconds, any monotonic clock)."""

    at: float
    samples: Samples

    def total(self, name: str, **labels: str) -> float:
        """The sum of ``name``'s samples whose labels include ``labels``."""
        wanted = set(labels.items())
        return sum(v for (n, got), v in self.samples.items() if n == name and wanted <= set(got))

    def by(self, name: str, label: str) -> dict[str, float]:
        """``name``'s samples summed by the value of ``label``."""
        found: dict[str, float] = {}
        for (n, got), v in self.samples.items():
            if n == name:
                key = dict(got).get(label, "")
                found[key] = found.get(key, 0.0) + v
        return found

    def labelled(self, name: str) -> list[tuple[dict[str, str], float]]:
        return [(dict(got), v) for (n, got), v in self.samples.items() if n == name]


def parse(text: str, at: float) -> Scrape:
    """A scrape of Prometheus' text format (``prometheus_client``'s parser)."""
    samples: Samples = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            samples[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return Scrape(at, samples)


def merged(scrapes: Iterable[Scrape], at: float) -> Scrape:
    """Several processes' scrapes as one (their samples summed, as PromQL's ``sum``)."""
    samples: Samples = {}
    for scrape in scrapes:
        for key, value in scrape.samples.items():
            samples[key] = samples.get(key, 0.0) + value
    return Scrape(at, samples)


def rate(before: Scrape | None, after: Scrape, name: str, **labels: str) -> float | None:
    """Per second increase of a counter between two scrapes (None without a before; a
    counter that went down restarted, and counts from 0)."""
    if before is None or after.at <= before.at:
        return None
    now, then = after.total(name, **labels), before.total(name, **labels)
    grown = now - then if now >= then else now
    return grown / (after.at - before.at)


def quantile(
    q: float, before: Scrape | None, after: Scrape, histogram: str, **labels: str
) -> float | None:
    """The ``q`` quantile of what ``histogram`` observed between two scrapes (all time
    without a before), interpolated in its bucket; None when it observed nothing."""
    buckets = _buckets(after, histogram, labels)
    if before is not None:
        earlier = _buckets(before, histogram, labels)
        if all(earlier.get(le, 0.0) <= count for le, count in buckets.items()):
            buckets = {le: count - earlier.get(le, 0.0) for le, count in buckets.items()}
    return _bucket_quantile(q, buckets)


def _buckets(scrape: Scrape, histogram: str, labels: Mapping[str, str]) -> dict[float, float]:
    found: dict[float, float] = {}
    wanted = set(labels.items())
    for (name, got), value in scrape.samples.items():
        if name != f"{histogram}_bucket" or not wanted <= set(got):
            continue
        le = float(dict(got)["le"])
        found[le] = found.get(le, 0.0) + value
    return found


def _bucket_quantile(q: float, buckets: Mapping[float, float]) -> float | None:
    if not buckets:
        return None
    bounds = sorted(buckets)
    count = buckets[bounds[-1]]
    if count <= 0:
        return None
    rank = q * count
    lower, below = 0.0, 0.0
    for bound in bounds:
        cumulative = buckets[bound]
        if cumulative >= rank:
            if math.isinf(bound):
                return lower  # in the open bucket: its lower edge, as Prometheus says
            inside = cumulative - below
            share = (rank - below) / inside if inside > 0 else 1.0
            return lower + (bound - lower) * share
        lower, below = bound, cumulative
    return lower
