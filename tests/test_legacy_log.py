"""A log written by an older memstream still replays to the same memory.

``tests/fixtures/log-0.4.0`` holds the event archive and cold store that memstream 0.4.0
wrote (every event type); replaying it with today's code must give the per-table digests
0.4.0 recorded.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

FIXTURES = Path(__file__).parent / "fixtures"


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memstream", *args],
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.parametrize("version", ["0.4.0"])
def test_an_old_log_replays_to_the_digests_it_was_written_with(
    version: str, tmp_path: Path
) -> None:
    written = FIXTURES / f"log-{version}"
    data = tmp_path / "data"
    data.mkdir()
    for part in ("events", "cold"):
        shutil.copytree(written / part, data / part)
    into = tmp_path / "replayed"
    done = _cli("replay", "--data", str(data), "--source", "archive", "--into", str(into))
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("replayed 202 records (202 applied, 0 dead letters)")
    digests = _cli("digest", "--tables", "--data", str(into))
    assert digests.returncode == 0, digests.stderr
    assert digests.stdout.splitlines() == (written / "digest.txt").read_text().splitlines()
