"""The pure policies the jobs and reads apply: forgetting curves (decay), coldness (what
to archive), the lifecycle knobs and their defaults, and the scope rule every read
filters by, and who may knock at a door (Host and Origin). Time is passed in.

Its modules, named in ``__all__``, are imported by name; importing the package alone
loads none of them."""

from __future__ import annotations

__all__ = [
    "choices",
    "coldness",
    "decay",
    "doors",
    "lifecycle",
    "limits",
    "linking",
    "ranking_weights",
    "scope",
]
