"""The Parquet cold store: the full originals of archived memories.

Files are partitioned by user and month (of the memory's ``occurred_at``) and named
for the batch that wrote them, ``user=U/month=YYYY-MM/batch-<id>.parquet``, where the
id is derived from the memory ids in the batch: re-running an interrupted archive
batch writes the same file with the same bytes instead of a second copy. Parquet has
no atomic commit, so a local file is written under a temporary name and moved into
place (an S3 object appears whole or not at all). Each memory's original carries a
checksum (SHA-256 of its canonical form) that is checked when the file is read back
and on every read. The code takes a ``pyarrow`` filesystem and does not care which.

A storage reference names the file an original was written to and the memory; once
:meth:`ColdStore.compact` has merged a partition's small files, a reference whose file
is gone is looked up in the partition's files. Compaction writes the merged file first
and removes the small ones after, so a reader (or a crash) in between finds each
original at least once, and the next compaction merges what is left.
"""

from __future__ import annotations

import hashlib
import json
import posixpath
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from pyarrow import fs as pafs

from storage.canonical import canonical
from storage.errors import StorageError
from storage.filesystems import Location

__all__ = ["ColdStore", "ColdStoreCorrupt", "StorageRef", "original_checksum"]


#: Rows per Parquet row group: small enough that reading one original skips most of a file.
_GROUP = 64


class ColdStoreCorrupt(StorageError):
    """A cold file is missing, unreadable, or holds an original whose checksum differs."""


@dataclass(frozen=True)
class StorageRef:
    """Where an archived original lives: the file it was written to (relative to the
    store's location, so the reference survives moving the data; compaction may merge
    it into another file of the same partition) and the memory id."""

    path: str
    memory_id: str

    def __str__(self) -> str:
        return f"{self.path}#{self.memory_id}"

    @classmethod
    def parse(cls, text: str) -> StorageRef:
        path, sep, memory_id = text.rpartition("#")
        if not sep or not path or not memory_id:
            raise ValueError(f"not a storage reference: {text!r}")
        return cls(path, memory_id)


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
    """

    def __init__(self, location: Location, schema: pa.Schema) -> None:
        self.location = location
        self._fs = location.filesystem
        self._body_schema = schema
        self.schema = schema.append(pa.field("checksum", pa.string(), nullable=False))

    def path_for(self, user_id: str, month: str, memory_ids: Sequence[str]) -> str:
        """The deterministic path (relative to the location) of the batch of
        ``memory_ids`` of a user and month."""
        digest = hashlib.blake2b("\x1f".join(sorted(memory_ids)).encode(), digest_size=12)
        return posixpath.join(
            f"user={user_id}",
            f"month={month}",
            f"batch-{digest.hexdigest()}.parquet",
        )

    def write(
        self, user_id: str, month: str, originals: Sequence[Mapping[str, Any]]
    ) -> dict[str, tuple[StorageRef, str]]:
        """Write one user-month batch, read it back, check every checksum.

        Returns the reference and checksum of each memory. Raises :class:`ColdStoreCorrupt` when
        the read-back differs from what was written.
        """
        ordered = sorted(originals, key=lambda o: str(o["memory_id"]))
        path = self.path_for(user_id, month, [str(o["memory_id"]) for o in ordered])
        full = self.full_path(path)
        # Checksums of the originals as Arrow holds them (the form they read back in).
        body = pa.Table.from_pylist(ordered, schema=self._body_schema)
        checksums = [original_checksum(row) for row in body.to_pylist()]
        table = body.append_column(self.schema.field("checksum"), pa.array(checksums, pa.string()))
        self._write_file(full, table)
        written = dict(zip(body.column("memory_id").to_pylist(), checksums, strict=True))
        self._check(full, written)
        return {m: (StorageRef(path, m), checksum) for m, checksum in written.items()}

    def _write_file(self, full: str, table: pa.Table) -> None:
        folder = posixpath.dirname(full)
        self._fs.create_dir(folder, recursive=True)
        if self.location.is_local:
            temporary = posixpath.join(folder, f".{uuid.uuid4().hex}.tmp")
            pq.write_table(
                table, temporary, filesystem=self._fs, compression="zstd", row_group_size=_GROUP
            )
            self._fs.move(temporary, full)
        else:
            pq.write_table(
                table, full, filesystem=self._fs, compression="zstd", row_group_size=_GROUP
            )

    def _check(self, full: str, written: Mapping[str, str]) -> None:
        back = {r["memory_id"]: original_checksum(r) for r in self._read_file(full).to_pylist()}
        for memory_id, checksum in written.items():
            if back.get(memory_id) != checksum:
                raise ColdStoreCorrupt(f"{full}: {memory_id} did not read back as written")

    def read(self, ref: StorageRef) -> dict[str, Any]:
        """The original a reference points at, checked against its checksum: from the
        file it was written to, or, once compaction merged that file away, from the
        partition's files."""
        found: list[dict[str, Any]] = []
        written_to = self.full_path(ref.path)
        if self._exists(written_to):
            candidates = [written_to]
        else:
            candidates = self._partition_files(posixpath.dirname(ref.path))
        for full in candidates:
            table = self._read_file(full, memory_id=ref.memory_id)
            found = table.filter(pc.equal(table.column("memory_id"), ref.memory_id)).to_pylist()
            if found:
                break
        if not found:
            raise ColdStoreCorrupt(f"{ref}: not in the cold store")
        row = found[0]
        if original_checksum(row) != row["checksum"]:
            raise ColdStoreCorrupt(f"{ref}: checksum mismatch")
        return row

    def full_path(self, path: str) -> str:
        """A reference's file path inside the filesystem."""
        return posixpath.join(self.location.path, path)

    def files(self) -> list[str]:
        """Every Parquet file of the cold store."""
        return self._parquet_files(self.location.path, recursive=True)

    def compact(self, min_files: int = 2) -> int:
        """Merge each partition holding ``min_files`` files or more into one file;
        returns how many files were removed."""
        partitions: dict[str, list[str]] = {}
        for full in self.files():
            partitions.setdefault(posixpath.dirname(full), []).append(full)
        removed = 0
        for folder, files in sorted(partitions.items()):
            if len(files) < min_files:
                continue
            merged = pa.concat_tables([self._read_file(f) for f in files])
            ids = merged.column("memory_id").to_pylist()
            first = sorted({m: i for i, m in reversed(list(enumerate(ids)))}.items())
            merged = merged.take([i for _, i in first])
            digest = hashlib.blake2b("\x1f".join(m for m, _ in first).encode(), digest_size=12)
            target = posixpath.join(folder, f"part-{digest.hexdigest()}.parquet")
            self._write_file(target, merged)
            self._check(
                target,
                dict(
                    zip(
                        merged.column("memory_id").to_pylist(),
                        merged.column("checksum").to_pylist(),
                        strict=True,
                    )
                ),
            )
            for f in files:
                if f != target:
                    self._fs.delete_file(f)
                    removed += 1
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

    def _read_file(self, full: str, memory_id: str | None = None) -> pa.Table:
        """A file (or, with ``memory_id``, the row groups that may hold it: files are
        sorted by memory id, so the row-group statistics skip the others)."""
        where = None if memory_id is None else [("memory_id", "=", memory_id)]
        try:
            return pq.read_table(full, filesystem=self._fs, schema=self.schema, filters=where)
        except (OSError, pa.ArrowInvalid) as exc:
            raise ColdStoreCorrupt(f"cannot read {full}: {exc}") from exc
