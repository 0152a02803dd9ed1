"""Seeing inside a running memstream: metrics, traces, health and logs.

:mod:`~memstream.streams.telemetry.metrics` names every Prometheus series a process
exports; :mod:`~memstream.streams.telemetry.exposition` serves them (with ``/healthz`` and
``/readyz``) on a worker's or embedder's metrics port;
:mod:`~memstream.streams.telemetry.tracing` carries W3C traces through the log when the
standard ``OTEL_*`` environment asks for them; :mod:`~memstream.streams.telemetry.lag`
works out consumer lag and notices partitions that stall;
:mod:`~memstream.streams.telemetry.readings` reads rates and quantiles back from a scrape.
"""

__all__ = ["exposition", "lag", "metrics", "readings", "reference", "tracing"]
