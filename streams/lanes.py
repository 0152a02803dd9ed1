"""The thread the embedding lane runs on, at a lower CPU priority than everything else.

Embedding is the heaviest work memstream does and nobody waits on it directly: at 500
messages/s it would take every cycle of a 2-core machine, the ones searches and ingest
need. So the embedder runs on a thread of its own whose nice value is raised
(``embed_niceness``, 10 by default); the threads it creates inherit it, so the model made
on that thread computes on threads of the same low priority. The kernel then gives the
lane what searches, ingest and the broker leave idle, and all of it when they are idle.

Linux keeps a nice value per thread, so the rest of the process keeps its own.
"""

from __future__ import annotations

import logging
import os
import threading
from concurrent.futures import ThreadPoolExecutor

__all__ = ["background_lane", "lower_priority"]

log = logging.getLogger(__name__)


def lower_priority(niceness: int) -> None:
    """Raise the calling thread's nice value by ``niceness`` (0: leave it)."""
    if niceness <= 0:
        return
    me = threading.get_native_id()
    try:
        os.setpriority(os.PRIO_PROCESS, me, os.getpriority(os.PRIO_PROCESS, me) + niceness)
    except OSError as exc:  # not allowed here: the lane runs at the usual priority
        log.warning("could not lower the priority of %s: %s", threading.current_thread().name, exc)


def background_lane(name: str, niceness: int) -> ThreadPoolExecutor:
    """One thread, named ``name``, at ``niceness`` below the usual priority; what it
    makes (a model and its thread pool) runs there too."""
    return ThreadPoolExecutor(
        max_workers=1, thread_name_prefix=name, initializer=lower_priority, initargs=(niceness,)
    )
