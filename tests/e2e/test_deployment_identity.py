"""A log serves one deployment: the first process records its data location and
partition count in the log, and a worker, an embedder or ``up --kafka`` of another data
location (on a local folder or on S3) refuses in one line naming both, before it joins
a consumer group or reads a record."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.places import DataPlace

from memstream.streams.deployment_identity import DeploymentIdentity, ForeignDeployment, claim_log
from memstream.streams.topics import DEPLOYMENT, MESSAGES, TopicSpec, append_record, ensure_topics
from memstream.testing import embedded_broker

pytestmark = [pytest.mark.broker]

FIRST = DeploymentIdentity("/srv/first/memstream-data", 8)


@pytest.fixture(scope="module")
def owned_broker() -> Iterator[str]:
    """A broker whose log serves ``FIRST`` (its own: the session's broker serves the
    deployments other tests start)."""
    with embedded_broker() as bootstrap:
        asyncio.run(ensure_topics(bootstrap, [TopicSpec(DEPLOYMENT, 1), TopicSpec(MESSAGES, 8)]))
        assert asyncio.run(claim_log(bootstrap, FIRST)) == FIRST
        yield bootstrap


def test_the_first_identity_stays_and_another_is_refused_naming_both(owned_broker: str) -> None:
    assert asyncio.run(claim_log(owned_broker, FIRST)) == FIRST  # the same deployment joins
    other = DeploymentIdentity("s3://typo-bucket/memstream", 8)
    with pytest.raises(ForeignDeployment) as refused:
        asyncio.run(claim_log(owned_broker, other))
    said = str(refused.value)
    assert FIRST.data in said and other.data in said and "\n" not in said
    with pytest.raises(ForeignDeployment, match="with 8 partitions, not 4"):
        asyncio.run(claim_log(owned_broker, DeploymentIdentity(FIRST.data, 4)))


def test_of_two_deployments_claiming_an_empty_log_at_once_one_wins() -> None:
    with embedded_broker() as bootstrap:
        asyncio.run(ensure_topics(bootstrap, [TopicSpec(DEPLOYMENT, 1)]))
        claims = [DeploymentIdentity(f"/srv/d{i}", 8) for i in range(3)]

        async def race() -> list[object]:
            return await asyncio.gather(
                *(claim_log(bootstrap, c) for c in claims), return_exceptions=True
            )

        outcomes = asyncio.run(race())
        won = [o for o in outcomes if isinstance(o, DeploymentIdentity)]
        assert len(won) == 1 and won[0] in claims
        assert all(isinstance(o, ForeignDeployment) for o in outcomes if o is not won[0])


@pytest.mark.slow
@pytest.mark.parametrize("command", [("worker",), ("embed",)])
def test_a_worker_of_another_data_location_refuses_before_it_reads(
    owned_broker: str, data_place: DataPlace, tmp_path: Path, command: tuple[str, ...]
) -> None:
    env = {
        **os.environ,
        **data_place.env,
        "MEMSTREAM_STATE_DIR": str(tmp_path / "state"),
        "MEMSTREAM_EMBEDDER": "minilm",
        "MEMSTREAM_METRICS_PORT": "0",
    }
    done = subprocess.run(
        [sys.executable, "-m", "memstream", *command, "--data", data_place.uri,
         "--kafka", owned_broker],
        capture_output=True, text=True, env=env, timeout=120,
    )  # fmt: skip
    assert done.returncode != 0
    assert "Traceback" not in done.stderr, done.stderr
    said = [line for line in done.stderr.splitlines() if "serves the deployment of" in line]
    assert len(said) == 1, done.stderr
    assert FIRST.data in said[0] and data_place.location.uri in said[0]
    # nothing of the log was read into the foreign data location
    projections = data_place.location.child("projections")
    found = projections.filesystem.get_file_info(projections.path)
    assert found.type.name == "NotFound", found


def test_a_log_whose_first_identity_record_is_no_identity_is_refused() -> None:
    with embedded_broker() as bootstrap:
        asyncio.run(ensure_topics(bootstrap, [TopicSpec(DEPLOYMENT, 1)]))
        asyncio.run(append_record(bootstrap, DEPLOYMENT, b"[" * 100_000))
        with pytest.raises(ForeignDeployment, match="names no deployment"):
            asyncio.run(claim_log(bootstrap, FIRST))
