"""Waiting for a write to show: memstream accepts an event at once and its worker
applies it shortly after, and a framework's memory interface promises that a read
after a write sees it."""

from __future__ import annotations

import time
from collections.abc import Callable

__all__ = ["until_visible"]


def until_visible(done: Callable[[], bool], seconds: float, what: str) -> None:
    """Return once ``done()`` holds; raise TimeoutError naming ``what`` after ``seconds``."""
    deadline = time.monotonic() + seconds
    pause = 0.02
    while not done():
        if time.monotonic() > deadline:
            raise TimeoutError(
                f"memstream accepted {what} but did not show it within {seconds:g} s: "
                "is its worker running?"
            )
        time.sleep(pause)
        pause = min(pause * 1.5, 0.2)
