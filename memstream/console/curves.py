"""The memory page's confidence curve: where decay takes a memory's confidence from
the day it was last used, with the reinforcement its accesses give, drawn as an SVG
polyline (pure; the page prints the points)."""

from __future__ import annotations

from memstream.policies.decay import decayed_confidence

__all__ = ["confidence_curve"]

#: the drawing's size (SVG user units)
WIDTH = 360
HEIGHT = 120


def confidence_curve(
    written: float, rate: float, days_since_used: float, access_count: int, ahead: float = 60.0
) -> dict[str, object]:
    """Points of the confidence from last use (day 0) to ``ahead`` days after today,
    with where today is: ``points`` (an SVG ``points`` attribute), ``today_x``, the
    ``days`` it spans and ``today`` (the value now)."""
    span = max(days_since_used + ahead, 1.0)
    steps = 48
    points = []
    for i in range(steps + 1):
        day = span * i / steps
        value = decayed_confidence(written, rate, day, access_count)
        points.append(f"{WIDTH * i / steps:.1f},{HEIGHT * (1 - value):.1f}")
    return {
        "points": " ".join(points),
        "today_x": round(WIDTH * days_since_used / span, 1),
        "days": round(span, 1),
        "today": decayed_confidence(written, rate, days_since_used, access_count),
        "width": WIDTH,
        "height": HEIGHT,
    }
