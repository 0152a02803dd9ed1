"""The knobs of the lifecycle jobs, with their defaults: the one place those defaults
live (:class:`~memstream.settings.Settings` takes its own from here, and
``streams.components.lifecycle_policy`` builds a policy from the settings)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta

from memstream.policies.decay import DEFAULT_DECAY_RATES, DEFAULT_PRUNE_THRESHOLD

__all__ = ["LifecyclePolicy"]


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
