"""Small documents every process of a deployment reaches: a folder of a data location.

A :class:`SharedFolder` is a local folder or an S3 prefix (through ``pyarrow.fs``, as
everything else on the data location), holding small documents that are written whole,
read whole, listed and removed. A local document is written under a temporary name,
fsync'd, renamed into place and its folder fsync'd; an S3 object appears whole with its
PUT. Nothing is changed in place and nothing needs a lock: the stores built on it (the
data keys, the API keys) give each new document a name of its own (a random id) or keep
documents whose last writer may win.
"""

from __future__ import annotations

import os
import posixpath
import secrets
from pathlib import Path

from pyarrow import fs as pafs

from memstream.storage.durable import fsync_folder, write_new_file
from memstream.storage.filesystems import Location, resolve_location

__all__ = ["SharedFolder"]


class SharedFolder:
    """Documents under one location (a folder or an ``s3://`` prefix)."""

    def __init__(self, location: Location) -> None:
        self.location = location

    @classmethod
    def local(cls, folder: Path) -> SharedFolder:
        return cls(resolve_location(str(folder)))

    @property
    def uri(self) -> str:
        return self.location.uri

    def child(self, name: str) -> SharedFolder:
        return SharedFolder(self.location.child(name))

    def _path(self, name: str) -> str:
        return posixpath.join(self.location.path, name)

    def read(self, name: str) -> bytes | None:
        """The bytes of document ``name`` (a relative path), or None when there is none."""
        try:
            with self.location.filesystem.open_input_stream(self._path(name)) as stream:
                return bytes(stream.read())
        except FileNotFoundError:
            return None
        except OSError as exc:  # pyarrow's S3 answer for a missing key
            if "not found" in str(exc).lower() or "nosuchkey" in str(exc).lower():
                return None
            raise

    def exists(self, name: str) -> bool:
        info = self.location.filesystem.get_file_info(self._path(name))
        return bool(info.type == pafs.FileType.File)

    def write(self, name: str, data: bytes) -> None:
        """Write document ``name`` whole (replacing one there): readers see the old
        bytes or the new, and once this returns the new ones survive a crash."""
        path = self._path(name)
        folder, base = posixpath.split(path)
        if not self.location.is_local:
            with self.location.filesystem.open_output_stream(path) as out:
                out.write(data)
            return
        Path(folder).mkdir(parents=True, exist_ok=True)
        temporary = Path(folder) / f".{base}.{secrets.token_hex(4)}"
        write_new_file(temporary, data)
        temporary.replace(path)
        fsync_folder(Path(folder))

    def remove(self, name: str) -> bool:
        """Remove document ``name``; True when it was there."""
        path = self._path(name)
        try:
            self.location.filesystem.delete_file(path)
        except FileNotFoundError:
            return False
        except OSError as exc:
            if "not found" in str(exc).lower() or "does not exist" in str(exc).lower():
                return False
            raise
        if self.location.is_local:
            fsync_folder(Path(path).parent)
        return True

    def names(self, folder: str = "") -> list[str]:
        """The documents directly under ``folder`` (their names, sorted; temporary files
        of unfinished local writes left out)."""
        return sorted(self.stamps(folder))

    def folder_time(self) -> int | None:
        """The folder's own modification time (ns), for a local folder: adding,
        replacing (a write renames into place) or removing a document moves it; -1
        while there is no folder. None for an object store."""
        if not self.location.is_local:
            return None
        try:
            return os.stat(self.location.path).st_mtime_ns
        except FileNotFoundError:
            return -1

    def stamps(self, folder: str = "") -> dict[str, tuple[int, int]]:
        """``names`` with each document's modification time (ns) and size: what tells a
        reader which documents changed since it last read them (one listing)."""
        selector = pafs.FileSelector(self._path(folder), allow_not_found=True)
        try:
            found = self.location.filesystem.get_file_info(selector)
        except FileNotFoundError:
            # a local folder removed (or not yet whole) between pyarrow's look at it and
            # its listing: as absent, which allow_not_found says for one never there
            return {}
        return {
            info.base_name: (info.mtime_ns or 0, info.size or 0)
            for info in found
            if info.type == pafs.FileType.File and not info.base_name.startswith(".")
        }
