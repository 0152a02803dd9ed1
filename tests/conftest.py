"""Shared fixtures: a real embedded broker and a real S3 endpoint (moto's server) for the
session, stores in tmp_path, cold-store locations on a local folder and on S3."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from pyarrow import fs as pafs

from memstream.testing import embedded_broker, free_port
from storage.filesystems import Location, resolve_location
from storage.lance_store import ProjectionStore


@pytest.fixture(scope="session")
def broker() -> Iterator[str]:
    """Bootstrap address of a real Tansu broker shared by the session's broker tests."""
    with embedded_broker() as bootstrap:
        yield bootstrap


@pytest.fixture
def store(tmp_path: Path) -> ProjectionStore:
    return ProjectionStore(str(tmp_path / "projections"))


@pytest.fixture
def epoch() -> str:
    return "20240101T000000Z-test0000"


@pytest.fixture
def received_at() -> datetime:
    return datetime(2024, 6, 1, 9, 30, tzinfo=UTC)


@pytest.fixture(scope="session")
def s3_endpoint() -> Iterator[str]:
    """A real S3 endpoint on loopback (moto's server)."""
    from moto.server import ThreadedMotoServer

    port = free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    yield f"http://127.0.0.1:{port}"
    server.stop()


@pytest.fixture(params=["local", "s3"])
def cold_location(
    request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Location:
    """Where a cold store lives: a local folder, then a fresh bucket on the S3 endpoint."""
    if request.param == "local":
        return resolve_location(str(tmp_path / "cold"))
    endpoint = request.getfixturevalue("s3_endpoint")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    bucket = f"cold-{tmp_path.name.lower().replace('_', '-')[-40:]}"
    pafs.S3FileSystem(
        endpoint_override=endpoint.removeprefix("http://"),
        scheme="http",
        region="us-east-1",
        allow_bucket_creation=True,
    ).create_dir(bucket)
    return resolve_location(f"s3://{bucket}/cold", s3_endpoint=endpoint, s3_region="us-east-1")
