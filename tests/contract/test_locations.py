"""Where the data lives: a local folder, or an S3 prefix with its endpoint and region
handed to both pyarrow (event archive, cold store) and LanceDB (the tables)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from pyarrow import fs as pafs
from support.places import location_for

from memstream.settings import Settings
from memstream.storage.filesystems import Location, resolve_location
from memstream.storage.lance.store import ProjectionStore
from memstream.storage.lance.tables import CHECKPOINTS, MEMORIES
from memstream.storage.layout import DataLayout


def test_local_data_keeps_its_state_and_logs_beside_it(tmp_path: Path) -> None:
    settings = Settings(data=str(tmp_path / "data"))
    assert settings.data_location.is_local
    assert settings.data_location.storage_options == {}
    assert settings.local_dir == tmp_path / "data"
    assert settings.log_dir == tmp_path / "data" / "logs"


def test_s3_data_carries_the_endpoint_to_pyarrow_and_lancedb() -> None:
    settings = Settings(
        data="s3://bucket/memstream/", s3_endpoint="http://127.0.0.1:9000", s3_region="eu-west-1"
    )
    location = settings.data_location
    assert isinstance(location.filesystem, pafs.S3FileSystem)
    assert location.filesystem.region == "eu-west-1"
    assert (location.path, location.uri) == ("bucket/memstream", "s3://bucket/memstream")
    expected = {"endpoint": "http://127.0.0.1:9000", "allow_http": "true", "region": "eu-west-1"}
    assert location.storage_options == expected
    assert location.child("cold").storage_options == expected
    assert settings.local_dir == Path("memstream-state")
    assert Settings(data="s3://b/p", state_dir="/var/lib/ms").log_dir == Path("/var/lib/ms/logs")


def test_https_endpoints_need_no_plain_http() -> None:
    location = resolve_location("s3://b/p", s3_endpoint="https://s3.example.com")
    assert location.storage_options == {"endpoint": "https://s3.example.com"}


def test_tables_on_an_s3_endpoint(s3_endpoint: str, new_bucket: Callable[[str], str]) -> None:
    bucket = new_bucket("tables")
    layout = DataLayout(
        resolve_location(f"s3://{bucket}/data", s3_endpoint=s3_endpoint, s3_region="us-east-1")
    )
    store = ProjectionStore.at(layout.projections())
    store.insert_absent(
        MEMORIES,
        [
            {
                "memory_id": "m1",
                "kind": "episode",
                "user_id": "ana",
                "content": "Lisbon in May",
                "search_text": "Lisbon in May",
            }
        ],
    )
    store.upkeep.ensure_indexes([MEMORIES])
    location = layout.existing_projections()
    assert location is not None and location.uri.startswith(f"s3://{bucket}/data/projections-")
    again = ProjectionStore.at(location)
    assert [r["memory_id"] for r in again.by_ids(MEMORIES, ["m1"])] == ["m1"]
    found = again.table(MEMORIES).search("Lisbon", query_type="fts").limit(5).to_list()
    assert [r["memory_id"] for r in found] == ["m1"]


@pytest.fixture(params=["local", "s3"])
def empty_data(request: pytest.FixtureRequest, tmp_path: Path) -> Location:
    return location_for(request, tmp_path, "data")


def test_processes_starting_together_on_empty_data_settle_on_one_generation(
    empty_data: Location,
) -> None:
    starters = 8
    together = threading.Barrier(starters)

    def start() -> str:
        layout = DataLayout(resolve_location(empty_data.uri, **_endpoint_of(empty_data)))
        together.wait()
        return layout.projections().uri

    with ThreadPoolExecutor(starters) as pool:
        chosen = set(pool.map(lambda _: start(), range(starters)))
    current = DataLayout(empty_data).existing_projections()
    assert current is not None and chosen == {current.uri}


def _endpoint_of(location: Location) -> dict[str, str]:
    options = location.storage_options
    if not options:
        return {}
    return {"s3_endpoint": options["endpoint"], "s3_region": options["region"]}


def test_stores_opened_together_on_empty_data_all_open(tmp_path: Path) -> None:
    """A store's tables are created by whichever process opens it first; one opening it
    meanwhile sees a table listed whose first version is not committed yet, and waits
    for it instead of failing ("Table 'checkpoints' was not found")."""
    starters = 6
    together = threading.Barrier(starters)
    projections = DataLayout(resolve_location(str(tmp_path / "data"))).projections()

    def open_store(index: int) -> int:
        together.wait()
        return ProjectionStore.at(projections).count(CHECKPOINTS)

    for attempt in range(3):
        with ThreadPoolExecutor(starters) as pool:
            assert list(pool.map(open_store, range(starters))) == [0] * starters
        fresh = resolve_location(str(tmp_path / f"data-{attempt}"))
        projections = DataLayout(fresh).projections()
