"""Running memstream: the faust application, the worker process of ``memstream up``,
the assembly of the parts settings choose, the embedder process, the low-priority
lanes and each process's health watch.

Its modules, named in ``__all__``, are imported by name; importing the package alone
loads none of them."""

from __future__ import annotations

__all__ = [
    "app",
    "assembly",
    "embedder_process",
    "exposition",
    "health_watch",
    "lanes",
    "lifecycle_timer",
    "worker",
]
