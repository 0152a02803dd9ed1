"""Shared fixtures: a real embedded broker and a real S3 endpoint (moto's server) for the
session, stores in tmp_path, cold-store and data locations on a local folder and on S3."""

from __future__ import annotations

import logging
import os
import subprocess
import threading
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from pyarrow import fs as pafs
from support.places import DataPlace, location_for

from memstream.application import Operations
from memstream.application.commands import correction
from memstream.events.codec import encode
from memstream.events.vocabulary import RememberFact
from memstream.projections.derived import command_memory
from memstream.settings import Settings
from memstream.storage.filesystems import Location, resolve_location
from memstream.storage.lance.store import ProjectionStore
from memstream.storage.log_records import LogRecord
from memstream.streams.projector import Projector
from memstream.testing import FakeClock, WorkerProcess, embedded_broker, free_port, message

# Processes the tests start serve no metrics port unless a test gives them one
# (WorkerProcess does: a free port each), so tests side by side never share one.
os.environ.setdefault("MEMSTREAM_METRICS_PORT", "0")
# Two partitions a topic, not eight, for every process of the tests (servers, workers,
# commands and in-process readers agree on a user's partition): a broker reads every
# partition of each fetch, and a deployment of six topics at eight partitions cost its
# broker 2.5 s of CPU a half minute, 1.1 s at two. The scale-out scenarios ask for eight.
os.environ.setdefault("MEMSTREAM_MESSAGES_PARTITIONS", "2")
for _name in [n for n in os.environ if n.startswith("OTEL_")]:
    del os.environ[_name]  # traces only where a test asks for them


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Files with slow tests first, the many-process scenarios first of all. ``make
    test`` hands whole files to its workers in this order (``--no-loadscope-reorder``):
    the long files then run side by side from the start and the short ones fill the
    end, instead of one worker finishing a long file alone."""
    slow_files = {item.path for item in items if item.get_closest_marker("slow")}
    items.sort(key=lambda item: (item.path not in slow_files, "scale_out" not in item.path.name))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    """A failed test's report ends with the logs of the workers it had: a worker that
    died (its broker with it) says why there, and nowhere else once CI is over."""
    report = yield
    if report.failed:
        for worker in list(WorkerProcess.known):
            report.sections.append((f"memstream log {worker.log_path.name}", worker.log_tail()))
    return report


@pytest.fixture(scope="session", autouse=True)
def short_batch_wait() -> Iterator[None]:
    """Workers the tests start apply a partial batch after 0.1 s, not the default 0.5 s:
    the tests publish a few messages and wait for each, so the wait would only add up.
    How the consumer fills batches is tested on its own (test_batch_consumer)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("MEMSTREAM_BATCH_WITHIN_SECONDS", "0.1")
        yield


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


def _atomic_conditional_puts() -> None:
    """Make moto's conditional PUT atomic, as S3's is. moto's threaded server checks
    ``If-None-Match`` and then stores the object with no lock between, so two PUTs of
    one new key at once could both succeed. LanceDB commits a table version with
    exactly such a PUT, and the scale-out scenarios commit from several processes."""
    from moto.s3.responses import S3Response

    original = S3Response.put_object
    if getattr(original, "atomic", False):
        return
    lock = threading.Lock()

    def put_object(self: Any) -> Any:
        with lock:
            return original(self)

    put_object.atomic = True  # type: ignore[attr-defined]
    S3Response.put_object = put_object  # type: ignore[method-assign]


@pytest.fixture(scope="session")
def s3_endpoint() -> Iterator[str]:
    """A real S3 endpoint on loopback (moto's S3 server, its conditional PUTs atomic)."""
    from support.s3_endpoint import S3Server

    _atomic_conditional_puts()
    # a line per request, thousands a second: only what goes wrong is worth a line
    logging.getLogger("werkzeug").setLevel(logging.WARNING)

    port = free_port()
    server = S3Server("127.0.0.1", port)
    server.start()
    yield f"http://127.0.0.1:{port}"
    server.stop()


