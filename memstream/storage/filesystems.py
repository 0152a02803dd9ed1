"""Where bytes live: a local folder or an S3 bucket, as a ``pyarrow.fs`` filesystem.

Format code (Parquet layout, pointer files) takes the filesystem from here and never
asks which kind it is.
"""

from __future__ import annotations

import posixpath
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyarrow import fs as pafs

__all__ = ["Location", "resolve_location"]


@dataclass(frozen=True)
class Location:
    """A filesystem and a base path inside it.

    Attributes:
        filesystem: the pyarrow filesystem that holds the data.
        path: the base path inside that filesystem (no scheme).
        uri: the location as the user wrote it, normalized (absolute for local folders).
        storage_options: the same endpoint and region for LanceDB (its ``storage_options``).
    """

    filesystem: pafs.FileSystem
    path: str
    uri: str
    storage_options: Mapping[str, str] = field(default_factory=dict)

    @property
    def is_local(self) -> bool:
        from pyarrow import fs as pafs

        return isinstance(self.filesystem, pafs.LocalFileSystem)

    def child(self, *parts: str) -> Location:
        """The location of a sub-path."""
        path = posixpath.join(self.path, *parts)
        uri = posixpath.join(self.uri, *parts)
        return Location(self.filesystem, path, uri, self.storage_options)

    def bytes_under(self) -> int:
        """The size of every file under this location, in bytes (0 when there is none)."""
        from pyarrow import fs as pafs

        selector = pafs.FileSelector(self.path, recursive=True, allow_not_found=True)
        return sum(
            info.size or 0
            for info in self.filesystem.get_file_info(selector)
            if info.type == pafs.FileType.File
        )

    def read_text(self, name: str) -> str | None:
        """The text of file ``name`` under this location, or None when absent."""
        from pyarrow import fs as pafs

        path = posixpath.join(self.path, name)
        if self.filesystem.get_file_info(path).type == pafs.FileType.NotFound:
            return None
        with self.filesystem.open_input_stream(path) as stream:
            return bytes(stream.read()).decode("utf-8")

    def write_text_atomic(self, name: str, text: str) -> None:
        """Replace file ``name`` so readers see the old or the new text, never half."""
        self.filesystem.create_dir(self.path, recursive=True)

        def write(path: str) -> None:
            with self.filesystem.open_output_stream(path) as out:
                out.write(text.encode("utf-8"))

        self.write_whole(posixpath.join(self.path, name), write)

    def write_whole(self, path: str, write: Callable[[str], None]) -> None:
        """Have ``write`` write the file at ``path`` (a path of this location's filesystem)
        so readers see it whole or not at all: a local file is written under a temporary
        name in the same folder and moved into place; an S3 object appears whole or not at
        all by itself."""
        if not self.is_local:
            write(path)
            return
        folder, name = posixpath.split(path)
        temporary = posixpath.join(folder, f".{name}.{uuid.uuid4().hex}.tmp")
        write(temporary)
        self.filesystem.move(temporary, path)


def resolve_location(
    uri: str, *, s3_endpoint: str | None = None, s3_region: str | None = None
) -> Location:
    """Turn ``./folder``, ``/abs/folder`` or ``s3://bucket/prefix`` into a Location
    (``s3_endpoint``: an S3-compatible endpoint such as ``http://127.0.0.1:9000``)."""
    from pyarrow import fs as pafs

    if uri.startswith("s3://"):
        bucket_and_prefix = uri.removeprefix("s3://").rstrip("/")
        options: dict[str, object] = {}
        lance: dict[str, str] = {}
        if s3_endpoint:
            scheme, _, host = s3_endpoint.partition("://")
            options["endpoint_override"] = host or scheme
            options["scheme"] = scheme if host else "https"
            lance["endpoint"] = f"{options['scheme']}://{options['endpoint_override']}"
            if options["scheme"] == "http":
                lance["allow_http"] = "true"
        if s3_region:
            options["region"] = s3_region
            lance["region"] = s3_region
        return Location(
            pafs.S3FileSystem(**options), bucket_and_prefix, "s3://" + bucket_and_prefix, lance
        )
    path = str(Path(uri).expanduser().resolve())
    return Location(pafs.LocalFileSystem(), path, path)
