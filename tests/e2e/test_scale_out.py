"""Many workers, one memory: the deployment's processes on one machine, under kills,
joins and freezes, on a local folder (here) and on S3 (moto's server,
``test_scale_out_s3.py``).

A broker (``memstream broker``), three workers (``memstream worker``, one consumer group
over eight partitions) and two API replicas (``memstream serve``) share one data
location. 12,000 messages of 200 users (6,000 of 100 on S3) are published through both
replicas while one worker is SIGKILLed, another joins and a third is frozen (SIGSTOP)
past its session timeout and then resumed. Afterwards every message is an episode
exactly once, no table holds a key twice, every closed session is consolidated, the
per-table digests equal a single-process ``replay --source archive``, no compaction was
preempted (orphaned files stay in kilobytes, from retried commits of the small
bookkeeping tables), both replicas answer a search alike, and an erasure sent to one is
seen by the other.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support.places import DataPlace
from support.scale_out import run_scenario

pytestmark = [pytest.mark.slow, pytest.mark.broker, pytest.mark.timeout(900)]


@pytest.mark.parametrize("data_place", ["local"], indirect=True)
def test_three_workers_and_two_replicas_survive_kills_joins_and_freezes(
    data_place: DataPlace, tmp_path: Path
) -> None:
    run_scenario(data_place, tmp_path)
