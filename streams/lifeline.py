"""Child processes that die with their parent, even when the parent is SIGKILLed.

A child calls :func:`die_with_parent` first thing: on Linux the kernel then sends it
SIGKILL when the parent dies (``PR_SET_PDEATHSIG``); a parent that died before the call
is noticed by its changed parent pid. memstream's children (the HTTP API of ``memstream
up``, replay's decode workers and log reader) never outlive the process that started
them, and so never keep a port, a lock or a half-written folder.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys

__all__ = ["die_with_parent"]

_PR_SET_PDEATHSIG = 1


def die_with_parent(parent_pid: int) -> None:
    """Make this process exit when ``parent_pid`` (its parent) dies."""
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent_pid:  # the parent died before the line above
        os._exit(1)
