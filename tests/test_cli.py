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
    assert_clean_error(run("search", "--data", str(tmp_path), "--user", user, "x"), "user_id")


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
