"""The ``Server-Timing`` header of an answer: where the server's time went."""

from __future__ import annotations

from collections.abc import Mapping

__all__ = ["server_timing"]


def server_timing(stages: Mapping[str, float], total_ms: float) -> str:
    """``name;dur=ms`` for each stage, then ``total`` (W3C Server Timing)."""
    parts = [f"{name};dur={ms:.2f}" for name, ms in stages.items()]
    return ", ".join([*parts, f"total;dur={total_ms:.2f}"])
