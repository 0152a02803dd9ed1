"""Write tokens: their text round-trips, merging keeps the furthest position, a store's
checkpoints cover a token exactly when each named partition is applied that far, and a
replay cut at a token keeps exactly the records at or before it."""

from __future__ import annotations

import asyncio
import base64

import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st

from memstream.application.read_after_write import (
    NotYetApplied,
    read_token,
    wait_for_write,
)
from memstream.events.errors import InvalidQuery
from memstream.jobs.replay import records_through
from memstream.storage.archive.event_archive import records_table
from memstream.storage.log_records import LogPosition
from memstream.storage.write_tokens import (
    BadToken,
    UnseenWrites,
    WriteToken,
    behind,
    merged,
    parse_token,
    token_of_checkpoints,
)

TOPICS = ("memory.messages", "memory.commands", "memory.embeddings")
EPOCHS = ("20260101T000000Z-aaaaaaaa", "20261129T000000Z-bbbbbbbb")

positions = st.dictionaries(
    st.tuples(st.sampled_from(TOPICS), st.integers(0, 7)), st.integers(0, 10**9), max_size=12
)
tokens = st.builds(WriteToken, st.sampled_from(EPOCHS), positions)


@given(tokens)
def test_a_tokens_text_names_what_it_was_made_of(token: WriteToken) -> None:
    text = token.text()
    assert text.startswith("w1.") and text.isascii() and "=" not in text
    assert parse_token(text) == token


#: a token of JSON nested deeper than Python's parser goes (within the length a read takes)
_DEEP = "w1." + base64.urlsafe_b64encode(b"[" * 5000).decode().rstrip("=")


@pytest.mark.parametrize(
    "text", ["", "w1.", "w1.!!", "w2.e30", "w1.e30", "x" * 9000, "w1.W10", _DEEP]
)
def test_a_text_that_is_no_token_is_refused_without_being_quoted(text: str) -> None:
    with pytest.raises(BadToken) as refused:
        parse_token(text)
    assert text not in str(refused.value) or text == ""
    with pytest.raises(InvalidQuery, match=r"^after_write: not a write token"):
        read_token(text)


@given(st.lists(tokens, max_size=5))
def test_merging_keeps_the_furthest_offset_of_the_newest_life(many: list[WriteToken]) -> None:
    one = merged(many)
    if not many:
        assert one is None
        return
    assert one is not None and one.log_epoch == max(t.log_epoch for t in many)
    for token in many:
        if token.log_epoch == one.log_epoch:
            assert all(one.positions[at] >= offset for at, offset in token.positions.items())
    assert all(
        any(t.positions.get(at) == offset for t in many if t.log_epoch == one.log_epoch)
        for at, offset in one.positions.items()
    )


@given(tokens, positions)
def test_checkpoints_cover_a_token_when_every_partition_it_names_is_applied_that_far(
    token: WriteToken, applied: dict[tuple[str, int], int]
) -> None:
    checkpoints = {
        at: LogPosition(token.log_epoch, at[0], at[1], offset) for at, offset in applied.items()
    }
    pending = behind(token, checkpoints)
    for at, offset in token.positions.items():
        reached = applied.get(at, -1)
        assert (at in pending) == (reached < offset)
        if at in pending:
            assert pending[at] == offset - reached
    whole = token_of_checkpoints(checkpoints)
    if whole is not None:  # a store's own position covers itself
        assert behind(whole, checkpoints) == {}


def test_a_checkpoint_of_another_life_of_the_log_is_not_the_tokens() -> None:
    at = ("memory.messages", 3)
    token = WriteToken(EPOCHS[1], {at: 5})
    older = {at: LogPosition(EPOCHS[0], *at, 99)}
    newer = {at: LogPosition("20270101T000000Z-cccccccc", *at, 0)}
    assert behind(token, older) == {at: 6}  # nothing of the token's life applied yet
    assert behind(token, newer) == {}  # the log was replaced: nothing to wait for


records = st.tuples(
    st.sampled_from(EPOCHS), st.sampled_from(TOPICS), st.integers(0, 7), st.integers(0, 10**9)
)


@given(tokens, st.lists(records, max_size=40))
def test_a_replay_cut_at_a_token_keeps_exactly_the_records_at_or_before_it(
    token: WriteToken, records: list[tuple[str, str, int, int]]
) -> None:
    tables = [
        records_table(epoch, topic, [partition], [offset], [0], [None], [b"{}"])
        for epoch, topic, partition, offset in records
    ]
    table = (
        pa.concat_tables(tables)
        if tables
        else records_table(EPOCHS[0], TOPICS[0], [], [], [], [], [])
    )
    kept = records_through(table, token).to_pylist()

    def before(epoch: str, topic: str, partition: int, offset: int) -> bool:
        if epoch != token.log_epoch:
            return epoch < token.log_epoch
        named = token.positions.get((topic, partition))
        return named is not None and offset <= named

    expected = [r for r in records if before(*r)]
    assert [(r["log_epoch"], r["topic"], r["partition"], r["offset"]) for r in kept] == expected


def test_unseen_writes_are_waited_for_until_a_read_has_seen_them() -> None:
    unseen = UnseenWrites()
    first = WriteToken(EPOCHS[1], {("memory.messages", 1): 10})
    second = WriteToken(EPOCHS[1], {("memory.commands", 1): 4})
    unseen.wrote(["ana"], first.text())
    unseen.wrote(["ana", "ben"], second.text())
    unseen.wrote(["ana"], None)  # a write that published nothing
    unseen.wrote(["ana"], "not a token")
    ana = unseen.of("ana")
    assert ana is not None and dict(ana.positions) == {**first.positions, **second.positions}
    unseen.seen("ana", ana)
    assert unseen.of("ana") is None and unseen.of("ben") == second
    unseen.wrote(["ben"], first.text())
    unseen.seen("ben", second)  # written again since that read began: still waited for
    assert unseen.of("ben") is not None


def test_a_read_waits_until_the_checkpoints_reach_the_write_then_gives_up_saying_why() -> None:
    at = ("memory.messages", 2)
    token = WriteToken(EPOCHS[1], {at: 7})
    reads: list[int] = []

    def checkpoints() -> dict[tuple[str, int], LogPosition]:
        reads.append(1)
        return {at: LogPosition(EPOCHS[1], *at, 3 + len(reads))}  # one record a read

    waited = asyncio.run(wait_for_write(token, checkpoints, seconds=5))
    assert len(reads) == 4 and waited.seconds < 5
    stuck = {at: LogPosition(EPOCHS[1], *at, 5)}
    with pytest.raises(NotYetApplied) as late:
        asyncio.run(wait_for_write(token, lambda: stuck, seconds=0.2))
    assert str(late.value) == (
        "the write is not applied yet (memory.messages partition 2: 2 records to go) "
        "after 0.2 s; ask again shortly"
    )
    vectors = iter([3, 1, 0])
    asyncio.run(
        wait_for_write(token, checkpoints, vectors_pending=lambda: next(vectors), seconds=5)
    )
    with pytest.raises(NotYetApplied, match="the write is applied; 2 of the user's memories wait"):
        asyncio.run(wait_for_write(token, checkpoints, vectors_pending=lambda: 2, seconds=0.2))
