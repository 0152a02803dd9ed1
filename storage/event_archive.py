"""The Parquet event archive: every valid input event, as the log carried it.

The embedded broker keeps its log in memory, so this archive is what survives a
restart; replay can read from it instead of Kafka. Files are named from their position
(``{topic}-{partition}-{first_offset}-{last_offset}.parquet``) under one folder per log
epoch, topic and partition, so writing the same batch twice overwrites rather than
duplicates, and reading skips offsets already returned when two files overlap (a batch
re-read with other boundaries after a crash). The layout code takes a filesystem and
does not know whether it is a local folder or S3.
"""

from __future__ import annotations

import posixpath
import re
import uuid
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

import pyarrow as pa
import pyarrow.parquet as pq
from pyarrow import fs as pafs

from storage.errors import ArchiveCorrupt
from storage.filesystems import Location
from storage.schemas import ARCHIVE_SCHEMA

__all__ = ["ArchiveFile", "EventArchive", "LogRecord", "log_record"]

_FILE_NAME = re.compile(r"^(?P<topic>.+)-(?P<partition>\d+)-(?P<first>\d+)-(?P<last>\d+)\.parquet$")


@dataclass(frozen=True, slots=True)
class LogRecord:
    """One log record: where it was and the bytes it carried."""

    log_epoch: str
    topic: str
    partition: int
    offset: int
    timestamp: datetime
    key: bytes | None
    value: bytes


def log_record(
    log_epoch: str,
    topic: str,
    partition: int,
    offset: int,
    timestamp_ms: int,
    key: bytes | None,
    value: bytes | None,
) -> LogRecord:
    """A LogRecord from a Kafka record's fields (timestamp in milliseconds)."""
    stamp = datetime.fromtimestamp(timestamp_ms / 1000.0, UTC)
    return LogRecord(log_epoch, topic, partition, offset, stamp, key, value or b"")


@dataclass(frozen=True, slots=True)
class ArchiveFile:
    """One Parquet file of the archive and the offsets it covers."""

    path: str
    log_epoch: str
    topic: str
    partition: int
    first_offset: int
    last_offset: int


class EventArchive:
    """Append-only Parquet archive of input events under one location."""

    def __init__(self, location: Location) -> None:
        self._location = location
        self._fs = location.filesystem

    def write(self, records: Sequence[LogRecord]) -> list[str]:
        """Write ``records``, one file per (epoch, topic, partition); return the paths."""
        groups: dict[tuple[str, str, int], list[LogRecord]] = defaultdict(list)
        for record in records:
            groups[(record.log_epoch, record.topic, record.partition)].append(record)
        return [self._write_group(sorted(g, key=lambda r: r.offset)) for g in groups.values()]

    def files(self, topic: str | None = None) -> list[ArchiveFile]:
        """Every archive file, in replay order (epoch, topic, partition, first offset)."""
        selector = pafs.FileSelector(self._location.path, recursive=True, allow_not_found=True)
        found = []
        for info in self._fs.get_file_info(selector):
            parsed = self._parse(info)
            if parsed is not None and (topic is None or parsed.topic == topic):
                found.append(parsed)
        found.sort(
            key=lambda f: (f.log_epoch, f.topic, f.partition, f.first_offset, -f.last_offset)
        )
        return found

    def read(self, topic: str | None = None) -> Iterator[LogRecord]:
        """Yield every archived record once, in log order within each partition."""
        last_seen: dict[tuple[str, str, int], int] = {}
        for archive_file in self.files(topic):
            key = (archive_file.log_epoch, archive_file.topic, archive_file.partition)
            if archive_file.last_offset <= last_seen.get(key, -1):
                continue
            for record in self._read_file(archive_file):
                if record.offset > last_seen.get(key, -1):
                    last_seen[key] = record.offset
                    yield record

    def _write_group(self, group: list[LogRecord]) -> str:
        head = group[0]
        folder = posixpath.join(
            self._location.path,
            f"epoch={head.log_epoch}",
            f"topic={head.topic}",
            f"partition={head.partition:03d}",
        )
        name = (
            f"{head.topic}-{head.partition}-{group[0].offset:012d}-{group[-1].offset:012d}.parquet"
        )
        target = posixpath.join(folder, name)
        self._fs.create_dir(folder, recursive=True)
        table = _to_table(group)
        if self._location.is_local:
            temporary = posixpath.join(folder, f".{name}.{uuid.uuid4().hex}.tmp")
            pq.write_table(table, temporary, filesystem=self._fs, compression="zstd")
            self._fs.move(temporary, target)
        else:  # an S3 object appears whole or not at all
            pq.write_table(table, target, filesystem=self._fs, compression="zstd")
        return target

    def _parse(self, info: pafs.FileInfo) -> ArchiveFile | None:
        if info.type != pafs.FileType.File:
            return None
        match = _FILE_NAME.match(info.base_name)
        epoch_dir = info.path.rsplit("/", 4)[-4] if info.path.count("/") >= 4 else ""
        if match is None or not epoch_dir.startswith("epoch="):
            return None
        return ArchiveFile(
            path=info.path,
            log_epoch=epoch_dir.removeprefix("epoch="),
            topic=match["topic"],
            partition=int(match["partition"]),
            first_offset=int(match["first"]),
            last_offset=int(match["last"]),
        )

    def _read_file(self, archive_file: ArchiveFile) -> Iterable[LogRecord]:
        try:
            table = pq.read_table(archive_file.path, filesystem=self._fs, schema=ARCHIVE_SCHEMA)
        except (OSError, pa.ArrowInvalid) as exc:
            raise ArchiveCorrupt(f"cannot read {archive_file.path}: {exc}") from exc
        for row in table.sort_by("offset").to_pylist():
            yield LogRecord(**row)


def _to_table(records: Sequence[LogRecord]) -> pa.Table:
    columns = {name: [getattr(r, name) for r in records] for name in ARCHIVE_SCHEMA.names}
    return pa.Table.from_pydict(columns, schema=ARCHIVE_SCHEMA)
