"""The intake journal: an append-only, fsync'd file of records, written before a publish
is acknowledged.

The embedded broker keeps its log in memory. A record it has acknowledged lives only
there until the worker has archived it, so a crash in between would lose an event that
memstream already called accepted. Every publishing process therefore first appends
its records (topic, key, value: bytes, nothing here knows what an event is) to a
segment of its own in the journal folder and fsyncs it; only then does it hand them to
the broker and answer.

Segments and their states::

    <folder>/<writer>-<n>.seg          open: its writer holds an exclusive flock on it
    <folder>/<writer>-<n>.seg          orphaned: no lock (the writer died or gave up)
    <folder>/<writer>-<n>.seg + .sealed  sealed: every record reached the log; the
                                          ``.sealed`` file names its epoch and the
                                          highest offset per (topic, partition)
    <folder>/LOG_EPOCH                    the epoch of the log the worker runs on

A frame is ``length (u32) | crc32 (u32) | payload``; a torn or corrupt tail (a crash in
the middle of a write) ends the segment there. The worker's sweeper (see
:mod:`memstream.streams.journal_sweeper`) re-publishes orphaned segments and segments
sealed for an older log, and deletes a sealed segment once the projections have
applied the log past it.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import logging
import os
import struct
import threading
import time
import uuid
import zlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from memstream.storage.durable import fsync_folder

__all__ = [
    "Appended",
    "Journal",
    "JournalRecord",
    "JournalWriter",
    "Positions",
    "Seal",
    "Segment",
    "read_frames",
    "write_atomically",
]

log = logging.getLogger(__name__)

_FRAME = struct.Struct(">II")  # payload length, crc32 of the payload
_RECORD = struct.Struct(">HI")  # topic length, key length (NO_KEY: no key)
_NO_KEY = 0xFFFFFFFF
_SUFFIX = ".seg"
_SEALED = ".sealed"
_EPOCH_FILE = "LOG_EPOCH"


@dataclass(frozen=True)
class JournalRecord:
    """One record as it will be produced: topic, key (or None) and value."""

    topic: str
    key: bytes | None
    value: bytes

    def frame(self) -> bytes:
        topic = self.topic.encode("utf-8")
        key = b"" if self.key is None else self.key
        head = _RECORD.pack(len(topic), _NO_KEY if self.key is None else len(key))
        payload = head + topic + key + self.value
        return _FRAME.pack(len(payload), zlib.crc32(payload)) + payload

    @staticmethod
    def parse(payload: bytes) -> JournalRecord:
        topic_length, key_length = _RECORD.unpack_from(payload)
        at = _RECORD.size
        topic = payload[at : at + topic_length].decode("utf-8")
        at += topic_length
        key = None
        if key_length != _NO_KEY:
            key = payload[at : at + key_length]
            at += key_length
        return JournalRecord(topic, key, payload[at:])


def read_frames(data: bytes) -> Iterator[JournalRecord]:
    """The records of a segment's bytes, up to the first torn or corrupt frame."""
    at = 0
    while at + _FRAME.size <= len(data):
        length, crc = _FRAME.unpack_from(data, at)
        payload = data[at + _FRAME.size : at + _FRAME.size + length]
        if len(payload) < length or zlib.crc32(payload) != crc:
            return
        try:
            yield JournalRecord.parse(payload)
        except (struct.error, UnicodeDecodeError):
            return
        at += _FRAME.size + length


#: (topic, partition) -> the highest offset a segment's records got there.
Positions = Mapping[tuple[str, int], int]


@dataclass(frozen=True)
class Seal:
    """A sealed segment's log epoch and the highest offset per (topic, partition)."""

    epoch: str
    positions: dict[tuple[str, int], int]


@dataclass(frozen=True)
class Segment:
    """A segment file seen by the sweeper."""

    path: Path

    @property
    def sealed_path(self) -> Path:
        return self.path.with_name(self.path.name + _SEALED)

    def sealed(self) -> Seal | None:
        """Where the segment's records reached the log, or None when not sealed."""
        try:
            document = json.loads(self.sealed_path.read_text())
            positions = {}
            for key, offset in document["positions"].items():
                topic, _, partition = key.rpartition("/")
                positions[(topic, int(partition))] = int(offset)
            return Seal(str(document["epoch"]), positions)
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return None

    def records(self) -> list[JournalRecord]:
        try:
            return list(read_frames(self.path.read_bytes()))
        except FileNotFoundError:
            return []

    def seal(self, epoch: str, positions: Positions) -> None:
        """Record that every record of this segment is in the log of ``epoch``, the
        highest at ``positions``."""
        encoded = {f"{topic}/{partition}": o for (topic, partition), o in positions.items()}
        document = {"epoch": epoch, "positions": encoded}
        write_atomically(self.sealed_path, json.dumps(document).encode())

    def remove(self) -> None:
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()
        with contextlib.suppress(FileNotFoundError):
            self.sealed_path.unlink()

    @contextlib.contextmanager
    def claimed(self) -> Iterator[bool]:
        """Try to take the segment's lock: yields False while its writer holds it."""
        try:
            fd = os.open(self.path, os.O_RDONLY)
        except FileNotFoundError:
            yield False
            return
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                yield False
                return
            yield True
        finally:
            os.close(fd)


