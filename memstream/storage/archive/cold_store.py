"""The Parquet cold store: the full originals of archived memories.

Files are partitioned by user and month (of the memory's ``occurred_at``). An archive
batch writes ``user=U/month=YYYY-MM/batch-<digest>.parquet`` (``U`` the user id made one
safe folder name by :func:`~memstream.storage.path_names.path_segment`: an id is never a path),
the digest taken over the
batch's memory ids and checksums: re-running an interrupted batch writes the same file
with the same bytes instead of a second copy, and archiving a memory again after it was
restored and changed writes a new file instead of overwriting the old version. Parquet
has no atomic commit, so a local file is written under a temporary name and moved into
place (an S3 object appears whole or not at all). Each original carries a checksum
(SHA-256 of its canonical form) that is checked when the file is read back and on every
read. The code takes a ``pyarrow`` filesystem and does not care which.

A storage reference names the file an original was written to, the memory, and the
start of its checksum (the version). :meth:`ColdStore.compact` merges a partition's
small files into parts of at most ``PART_ROWS`` (4,096) originals sorted by memory id, named
``part.<first id>.<last id>.<digest>.parquet``: a reference whose file is gone is
looked up in the parts whose name covers its memory id (and in files not yet merged),
so a lookup reads one small footer and one row group, whatever the partition's size.
Compaction writes the parts first and removes the small files after, so a reader (or a
crash) in between finds each original at least once, and the next compaction leaves
out what full parts already hold.
"""

from __future__ import annotations

import hashlib
import json
import posixpath
import re
from collections import defaultdict
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
from pyarrow import fs as pafs

from memstream.storage.archive.cold_refs import StorageRef
from memstream.storage.canonical import canonical
from memstream.storage.errors import StorageError
from memstream.storage.filesystems import Location
from memstream.storage.path_names import OutsideLocation, confined, identifier_of, path_segment

__all__ = ["PART_ROWS", "ColdStore", "ColdStoreCorrupt", "StorageRef", "original_checksum"]


#: Rows per Parquet row group: reading one original reads one group (and the footer,
#: whose size grows with the number of groups).
_GROUP = 256
#: Most originals in one compacted part: keeps its footer small and a lookup fast.
PART_ROWS = 4096
#: Hex digits of the checksum a reference carries to name the version it points at.
_VERSION_DIGITS = 16
#: A compacted part's name: the first and last memory id it holds, and a digest.
_PART = re.compile(r"^part\.([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)\.[0-9a-f]{24}\.parquet$")
_NAME_SAFE = re.compile(r"^[A-Za-z0-9_-]+$")


class ColdStoreCorrupt(StorageError):
    """A cold file is missing, unreadable, or holds an original whose checksum differs."""


