"""Exactly-once delivery: one writer per partition (fencing on the claims the storage
keeps), and the bookkeeping of what a batch applied.

Its modules, named in ``__all__``, are imported by name; importing the package alone
loads none of them."""

from __future__ import annotations

__all__ = [
    "bookkeeping",
    "fencing",
]