class Journal:
    """The journal folder: writers for publishers, segments for the sweeper."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def create(self) -> Journal:
        self.folder.mkdir(parents=True, exist_ok=True)
        return self

    @property
    def exists(self) -> bool:
        return self.folder.is_dir()

    def writer(self, max_bytes: int = 16 << 20, max_seconds: float = 2.0) -> JournalWriter:
        return JournalWriter(self.folder, max_bytes=max_bytes, max_seconds=max_seconds)

    def log_epoch(self) -> str | None:
        """The epoch of the log the worker runs on now (written by the worker at start)."""
        try:
            return (self.folder / _EPOCH_FILE).read_text().strip() or None
        except FileNotFoundError:
            return None

    def set_log_epoch(self, epoch: str) -> None:
        write_atomically(self.folder / _EPOCH_FILE, epoch.encode())

    def segments(self) -> list[Segment]:
        """Every segment, oldest name first."""
        try:
            names = sorted(p for p in self.folder.iterdir() if p.name.endswith(_SUFFIX))
        except FileNotFoundError:
            return []
        return [Segment(p) for p in names]


class _OpenSegment:
    def __init__(self, path: Path, epoch: str) -> None:
        temporary = path.with_name(path.name + ".new")
        self.fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND, 0o644)
        fcntl.flock(self.fd, fcntl.LOCK_EX)  # before the sweeper can see it
        os.rename(temporary, path)
        fsync_folder(path.parent)
        self.segment = Segment(path)
        self.epoch = epoch
        self.opened = time.monotonic()
        self.size = 0
        self.batches = 0
        self.acknowledged = 0
        self.positions: dict[tuple[str, int], int] = {}
        self.failed = False

    @property
    def settled(self) -> bool:
        return self.failed or self.acknowledged == self.batches

    def close(self) -> None:
        """Seal it when every batch reached the log; either way release it."""
        if not self.failed and self.batches and self.acknowledged == self.batches:
            self.segment.seal(self.epoch, self.positions)
        elif self.batches == 0 and not self.failed:
            self.segment.remove()
        os.close(self.fd)  # an unsealed segment is now an orphan for the sweeper


@dataclass(frozen=True)
class Appended:
    """Where batches went, to report each one's outcome with
    :meth:`JournalWriter.acknowledge`."""

    segment: _OpenSegment


class JournalWriter:
    """Appends batches of records to segments of its own (thread-safe)."""

    def __init__(self, folder: Path, *, max_bytes: int, max_seconds: float) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self._folder = folder
        self._name = f"{int(time.time() * 1000):013d}-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        self._count = 0
        self._max_bytes = max_bytes
        self._max_seconds = max_seconds
        self._current: _OpenSegment | None = None
        self._retired: list[_OpenSegment] = []
        self._lock = threading.Lock()

    def append(
        self, batches: Sequence[Sequence[JournalRecord]], epoch: Callable[[], str]
    ) -> Appended:
        """Write the records of ``batches`` and fsync them (each batch is acknowledged
        on its own later); ``epoch`` names the log a new segment's records will go to.

        Raises:
            OSError: the disk refused (the segment is set aside; later appends open a
                new one).
        """
        with self._lock:
            if self._needs_segment():
                self._rotate(epoch())
            current = self._current
            assert current is not None
            data = b"".join(r.frame() for batch in batches for r in batch)
            try:
                _write_all(current.fd, data)
                os.fsync(current.fd)
            except OSError:
                # None of these batches was taken: cut what of them reached the file, so
                # no sweep ever produces part of a refused publish.
                _cut_back(current.fd, current.size)
                current.failed = True  # start a new segment for later appends
                self._retire()
                self._close_settled()
                raise
            current.size += len(data)
            current.batches += len(batches)
            return Appended(current)

    def acknowledge(self, appended: Appended, positions: Positions | None) -> None:
        """Report that one batch reached the log at ``positions``, or (None) that it
        did not."""
        with self._lock:
            segment = appended.segment
            if positions is None:
                segment.failed = True
            else:
                segment.acknowledged += 1
                for at, offset in positions.items():
                    segment.positions[at] = max(offset, segment.positions.get(at, -1))
            self._close_settled()

    def close(self) -> None:
        """Seal or release every segment (call when no batch is in flight)."""
        with self._lock:
            self._retire()
            for segment in self._retired:
                segment.close()
            self._retired = []

    def _needs_segment(self) -> bool:
        current = self._current
        return (
            current is None
            or current.size >= self._max_bytes
            or time.monotonic() - current.opened >= self._max_seconds
        )

    def _rotate(self, epoch: str) -> None:
        self._retire()
        self._count += 1
        name = f"{self._name}-{self._count:06d}{_SUFFIX}"
        self._current = _OpenSegment(self._folder / name, epoch)
        self._close_settled()

    def _retire(self) -> None:
        if self._current is not None:
            self._retired.append(self._current)
            self._current = None

    def _close_settled(self) -> None:
        still = []
        for segment in self._retired:
            if segment.settled:
                segment.close()
            else:
                still.append(segment)
        self._retired = still


def _cut_back(fd: int, size: int) -> None:
    """Truncate the file to ``size`` bytes (what was there before a failed write) and
    make that durable; a failure to do so is logged, and the frames written stay."""
    try:
        os.ftruncate(fd, size)
        os.fsync(fd)
    except OSError as exc:
        log.error("could not cut a failed journal write back to %d bytes: %s", size, exc)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def write_atomically(path: Path, data: bytes) -> None:
    """Replace ``path`` durably: readers see the old bytes or the new, never half."""
    temporary = path.with_name(f".{path.name}.{uuid.uuid4().hex[:8]}.tmp")
    with open(temporary, "wb") as out:
        out.write(data)
        out.flush()
        os.fsync(out.fileno())
    os.replace(temporary, path)
    fsync_folder(path.parent)