def original_checksum(original: Mapping[str, Any]) -> str:
    """SHA-256 of an original's canonical JSON (every field but ``checksum``)."""
    document = {k: v for k, v in original.items() if k != "checksum"}
    text = json.dumps(canonical(document), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class ColdStore:
    """Archived originals under one location (a local folder or an S3 prefix).

    Args:
        location: where the files go.
        schema: the originals' schema (the ``checksum`` column is added).
        part_rows: most originals in one compacted part.
    """

    def __init__(self, location: Location, schema: pa.Schema, part_rows: int = PART_ROWS) -> None:
        self.location = location
        self.part_rows = part_rows
        self._fs = location.filesystem
        self._body_schema = schema
        self.schema = schema.append(pa.field("checksum", pa.string(), nullable=False))
        #: bytes of the batch files this store object wrote (compaction's not counted)
        self.bytes_written = 0

    def write(
        self, user_id: str, month: str, originals: Sequence[Mapping[str, Any]]
    ) -> dict[str, tuple[StorageRef, str]]:
        """Write one user-month batch, read it back, check every checksum.

        Returns the reference and checksum of each memory. Raises :class:`ColdStoreCorrupt` when
        the read-back differs from what was written.
        """
        ordered = sorted(originals, key=lambda o: str(o["memory_id"]))
        # Checksums of the originals as Arrow holds them (the form they read back in).
        body = pa.Table.from_pylist(ordered, schema=self._body_schema)
        checksums = [original_checksum(row) for row in body.to_pylist()]
        table = body.append_column(self.schema.field("checksum"), pa.array(checksums, pa.string()))
        path = posixpath.join(
            _user_folder(user_id), f"month={month}", f"batch-{_digest(table)}.parquet"
        )
        full = self.full_path(path)
        self._write_file(full, table)
        self._check(full, table)
        self.bytes_written += self._fs.get_file_info(full).size or 0
        return {
            m: (StorageRef(path, m, c[:_VERSION_DIGITS]), c)
            for m, c in zip(body.column("memory_id").to_pylist(), checksums, strict=True)
        }

    def _write_file(self, full: str, table: pa.Table) -> None:
        folder = posixpath.dirname(full)
        self._fs.create_dir(folder, recursive=True)
        self.location.write_whole(
            full,
            lambda path: pq.write_table(
                table, path, filesystem=self._fs, compression="zstd", row_group_size=_GROUP
            ),
        )

    def _check(self, full: str, written: pa.Table) -> None:
        back = {(r["memory_id"], original_checksum(r)) for r in self._read_file(full).to_pylist()}
        for key in _keys(written):
            if key not in back:
                raise ColdStoreCorrupt(f"{full}: {key[0]} did not read back as written")

    def read(self, ref: StorageRef) -> dict[str, Any]:
        """The original a reference points at, checked against its checksum: from the
        file it was written to, or, once compaction merged that file away, from the
        partition's part that covers its memory id."""
        return self.read_many([ref])[0]

    def read_many(self, refs: Sequence[StorageRef]) -> list[dict[str, Any]]:
        """The originals of ``refs`` (as :meth:`read`), each file read once for all the
        references that name it: a bulk restore reads a batch file once, not per memory."""
        by_file: dict[str, list[StorageRef]] = defaultdict(list)
        for ref in dict.fromkeys(refs):
            by_file[ref.path].append(ref)
        found: dict[StorageRef, dict[str, Any]] = {}
        for path, missing in by_file.items():
            for full in self._files_that_may_hold(path, [r.memory_id for r in missing]):
                rows: dict[str, list[dict[str, Any]]] = defaultdict(list)
                for row in self._read_file(
                    full, memory_ids=[r.memory_id for r in missing]
                ).to_pylist():
                    rows[row["memory_id"]].append(row)
                for ref in missing:
                    row = next((r for r in rows[ref.memory_id] if ref.matches(r)), None)
                    if row is not None:
                        if original_checksum(row) != row["checksum"]:
                            raise ColdStoreCorrupt(f"{ref}: checksum mismatch")
                        found[ref] = row
                missing = [r for r in missing if r not in found]
                if not missing:
                    break
            if missing:
                raise ColdStoreCorrupt(f"{missing[0]}: not in the cold store")
        return [found[ref] for ref in refs]

    def _files_that_may_hold(self, path: str, memory_ids: Sequence[str]) -> Iterator[str]:
        """The file a batch was written to, then (listed only if still needed) the
        partition's parts whose names cover one of the ids, then files not merged yet."""
        written_to = self.full_path(path)
        if self._exists(written_to):
            yield written_to
        ranges = {f: _part_range(f) for f in self._partition_files(posixpath.dirname(path))}
        covering = [
            f
            for f, r in ranges.items()
            if r is not None and any(r[0] <= m <= r[1] for m in memory_ids)
        ]
        unmerged = [f for f, r in ranges.items() if r is None]
        for full in covering + unmerged:
            if full != written_to:
                yield full

    def full_path(self, path: str) -> str:
        """A reference's file path inside the filesystem.

        Raises:
            ColdStoreCorrupt: ``path`` leads out of the cold store (a reference comes
                from an event, which anyone who can produce to the log may write).
        """
        try:
            return confined(self.location.path, path)
        except OutsideLocation as exc:
            raise ColdStoreCorrupt(f"a reference outside the cold store: {exc}") from None

    def files(self) -> list[str]:
        """Every Parquet file of the cold store."""
        return self._parquet_files(self.location.path, recursive=True)

    def compact(self, min_files: int = 2, owns: Callable[[str], bool] | None = None) -> int:
        """Merge the small files of each partition holding ``min_files`` or more of them
        (batches, and parts under ``part_rows``) into parts; returns how many files
        were removed. Originals a full part already holds are left out, so compacting
        again after a crash between writing the parts and removing the small files
        finishes the job without copies. With ``owns``, only the folders of the users
        it accepts are compacted (those whose folder name tells the user)."""
        partitions: dict[str, list[str]] = {}
        for full in self.files():
            folder = posixpath.dirname(full)
            if owns is not None:
                user = _user_of_folder(folder)
                if user is None or not owns(user):
                    continue
            partitions.setdefault(folder, []).append(full)
        removed = 0
        for folder, files in sorted(partitions.items()):
            full_parts = [
                f for f in files if _part_range(f) is not None and self._rows(f) >= self.part_rows
            ]
            small = [f for f in files if f not in full_parts]
            if len(small) < min_files:
                continue
            held = set().union(
                *(_keys(self._read_file(f, ["memory_id", "checksum"])) for f in full_parts)
            )
            merged = pa.concat_tables([self._read_file(f) for f in small])
            first_of: dict[tuple[str, str], int] = {}
            for i, key in enumerate(_keys(merged)):
                if key not in held:
                    first_of.setdefault(key, i)
            order = [first_of[key] for key in sorted(first_of)]
            merged = merged.take(pa.array(order, type=pa.int64()))
            targets = set()
            for start in range(0, merged.num_rows, self.part_rows):
                part = merged.slice(start, self.part_rows)
                target = posixpath.join(folder, _part_name(part))
                self._write_file(target, part)
                self._check(target, part)
                targets.add(target)
            for f in small:
                if f not in targets:
                    self._fs.delete_file(f)
                    removed += 1
        return removed

    def erase_user(self, user_id: str) -> int:
        """Delete every original of ``user_id`` (its months' folders); how many files.

        Only ``month=`` folders directly under the user's folder are removed, and only
        inside the cold store. Stores written before user folders were escaped named
        them by the raw id: that folder is emptied too when the id names one inside
        the store (an id continuing this one's after a ``/`` keeps its own folder)."""
        removed = 0
        for folder in dict.fromkeys([_user_folder(user_id), *_legacy_user_folder(user_id)]):
            selector = pafs.FileSelector(
                self.full_path(folder), recursive=False, allow_not_found=True
            )
            for info in self._fs.get_file_info(selector):
                if info.type == pafs.FileType.Directory and info.base_name.startswith("month="):
                    removed += len(self._parquet_files(info.path, recursive=True))
                    self._fs.delete_dir(info.path)
        return removed

    def _exists(self, full: str) -> bool:
        return bool(self._fs.get_file_info(full).type == pafs.FileType.File)

    def _partition_files(self, partition: str) -> list[str]:
        return self._parquet_files(self.full_path(partition), recursive=False)

    def _parquet_files(self, folder: str, recursive: bool) -> list[str]:
        selector = pafs.FileSelector(folder, recursive=recursive, allow_not_found=True)
        return sorted(
            i.path
            for i in self._fs.get_file_info(selector)
            if i.type == pafs.FileType.File
            and i.base_name.endswith(".parquet")
            and not i.base_name.startswith(".")
        )

    def _rows(self, full: str) -> int:
        try:
            rows: int = pq.read_metadata(full, filesystem=self._fs).num_rows
        except (OSError, pa.ArrowInvalid) as exc:
            raise ColdStoreCorrupt(f"cannot read {full}: {exc}") from exc
        return rows

    def _read_file(
        self, full: str, columns: list[str] | None = None, memory_ids: Sequence[str] = ()
    ) -> pa.Table:
        """A file (or, with ``memory_ids``, the rows of those memories, from the row
        groups that may hold them: files are sorted by memory id, so the row-group
        statistics skip the others)."""
        where = [("memory_id", "in", list(memory_ids))] if memory_ids else None
        try:
            return pq.read_table(
                full, columns=columns, filesystem=self._fs, schema=self.schema, filters=where
            )
        except (OSError, pa.ArrowInvalid) as exc:
            raise ColdStoreCorrupt(f"cannot read {full}: {exc}") from exc


def _user_folder(user_id: str) -> str:
    """The one folder name of a user's partitions."""
    return f"user={path_segment(user_id)}"


def _user_of_folder(folder: str) -> str | None:
    """The user whose ``user=…/month=…`` folder ``folder`` is, when its name tells."""
    step = posixpath.basename(posixpath.dirname(folder))
    if not step.startswith("user="):
        return None
    return identifier_of(step.removeprefix("user="))


def _legacy_user_folder(user_id: str) -> list[str]:
    """The folder an older store wrote ``user_id``'s files to (the raw id), if that
    names a folder inside the store: no empty, ``.`` or ``..`` step."""
    steps = f"user={user_id}".split("/")
    if any(step in ("", ".", "..") for step in steps) or "\\" in user_id or "\x00" in user_id:
        return []
    return ["/".join(steps)]


def _keys(table: pa.Table) -> list[tuple[str, str]]:
    """The (memory id, checksum) of each row: an original's identity and version."""
    return list(
        zip(
            table.column("memory_id").to_pylist(),
            table.column("checksum").to_pylist(),
            strict=True,
        )
    )


def _digest(table: pa.Table) -> str:
    text = "\x1f".join(f"{m}@{c}" for m, c in _keys(table))
    return hashlib.blake2b(text.encode(), digest_size=12).hexdigest()


def _part_name(part: pa.Table) -> str:
    """``part.<first id>.<last id>.<digest>.parquet`` (``part.<digest>.parquet`` when an
    id has characters a file name should not carry: such a part is always searched)."""
    ids = part.column("memory_id")
    first, last = str(ids[0]), str(ids[-1])
    if _NAME_SAFE.match(first) and _NAME_SAFE.match(last):
        return f"part.{first}.{last}.{_digest(part)}.parquet"
    return f"part.{_digest(part)}.parquet"


def _part_range(full: str) -> tuple[str, str] | None:
    """The first and last memory id a compacted part's name declares, or None."""
    match = _PART.match(posixpath.basename(full))
    return (match.group(1), match.group(2)) if match else None
