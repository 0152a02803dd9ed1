"""What a deployment's health page shows (the console's), gathered from the store, a
sample of the log and the workers' lifecycle reports: :class:`HealthFigures`, the use
case the console calls (each read in a thread), over functions that shape the rows read
here. No broker call: the end offsets come from the sample
(:class:`~memstream.observability.deployment_sample.Sample`).

The deployment's view (an admin key, or the operator) has every figure; a tenant's
view has its own users' counts and dead letters only.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta
from typing import Any

from memstream.jobs.lifecycle_runs import read_lifecycle_runs, runs_location
from memstream.observability.deployment_sample import Sample
from memstream.projections.archiving import ARCHIVED
from memstream.queries.stats import stats as compute_stats
from memstream.settings import Settings
from memstream.storage import filters
from memstream.storage.lance.store import ProjectionStore
from memstream.storage.lance.tables import (
    ARCHIVE_INDEX,
    CHECKPOINTS,
    DEAD_LETTERS,
    LEASES,
    PARTITION_OWNERS,
)
from memstream.storage.layout import DataLayout
from memstream.streams.topics import MESSAGES

__all__ = [
    "HealthFigures",
    "archive_figures",
    "deployment_health",
    "deployment_stats",
    "partition_rows",
    "recent_dead_letters",
    "storage_sizes",
    "tenant_health",
]

_WINDOW = timedelta(days=30)


def deployment_stats(store: ProjectionStore, sample: Sample | None) -> dict[str, Any]:
    """The deployment's stats document, its lag by the last sample's end offsets."""
    ends = dict(sample.ends) if sample is not None and sample.ends else None
    epoch = sample.log_epoch if sample is not None else None
    return compute_stats(store, None, end_offsets=ends, log_epoch=epoch)


def partition_rows(
    store: ProjectionStore, settings: Settings, sample: Sample | None
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Each partition of ``memory.messages`` (end offset, applied, lag, owner, epoch,
    claimed), and the checkpoints of the projection consumer."""
    consumer = settings.consumer_group
    checkpoints = [r for r in store.scan(CHECKPOINTS).to_pylist() if r["consumer"] == consumer]
    owners = {
        r["partition"]: r
        for r in store.scan(
            PARTITION_OWNERS, where=filters.equals("consumer", consumer)
        ).to_pylist()
    }
    applied = {(r["topic"], r["partition"]): r for r in checkpoints}
    partitions = []
    ends = sample.ends if sample is not None else {}
    count = settings.messages_partitions
    for p in range(count):
        end = ends.get((MESSAGES, p))
        at = applied.get((MESSAGES, p))
        if sample is not None:  # the lag the chart and the topics show: one sample's
            next_offset = sample.applied.get((MESSAGES, p), 0)
        else:
            next_offset = at["offset"] + 1 if at is not None else 0
        owner = owners.get(p)
        partitions.append(
            {
                "partition": p,
                "end": end,
                "applied": next_offset,
                "lag": None if end is None else max(0, end - next_offset),
                "applied_at": at["updated_at"] if at is not None else None,
                "owner": owner["owner"] if owner else None,
                "epoch": owner["epoch"] if owner else None,
                "claimed_at": owner["claimed_at"] if owner else None,
            }
        )
    return partitions, checkpoints


def deployment_health(
    store: ProjectionStore,
    settings: Settings,
    sample: Sample | None,
    now: datetime,
    sizes: dict[str, float] | None,
    stats: dict[str, Any],
) -> dict[str, Any]:
    """Every figure of the health page, for the deployment (``sizes``: the cold store's
    and the event archive's bytes, when measured; ``stats``: the counts to show). The
    lag is the last sample's: the page asks the broker nothing."""
    partitions, checkpoints = partition_rows(store, settings, sample)
    freshness: dict[str, datetime] = {}
    for r in checkpoints:
        when = r["updated_at"]
        if when is not None and (r["topic"] not in freshness or when > freshness[r["topic"]]):
            freshness[r["topic"]] = when
    workers = Counter(p["owner"] for p in partitions if p["owner"])
    leases = [
        {
            "lease": r["lease"],
            "holder": r["holder"],
            "expires_in": (r["expires_ns"] - now.timestamp() * 1e9) / 1e9,
        }
        for r in store.scan(LEASES).to_pylist()
    ]
    return {
        "scope": "deployment",
        "at": now,
        "stats": stats,
        "partitions": partitions,
        "freshness": [
            {"topic": topic, "last_applied": when, "seconds": (now - when).total_seconds()}
            for topic, when in sorted(freshness.items())
        ],
        "waiting": sample.lag() if sample is not None else None,
        "workers": [
            {
                "worker": name,
                "partitions": [p["partition"] for p in partitions if p["owner"] == name],
            }
            for name, _ in workers.most_common()
        ],
        "leases": leases,
        "lifecycle": read_lifecycle_runs(runs_location(settings.data_location)),
        "archive": archive_figures(store, None, now),
        "sizes": sizes,
        "dead_letters": recent_dead_letters(store, None, 8),
        "broker_answered": sample.broker_answered if sample is not None else None,
    }


