"""Sealed records and per-user data keys: what opens, what never opens again, and how a
batch treats the records of an erased user (real files for the key store)."""

from __future__ import annotations

import tempfile
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memstream.application.stores import state_digest
from memstream.events.codec import encode
from memstream.events.errors import InvalidEvent
from memstream.events.sealed_records import cipher_of, envelope_of, is_sealed, open_envelope, seal
from memstream.events.vocabulary import MessageEvent
from memstream.storage.data_keys import DataKey, DataKeys, MissingDataKey
from memstream.storage.lance.store import ProjectionStore
from memstream.storage.lance.tables import STATE_TABLES
from memstream.storage.log_records import LogRecord
from memstream.streams.batches import prepare_batch
from memstream.streams.projector import Projector
from memstream.streams.sealing import RecordKeys, erasure_event
from memstream.testing import FakeClock

T0 = datetime(2024, 5, 1, tzinfo=UTC)
KEY = cipher_of(bytes(range(32)))
NONCE = bytes(12)


def _message(user: str, n: int, text: str = "I moved to Porto") -> MessageEvent:
    return MessageEvent(
        event_id=f"{user}-{n}",
        user_id=user,
        session_id="s1",
        role="user",
        content=f"{text} {n}",
        occurred_at=T0 + timedelta(minutes=n),
    )


def _record(value: bytes, offset: int, at: datetime = T0, user: str = "ana") -> LogRecord:
    return LogRecord("e1", "memory.messages", 0, offset, at, user.encode(), value)


@settings(max_examples=200, deadline=None)
@given(
    plaintext=st.binary(max_size=2000),
    user=st.from_regex(r"[\w.:@+/-]{1,40}", fullmatch=True),
)
def test_a_sealed_record_opens_to_its_bytes_and_shows_none_of_them(
    plaintext: bytes, user: str
) -> None:
    sealed = seal(plaintext, user, "00112233aabbccdd", KEY, NONCE)
    assert is_sealed(sealed)
    envelope = envelope_of(sealed)
    assert envelope.user_id == user and open_envelope(envelope, KEY) == plaintext
    assert sealed[0] == 0, "a sealed record could be taken for a JSON event"
    if len(plaintext) >= 8:
        assert plaintext not in envelope.data


def test_a_sealed_record_does_not_open_with_another_key_user_or_a_changed_byte() -> None:
    sealed = seal(b'{"content": "secret"}', "ana", "00112233aabbccdd", KEY, NONCE)
    envelope = envelope_of(sealed)
    with pytest.raises(InvalidEvent, match="does not open"):
        open_envelope(envelope, cipher_of(bytes(32)))
    moved = sealed.replace(b"\x00\x03ana", b"\x00\x03bob")
    assert envelope_of(moved).user_id == "bob"
    with pytest.raises(InvalidEvent, match="does not open"):
        open_envelope(envelope_of(moved), KEY)
    changed = sealed[:-1] + bytes([sealed[-1] ^ 1])
    with pytest.raises(InvalidEvent, match="does not open"):
        open_envelope(envelope_of(changed), KEY)
    with pytest.raises(InvalidEvent, match="well-formed"):
        envelope_of(sealed[:20])


def test_keys_made_at_once_by_many_processes_all_open_and_all_die_in_an_erasure(
    tmp_path: Path,
) -> None:
    stores = [DataKeys(tmp_path) for _ in range(8)]
    made: list[DataKey] = []
    threads = [threading.Thread(target=lambda s=s: made.append(s.key_for("ana"))) for s in stores]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    fresh = DataKeys(tmp_path)  # a process started afterwards takes the least key id
    assert fresh.key_for("ana", create=False).key_id == min(k.key_id for k in made)
    for key in made:  # whatever a process sealed under opens everywhere
        assert DataKeys(tmp_path).lookup("ana", key.key_id) == key.key
    files = [p for p in (tmp_path / "live").rglob("*") if p.is_file()]
    for path in files:
        assert path.stat().st_mode & 0o077 == 0, "a key file others can read"
        assert b"ana" not in str(path.relative_to(tmp_path)).encode()
    written = {p.stem for p in files}  # every process that lost the race wrote one too
    erasure = fresh.erase("ana", T0)
    assert set(erasure.key_ids) == written >= {k.key_id for k in made}
    assert all(DataKeys(tmp_path).lookup("ana", k.key_id) is None for k in made)
    assert not [p for p in (tmp_path / "live").rglob("*") if p.is_file()]


def test_erasing_destroys_the_key_and_tells_erased_from_missing(tmp_path: Path) -> None:
    keys = DataKeys(tmp_path)
    old = keys.key_for("ana")
    assert keys.lookup("ana", old.key_id) == old.key
    other = DataKeys(tmp_path)  # another process, with the key cached
    assert other.lookup("ana", old.key_id) == old.key
    erasure = keys.erase("ana", T0)
    assert erasure.key_ids == (old.key_id,) and keys.is_pending("ana")
    assert keys.lookup("ana", old.key_id) is None
    assert not any(old.key.hex() in p.read_bytes().hex() for p in tmp_path.rglob("*.json"))
    # the other process seals nothing more under the destroyed key
    assert other.key_for("ana").key_id != old.key_id
    with pytest.raises(MissingDataKey):
        keys.lookup("ana", "ffffffffffffffff")
    assert [e.user_id for e in keys.pending()] == ["ana"]
    keys.finish("ana")
    assert keys.pending() == [] and keys.erased_at("ana") == T0


