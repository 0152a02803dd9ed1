"""The documents lane's queue: turns across tenants and users, one version of a
document read at a time, each submission held once."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from memstream.jobs.document_queue import REMEMBER_READ_SECONDS, FairQueue, Work


def work(submission: str, user: str, document: str = "d", partition: int = 0) -> Work[str]:
    return Work(submission, user, document, partition, item=submission)


def test_a_big_document_holds_one_reader_and_the_other_users_pass_it() -> None:
    queue: FairQueue[str] = FairQueue()
    queue.put(work("big", "ana", "manual"), 0)
    queue.put(work("ana-2", "ana", "notes"), 0)
    for n in range(3):
        queue.put(work(f"bob-{n}", "bob", f"b{n}"), 0)
    first = queue.take()
    assert first is not None and first.submission == "big"
    taken = []
    while (next_ := queue.take()) is not None:  # the other reader, while big is read
        taken.append(next_.submission)
        queue.done(next_, 1)
    # bob's come before ana's second (ana has one being read), and all of them get read
    assert taken == ["bob-0", "bob-1", "bob-2", "ana-2"]


def test_tenants_take_turns_whatever_their_users_queue() -> None:
    queue: FairQueue[str] = FairQueue()
    for n in range(4):
        queue.put(work(f"acme-{n}", f"acme:u{n}", "d"), 0)  # four users of one tenant
    queue.put(work("solo-0", "globex:one", "d0"), 0)
    queue.put(work("solo-1", "globex:one", "d1"), 0)
    order = []
    while (next_ := queue.take()) is not None:
        order.append(next_.submission)
        queue.done(next_, 1)
    assert order == ["acme-0", "solo-0", "acme-1", "solo-1", "acme-2", "acme-3"]


def test_two_versions_of_one_document_are_never_read_at_once() -> None:
    queue: FairQueue[str] = FairQueue()
    queue.put(work("v1", "ana", "lease"), 0)
    queue.put(work("v2", "ana", "lease"), 0)
    first = queue.take()
    assert first is not None and first.submission == "v1"
    assert queue.take() is None  # v2 waits for v1, though a reader is idle
    queue.done(first, 1)
    second = queue.take()
    assert second is not None and second.submission == "v2"


def test_a_submission_is_held_once_and_remembered_a_while_after_it_is_read() -> None:
    queue: FairQueue[str] = FairQueue()
    assert queue.put(work("s", "ana"), 0)
    assert not queue.put(work("s", "ana"), 0)  # the log and a sweep both bring it
    taken = queue.take()
    assert taken is not None
    assert not queue.put(work("s", "ana"), 1)  # being read
    queue.done(taken, 2)
    assert not queue.put(work("s", "ana"), 3)  # its parts are on their way
    assert queue.put(work("s", "ana"), 2 + REMEMBER_READ_SECONDS)  # still unread: again


def test_what_waits_for_a_lost_partition_is_let_go_and_can_come_back() -> None:
    queue: FairQueue[str] = FairQueue()
    queue.put(work("kept", "ana", partition=0), 0)
    queue.put(work("lost", "bob", partition=1), 0)
    dropped = queue.drop_partitions({1})
    assert [w.submission for w in dropped] == ["lost"]
    assert len(queue) == 1
    assert queue.put(work("lost", "bob", partition=1), 1)  # owned again: queued again


submissions = st.lists(
    st.tuples(st.sampled_from(["a:1", "a:2", "b:1", "c"]), st.sampled_from(["x", "y", "z"])),
    max_size=40,
)


@settings(max_examples=200, deadline=None)
@given(submissions, st.integers(min_value=1, max_value=4), st.randoms(use_true_random=False))
def test_every_submission_is_read_once_in_order_per_document(
    put: list[tuple[str, str]], readers: int, random: object
) -> None:
    """However many readers finish in whatever order, each submission is read exactly
    once, a document's versions one after the other in the order submitted."""
    import random as random_module

    assert isinstance(random, random_module.Random)
    queue: FairQueue[str] = FairQueue()
    for n, (user, document) in enumerate(put):
        queue.put(work(f"s{n}", user, document), 0)
    reading: list[Work[str]] = []
    read: list[Work[str]] = []
    while True:
        while len(reading) < readers and (next_ := queue.take()) is not None:
            same = [
                w
                for w in reading
                if (w.user_id, w.document_id) == (next_.user_id, next_.document_id)
            ]
            assert not same, "two versions of one document read at once"
            reading.append(next_)
        if not reading:
            break
        finished = reading.pop(random.randrange(len(reading)))
        queue.done(finished, 1)
        read.append(finished)
    assert sorted(w.submission for w in read) == sorted(f"s{n}" for n in range(len(put)))
    for user, document in set(put):
        versions = [
            int(w.submission[1:]) for w in read if (w.user_id, w.document_id) == (user, document)
        ]
        assert versions == sorted(versions)
    assert len(queue) == 0


def test_big_documents_leave_a_reader_for_small_ones() -> None:
    """Two 50 MB files of one user and, later, another tenant's notes, with two
    readers: the second big file waits for the first (it would take the last reader),
    and the notes take the reader left, one after another."""
    queue: FairQueue[str] = FairQueue(big_readers=1, big_bytes=5_000_000)
    queue.put(Work("big-1", "acme:ana", "a", 0, item="big-1", size=50_000_000), 0)
    queue.put(Work("big-2", "acme:ana", "b", 0, item="big-2", size=50_000_000), 0)
    first = queue.take()
    assert first is not None and first.submission == "big-1"
    assert queue.take() is None  # the second big file may not take the last reader
    for n in range(3):
        queue.put(Work(f"note-{n}", "globex:bo", f"n{n}", 1, item="", size=2_000), 1)
    taken = queue.take()
    assert taken is not None and taken.submission == "note-0"
    queue.done(taken, 2)
    taken = queue.take()
    assert taken is not None and taken.submission == "note-1"
    queue.done(first, 3)
    second = queue.take()
    assert second is not None and second.submission == "big-2"