def tenant_health(
    store: ProjectionStore, users: list[dict[str, Any]], now: datetime
) -> dict[str, Any]:
    """The health page of a tenant: its users' counts and dead letters (``users``: the
    tenant's users as :func:`memstream.queries.users.known_users` lists them)."""
    ids = [u["user_id"] for u in users]
    return {
        "scope": "tenant",
        "at": now,
        "stats": {
            "users": len(users),
            "memories": sum(u["memories"] for u in users),
            "archived": sum(u["archived"] for u in users),
        },
        "archive": archive_figures(store, ids, now),
        "dead_letters": recent_dead_letters(store, ids, 8),
    }


def archive_figures(
    store: ProjectionStore, user_ids: list[str] | None, now: datetime
) -> dict[str, int]:
    """Archived memories now, and the expansions and restorations of the last 30 days
    (of ``user_ids``, or of everyone)."""
    where = None if user_ids is None else filters.is_in("user_id", user_ids or [""])
    rows = store.scan(ARCHIVE_INDEX, ["restored_at", "expanded_at"], where).to_pylist()
    since = now - _WINDOW
    return {
        "archived": store.count(
            ARCHIVE_INDEX, ARCHIVED if where is None else filters.all_of(where, ARCHIVED)
        ),
        "expansions_30d": sum(
            1 for r in rows for at in (r["expanded_at"] or ()) if at is not None and at >= since
        ),
        "restorations_30d": sum(
            1 for r in rows if r["restored_at"] is not None and r["restored_at"] >= since
        ),
    }


def recent_dead_letters(
    store: ProjectionStore, user_ids: list[str] | None, limit: int
) -> list[dict[str, Any]]:
    """The newest dead letters (of ``user_ids``' keys, or all), without their bytes."""
    where = None
    if user_ids is not None:
        if not user_ids:
            return []
        where = filters.any_of(*(filters.bytes_equal("key", u.encode()) for u in user_ids))
    columns = ["dead_letter_id", "topic", "partition", "offset", "reason", "received_at", "key"]
    rows: list[dict[str, Any]] = store.scan(DEAD_LETTERS, columns, where).to_pylist()
    rows.sort(key=lambda r: (r["received_at"] is not None, r["received_at"]), reverse=True)
    return rows[:limit]


def storage_sizes(settings: Settings) -> dict[str, int]:
    """The cold store's and the event archive's size in bytes."""
    layout = DataLayout(settings.data_location)
    return {"cold_store": layout.cold.bytes_under(), "event_archive": layout.events.bytes_under()}


#: Runs a read of the store in a thread: ``blocking(function, *args)``.
Blocking = Callable[..., Awaitable[Any]]


class HealthFigures:
    """The health page's figures, each read of the store on a thread.

    Args:
        store: the projections of the deployment.
        settings: the deployment's partitions, consumer group and data location.
        blocking: how the operations run a read off the event loop.
    """

    def __init__(self, store: ProjectionStore, settings: Settings, blocking: Blocking) -> None:
        self._store = store
        self._settings = settings
        self._blocking = blocking

    async def stats(self, sample: Sample | None) -> dict[str, Any]:
        """The deployment's stats, its lag by ``sample``'s end offsets."""
        found: dict[str, Any] = await self._blocking(deployment_stats, self._store, sample)
        return found

    async def partitions(self, sample: Sample | None) -> list[dict[str, Any]]:
        """Each partition of ``memory.messages`` as the page's table shows it."""
        rows, _ = await self._blocking(partition_rows, self._store, self._settings, sample)
        found: list[dict[str, Any]] = rows
        return found

    async def deployment(
        self,
        sample: Sample | None,
        now: datetime,
        sizes: dict[str, float] | None,
        stats: dict[str, Any],
    ) -> dict[str, Any]:
        """Every figure of the page, for the deployment (see :func:`deployment_health`)."""
        found: dict[str, Any] = await self._blocking(
            deployment_health, self._store, self._settings, sample, now, sizes, stats
        )
        return found

    async def tenant(self, users: list[dict[str, Any]], now: datetime) -> dict[str, Any]:
        """The page of a tenant (see :func:`tenant_health`)."""
        found: dict[str, Any] = await self._blocking(tenant_health, self._store, users, now)
        return found

    async def storage_sizes(self) -> dict[str, int]:
        """The cold store's and the event archive's size in bytes."""
        found: dict[str, int] = await self._blocking(storage_sizes, self._settings)
        return found
