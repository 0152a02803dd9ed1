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
from collections import defaultdict
from collections.abc import Collection, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, fields

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from pyarrow import fs as pafs

from memstream.storage.errors import ArchiveCorrupt
from memstream.storage.filesystems import Location
from memstream.storage.log_records import LogRecord
from memstream.storage.schemas import ARCHIVE_SCHEMA

__all__ = [
    "ArchiveFile",
    "EventArchive",
    "records_from_table",
    "records_table",
]

_FILE_NAME = re.compile(r"^(?P<topic>.+)-(?P<partition>\d+)-(?P<first>\d+)-(?P<last>\d+)\.parquet$")


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
        return [
            self._write_table(_to_table(sorted(g, key=lambda r: r.offset))) for g in groups.values()
        ]

    def files(
        self,
        topic: str | None = None,
        epoch: str | None = None,
        partitions: Collection[int] | None = None,
    ) -> list[ArchiveFile]:
        """Every archive file (of a topic, of a log epoch, of some partitions), in replay
        order (epoch, topic, partition, first offset)."""
        selector = pafs.FileSelector(self._location.path, recursive=True, allow_not_found=True)
        found = []
        for info in self._fs.get_file_info(selector):
            parsed = self._parse(info)
            if parsed is None or (topic is not None and parsed.topic != topic):
                continue
            if partitions is not None and parsed.partition not in partitions:
                continue
            if epoch is None or parsed.log_epoch == epoch:
                found.append(parsed)
        found.sort(
            key=lambda f: (f.log_epoch, f.topic, f.partition, f.first_offset, -f.last_offset)
        )
        return found

    def read(self, topic: str | None = None) -> Iterator[LogRecord]:
        """Yield every archived record once, in log order within each partition."""
        for table in self.read_tables(topic):
            yield from records_from_table(table)

    def read_tables(
        self,
        topic: str | None = None,
        size: int = 20_000,
        epoch: str | None = None,
        after: Mapping[tuple[str, str, int], int] | None = None,
        partitions: Collection[int] | None = None,
    ) -> Iterator[pa.Table]:
        """Every archived record once, in log order within each partition, as Arrow tables
        of at least ``size`` rows but the last (whole files: a file is never split).
        ``epoch`` keeps one log epoch; ``after`` skips, per (epoch, topic, partition),
        the offsets up to the one given; ``partitions`` keeps those partitions.

        Which offsets each file contributes follows from the file names alone, so files
        are read several at a time (Parquet reads release the GIL).
        """
        plan: list[tuple[ArchiveFile, int]] = []  # (file, offsets above this are new)
        last_seen: dict[tuple[str, str, int], int] = dict(after or {})
        for archive_file in self.files(topic, epoch, partitions):
            key = (archive_file.log_epoch, archive_file.topic, archive_file.partition)
            seen = last_seen.get(key, -1)
            if archive_file.last_offset > seen:
                plan.append((archive_file, seen))
                last_seen[key] = archive_file.last_offset
        tables: list[pa.Table] = []
        rows = 0
        with ThreadPoolExecutor(max_workers=_READERS) as pool:
            read = pool.map(lambda step: self._read_planned(step[0]), plan)
            for (archive_file, seen), table in zip(plan, read, strict=True):
                if seen >= archive_file.first_offset:  # overlaps a file already read
                    table = table.filter(pc.greater(table.column("offset"), seen))
                if table.num_rows:
                    tables.append(table)
                    rows += table.num_rows
                if rows >= size:
                    yield pa.concat_tables(tables)
                    tables, rows = [], 0
        if tables:
            yield pa.concat_tables(tables)

    def compact(self, target_rows: int = 100_000) -> int:
        """Merge runs of small consecutive files of each partition into one file.

        A busy worker writes one small file per partition and batch; replay and S3 want
        few large ones. Each run of files smaller than ``target_rows`` becomes one file
        named for the offsets it covers, written before the run's files are removed, so
        a reader or a crash at any moment sees every offset (files covered by a larger
        one are skipped by readers and removed here). Returns the files removed.
        """
        removed = 0
        by_partition: dict[tuple[str, str, int], list[ArchiveFile]] = defaultdict(list)
        for archive_file in self.files():
            key = (archive_file.log_epoch, archive_file.topic, archive_file.partition)
            by_partition[key].append(archive_file)
        for files in by_partition.values():
            removed += self._compact_partition(files, target_rows)
        return removed

    def _compact_partition(self, files: list[ArchiveFile], target_rows: int) -> int:
        covered: list[ArchiveFile] = []
        runs: list[list[ArchiveFile]] = [[]]
        run_rows, seen = 0, -1
        for archive_file in files:
            if archive_file.last_offset <= seen:
                covered.append(archive_file)
                continue
            seen = archive_file.last_offset
            span = archive_file.last_offset - archive_file.first_offset + 1
            if span >= target_rows or run_rows + span > target_rows:
                runs.append([])  # a large file ends a run; so does a full one
                run_rows = 0
            if span < target_rows:
                runs[-1].append(archive_file)
                run_rows += span
        for run in runs:
            if len(run) < 2:
                continue
            self._write_table(_first_per_offset([self._read_file(f) for f in run]))
            covered += run
        for archive_file in covered:
            self._fs.delete_file(archive_file.path)
        return len(covered)

    def _write_table(self, table: pa.Table) -> str:
        """Write rows of one (epoch, topic, partition), sorted by offset, to the file
        named for their first and last offsets; return its path."""
        head = table.slice(0, 1).to_pylist()[0]
        first, last = head["offset"], table.column("offset")[-1].as_py()
        folder = posixpath.join(
            self._location.path,
            f"epoch={head['log_epoch']}",
            f"topic={head['topic']}",
            f"partition={head['partition']:03d}",
        )
        name = f"{head['topic']}-{head['partition']}-{first:012d}-{last:012d}.parquet"
        target = posixpath.join(folder, name)
        self._fs.create_dir(folder, recursive=True)
        self._location.write_whole(
            target,
            lambda path: pq.write_table(table, path, filesystem=self._fs, compression="zstd"),
        )
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

    def _read_planned(self, archive_file: ArchiveFile) -> pa.Table:
        """The records of a file a reader listed. A running worker may have merged it
        into a larger file meanwhile (:meth:`compact` writes the merged file before it
        removes the small ones): then the offsets it held are read from the file that
        covers them now."""
        try:
            return self._read_file(archive_file)
        except ArchiveCorrupt:
            if self._fs.get_file_info(archive_file.path).type != pafs.FileType.NotFound:
                raise
            covering = [
                f
                for f in self.files(
                    archive_file.topic, archive_file.log_epoch, [archive_file.partition]
                )
                if f.first_offset <= archive_file.first_offset
                and f.last_offset >= archive_file.last_offset
            ]
            if not covering:
                raise
            table = self._read_file(covering[0])
            offsets = table.column("offset")
            within = pc.and_(
                pc.greater_equal(offsets, archive_file.first_offset),
                pc.less_equal(offsets, archive_file.last_offset),
            )
            return table.filter(within)

    def _read_file(self, archive_file: ArchiveFile) -> pa.Table:
        try:
            table = pq.read_table(archive_file.path, filesystem=self._fs, schema=ARCHIVE_SCHEMA)
        except (OSError, pa.ArrowInvalid) as exc:
            raise ArchiveCorrupt(f"cannot read {archive_file.path}: {exc}") from exc
        return table.sort_by("offset")


