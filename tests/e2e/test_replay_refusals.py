"""Rebuilds that would lose memories are refused: a replay from a log that no longer
reaches back to the start of the history, and a switch to projections that hold less
than those in use (unless forced).

The embedded broker keeps its log in memory: after ``memstream up`` restarts, the log
holds only what came since, while the event archive holds it all.
"""

from __future__ import annotations

import asyncio
import re
from datetime import UTC, datetime
from pathlib import Path

import pytest
from support.pipeline import cli, live_store, publish

from memstream.jobs import replay
from memstream.storage.filesystems import resolve_location
from memstream.storage.lance.tables import MEMORIES
from memstream.streams.topics import read_epoch
from memstream.testing import WorkerProcess, wait_until

pytestmark = [pytest.mark.broker, pytest.mark.slow]

#: no lifecycle job during the test: the memories are the episodes published
QUIET = {"MEMSTREAM_LIFECYCLE_EVERY_SECONDS": "100000"}


def test_after_a_restart_kafka_replays_refuse_and_switch_keeps_the_fuller_store(
    tmp_path: Path,
) -> None:
    data = tmp_path / "data"
    first = WorkerProcess(data, env=QUIET).start()
    try:
        first.wait_ready()
        publish(first.bootstrap, 60, tag="before")
        store = live_store(data)
        wait_until(lambda: store.count(MEMORIES) == 60, timeout=60)
    finally:
        assert first.stop(timeout=60) == 0
    second = WorkerProcess(data, broker_port=first.broker_port, env=QUIET).start()
    second_life = tmp_path / "second-life"
    try:
        second.wait_ready()
        publish(second.bootstrap, 5, tag="after")
        wait_until(lambda: store.count(MEMORIES) == 65, timeout=60)

        refused = cli(
            "replay", "--data", str(data), "--kafka", second.bootstrap,
            "--source", "kafka", "--into", str(tmp_path / "from-kafka"),
        )  # fmt: skip
        assert refused.returncode == 2, refused.stdout + refused.stderr
        assert re.fullmatch(
            r"error: a replay from Kafka would miss memories: the log holds only its life "
            r"since \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC; 60 archived records of an earlier "
            r"life of the log \(before a restart of the broker\) are not in it\. "
            r"`--source archive` replays the whole history\n",
            refused.stderr,
        ), refused.stderr
        assert not (tmp_path / "from-kafka" / "CURRENT").exists()

        # What such a replay built before it was refused: the second life alone.
        epoch = asyncio.run(read_epoch(second.bootstrap, datetime.now(UTC), create=False))
        assert epoch is not None
        built = replay.rebuild(
            replay.kafka_batches(second.bootstrap, epoch),
            resolve_location(str(second_life)),
            "memstream",
            workers=1,
        )
        assert built.records == 5
    finally:
        assert second.stop(timeout=60) == 0

    refused = cli("switch", "--data", str(data), str(second_life))
    assert refused.returncode == 2
    assert refused.stderr.startswith(
        f"error: {second_life} holds less history than the projections in use: "
    ), refused.stderr
    assert "it holds 5 memories (hot and archived), the live ones 65" in refused.stderr
    assert "--force" in refused.stderr and refused.stderr.count("\n") == 1
    assert live_store(data).count(MEMORIES) == 65  # still the store in use

    whole = cli("replay", "--data", str(data), "--into", str(tmp_path / "whole"), "--swap")
    assert whole.returncode == 0, whole.stderr  # from the archive: all of it
    assert "replayed 65 records" in whole.stdout
    assert live_store(data).count(MEMORIES) == 65

    forced = cli("switch", "--force", "--data", str(data), str(second_life))
    assert forced.returncode == 0, forced.stderr
    assert live_store(data).count(MEMORIES) == 5
