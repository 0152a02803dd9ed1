"""Hostile identifiers never reach a path outside the data location.

A corpus of user ids a producer may write straight to the log (``..``, ``/../``,
absolute-looking, percent-escaped, very long, unicode lookalikes) goes through the
worker's projector, the archiver, expansion and restore, replay and erasure, on a local
folder and on S3 on loopback (moto's server). Sentinel files wait where the traversals
would land. Afterwards nothing outside the data location was created, changed or
removed, every cold file of a user lies in that user's one folder, and ids the doors
refuse were dead-lettered instead of applied.
"""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from pyarrow import fs as pafs

from memstream.application import state_digest
from memstream.events.codec import encode
from memstream.events.vocabulary import Event, UserErased
from memstream.jobs.archiver import Archiver
from memstream.policies.coldness import ColdPolicy
from memstream.storage.archive.cold_store import ColdStore, ColdStoreCorrupt, StorageRef
from memstream.storage.filesystems import Location, resolve_location
from memstream.storage.lance.store import ProjectionStore
from memstream.storage.log_records import LogRecord
from memstream.storage.path_names import MAX_SEGMENT, path_segment
from memstream.storage.schemas import COLD_ORIGINAL_SCHEMA
from memstream.streams.projector import Projector
from memstream.streams.topics import topic_for
from memstream.testing import FakeClock, message

NOW = datetime(2026, 6, 1, tzinfo=UTC)
OLD = datetime(2020, 1, 15, tzinfo=UTC)

#: Ids the identifier rule allows, each a path if pasted into one.
ALLOWED = [
    "acme:/../../../escaped",
    "acme:/../../../victim",
    "../../../../victim",
    "/etc/memstream-escape",
    "..",
    ".",
    "a/./b",
    "a//b",
    "acme:support/bob",
    "acme:support",
    "user:x/month-2020-01/../..",
    "-rf",
    "x" * 200,
    "a.b@c+d:e-f_g",
]
#: Ids the identifier rule refuses: the worker dead-letters them.
REFUSED = [
    "%2e%2e%2f%2e%2e%2fescaped",
    "p\u043eison",  # Cyrillic o
    "..\u2215..\u2215escaped",  # division slash
    "x" * 201,
    "back\\..\\slash",
    "nul\x00byte",
]


def test_path_segment_is_safe_injective_and_bounded() -> None:
    corpus = ALLOWED + REFUSED + ["a%2Fb", "a/b", "a.b", "a%2Eb", "~x", "%7Ex", ""]
    names = [path_segment(i) for i in corpus]
    assert len(set(names)) == len(corpus)
    for name in names:
        assert name not in ("", ".", "..") and "/" not in name and "\\" not in name
        assert len(name) <= MAX_SEGMENT and name.isascii() and "\x00" not in name
    assert path_segment("acme:ana") == "acme:ana"  # plain ids keep their names


class Sandbox:
    """A data location and what lies around it: files to compare before and after."""

    def __init__(self, filesystem: pafs.FileSystem, root: str, data: str) -> None:
        self.fs = filesystem
        self.root = root  # everything under here is watched
        self.data = data  # the data location inside it

    def plant(self, relative: str) -> None:
        path = f"{self.root}/{relative}"
        self.fs.create_dir(path.rsplit("/", 1)[0], recursive=True)
        with self.fs.open_output_stream(path) as out:
            out.write(b"memstream never wrote this")

    def outside(self) -> dict[str, str]:
        """Every file under the watched root but outside the data location, with a
        digest of its bytes."""
        selector = pafs.FileSelector(self.root, recursive=True, allow_not_found=True)
        found = {}
        for info in self.fs.get_file_info(selector):
            inside = info.path == self.data or info.path.startswith(self.data + "/")
            if info.type == pafs.FileType.File and not inside:
                with self.fs.open_input_stream(info.path) as stream:
                    found[info.path] = hashlib.sha256(stream.read()).hexdigest()
            elif info.type == pafs.FileType.Directory and not inside:
                found[info.path + "/"] = "folder"
        return found


