"""Seeing inside a running memstream: metrics, traces, logs and lag.

:mod:`~memstream.observability.metrics` names every Prometheus series a process
exports; :mod:`~memstream.runtime.exposition` serves them (with ``/healthz`` and
``/readyz``) on a worker's or embedder's metrics port;
:mod:`~memstream.observability.tracing` carries W3C traces through the log when the
standard ``OTEL_*`` environment asks for them; :mod:`~memstream.observability.lag`
works out consumer lag and notices partitions that stall;
:mod:`~memstream.observability.readings` reads rates and quantiles back from a scrape;
:mod:`~memstream.observability.deployment_sample` is one look at the log's ends and what
is applied (the console's samples);
:mod:`~memstream.observability.logs` is how a long-running process logs.

Its modules, named in ``__all__``, are imported by name; importing the package alone
loads none of them."""

from __future__ import annotations

__all__ = [
    "deployment_sample",
    "lag",
    "logs",
    "metrics",
    "readings",
    "reference",
    "tracing",
]