_CREDENTIALS = {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing"}
#: What seals the data keys of a deployment on S3 in the tests.
DATA_KEYS_SECRET = "a-test-secret-that-seals-the-data-keys"


@pytest.fixture
def new_bucket(
    s3_endpoint: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Callable[[str], str]:
    """Creates a fresh bucket on the S3 endpoint (credentials in the environment) and
    returns its name."""
    for name, value in _CREDENTIALS.items():
        monkeypatch.setenv(name, value)

    def create(prefix: str) -> str:
        bucket = f"{prefix}-{tmp_path.name.lower().replace('_', '-')}"[:63].rstrip("-")
        pafs.S3FileSystem(
            endpoint_override=s3_endpoint.removeprefix("http://"),
            scheme="http",
            region="us-east-1",
            allow_bucket_creation=True,
        ).create_dir(bucket)
        return bucket

    return create


@pytest.fixture(params=["local", "s3"])
def cold_location(request: pytest.FixtureRequest, tmp_path: Path) -> Location:
    """Where a cold store lives: a local folder, then a fresh bucket on the S3 endpoint."""
    return location_for(request, tmp_path, "cold")


@pytest.fixture(params=["local", "s3"])
def data_place(request: pytest.FixtureRequest, tmp_path: Path) -> DataPlace:
    """A data folder, then a fresh bucket on the S3 endpoint (LanceDB tables, event
    archive and cold store all on S3; the worker's local state in ``tmp_path``)."""
    state = tmp_path / "state"
    if request.param == "local":
        data = tmp_path / "data"
        return DataPlace(str(data), resolve_location(str(data)), data)
    endpoint = request.getfixturevalue("s3_endpoint")
    uri = f"s3://{request.getfixturevalue('new_bucket')('data')}/memstream"
    env = {
        **_CREDENTIALS,
        "MEMSTREAM_S3_ENDPOINT": endpoint,
        "MEMSTREAM_S3_REGION": "us-east-1",
        "MEMSTREAM_STATE_DIR": str(state),
        "MEMSTREAM_DATA_KEYS_SECRET": DATA_KEYS_SECRET,
    }
    location = resolve_location(uri, s3_endpoint=endpoint, s3_region="us-east-1")
    return DataPlace(uri, location, state, env)


@pytest.fixture
def small_filesystem(tmp_path: Path) -> Iterator[Callable[[str], Path]]:
    """Mounts a tmpfs of the given size (``"96m"``) under ``tmp_path`` and returns its
    folder; skips the test, saying why, where mounting is not allowed."""
    mounted: list[Path] = []

    def mount(size: str) -> Path:
        folder = tmp_path / f"small-{len(mounted)}"
        folder.mkdir()
        done = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)],
            capture_output=True,
            text=True,
        )
        if done.returncode != 0:
            pytest.skip(f"cannot mount a small filesystem here: {done.stderr.strip()}")
        mounted.append(folder)
        return folder

    yield mount
    for folder in mounted:
        subprocess.run(["umount", "-l", str(folder)], check=False)


#: When the ``operations`` fixture's conversation took place.
T0 = datetime(2024, 5, 1, 9, 0, tzinfo=UTC)


@pytest.fixture
def operations(tmp_path: Path) -> Operations:
    """A store that heard Ana move, remember a fact about her cat and correct it."""
    store = ProjectionStore(str(tmp_path / "projections"))
    said = [
        message(event_id="m1", user_id="ana", session_id="s1", speaker="Ana",
                content="I live in Lisbon with my cat Miso.", occurred_at=T0),
        message(event_id="m2", user_id="ana", session_id="s1", speaker="Ana",
                content="Maria helped me move to Porto last week.",
                occurred_at=T0 + timedelta(minutes=1)),
    ]  # fmt: skip
    remembered = RememberFact(
        event_id="r1", user_id="ana", content="Ana's cat Miso likes sardines.",
        occurred_at=T0 + timedelta(minutes=2),
    )  # fmt: skip
    projector = Projector(store, consumer="memstream", clock=FakeClock(T0))
    projector.apply(
        [
            LogRecord("e1", "memory.messages", 0, i, T0, b"ana", encode(e))
            for i, e in enumerate(said)
        ]
        + [LogRecord("e1", "memory.commands", 0, 0, T0, b"ana", encode(remembered))]
    )
    fact = command_memory(remembered).memory_id
    an_hour_later = T0 + timedelta(hours=1)
    corrected, _ = correction(store, "ana", fact, "Ana's cat Miso likes tuna.", an_hour_later)
    projector.apply(
        [LogRecord("e1", "memory.commands", 0, 1, an_hour_later, b"ana", encode(corrected))]
    )
    return Operations(
        Settings(data=str(tmp_path), embedder="none"),
        store=store,
        clock=FakeClock(T0 + timedelta(days=30)),
    )
