"""The stores every host of a deployment shares, on a local folder and on S3 (moto's
server): the per-user data keys (sealed at rest under the deployment's secret) and the
API keys. What one process writes another reads, an erasure at one reaches the keys
every other made, and a revocation at one stops the key at the others."""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest
from pyarrow import fs as pafs
from pydantic import SecretStr
from support.places import location_for

from memstream.settings import Settings
from memstream.storage.data_keys import DataKeys, SealedKeyStore
from memstream.storage.errors import StorageError
from memstream.storage.filesystems import Location
from memstream.storage.shared_folder import SharedFolder
from memstream.streams.sealing import RecordKeys, data_keys_of
from memstream.tenancy.keys import KeyStore, key_store_of

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
SECRET = b"a secret the deployment keeps elsewhere"


@pytest.fixture(params=["local", "s3"])
def place(request: pytest.FixtureRequest, tmp_path: Path) -> Location:
    return location_for(request, tmp_path, "keys")


def _all_bytes(location: Location) -> bytes:
    selector = pafs.FileSelector(location.path, recursive=True, allow_not_found=True)
    found = b""
    for info in location.filesystem.get_file_info(selector):
        if info.type == pafs.FileType.File:
            with location.filesystem.open_input_stream(info.path) as stream:
                found += bytes(stream.read())
    return found


def test_a_shared_folder_writes_whole_lists_and_removes(place: Location) -> None:
    folder = SharedFolder(place)
    assert folder.read("a/b.json") is None and folder.names("a") == []
    folder.write("a/b.json", b"1")
    folder.write("a/b.json", b"22")
    folder.write("a/c.json", b"3")
    assert folder.read("a/b.json") == b"22" and folder.names("a") == ["b.json", "c.json"]
    assert folder.stamps("a")["b.json"][1] == 2
    assert folder.remove("a/b.json") and not folder.remove("a/b.json")
    assert not folder.exists("a/b.json") and folder.exists("a/c.json")


def test_data_keys_sealed_at_rest_travel_between_processes_and_die_in_an_erasure(
    place: Location,
) -> None:
    here = RecordKeys(DataKeys(SharedFolder(place), SECRET))
    sealed = here.seal(b"acme:ana", b'{"content": "I moved to Porto"}')
    key = here.keys.key_for("acme:ana")
    assert key is not None
    assert key.key not in _all_bytes(place)  # sealed under the secret, not as it is

    there = RecordKeys(DataKeys(SharedFolder(place), SECRET))  # another host
    assert there.open(sealed) == b'{"content": "I moved to Porto"}'
    with pytest.raises(SealedKeyStore, match="MEMSTREAM_DATA_KEYS_SECRET"):
        DataKeys(SharedFolder(place)).lookup("acme:ana", key.key_id)
    with pytest.raises(SealedKeyStore, match="another secret"):
        DataKeys(SharedFolder(place), b"not the secret").lookup("acme:ana", key.key_id)

    there.keys.erase("acme:ana", T0)  # the erasure, asked at the other host
    here.forget("acme:ana")
    assert here.open(sealed) is None  # erased, not missing
    assert here.keys.key_for("acme:ana", create=False) is None
    assert [e.user_id for e in here.keys.pending()] == ["acme:ana"]


def test_a_key_store_on_s3_needs_a_secret(
    s3_endpoint: str, new_bucket: Callable[[str], str], tmp_path: Path
) -> None:
    data = f"s3://{new_bucket('nosecret')}/memstream"
    settings = Settings(
        data=data, s3_endpoint=s3_endpoint, s3_region="us-east-1", state_dir=str(tmp_path)
    )
    assert settings.data_keys_location.uri == f"{data}/data-keys"
    with pytest.raises(StorageError, match=r"unsealed .* MEMSTREAM_DATA_KEYS_SECRET"):
        data_keys_of(settings)
    sealed = settings.model_copy(update={"data_keys_secret": SecretStr(SECRET.decode())})
    assert data_keys_of(sealed).key_for("acme:ana") is not None


def test_local_data_keeps_its_keys_in_the_data_folder_unless_an_older_store_is_there(
    tmp_path: Path,
) -> None:
    data = tmp_path / "data"
    shared = Settings(data=str(data), state_dir=str(tmp_path / "state-1"))
    assert shared.data_keys_location.path == str(data / "data-keys")
    (tmp_path / "state-2" / "data-keys").mkdir(parents=True)
    older = Settings(data=str(data), state_dir=str(tmp_path / "state-2"))
    assert older.data_keys_location.path == str(tmp_path / "state-2" / "data-keys")


def test_api_keys_made_at_one_replica_work_and_die_at_every_other(place: Location) -> None:
    one = KeyStore(SharedFolder(place), refresh_seconds=0.2)
    other = KeyStore(SharedFolder(place), refresh_seconds=0.2)
    assert not other.configured
    record, token = one.create("acme", "admin")
    time.sleep(0.25)
    assert other.authenticate(token) == record
    made_at_other, other_token = other.create("acme", "read")
    assert {k.key_id for k in one.records()} == {record.key_id, made_at_other.key_id}
    other.revoke(record.key_id)
    time.sleep(0.25)  # one's listing is trusted this long
    assert one.authenticate(token) is None and one.authenticate(other_token) is not None
    assert one.configured


def test_api_keys_an_older_memstream_kept_in_keys_json_still_work(tmp_path: Path) -> None:
    older = tmp_path / "data"
    older.mkdir()
    made = KeyStore(SharedFolder.local(tmp_path / "elsewhere"))
    record, token = made.create("acme", "write")
    (older / "keys.json").write_text(json.dumps({"keys": [dataclasses.asdict(record)]}))
    store = key_store_of(Settings(data=str(older)))
    assert store.authenticate(token) == record
    store.revoke(record.key_id)  # revoking it writes its document, which wins
    assert key_store_of(Settings(data=str(older))).authenticate(token) is None
