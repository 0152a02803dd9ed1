"""Free space on the local folders memstream writes to, checked before it writes.

A full disk must be a clear state, not a crash: publishes are refused while a folder has
less free space than the deployment keeps in reserve, and upkeep (compaction, index
rebuilds) asks before it writes. ``statvfs`` is cheap, but it is asked at most once per
``check_every`` seconds per folder.
"""

from __future__ import annotations

import errno
import os
import time
from collections.abc import Sequence
from pathlib import Path

__all__ = ["Headroom", "folder_bytes", "free_bytes", "is_disk_full"]


def free_bytes(folder: Path) -> int:
    """Bytes an unprivileged writer can still use in ``folder``'s filesystem."""
    stats = os.statvfs(_existing(folder))
    return stats.f_bavail * stats.f_frsize


def _existing(folder: Path) -> Path:
    while not folder.exists() and folder.parent != folder:
        folder = folder.parent
    return folder


def folder_bytes(folder: Path) -> int:
    """Bytes the files under ``folder`` take (files removed meanwhile are skipped)."""
    total = 0
    for path in folder.rglob("*"):
        try:
            if path.is_file():
                total += path.stat().st_size
        except OSError:
            continue
    return total


def _megabytes(n: int) -> str:
    return f"{n / (1024 * 1024):,.1f} MB"


class Headroom:
    """Watches the free space of ``folders`` against a reserve of ``min_free`` bytes."""

    def __init__(self, folders: Sequence[Path], min_free: int, check_every: float = 1.0) -> None:
        self.folders = list(dict.fromkeys(folders))
        self.min_free = min_free
        self._check_every = check_every
        self._checked_at = float("-inf")
        self._shortage: str | None = None

    def shortage(self, needed: int = 0) -> str | None:
        """Why writing ``needed`` more bytes would break the reserve, or None."""
        if needed:
            return self._short(needed)
        now = time.monotonic()
        if now - self._checked_at >= self._check_every:
            self._shortage = self._short(0)
            self._checked_at = now
        return self._shortage

    def shortage_for_copy_of(self, folder: Path) -> str | None:
        """Why writing a copy of ``folder`` (a compaction may) would break the reserve.
        The folder is measured only when the disk's used space could exceed what is
        free above the reserve."""
        stats = os.statvfs(_existing(folder))
        free, total = stats.f_bavail * stats.f_frsize, stats.f_blocks * stats.f_frsize
        if free - self.min_free >= total - free:  # the folder is no larger than what is used
            return self.shortage()
        return self.shortage(needed=folder_bytes(folder))

    def _short(self, needed: int) -> str | None:
        for folder in self.folders:
            free = free_bytes(folder)
            if free - needed < self.min_free:
                return (
                    f"the disk holding {folder} has {_megabytes(free)} free"
                    + (f" ({_megabytes(needed)} needed)" if needed else "")
                    + f"; memstream keeps {_megabytes(self.min_free)} free (MEMSTREAM_MIN_FREE_MB)"
                    " and refuses new events until space is freed"
                )
        return None


def is_disk_full(exc: BaseException) -> bool:
    """True when ``exc`` (or what caused it) says the disk is full."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, OSError) and seen.errno in (errno.ENOSPC, errno.EDQUOT):
            return True
        if "No space left on device" in str(seen):
            return True
        seen = seen.__cause__ or seen.__context__
    return False
