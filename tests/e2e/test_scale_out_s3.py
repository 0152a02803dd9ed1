"""Many workers, one memory, on S3 (moto's server): the scenario of
``test_scale_out.py`` (half its users, at half its pace), with the tables,
the event archive, the cold store and the data and API keys all in one bucket, and the
replay by two writer processes."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.places import DataPlace
from support.scale_out import S3_USERS, run_scenario

pytestmark = [pytest.mark.slow, pytest.mark.broker, pytest.mark.timeout(900)]


@pytest.mark.parametrize("data_place", ["s3"], indirect=True)
def test_three_workers_and_two_replicas_survive_kills_joins_and_freezes_on_s3(
    data_place: DataPlace, tmp_path: Path
) -> None:
    run_scenario(data_place, tmp_path, users=S3_USERS)
