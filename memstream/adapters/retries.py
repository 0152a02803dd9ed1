"""Calling a remote API with retries: exponential backoff after a rate limit, a timeout,
a conflict, a server error or a lost connection; any other error, or the last attempt's,
is raised as it came. Shared by the OpenAI embedder and the language-model clients (the
SDKs' own retries are off, so that each retry is counted and logged here)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TypeVar

__all__ = ["is_retryable", "with_retries"]

log = logging.getLogger(__name__)

R = TypeVar("R")

#: HTTP statuses worth another attempt: timeouts, conflicts, rate limits (and 5xx).
_RETRY_STATUSES = frozenset({408, 409, 429})


def is_retryable(exc: Exception) -> bool:
    """Whether an SDK error is worth another attempt."""
    status = getattr(exc, "status_code", None)
    if isinstance(status, int):
        return status in _RETRY_STATUSES or status >= 500
    # No HTTP status: a connection error or a timeout (both SDKs name them so).
    return type(exc).__name__ in ("APIConnectionError", "APITimeoutError")


def with_retries(
    call: Callable[[], R],
    what: str,
    errors: type[Exception],
    max_retries: int,
    backoff_seconds: float,
    sleep: Callable[[float], None],
) -> R:
    """``call()``, retried up to ``max_retries`` times on retryable ``errors``, waiting
    ``backoff_seconds * 2**attempt`` in between."""
    for attempt in range(max_retries + 1):
        try:
            return call()
        except errors as exc:
            if not is_retryable(exc) or attempt == max_retries:
                raise
            delay = backoff_seconds * 2**attempt
            log.warning("%s failed (%s); retrying in %.1f s", what, exc, delay)
            sleep(delay)
    raise AssertionError("unreachable")
