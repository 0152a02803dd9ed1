"""Where a data location's local state lives: the stream processor's state, the logs
and the address file of the server running for it. Shared by the settings and the
Python client, which finds a running server through it without loading the settings."""

from __future__ import annotations

from pathlib import Path

__all__ = ["DEFAULT_DATA", "state_folder"]

#: The data folder when none is configured (``MEMSTREAM_DATA``).
DEFAULT_DATA = "./memstream-data"


def state_folder(data: str, state_dir: str = "") -> Path:
    """The local state folder of data location ``data``: ``state_dir`` if given, else
    the data folder itself, else (data on S3) ``./memstream-state``."""
    if state_dir:
        return Path(state_dir)
    return Path("./memstream-state") if data.startswith("s3://") else Path(data)
