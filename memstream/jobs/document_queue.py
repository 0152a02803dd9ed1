"""Which submitted document the documents lane reads next: fair across tenants and users.

The lane reads several documents at once (one a reader), and a user's 50 MB file must
not hold another user's one-page note, nor one tenant's thousand uploads another
tenant's one. :class:`FairQueue` keeps a first-in-first-out line per user, and hands
out work in turns: tenant after tenant (an id without a tenant is a tenant of its own),
and within a tenant user after user. A user whose document is being read waits for
the users who have none being read; when every waiting user has one being read, the
idle readers take more of theirs, but big documents (``big_bytes`` and more) hold at
most ``big_readers`` readers between them (one fewer than the lane has), so a reader is
always left for small documents: two 50 MB files of one user read one after the other
while another tenant's notes pass on the other reader. Two versions of one document are
never read at once (the older one first), so their parts reach the log in the order
they were submitted.

A submission is held once: one already waiting, being read, or read not long ago (the
sweep of unread rows finds it again while its parts are on their way to the
projector) is not taken again. Pure: no I/O, no clock of its own (``now`` is passed).
"""

from __future__ import annotations

from collections import OrderedDict, deque
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from memstream.events.user_ids import tenant_of

__all__ = ["FairQueue", "Work"]

_T = TypeVar("_T")

#: How long a submission read is remembered (seconds), so the sweep does not read it
#: again while the projector has not applied its parts yet.
REMEMBER_READ_SECONDS = 1800.0
#: The most submissions remembered as read.
REMEMBER_READ = 100_000


@dataclass(frozen=True)
class Work(Generic[_T]):
    """One submission to read: its id, whose it is and of which document, and
    ``item`` (what the reader needs)."""

    submission: str
    user_id: str
    document_id: str
    partition: int
    item: _T = field(compare=False)
    size: int = field(default=0, compare=False)

    @property
    def tenant(self) -> str:
        """The tenant whose turn it takes (the user, for a user of no tenant)."""
        return _turn_of(self.user_id)


def _turn_of(user_id: str) -> str:
    """Whose turn a user's work takes: its tenant's, or its own without a tenant."""
    tenant = tenant_of(user_id)
    return tenant if tenant is not None else f"\0{user_id}"


class FairQueue(Generic[_T]):
    """The lane's waiting submissions, in per-user lines taken in turns; at most
    ``big_readers`` documents of ``big_bytes`` or more read at once (no bound: None)."""

    def __init__(self, big_readers: int | None = None, big_bytes: int = 5_000_000) -> None:
        self.big_readers, self.big_bytes = big_readers, big_bytes
        self._lines: dict[str, deque[Work[_T]]] = {}  # user -> waiting, oldest first
        self._tenants: OrderedDict[str, OrderedDict[str, None]] = OrderedDict()
        self._reading: dict[str, Work[_T]] = {}  # submission -> work being read
        self._read: OrderedDict[str, float] = OrderedDict()  # submission -> when read
        self._held: set[str] = set()  # waiting or being read

    def __len__(self) -> int:
        """How many submissions wait (not those being read)."""
        return len(self._held) - len(self._reading)

    def holds(self, submission: str, now: float) -> bool:
        """Whether ``submission`` waits, is being read, or was read not long ago."""
        self._forget_old(now)
        return submission in self._held or submission in self._read

    def put(self, work: Work[_T], now: float) -> bool:
        """Add ``work`` to its user's line; False if it is held already."""
        if self.holds(work.submission, now):
            return False
        self._held.add(work.submission)
        self._lines.setdefault(work.user_id, deque()).append(work)
        self._tenants.setdefault(work.tenant, OrderedDict())[work.user_id] = None
        return True

    def take(self) -> Work[_T] | None:
        """The next submission to read, in turn (None if none can be read now)."""
        for busy_users in (False, True):
            for tenant, users in list(self._tenants.items()):
                for user in list(users):
                    if not busy_users and self._user_reading(user):
                        continue
                    work = self._first_free(user)
                    if work is not None and self._room_for(work):
                        self._tenants.move_to_end(tenant)  # its turn is over
                        users.move_to_end(user)
                        return self._start(work)
        return None

    def done(self, work: Work[_T], now: float) -> None:
        """``work`` was read (or given up): remember it a while, free its document."""
        self._reading.pop(work.submission, None)
        self._held.discard(work.submission)
        self._read[work.submission] = now
        self._read.move_to_end(work.submission)
        self._forget_old(now)

    def drop(self, work: Work[_T]) -> None:
        """``work`` was not read and is not done (the lane stops, or lost its partition):
        let it go without remembering it, so it can be taken again."""
        self._reading.pop(work.submission, None)
        self._held.discard(work.submission)

    def drop_partitions(self, partitions: set[int]) -> list[Work[_T]]:
        """Let go of the waiting submissions of ``partitions`` (this lane lost them);
        answers them."""
        dropped = []
        for user, line in list(self._lines.items()):
            for work in [w for w in line if w.partition in partitions]:
                line.remove(work)
                self._held.discard(work.submission)
                dropped.append(work)
            if not line:
                self._forget_user(user)
        return dropped

    def _room_for(self, work: Work[_T]) -> bool:
        """Whether ``work`` may start: a big document only while fewer than
        ``big_readers`` big ones are being read."""
        if self.big_readers is None or work.size < self.big_bytes:
            return True
        big = sum(1 for w in self._reading.values() if w.size >= self.big_bytes)
        return big < self.big_readers

    def _user_reading(self, user: str) -> bool:
        return any(w.user_id == user for w in self._reading.values())

    def _first_free(self, user: str) -> Work[_T] | None:
        """The user's oldest waiting submission of a document not being read, and no
        older version of it waiting."""
        reading = {w.document_id for w in self._reading.values() if w.user_id == user}
        for work in self._lines.get(user, ()):
            if work.document_id not in reading:
                return work
            reading.add(work.document_id)  # a later version waits behind this one
        return None

    def _start(self, work: Work[_T]) -> Work[_T]:
        line = self._lines[work.user_id]
        line.remove(work)
        if not line:
            self._forget_user(work.user_id)
        self._reading[work.submission] = work
        return work

    def _forget_user(self, user: str) -> None:
        self._lines.pop(user, None)
        tenant = _turn_of(user)
        users = self._tenants.get(tenant)
        if users is not None:
            users.pop(user, None)
            if not users:
                del self._tenants[tenant]

    def _forget_old(self, now: float) -> None:
        while self._read:
            submission, when = next(iter(self._read.items()))
            if now - when < REMEMBER_READ_SECONDS and len(self._read) <= REMEMBER_READ:
                break
            del self._read[submission]
