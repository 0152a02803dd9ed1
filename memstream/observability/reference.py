"""``docs/metrics.md``: every series memstream exports, generated from
:mod:`memstream.observability.metrics` (``python -m memstream.observability.reference >
docs/metrics.md``; a test keeps the file and the code in step).
"""

from __future__ import annotations

from dataclasses import dataclass

from prometheus_client.metrics import MetricWrapperBase

from memstream.observability import metrics

__all__ = ["Series", "render", "series", "series_names"]

_SUFFIXES = {
    "counter": ("_total",),
    "histogram": ("_bucket", "_sum", "_count"),
    "info": ("_info",),
    "gauge": ("",),
}

#: Which process exports the series, by the module section it is declared in.
_EXPORTED_BY = {
    "memstream_build": "every process",
    "memstream_consumer_lag_records": "worker, embedder",
    "memstream_stalled_partitions": "worker, embedder",
    "memstream_embeddings": "worker, embedder",
    "memstream_embedding_batch_duration_seconds": "worker, embedder",
    "memstream_publish_to_embedded_seconds": "worker, embedder",
    "memstream_embedding_oldest_pending_age_seconds": "worker, embedder",
}


@dataclass(frozen=True)
class Series:
    """One metric as it appears in the exposition."""

    name: str
    kind: str
    labels: tuple[str, ...]
    help: str

    @property
    def exposed(self) -> tuple[str, ...]:
        """The sample names Prometheus stores for it."""
        return tuple(self.name + suffix for suffix in _SUFFIXES[self.kind])

    @property
    def process(self) -> str:
        if self.name in _EXPORTED_BY:
            return _EXPORTED_BY[self.name]
        if self.name.startswith(("memstream_http", "memstream_search", "memstream_refusals")):
            return "api"
        if self.name == "memstream_events_published":
            return "api"
        return "worker"


def series() -> list[Series]:
    """Every series declared in :mod:`memstream.observability.metrics`, by name."""
    found = []
    for value in vars(metrics).values():
        if not isinstance(value, MetricWrapperBase):
            continue
        (family,) = value.describe()
        labels = tuple(value._labelnames)  # the names declared, before any is used
        found.append(Series(family.name, family.type, labels, family.documentation))
    return sorted(found, key=lambda s: s.name)


def series_names() -> set[str]:
    """Every sample name memstream exports (``_total``, ``_bucket``... included)."""
    return {name for s in series() for name in s.exposed}


def render() -> str:
    lines = [
        "# Metrics reference",
        "",
        "Every series memstream exports, generated from `memstream/observability/metrics.py`",
        "(`python -m memstream.observability.reference > docs/metrics.md`). The API serves its",
        "own at `/metrics` on its port; a worker (`memstream up`, `memstream worker`) and an",
        "embedder (`memstream embed`) on `MEMSTREAM_METRICS_PORT` (default 8788; 0: none).",
        "Each process also exports `prometheus_client`'s process series (`process_*`: CPU,",
        "memory, open files, start time) and Python's (`python_*`). No series carries a user",
        "id. How to scrape and read them: [observability.md](observability.md).",
        "",
        "| series | type | labels | exported by | meaning |",
        "|---|---|---|---|---|",
    ]
    for s in series():
        names = "<br>".join(f"`{n}`" for n in s.exposed)
        labels = ", ".join(f"`{label}`" for label in s.labels) or "none"
        lines.append(f"| {names} | {s.kind} | {labels} | {s.process} | {s.help} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(render(), end="")
