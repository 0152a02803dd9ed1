"""Who is cold (tables of cases, a fixed clock), the local summary, and the Parquet cold
store on a local folder and on a real S3 endpoint on loopback (moto's server)."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta
from random import Random

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memstream.adapters.summarizer import summarize
from memstream.policies.coldness import ColdCandidate, ColdPolicy, cold_decisions, hotness
from memstream.storage.archive.cold_store import (
    ColdStore,
    ColdStoreCorrupt,
    StorageRef,
    original_checksum,
)
from memstream.storage.filesystems import Location

NOW = datetime(2026, 6, 1, tzinfo=UTC)
POLICY = ColdPolicy()


def _candidate(
    days: float, importance: float = 0.5, memory_id: str = "m", **kw: object
) -> ColdCandidate:
    return ColdCandidate(
        memory_id=memory_id,
        user_id="u",
        occurred_at=NOW - timedelta(days=days),
        importance=importance,
        **kw,  # type: ignore[arg-type]
    )


def _unused(days: int, importance: float = 0.5, uses: int = 0, limit: int = 30) -> str:
    matters = "important or often used, " if limit == 365 else ""
    return (
        f"unused for {days} days ({matters}importance {importance:.2f}, {uses} uses; "
        f"limit {limit} days)"
    )


@pytest.mark.parametrize(
    ("candidate", "reason"),
    [
        # never used: idle since it happened
        (_candidate(31), _unused(31)),
        (_candidate(29), None),
        # used: idle since its last use, however old it is
        (_candidate(400, access_count=1, last_accessed=NOW - timedelta(days=3)), None),
        (
            _candidate(400, access_count=1, last_accessed=NOW - timedelta(days=45)),
            _unused(45, uses=1),
        ),
        # important, or often used: a year
        (_candidate(200, importance=0.8), None),
        (_candidate(366, importance=0.8), _unused(366, 0.8, limit=365)),
        (_candidate(200, access_count=5, last_accessed=NOW - timedelta(days=100)), None),
        (
            _candidate(400, access_count=5, last_accessed=NOW - timedelta(days=370)),
            _unused(370, uses=5, limit=365),
        ),
        # a use after the job's time has not happened yet as of it
        (_candidate(40, access_count=9, last_accessed=NOW + timedelta(days=1)), _unused(40)),
        # confirmed, or already hidden (superseded, forgotten, pruned): never
        (_candidate(400, protected=True), None),
        (_candidate(400, hidden=True), None),
    ],
)
def test_cold_criteria(candidate: ColdCandidate, reason: str | None) -> None:
    decided = cold_decisions([candidate], NOW, POLICY)
    assert [d.reason for d in decided] == ([reason] if reason else [])


def test_the_hot_budget_archives_the_coldest_beyond_it() -> None:
    policy = ColdPolicy(hot_budget=3)
    mine = [
        _candidate(8, memory_id="a"),  # idle 8 days, never used: coldest
        _candidate(20, memory_id="b", access_count=4, last_accessed=NOW - timedelta(days=8)),
        _candidate(10, memory_id="c", importance=0.9),  # idle 10 days but important
        _candidate(6, memory_id="d"),  # idle under 7 days: never by the budget
        _candidate(40, memory_id="e"),  # archived by the idle rule anyway
    ]
    counts = {"u": 5 + 1}  # one more hot memory the job did not read (too young)
    decided = cold_decisions(mine, NOW, policy, counts)
    assert [d.memory_id for d in decided] == ["e", "c", "a"]  # coldest first
    assert decided[0].reason == _unused(40)
    assert decided[2].reason == f"over the hot budget of 3: hotness {hotness(0, 8, 7):.4f}"
    # c is colder than a, but more important: a goes first
    assert [d.memory_id for d in cold_decisions(mine, NOW, policy, {"u": 5})] == ["e", "a"]
    assert cold_decisions(mine, NOW, policy) == decided[:1]  # no counts: no budget


_candidates = st.lists(
    st.builds(
        ColdCandidate,
        memory_id=st.uuids().map(str),
        user_id=st.sampled_from(["u", "v"]),
        occurred_at=st.integers(0, 800).map(lambda d: NOW - timedelta(days=d)),
        importance=st.floats(0, 1),
        access_count=st.integers(0, 20),
        last_accessed=st.none() | st.integers(-5, 800).map(lambda d: NOW - timedelta(days=d)),
        protected=st.booleans(),
        hidden=st.booleans(),
    ),
    max_size=30,
)


@given(_candidates, st.integers(0, 30), st.randoms())
@settings(max_examples=200, deadline=None)
def test_what_stays_hot_follows_use_whatever_the_order(
    candidates: list[ColdCandidate], budget: int, rnd: Random
) -> None:
    policy = ColdPolicy(hot_budget=budget)
    counts = {u: sum(c.user_id == u for c in candidates) for u in ("u", "v")}
    decided = cold_decisions(candidates, NOW, policy, counts)
    shuffled = list(candidates)
    rnd.shuffle(shuffled)
    assert cold_decisions(shuffled, NOW, policy, counts) == decided  # order-free
    chosen = {d.memory_id for d in decided}
    by_id = {c.memory_id: c for c in candidates}
    assert not any(by_id[m].protected or by_id[m].hidden for m in chosen)
    for c in candidates:
        if c.memory_id in chosen:
            continue
        # used now, nothing is colder than before
        used = replace(c, access_count=c.access_count + 1, last_accessed=NOW)
        assert used.memory_id not in {
            d.memory_id for d in cold_decisions([used], NOW, policy, None)
        }
    for user, count in counts.items():
        eligible = [
            c
            for c in candidates
            if c.user_id == user
            and not (c.protected or c.hidden)
            and (NOW - max(c.occurred_at, c.last_accessed or c.occurred_at)).days >= 7
        ]
        left = count - sum(1 for d in decided if d.user_id == user)
        assert left <= budget or all(c.memory_id in chosen for c in eligible)


@pytest.mark.parametrize(
    ("accesses", "days", "expected"),
    [(0, 0, 0.5), (0, 7, 0.25), (0, 14, 0.125), (1, 7, 2 / 3 * 0.5), (3, 0, 0.8)],
)
def test_hotness_formula(accesses: int, days: float, expected: float) -> None:
    # sigmoid(log1p(n)) = (n + 1) / (n + 2)
    assert hotness(accesses, days, 7.0) == pytest.approx(expected, abs=1e-12)


def test_summary_keeps_names_dates_and_numbers() -> None:
    text = (
        "Well, that was quite a day. Maria flew to Lisbon on 12 May 2023 for the launch. "
        "The weather was nice and everyone was tired. She paid 420 euros for the hotel. "
        + "Nothing else happened really, we just talked about this and that for hours. "
        * 8
    )
    summary = summarize(text)
    assert "Maria flew to Lisbon on 12 May 2023" in summary and "420 euros" in summary
    assert "weather" not in summary and len(summary) <= 320
    assert summarize(text) == summary  # deterministic
    # a chat turn is its own summary, however many sentences it has
    turn = "Hey Caroline! Good to see you! I'm swamped with the kids & work. What's up? New?"
    assert summarize(turn) == turn and summarize("Short note.") == "Short note."


# -- the cold store, on a local folder and on S3 -----------------------------------------

SCHEMA = pa.schema(
    [
        pa.field("memory_id", pa.string(), nullable=False),
        pa.field("user_id", pa.string()),
        pa.field("content", pa.string()),
        pa.field("occurred_at", pa.timestamp("us", tz="UTC")),
        pa.field("importance", pa.float64()),
        pa.field("tags", pa.list_(pa.string())),
        pa.field("vector", pa.list_(pa.float32())),
    ]
)


def _original(i: int) -> dict[str, object]:
    return {
        "memory_id": f"m{i}",
        "user_id": "u1",
        "content": f'note {i} — with ünïcode and "quotes"',
        "occurred_at": datetime(2024, 5, 1, 12, i, 7, 123456, tzinfo=UTC),
        "importance": 0.1 * i,
        "tags": ["a", f"t{i}"],
        "vector": [0.5, -0.25, float(i)],
    }


def test_write_read_back_and_read_exactly(cold_location: Location) -> None:
    store = ColdStore(cold_location, SCHEMA)
    originals = [_original(i) for i in range(3)]
    refs = store.write("u1", "2024-05", originals)
    assert set(refs) == {"m0", "m1", "m2"}
    for original in originals:
        ref, checksum = refs[str(original["memory_id"])]
        back = store.read(ref)
        assert back["checksum"] == checksum
        assert {k: v for k, v in back.items() if k != "checksum"} == original
        assert back["checksum"] == original_checksum(original)
    [path] = store.files()
    assert "user=u1/month=2024-05/batch-" in path
    assert StorageRef.parse(str(refs["m1"][0])) == refs["m1"][0]
    # what memstream_archive_written_bytes_total counts: the file's size
    assert store.bytes_written == cold_location.filesystem.get_file_info(path).size


def test_rewriting_a_batch_gives_the_same_file(cold_location: Location) -> None:
    store = ColdStore(cold_location, SCHEMA)
    first = store.write("u1", "2024-05", [_original(1), _original(2)])
    again = store.write("u1", "2024-05", [_original(2), _original(1)])  # a re-run
    assert first == again and len(store.files()) == 1


def test_a_damaged_original_is_refused(cold_location: Location) -> None:
    store = ColdStore(cold_location, SCHEMA)
    refs = store.write("u1", "2024-05", [_original(1)])
    [path] = store.files()
    table = pa.Table.from_pylist(
        [dict(_original(1), content="tampered", checksum=original_checksum(_original(1)))],
        schema=store.schema,
    )
    import pyarrow.parquet as pq

    pq.write_table(table, path, filesystem=cold_location.filesystem)
    with pytest.raises(ColdStoreCorrupt, match="checksum"):
        store.read(refs["m1"][0])
    with pytest.raises(ColdStoreCorrupt, match="not in the cold store"):
        store.read(StorageRef(refs["m1"][0].path, "m9"))


def _reads_exactly(store: ColdStore, refs: dict[str, tuple[StorageRef, str]]) -> None:
    for memory_id, (ref, checksum) in refs.items():
        back = store.read(ref)
        assert back["checksum"] == checksum
        assert {k: v for k, v in back.items() if k != "checksum"} == _original(
            int(memory_id.removeprefix("m"))
        )


def _rows_by_key(store: ColdStore) -> list[tuple[str, str]]:
    import pyarrow.parquet as pq

    keys = []
    for f in store.files():
        table = pq.read_table(f, filesystem=store.location.filesystem)
        keys += zip(
            table.column("memory_id").to_pylist(), table.column("checksum").to_pylist(), strict=True
        )
    return sorted(keys)


def test_compaction_merges_a_partitions_files_and_every_reference_still_reads(
    cold_location: Location,
) -> None:
    store = ColdStore(cold_location, SCHEMA)
    refs: dict[str, tuple[StorageRef, str]] = {}
    for batch in ([0, 1], [2, 3], [3, 4]):  # memory 3 written twice (a re-run)
        refs.update(store.write("u1", "2024-05", [_original(i) for i in batch]))
    store.write("u1", "2024-06", [_original(9)])
    assert len(store.files()) == 4
    assert store.compact() == 3  # three files of 2024-05 become one; 2024-06 alone stays
    assert len(store.files()) == 2
    _reads_exactly(store, refs)
    assert len(_rows_by_key(store)) == 6  # m0..m4 once each, and m9
    assert store.compact() == 0  # nothing left to merge


def test_compaction_writes_parts_named_by_their_id_range(cold_location: Location) -> None:
    store = ColdStore(cold_location, SCHEMA, part_rows=4)
    refs: dict[str, tuple[StorageRef, str]] = {}
    for batch in ([3, 1, 5], [2, 4, 6], [7, 8, 9]):
        refs.update(store.write("u1", "2024-05", [_original(i) for i in batch]))
    assert store.compact() == 3
    names = [f.rsplit("/", 1)[1] for f in store.files()]
    assert [n.split(".")[1:3] for n in names] == [["m1", "m4"], ["m5", "m8"], ["m9", "m9"]]
    _reads_exactly(store, refs)  # each found in the one part its id falls in

    # A later batch and the short part (m9) are merged; the full parts stay as they are.
    refs.update(store.write("u1", "2024-05", [_original(0), _original(10)]))
    full = [f for f in store.files() if ".m9." not in f and "batch-" not in f]
    assert store.compact() == 2
    assert all(f in store.files() for f in full)
    assert len(store.files()) == 3
    _reads_exactly(store, refs)
    assert len(_rows_by_key(store)) == 11


def test_compacting_again_after_a_crash_leaves_each_original_once(
    cold_location: Location,
) -> None:
    store = ColdStore(cold_location, SCHEMA, part_rows=2)
    refs: dict[str, tuple[StorageRef, str]] = {}
    for batch in ([0, 1, 2], [3, 4]):
        refs.update(store.write("u1", "2024-05", [_original(i) for i in batch]))
    batches = store.files()
    fs = cold_location.filesystem
    for f in batches:  # keep copies: the state a crash after writing the parts leaves
        fs.copy_file(f, f + ".saved")
    store.compact()
    for f in batches:
        fs.move(f + ".saved", f)
    assert len(_rows_by_key(store)) == 10  # every original twice: parts and batches
    _reads_exactly(store, refs)
    store.compact()
    assert _rows_by_key(store) == sorted(set(_rows_by_key(store)))
    assert len(_rows_by_key(store)) == 5 and not [f for f in store.files() if "batch-" in f]
    _reads_exactly(store, refs)


def test_each_version_of_a_memory_archived_twice_stays_readable(
    cold_location: Location,
) -> None:
    """Archived, restored, changed, archived again: the first event's reference still
    reads the first version, before and after compaction."""
    store = ColdStore(cold_location, SCHEMA)
    first = store.write("u1", "2024-05", [_original(1)])["m1"]
    changed = dict(_original(1), content="note 1, corrected")
    second = store.write("u1", "2024-05", [changed])["m1"]
    assert first[0].path != second[0].path and first[1] != second[1]
    for _ in range(2):
        assert store.read(first[0])["content"] == _original(1)["content"]
        assert store.read(second[0])["content"] == "note 1, corrected"
        store.compact()
    assert len(store.files()) == 1


def test_reading_many_originals_at_once(cold_location: Location) -> None:
    store = ColdStore(cold_location, SCHEMA, part_rows=3)
    first = store.write("u1", "2024-05", [_original(i) for i in (1, 2, 3)])
    second = store.write("u1", "2024-05", [_original(i) for i in (4, 5)])
    refs = [first["m3"][0], second["m4"][0], first["m1"][0], second["m5"][0]]
    for _ in range(2):  # as written, then after compaction merged the batches away
        originals = store.read_many(refs)
        assert [o["memory_id"] for o in originals] == ["m3", "m4", "m1", "m5"]
        assert originals == [store.read(ref) for ref in refs]
        store.compact()
    assert not [f for f in store.files() if "batch-" in f]
    with pytest.raises(ColdStoreCorrupt, match="m9"):
        store.read_many([refs[0], StorageRef(refs[0].path, "m9")])