@pytest.fixture(params=["local", "s3"])
def sandbox(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[Sandbox, Location]:
    """A data location three folders deep inside a watched root, locally or on S3."""
    if request.param == "local":
        root = tmp_path / "root"
        data = root / "a" / "b" / "data"
        data.mkdir(parents=True)
        return Sandbox(pafs.LocalFileSystem(), str(root), str(data)), resolve_location(str(data))
    endpoint = request.getfixturevalue("s3_endpoint")
    bucket = request.getfixturevalue("new_bucket")("hostile")
    location = resolve_location(
        f"s3://{bucket}/a/b/data", s3_endpoint=endpoint, s3_region="us-east-1"
    )
    return Sandbox(location.filesystem, bucket, f"{bucket}/a/b/data"), location


class Log:
    """Events applied by the worker's projector, kept to be replayed."""

    def __init__(self, store: ProjectionStore, cold: ColdStore) -> None:
        self.store, self.cold = store, cold
        self.projector = Projector(store, "memstream", FakeClock(NOW), cold_store=cold)
        self.records: list[LogRecord] = []
        self.dead: list[str] = []

    def produce(self, events: list[Event] | list[bytes], user: str = "k") -> None:
        records = [
            LogRecord(
                "e1",
                topic_for(e.type) if not isinstance(e, bytes) else "memory.messages",
                0,
                len(self.records) + i,
                NOW,
                user.encode("utf-8", "surrogatepass"),
                e if isinstance(e, bytes) else encode(e),
            )
            for i, e in enumerate(events)
        ]
        self.records += records
        self.apply(self.projector, records)

    def apply(self, projector: Projector, records: list[LogRecord]) -> None:
        result = projector.apply(records)
        self.dead += [d.reason for d in result.dead_letters]
        projector.store.refresh()


def _raw_message(user_id: str, n: int) -> bytes:
    """A message as a producer writing straight to the log would send it."""
    text = (
        '{"event_id": "raw-%d", "user_id": %s, "session_id": "s", "role": "user", '
        '"content": "the boiler code is 4471", "occurred_at": "2020-01-15T10:00:00Z"}'
    )
    return (text % (n, json.dumps(user_id))).encode("utf-8")


def test_no_hostile_id_reaches_a_path_outside_the_data_location(
    sandbox: tuple[Sandbox, Location], tmp_path: Path
) -> None:
    box, data = sandbox
    for landing in ("escaped", "victim", "a/escaped", "a/victim", "a/b/escaped", "a/b/victim"):
        box.plant(f"{landing}/month=2020-01/batch-0.parquet")
        box.plant(f"{landing}/month=2024-01/kept.parquet")
    before = box.outside()
    cold = ColdStore(data.child("cold"), COLD_ORIGINAL_SCHEMA)
    log = Log(ProjectionStore(str(tmp_path / "projections")), cold)

    said = [
        message(event_id=f"m-{i}-{j}", user_id=user, session_id="s", content=text, occurred_at=OLD)
        for i, user in enumerate(ALLOWED)
        for j, text in enumerate(["My passport is ZX81-4471.", "I keep it in the blue box."])
    ]
    log.produce(said)
    log.produce([_raw_message(user, i) for i, user in enumerate(REFUSED)])
    assert len(log.dead) == len(REFUSED)  # refused ids never become rows, nor paths
    assert all("user_id" in reason for reason in log.dead)

    archived = Archiver(log.store, cold, ColdPolicy()).archive(NOW)
    assert {e.user_id for e in archived} == set(ALLOWED)
    log.produce(archived)
    _each_user_in_one_folder(cold, ALLOWED)

    archiver = Archiver(log.store, cold, ColdPolicy())
    for user in ALLOWED:  # every original reads back; one is restored per user
        first = sorted(e.memory_id for e in archived if e.user_id == user)[0]
        expansion = archiver.expand(user, first, NOW)
        assert expansion.original["user_id"] == user
        log.produce(archiver.restore(user, first, NOW))

    hostile_refs = [  # references a producer wrote itself, pointing out of the store
        "../../../victim/month=2020-01/batch-0.parquet#m-x",
        "/etc/passwd#m-x",
        "user=a/../../../../escaped/month=2020-01/batch-0.parquet#m-x",
        "user=a/month=2020-01/x.parquet\\..\\..#m-x",
    ]
    forged = [archived[0].model_copy(update={"storage_ref": ref}) for ref in hostile_refs]
    log.produce(forged)  # model_copy does not validate: the worker's decoding does
    assert sum("storage_ref" in reason for reason in log.dead) == len(hostile_refs)
    for ref in hostile_refs[:3]:  # and the cold store itself reads nothing outside
        with pytest.raises(ColdStoreCorrupt, match="outside the cold store"):
            cold.read(StorageRef.parse(ref))

    replayed = Log(ProjectionStore(str(tmp_path / "replayed")), cold)
    replayed.apply(replayed.projector, log.records)
    assert state_digest(replayed.store) == state_digest(log.store)

    log.produce(
        [
            UserErased(event_id=f"erase-{i}", user_id=user, requested_at=NOW)
            for i, user in enumerate(ALLOWED)
        ]
    )
    assert cold.files() == []
    assert box.outside() == before


def _each_user_in_one_folder(cold: ColdStore, users: list[str]) -> None:
    """Every cold file lies at ``user=<segment>/month=YYYY-MM/<file>`` of its user."""
    folders = {f"user={path_segment(u)}" for u in users}
    root = cold.location.path
    for full in cold.files():
        relative = full.removeprefix(root + "/").split("/")
        assert len(relative) == 3, full
        assert relative[0] in folders and relative[1].startswith("month="), full


def test_erasing_a_user_empties_the_folder_an_older_store_named_by_the_raw_id(
    tmp_path: Path,
) -> None:
    """A store written before ids were escaped keeps ``user=acme:support/bob``: erasing
    that user removes its months there too, and a nested user's folder stays."""
    cold_root = tmp_path / "cold"
    cold = ColdStore(resolve_location(str(cold_root)), COLD_ORIGINAL_SCHEMA)
    legacy = cold_root / "user=acme:support/bob/month=2020-01"
    nested = cold_root / "user=acme:support/bob/carol/month=2020-01"
    for folder in (legacy, nested):
        folder.mkdir(parents=True)
        (folder / "batch-0.parquet").write_bytes(b"old")
    assert cold.erase_user("acme:support/bob") == 1
    assert not legacy.exists() and (nested / "batch-0.parquet").exists()
    assert cold.erase_user("../../../tmp") == 0  # no legacy folder for a traversal
