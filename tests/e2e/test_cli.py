"""The command line answers bad input with one clear line, never a traceback."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from memstream.testing import free_port


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memstream", *args], capture_output=True, text=True, timeout=120
    )


def assert_clean_error(done: subprocess.CompletedProcess[str], expected: str) -> None:
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert done.stderr.startswith("error: ") and expected in done.stderr, done.stderr


def test_search_before_anything_was_stored(tmp_path: Path) -> None:
    assert_clean_error(
        run("search", "--data", str(tmp_path), "--user", "ana", "x"), "no projections"
    )


@pytest.mark.parametrize("user", ["a b", "x' OR '1'='1", ""])
def test_search_with_an_invalid_user(tmp_path: Path, user: str) -> None:
    assert_clean_error(run("search", "--data", str(tmp_path), "--user", user, "x"), "--user")


def test_search_with_a_floor_out_of_range_names_the_flag(tmp_path: Path) -> None:
    done = run("search", "--data", str(tmp_path), "--user", "ana", "--min-similarity", "2", "x")
    assert_clean_error(done, "--min-similarity: ")


def test_publish_without_a_broker(tmp_path: Path) -> None:
    kafka = f"127.0.0.1:{free_port()}"
    done = run(
        "publish", "--data", str(tmp_path), "--kafka", kafka, "--user", "a", "--session", "s", "hi"
    )
    assert_clean_error(done, "no Kafka broker answers")


def test_publish_with_an_invalid_message(tmp_path: Path) -> None:
    done = run(
        "publish", "--data", str(tmp_path), "--user", "a", "--session", "s", "--role", "robot", "hi"
    )
    assert_clean_error(done, "role")


def test_publish_from_a_missing_file(tmp_path: Path) -> None:
    done = run("publish", "--data", str(tmp_path), "--jsonl", str(tmp_path / "nope.jsonl"))
    assert_clean_error(done, "cannot read")


def test_publish_without_memstream_up_for_this_data_folder(tmp_path: Path) -> None:
    done = run(
        "publish", "--data", str(tmp_path / "elsewhere"), "--user", "a", "--session", "s", "hi"
    )
    assert_clean_error(done, "start `memstream up` with this data folder first")


def test_publish_refused_when_the_disk_is_under_its_reserve(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "journal").mkdir()
    monkeypatch.setenv("MEMSTREAM_MIN_FREE_MB", str(10**12))  # more than any disk has
    done = run("publish", "--data", str(tmp_path), "--user", "a", "--session", "s", "hi")
    assert_clean_error(done, f"the disk holding {tmp_path}")
    assert "refuses new events until space is freed" in done.stderr


@pytest.mark.broker
def test_publish_sends_the_good_lines_beside_one_too_large_for_the_log(
    tmp_path: Path, broker: str
) -> None:
    import asyncio
    import json

    from aiokafka import AIOKafkaConsumer

    from memstream.storage.data_keys import DataKeys
    from memstream.streams.sealing import RecordKeys
    from memstream.streams.topics import MESSAGES, TopicSpec, ensure_topics

    asyncio.run(ensure_topics(broker, [TopicSpec(MESSAGES, 8)]))
    tag = f"size{tmp_path.name[-10:]}"
    line = {"user_id": "ana", "session_id": "s", "role": "user", "occurred_at": "2024-05-01T00:00Z"}
    good = [json.dumps({**line, "content": f"{tag} {i}"}) for i in range(20)]
    huge = json.dumps({**line, "content": "x", "metadata": {"blob": "y" * 2_000_000}})
    source = tmp_path / "lines.jsonl"
    source.write_text("\n".join([*good[:10], huge, *good[10:]]) + "\n")
    data = tmp_path / "data"
    done = run("publish", "--data", str(data), "--kafka", broker, "--jsonl", str(source))
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert "accepted 20 of 21" in done.stdout
    keys = RecordKeys(DataKeys(data / "data-keys"))  # each line is sealed for its user
    assert "line 11: rejected (not sent): event: 2,000,1" in done.stdout

    async def count() -> int:
        consumer = AIOKafkaConsumer(
            MESSAGES, bootstrap_servers=broker, auto_offset_reset="earliest"
        )
        await consumer.start()
        try:
            found = 0
            while batch := await consumer.getmany(timeout_ms=2000):
                values = [r.value for rs in batch.values() for r in rs]
                assert not any(tag.encode() in v for v in values)  # nothing readable
                found += sum(tag.encode() in (keys.open(v) or b"") for v in values)
            return found
        finally:
            await consumer.stop()

    assert asyncio.run(count()) == 20


HOSTILE = ["alice\n", "\x00", "a\x01b", "x" * 10_000, "' OR '1'='1", "*", ""]
TIMES = ["9999-12-31T23:00:00-14:00", "0001-01-01T00:00:00+14:00", "soon", "1e9"]


def test_no_hostile_argument_gets_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every command that takes a user, a memory id, a name or a time, in process: each
    bad value is one ``error:`` line and exit code 2, never an exception."""
    from memstream.cli.commands import main
    from memstream.storage.filesystems import resolve_location
    from memstream.storage.lance.store import ProjectionStore
    from memstream.storage.layout import DataLayout

    data = tmp_path / "data"
    ProjectionStore.at(DataLayout(resolve_location(str(data))).projections())
    kafka = f"127.0.0.1:{free_port()}"
    base = ["--data", str(data), "--kafka", kafka]
    calls = []
    for value in HOSTILE:
        calls += [
            ["search", *base, "--user", value, "x"],
            ["search", *base, "--user", "ana", "--project", value, "x"],
            ["entity", *base, "--user", "ana", value or "x\x00"],
            ["history", *base, "--user", "ana", value],
            ["confirm", *base, "--user", value, "ep-1"],
            ["forget", *base, "--user", "ana", value],
            ["expand", *base, "--user", "ana", value],
            ["restore", *base, "--user", "ana", value],
            ["remember", *base, "--user", value, "x"],
            ["jobs", "decay", *base, "--user", value],
            ["publish", *base, "--user", value, "--session", "s", "x"],
            ["publish", *base, "--user", "ana", "--session", value, "x"],
        ]
    for value in TIMES:
        calls += [
            ["search", *base, "--user", "ana", "--now", value, "x"],
            ["search", *base, "--user", "ana", "--after", value, "x"],
            ["jobs", "decay", *base, "--dry-run", "--now", value],
            ["publish", *base, "--user", "ana", "--session", "s", "--at", value, "x"],
        ]
    for argv in calls:
        code = main(argv)
        err = capsys.readouterr().err
        assert code == 2, (argv, err)
        assert err.startswith("error: ") and "Traceback" not in err, (argv, err)
