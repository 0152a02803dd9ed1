"""The HTTP API: a route table over the operations layer, its error contract, the server
process of ``memstream serve`` and the API child of ``memstream up``.

Its modules, named in ``__all__``, are imported by name; importing the package alone
loads none of them."""

from __future__ import annotations

__all__ = [
    "app",
    "contract",
    "process",
    "serve",
    "timing",
]
