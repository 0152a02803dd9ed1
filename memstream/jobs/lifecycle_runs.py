"""What each worker's lifecycle jobs did last: a small document per worker in the data
location (``lifecycle-runs``), written after every tick that ran, read by the console.

A document says, per job (consolidate, decay, reflect, archive), when it last ran, how
many events of each type that run published, and when it is next due. It is a report,
not state: nothing decides anything from it, and a worker that stops leaves its last
report behind (its time says how old it is).
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
from collections import Counter
from collections.abc import Iterable
from datetime import datetime
from typing import Any

from memstream.events.vocabulary import Event
from memstream.jobs.lifecycle_schedule import LifecycleSchedule
from memstream.storage.filesystems import Location
from memstream.storage.shared_folder import SharedFolder

__all__ = ["LifecycleRuns", "read_lifecycle_runs", "runs_location"]

_FOLDER = "lifecycle-runs"


def runs_location(data_location: Location) -> Location:
    """Where the reports of a data location's workers are."""
    return data_location.child(_FOLDER)


class LifecycleRuns:
    """One worker's report: runs are recorded as they happen, written after each tick."""

    def __init__(self, location: Location, worker: str | None = None) -> None:
        self.folder = SharedFolder(location)
        self.worker = worker or f"{socket.gethostname()}-{os.getpid()}"
        self._runs: dict[str, dict[str, Any]] = {}

    def record(self, job: str, at: datetime, events: Iterable[Event]) -> None:
        """``job`` ran at ``at`` and published ``events``."""
        published = Counter(event.type for event in events)
        self._runs[job] = {"last": at.isoformat(), "published": dict(sorted(published.items()))}

    def write(self, schedule: LifecycleSchedule, now: datetime) -> None:
        """Write the report (best effort: a report that cannot be written is skipped)."""
        jobs = {}
        for job, (_, due) in schedule.times().items():
            run = self._runs.get(job, {"last": None, "published": {}})
            jobs[job] = {**run, "next": due.isoformat()}
        document = {"worker": self.worker, "written_at": now.isoformat(), "jobs": jobs}
        with contextlib.suppress(OSError):
            self.folder.write(f"{self.worker}.json", json.dumps(document).encode())


def read_lifecycle_runs(location: Location) -> list[dict[str, Any]]:
    """Every worker's last report, newest first (unreadable ones left out)."""
    folder = SharedFolder(location)
    found = []
    for name in folder.names():
        if not name.endswith(".json"):
            continue
        raw = folder.read(name)
        try:
            document = json.loads(raw) if raw is not None else None
        except ValueError:
            continue
        if isinstance(document, dict) and isinstance(document.get("jobs"), dict):
            found.append(document)
    return sorted(found, key=lambda d: str(d.get("written_at")), reverse=True)
