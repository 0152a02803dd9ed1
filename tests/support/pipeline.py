"""Driving a whole memstream the way the pipeline tests do: the command line as a
subprocess, publishing through it, and reading the live store."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

from memstream.storage.filesystems import resolve_location
from memstream.storage.lance.store import ProjectionStore
from memstream.storage.layout import DataLayout
from memstream.streams.publisher import Publisher
from memstream.testing import message, wait_until

__all__ = ["cli", "live_store", "publish"]


def live_store(data: Path) -> ProjectionStore:
    uri = wait_until(lambda: DataLayout(resolve_location(str(data))).existing_projections()).uri
    return ProjectionStore(uri, read_consistency_interval=timedelta(0))


def cli(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memstream", *args],
        input=stdin.decode() if stdin else None,
        capture_output=True,
        text=True,
        timeout=120,
    )


def publish(bootstrap: str, n: int, tag: str, start: int = 0) -> None:
    """``n`` messages of ten users, numbered from ``start`` (their ids ``{tag}{number}``)."""

    async def run() -> None:
        async with Publisher(bootstrap) as publisher:
            await publisher.publish(
                [
                    message(event_id=f"{tag}{i}", user_id=f"user{i % 10}")
                    for i in range(start, start + n)
                ]
            )

    asyncio.run(run())
