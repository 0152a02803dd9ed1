"""No memstream process outlives its parent: replay's workers die with a killed replay."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from memstream.events.codec import encode
from memstream.storage.archive.event_archive import EventArchive
from memstream.storage.filesystems import resolve_location
from memstream.storage.layout import DataLayout
from memstream.storage.log_records import LogRecord
from memstream.testing import WorkerProcess, descendants, message, wait_until

pytestmark = pytest.mark.slow

T0 = datetime(2024, 5, 1, tzinfo=UTC)


def test_a_killed_replay_leaves_no_worker_behind(tmp_path: Path) -> None:
    data = tmp_path / "data"
    archive = EventArchive(DataLayout(resolve_location(str(data))).events)
    for partition in range(4):
        archive.write(
            [
                LogRecord(
                    "e1",
                    "memory.messages",
                    partition,
                    i,
                    T0 + timedelta(seconds=i),
                    b"ana",
                    encode(message(event_id=f"r{partition}-{i}", user_id=f"u{i % 50}")),
                )
                for i in range(15_000)
            ]
        )
    replay = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "memstream",
            "replay",
            "--data",
            str(data),
            "--into",
            str(tmp_path / "x"),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        children = wait_until(
            lambda: descendants(replay.pid) if len(descendants(replay.pid)) >= 2 else None, 60, 0.05
        )
        os.kill(replay.pid, signal.SIGKILL)
        replay.wait(10)
        assert WorkerProcess.wait_gone(children) == set(), "a replay worker outlived the replay"
    finally:
        if replay.poll() is None:
            replay.kill()


def test_a_killed_test_process_leaves_no_worker_behind(tmp_path: Path) -> None:
    """A test process killed before it can stop its ``memstream up`` (a timeout, Ctrl-C
    twice, the CI runner) takes the worker, its broker and its API with it."""
    script = (
        "import sys, time\n"
        "from pathlib import Path\n"
        "from memstream.testing import WorkerProcess\n"
        "up = WorkerProcess(Path(sys.argv[1])).start()\n"
        "print(up.process.pid, flush=True)\n"
        "time.sleep(600)\n"
    )
    harness = subprocess.Popen(
        [sys.executable, "-c", script, str(tmp_path / "data")],
        stdout=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        assert harness.stdout is not None
        up = int(harness.stdout.readline())
        family = wait_until(
            lambda: {up, *descendants(up)} if len(descendants(up)) >= 2 else None, 60, 0.05
        )  # the broker and the API
        os.kill(harness.pid, signal.SIGKILL)
        harness.wait(10)
        assert WorkerProcess.wait_gone(family) == set(), "memstream up outlived its test"
    finally:
        if harness.poll() is None:
            harness.kill()
        if harness.stdout is not None:
            harness.stdout.close()
