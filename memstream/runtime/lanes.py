"""The lanes background work runs on, at a lower CPU priority than everything else.

Embedding is the heaviest work memstream does and nobody waits on it directly: at 500
messages/s it would take every cycle of a 2-core machine, the ones searches and ingest
need. So the embedder runs on a thread of its own whose nice value is raised
(``embed_niceness``, 10 by default); the threads it creates inherit it, so the model made
on that thread computes on threads of the same low priority. The kernel then gives the
lane what searches, ingest and the broker leave idle, and all of it when they are idle.

Linux keeps a nice value per thread, so the rest of the process keeps its own.

Work that is Python through and through (parsing and chunking documents, the rules that
find facts in them) would still hold the interpreter's lock against the worker's own
threads from a thread of low priority, so it runs in a process of its own instead
(:class:`ProcessLane`): one child, at the same low priority, that dies with the worker.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import resource
import threading
from collections.abc import Callable
from concurrent.futures import Executor, Future, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, ParamSpec, TypeVar

from memstream.streams.lifeline import start_child

__all__ = ["ProcessLane", "background_lane", "lower_priority"]

_P = ParamSpec("_P")
_T = TypeVar("_T")

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


class ProcessLane(Executor):
    """One child process, started on first use (by ``spawn``: the worker has threads, so
    it is never forked), at ``niceness`` below the usual priority, killed by the kernel
    when the worker dies. A child that died (a parser that crashed, the kernel out of
    memory) fails the work it held with ``BrokenProcessPool``; the next work gets a new
    child."""

    def __init__(self, niceness: int, memory_bytes: int | None = None) -> None:
        self._niceness = niceness
        self._memory_bytes = memory_bytes
        self._pool: ProcessPoolExecutor | None = None
        self._lock = threading.Lock()
        self.closed = False

    def submit(self, fn: Callable[_P, _T], /, *args: _P.args, **kwargs: _P.kwargs) -> Future[_T]:
        pool = self._current()
        try:
            future = pool.submit(fn, *args, **kwargs)
        except BrokenProcessPool:  # broken by earlier work, not noticed yet: a new child
            self._drop(pool)
            pool = self._current()
            future = pool.submit(fn, *args, **kwargs)
        future.add_done_callback(lambda done: self._forget_if_broken(pool, done))
        return future

    @property
    def cold(self) -> bool:
        """Whether no child is started (the next work waits for one to start: a read
        timed by its work alone warms the lane first)."""
        with self._lock:
            return self._pool is None

    def _current(self) -> ProcessPoolExecutor:
        with self._lock:
            if self.closed:
                raise RuntimeError("the lane is shut down")
            if self._pool is None:
                self._pool = ProcessPoolExecutor(
                    max_workers=1,
                    mp_context=multiprocessing.get_context("spawn"),
                    initializer=_child_lane,
                    initargs=(os.getpid(), self._niceness, self._memory_bytes),
                )
            return self._pool

    def _drop(self, pool: ProcessPoolExecutor) -> None:
        with self._lock:
            if self._pool is pool:
                self._pool = None
        pool.shutdown(wait=False)

    def _forget_if_broken(self, pool: ProcessPoolExecutor, done: Future[Any]) -> None:
        if not done.cancelled() and isinstance(done.exception(), BrokenProcessPool):
            self._drop(pool)

    def restart(self) -> None:
        """Kill the child and what it is doing (its work fails with
        ``BrokenProcessPool``); the next work gets a new child."""
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            _kill_children(pool)
            pool.shutdown(wait=False, cancel_futures=True)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Stop the child: what it is doing is dropped (it is read again from the log)."""
        with self._lock:
            pool, self._pool = self._pool, None
            self.closed = True
        if pool is None:
            return
        _kill_children(pool)
        pool.shutdown(wait=wait, cancel_futures=True)


def _kill_children(pool: ProcessPoolExecutor) -> None:
    for child in multiprocessing.active_children():
        if child.pid in _children_of(pool):
            child.kill()


def _children_of(pool: ProcessPoolExecutor) -> set[int]:
    processes: dict[int, Any] = getattr(pool, "_processes", None) or {}
    return set(processes)


def _child_lane(parent_pid: int, niceness: int, memory_bytes: int | None) -> None:
    """(in the child) Die with the parent, yield the cores, and keep to ``memory_bytes``
    of data (a parser past it gets MemoryError, or dies: either fails that document
    alone, never the worker, the API or the broker)."""
    start_child(parent_pid)
    lower_priority(niceness)
    if memory_bytes is not None:
        resource.setrlimit(resource.RLIMIT_DATA, (memory_bytes, memory_bytes))
