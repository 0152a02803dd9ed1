"""The embedding lane's thread runs at a lower CPU priority, and so do the threads it
starts (the model's own), while the rest of the process keeps its priority; the
documents lane's process runs lower too, and comes back after a crash."""

from __future__ import annotations

import os
import threading
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

import pytest

from memstream.adapters.embedders import MiniLMEmbedder
from memstream.runtime.lanes import ProcessLane, background_lane
from memstream.testing import WorkerProcess


def _nice(tid: int | None = None) -> int:
    return os.getpriority(os.PRIO_PROCESS, tid or threading.get_native_id())


def _nice_values() -> dict[int, int]:
    """Each thread of this process and its nice value (from /proc)."""
    found = {}
    for task in Path(f"/proc/{os.getpid()}/task").iterdir():
        try:
            stat = (task / "stat").read_text()
        except FileNotFoundError:  # a thread that just ended
            continue
        found[int(task.name)] = int(stat[stat.rindex(")") + 2 :].split()[16])
    return found


def test_the_lane_and_the_threads_it_starts_run_at_a_lower_priority() -> None:
    base = _nice()
    lane = background_lane("test-lane", 5)

    def own_and_child() -> tuple[int, int]:
        child: list[int] = []
        started = threading.Thread(target=lambda: child.append(_nice()))
        started.start()
        started.join()
        return _nice(), child[0]

    try:
        assert lane.submit(own_and_child).result() == (base + 5, base + 5)
        assert _nice() == base  # the caller keeps its own

        before = set(_nice_values())
        model = lane.submit(MiniLMEmbedder, 2).result()
        lane.submit(model.embed, ["a turn of a conversation"] * 8).result()
        made = {tid: nice for tid, nice in _nice_values().items() if tid not in before}
        assert made and set(made.values()) == {base + 5}  # the model's threads, niced too
    finally:
        lane.shutdown()


def test_no_lowering_leaves_the_lane_as_it_is() -> None:
    lane = background_lane("test-lane", 0)
    try:
        assert lane.submit(_nice).result() == _nice()
    finally:
        lane.shutdown()


def test_the_process_lane_runs_lower_comes_back_after_a_crash_and_stops() -> None:
    """The documents lane's process: its own, at the lane's lower priority; a child
    that dies fails the work it held and the next work gets a new child; after shutdown
    the child is gone; the lane says whether a child is started (a read timed by its
    work alone warms a cold lane first)."""
    lane = ProcessLane(niceness=5)
    try:
        assert lane.cold
        child = lane.submit(os.getpid).result(timeout=60)
        assert child != os.getpid() and not lane.cold
        mine = os.getpriority(os.PRIO_PROCESS, 0)
        assert lane.submit(os.getpriority, os.PRIO_PROCESS, 0).result(timeout=60) == mine + 5
        with pytest.raises(BrokenProcessPool):
            lane.submit(os._exit, 3).result(timeout=60)
        again = lane.submit(os.getpid).result(timeout=60)
        assert again not in (child, os.getpid())
        lane.restart()  # a read out of time: its child killed, the next one started anew
        assert lane.cold
        again = lane.submit(os.getpid).result(timeout=60)
    finally:
        lane.shutdown(wait=True)
    assert WorkerProcess.wait_gone({again}) == set()
    with pytest.raises(RuntimeError):
        lane.submit(os.getpid)


def _hold(size: int) -> int:
    """(in the lane) Take ``size`` bytes and touch them."""
    block = bytearray(size)
    return len(block)


def test_the_process_lane_keeps_to_its_memory_and_goes_on() -> None:
    """A parser that would take more memory than the lane may gets MemoryError (or dies),
    in the lane's process alone; the next work runs."""
    lane = ProcessLane(niceness=0, memory_bytes=768 * 1024**2)
    try:
        assert lane.submit(_hold, 64 * 1024**2).result(timeout=60) == 64 * 1024**2
        with pytest.raises((MemoryError, BrokenProcessPool)):
            lane.submit(_hold, 2 * 1024**3).result(timeout=60)
        assert lane.submit(_hold, 1024).result(timeout=60) == 1024
    finally:
        lane.shutdown(wait=True)