def records_from_table(table: pa.Table) -> list[LogRecord]:
    """The LogRecords of an Arrow table in the archive's schema."""
    columns = table.to_pydict()
    return [LogRecord(*values) for values in zip(*(columns[n] for n in _FIELDS), strict=True)]


def records_table(
    log_epoch: str,
    topic: str,
    partitions: Sequence[int],
    offsets: Sequence[int],
    timestamps_ms: Sequence[int],
    keys: Sequence[bytes | None],
    values: Sequence[bytes | None],
) -> pa.Table:
    """An Arrow table in the archive's schema from Kafka record fields, column by column."""
    n = len(offsets)
    stamps = pa.array(timestamps_ms, pa.timestamp("ms", tz="UTC")).cast(
        ARCHIVE_SCHEMA.field("timestamp").type
    )
    return pa.Table.from_arrays(
        [
            pa.array([log_epoch] * n, pa.string()),
            pa.array([topic] * n, pa.string()),
            pa.array(partitions, pa.int32()),
            pa.array(offsets, pa.int64()),
            stamps,
            pa.array(keys, pa.binary()),
            pa.array([v or b"" for v in values], pa.binary()),
        ],
        schema=ARCHIVE_SCHEMA,
    )


_FIELDS = [f.name for f in fields(LogRecord)]

#: Files read at once by ``read_tables``.
_READERS = 4


def _first_per_offset(tables: list[pa.Table]) -> pa.Table:
    """The rows of ``tables`` sorted by offset, one per offset."""
    table = pa.concat_tables(tables).sort_by("offset")
    offsets = table.column("offset").to_numpy()
    keep = [0, *(i for i in range(1, len(offsets)) if offsets[i] != offsets[i - 1])]
    if len(keep) == table.num_rows:
        return table
    return table.take(pa.array(keep, type=pa.int64()))


def _to_table(records: Sequence[LogRecord]) -> pa.Table:
    columns = {name: [getattr(r, name) for r in records] for name in ARCHIVE_SCHEMA.names}
    return pa.Table.from_pydict(columns, schema=ARCHIVE_SCHEMA)
