"""Making files and folder entries durable: what a crash right after must not lose."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["fsync_folder", "write_new_file"]


def fsync_folder(folder: Path) -> None:
    """Make the folder's entries (files created, renamed or removed in it) durable."""
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_new_file(path: Path, data: bytes, mode: int = 0o600) -> None:
    """Create ``path`` (it must not exist) with ``data``, fsync'd, readable by ``mode``."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.fsync(fd)
    finally:
        os.close(fd)
