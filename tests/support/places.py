"""Where the tests keep data: a folder, or a bucket's prefix on the S3 endpoint (moto's
server), for the fixtures that run against both."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from pyarrow import fs as pafs

from memstream.storage.filesystems import Location, resolve_location

__all__ = ["DataPlace", "location_for"]


def location_for(request: pytest.FixtureRequest, tmp_path: Path, name: str) -> Location:
    """A folder ``name`` (``request.param`` "local") or a fresh bucket's prefix ``name``
    on the S3 endpoint ("s3"): for the fixtures run against both."""
    if request.param == "local":
        return resolve_location(str(tmp_path / name))
    endpoint = request.getfixturevalue("s3_endpoint")
    bucket = request.getfixturevalue("new_bucket")(name)
    return resolve_location(f"s3://{bucket}/{name}", s3_endpoint=endpoint, s3_region="us-east-1")


@dataclass(frozen=True)
class DataPlace:
    """A data location for a whole memstream (tables, event archive, cold store).

    Attributes:
        uri: what ``--data`` says.
        env: the settings and credentials a worker or the CLI needs to reach it.
        location: the same place, resolved.
        state_dir: the local folder for the worker's state and logs.
    """

    uri: str
    location: Location
    state_dir: Path
    env: dict[str, str] = field(default_factory=dict)

    def cold_files(self) -> list[str]:
        """The Parquet files of the cold store."""
        selector = pafs.FileSelector(
            self.location.child("cold").path, recursive=True, allow_not_found=True
        )
        return [
            i.path
            for i in self.location.filesystem.get_file_info(selector)
            if i.path.endswith(".parquet")
        ]

    def cli_env(self) -> dict[str, str]:
        return {**os.environ, **self.env}