def test_a_batch_skips_what_an_erasure_made_unreadable_and_archives_only_sealed(
    tmp_path: Path,
) -> None:
    keys = RecordKeys(DataKeys(tmp_path))
    sealed_ana = keys.seal_event(_message("ana", 1))
    plain_ana_before = encode(_message("ana", 2))
    plain_bob = encode(_message("bob", 3))
    keys.keys.erase("ana", T0 + timedelta(hours=1))
    keys.forget("ana")
    records = [
        _record(sealed_ana, 0),
        _record(plain_ana_before, 1, at=T0),
        _record(encode(_message("ana", 4, "I came back")), 2, at=T0 + timedelta(hours=2)),
        _record(plain_bob, 3, user="bob"),
        _record(keys.seal(b"bob", encode(_message("bob", 5)))[:-30] + b'"}', 4, user="bob"),
    ]
    batch = prepare_batch(records, {}, keys=keys)
    assert batch.erased == 2
    contents = sorted(str(row["content"]) for row in batch.rows)  # type: ignore[index]
    assert contents == ["I came back 4", "I moved to Porto 3"]
    assert len(batch.dead_letters) == 1  # an envelope cut short
    assert all(is_sealed(r.value) for r in batch.valid_records)
    assert not any(b"Porto" in r.value or b"came back" in r.value for r in batch.valid_records)
    assert batch.newest[("memory.messages", 0)].offset == 4


def test_a_record_sealed_under_a_key_the_store_never_had_is_dead_lettered(
    tmp_path: Path,
) -> None:
    elsewhere = RecordKeys(DataKeys(tmp_path / "other"))
    here = RecordKeys(DataKeys(tmp_path / "here"))
    batch = prepare_batch([_record(elsewhere.seal_event(_message("ana", 1)), 0)], {}, keys=here)
    assert batch.erased == 0 and len(batch.dead_letters) == 1
    assert "no data key" in batch.dead_letters[0].reason


def test_what_the_worker_derived_from_an_erased_user_is_not_sealed_again(
    tmp_path: Path,
) -> None:
    keys = RecordKeys(DataKeys(tmp_path))
    vector = (b"ana", encode(_message("ana", 1)))
    assert keys.seal_derived([vector])[0] is not None
    DataKeys(tmp_path).erase("ana", T0)  # by another process
    assert keys.seal_derived([vector, (b"bob", vector[1])])[0] is None  # no new key for it
    assert len([p for p in (tmp_path / "live").rglob("*") if p.is_file()]) == 1  # bob's
    assert keys.seal_all([vector])[0] is not None  # what ana publishes anew gets a new key


def test_an_erasure_is_applied_as_it_came_and_makes_no_key(tmp_path: Path) -> None:
    keys = RecordKeys(DataKeys(tmp_path))
    keys.seal_event(_message("ana", 1))
    erasure = keys.keys.erase("ana", T0 + timedelta(hours=1))
    record = _record(encode(erasure_event(erasure)), 0, at=T0)  # a clock behind the eraser's
    batch = prepare_batch([record], {}, keys=keys)
    assert [e.user_id for e in batch.erasures] == ["ana"] and batch.valid_records == [record]
    assert keys.keys.key_for("ana", create=False) is None


@settings(max_examples=12, deadline=None)
@given(
    said=st.lists(
        st.tuples(st.sampled_from(["ana", "bob"]), st.sampled_from(["tea", "Porto", "a cat"])),
        min_size=1,
        max_size=12,
    ),
    erased_at_position=st.integers(0, 12),
    batch=st.integers(1, 5),
)
def test_whenever_the_erasure_is_applied_the_other_user_is_as_if_it_never_happened(
    said: list[tuple[str, str]], erased_at_position: int, batch: int
) -> None:
    """Everything ana said was published before her erasure; the log delivers the
    erasure anywhere among the records (another topic) and the worker applies them in
    batches of any size: ana ends with no row, and bob's rows are those of a store that
    only ever saw bob."""
    with tempfile.TemporaryDirectory() as folder:
        keys = RecordKeys(DataKeys(Path(folder) / "keys"))
        messages = [_message(user, n, text) for n, (user, text) in enumerate(said)]
        records = [
            LogRecord("e1", "memory.messages", 0, n, T0, m.user_id.encode(), keys.seal_event(m))
            for n, m in enumerate(messages)
        ]
        erasure = erasure_event(keys.keys.erase("ana", T0 + timedelta(hours=1)))
        at = min(erased_at_position, len(records))
        erased = LogRecord("e1", "memory.commands", 0, 0, T0, b"ana", encode(erasure))
        log = [*records[:at], erased, *records[at:]]

        def applied(store_name: str, chosen: list[LogRecord]) -> ProjectionStore:
            store = ProjectionStore(str(Path(folder) / store_name))
            projector = Projector(store, "test", FakeClock(T0), keys=RecordKeys(keys.keys))
            for start in range(0, len(chosen), batch):
                projector.apply(chosen[start : start + batch])
            projector.flush()
            return store

        live = applied("live", log)
        bob_only = applied("bob", [r for r in records if r.key == b"bob"])
        assert all(live.count(name, "user_id = 'ana'") == 0 for name in STATE_TABLES)
        assert state_digest(live, "bob") == state_digest(bob_only, "bob")
