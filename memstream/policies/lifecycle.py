"""The knobs of the lifecycle jobs, with their defaults: the one place those defaults
live (:class:`~memstream.settings.Settings` takes its own from here, and
:func:`memstream.runtime.assembly.lifecycle_policy` builds a policy from the settings)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import timedelta

__all__ = ["DEFAULT_DECAY_RATES", "DEFAULT_PRUNE_THRESHOLD", "LifecyclePolicy"]

#: How fast confidence decays a day without use, by kind (see :mod:`.decay`).
DEFAULT_DECAY_RATES: Mapping[str, float] = {
    "fact": 0.02,
    "preference": 0.01,
    "procedure": 0.005,
    "opinion": 0.03,
    "reflection": 0.02,
}
DEFAULT_PRUNE_THRESHOLD = 0.05


@dataclass(frozen=True)
class LifecyclePolicy:
    """Session gaps, decay rates and thresholds, and how many sessions a model
    consolidates at once."""

    session_gap: timedelta = timedelta(minutes=30)
    session_idle: timedelta = timedelta(minutes=30)
    decay_rates: dict[str, float] = field(default_factory=lambda: dict(DEFAULT_DECAY_RATES))
    prune_threshold: float = DEFAULT_PRUNE_THRESHOLD
    weak_margin: float = 0.1
    model_concurrency: int = 4
