"""Every Prometheus series memstream exports, in one place.

Each process registers the series of its own work in the default registry of
``prometheus_client``: the API its requests, searches and publishes; a worker its
consumer lag, applied events, lifecycle jobs and upkeep; an embedder its embeddings.
The exposition is ``prometheus_client``'s (``/metrics`` on the API, and on the metrics
port of workers and embedders, see :mod:`memstream.runtime.exposition`).

Names follow Prometheus' conventions (``memstream_…_total`` counters, base units in
``_seconds`` and ``_bytes``); the Kafka labels are OpenTelemetry's messaging attribute
names (``messaging_destination_name`` is ``messaging.destination.name``). No series has a
user id as a label: a label's values are few and known (event types, routes, jobs).
``docs/metrics.md`` is generated from this module (``python -m
memstream.observability.reference``).
"""

from __future__ import annotations

import platform
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from importlib.metadata import PackageNotFoundError, version

from prometheus_client import Counter, Gauge, Histogram, Info, disable_created_metrics

# A ``_created`` sample per counter doubles the exposition and tells nothing a
# process start time does not.
disable_created_metrics()  # type: ignore[no-untyped-call]

__all__ = [
    "APPLIED",
    "APPLY_SECONDS",
    "BUILD",
    "CONSUMER_LAG",
    "DEAD_LETTERS",
    "EMBEDDINGS",
    "EMBEDDING_SECONDS",
    "HTTP_REQUESTS",
    "HTTP_SECONDS",
    "PUBLISHED",
    "REFUSALS",
    "SEARCHES",
    "SEARCH_SECONDS",
    "SEARCH_STAGE_SECONDS",
    "dead_letter_reason",
    "describe_process",
    "timed_job",
]

#: Latency buckets of requests and searches (seconds): 1 ms to 10 s.
_LATENCY = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
#: Buckets of work that takes longer: batches, jobs, delays through the log (10 ms to 5 min).
_SLOW = (0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0)

# OpenTelemetry messaging attribute names, as Prometheus labels.
GROUP = "messaging_consumer_group_name"
TOPIC = "messaging_destination_name"
PARTITION = "messaging_destination_partition_id"

# -- the process ---------------------------------------------------------------------------

BUILD = Info("memstream_build", "The memstream version, Python version and role of this process")

# -- the worker: applying the log ------------------------------------------------------------

CONSUMER_LAG = Gauge(
    "memstream_consumer_lag_records",
    "Records in a partition not yet applied by this process's consumer group "
    "(end offset minus the next offset to apply), for the partitions this process holds",
    [GROUP, TOPIC, PARTITION],
)
PARTITIONS_HELD = Gauge(
    "memstream_partitions_held",
    "Partitions of memory.messages this worker holds (and alone writes)",
)
APPLIED = Counter(
    "memstream_events_applied_total",
    "Events folded into the projections, by event type",
    ["type"],
)
SKIPPED = Counter(
    "memstream_records_skipped_total",
    "Records read again that their partition's checkpoint already covered",
)
APPLY_SECONDS = Histogram(
    "memstream_apply_batch_duration_seconds",
    "Time to apply one batch of records to the projections",
    buckets=_SLOW,
)
SEARCHABLE_SECONDS = Histogram(
    "memstream_publish_to_searchable_seconds",
    "From the broker's timestamp of a batch's oldest message to its rows being written "
    "(searchable by full text; the vector follows from the embedder)",
    buckets=_SLOW,
)
DEAD_LETTERS = Counter(
    "memstream_dead_letters_total",
    "Records sent to memory.dlq, by reason class (invalid_event: did not validate; "
    "unappliable: valid but no fold could take it)",
    ["reason"],
)
FENCED_BATCHES = Counter(
    "memstream_fenced_batches_total",
    "Batches dropped because another worker had claimed their partitions meanwhile",
)
JOURNAL_SEGMENTS = Gauge(
    "memstream_journal_backlog_segments",
    "Segments of the intake journal not yet known to be applied (after the last sweep)",
)
JOURNAL_REPUBLISHED = Counter(
    "memstream_journal_republished_records_total",
    "Journaled records published again because the log lacked them",
)
STALLED_PARTITIONS = Gauge(
    "memstream_stalled_partitions",
    "Partitions whose lag has not moved for the stall threshold while records wait",
)

# -- the embedder ----------------------------------------------------------------------------

EMBEDDINGS = Counter(
    "memstream_embeddings_total",
    "Memories embedded, by lane (messages, passages of long turns, derived: facts and "
    "commands, backfill)",
    ["lane"],
)
EMBEDDING_SECONDS = Histogram(
    "memstream_embedding_batch_duration_seconds",
    "Model time of one embedding batch, by lane",
    ["lane"],
    buckets=_SLOW,
)
EMBEDDING_DELAY = Histogram(
    "memstream_publish_to_embedded_seconds",
    "From the broker's timestamp of a batch's oldest message to its vectors being published",
    buckets=_SLOW,
)
EMBEDDING_LAG = Gauge(
    "memstream_embedding_lag_memories",
    "Memories without a vector yet (sampled from the tables)",
)
EMBEDDING_OLDEST = Gauge(
    "memstream_embedding_oldest_pending_age_seconds",
    "Age of the oldest message the embedder has taken and not yet published a vector "
    "for (0 when it holds none)",
)

# -- the API and the operations --------------------------------------------------------------

HTTP_REQUESTS = Counter(
    "memstream_http_requests_total",
    "HTTP requests answered, by method, route template and status code",
    ["method", "route", "status"],
)
HTTP_SECONDS = Histogram(
    "memstream_http_request_duration_seconds",
    "Time to answer an HTTP request, by method and route template",
    ["method", "route"],
    buckets=_LATENCY,
)
REFUSALS = Counter(
    "memstream_refusals_total",
    "Requests refused to protect the service (429 rate limited or overloaded, 503 "
    "draining or broker away, 507 disk nearly full), by status and route template",
    ["status", "route"],
)
SEARCHES = Counter(
    "memstream_searches_total",
    "Searches and context blocks, by operation (search, context) and outcome (ok, error)",
    ["operation", "outcome"],
)
SEARCH_SECONDS = Histogram(
    "memstream_search_duration_seconds",
    "Time to answer a search or a context block, by operation",
    ["operation"],
    buckets=_LATENCY,
)
SEARCH_STAGE_SECONDS = Histogram(
    "memstream_search_stage_duration_seconds",
    "Time of each stage of a search (what the Server-Timing header reports)",
    ["stage"],
    buckets=_LATENCY,
)
PUBLISHED = Counter(
    "memstream_events_published_total",
    "Events accepted for the log, by event type and door (api, mcp, cli)",
    ["type", "door"],
)

# -- lifecycle and upkeep --------------------------------------------------------------------

JOB_RUNS = Counter(
    "memstream_lifecycle_runs_total",
    "Lifecycle job runs, by job (consolidate, decay, reflect, archive) and outcome",
    ["job", "outcome"],
)
JOB_SECONDS = Histogram(
    "memstream_lifecycle_run_duration_seconds",
    "Time of one lifecycle job run, by job",
    ["job"],
    buckets=_SLOW,
)
LIFECYCLE_EVENTS = Counter(
    "memstream_lifecycle_events_published_total",
    "Events the lifecycle jobs published (facts, closures, decay, archive)",
)
ARCHIVED = Counter(
    "memstream_archived_memories_total",
    "Memories moved to cold storage by the archive job",
)
ARCHIVE_BYTES = Counter(
    "memstream_archive_written_bytes_total",
    "Bytes of Parquet the archive job wrote to cold storage",
)
UPKEEP_RUNS = Counter(
    "memstream_upkeep_runs_total",
    "Upkeep runs (compaction, indexing, old versions), by outcome (done; idle: no table "
    "changed since this worker's last upkeep; skipped: no disk room; failed)",
    ["outcome"],
)
UPKEEP_SECONDS = Histogram(
    "memstream_upkeep_duration_seconds",
    "Time of one upkeep run",
    buckets=_SLOW,
)
TABLE_VERSION = Gauge(
    "memstream_table_version",
    "The latest version number of a projection table, read after upkeep (each write "
    "commits a version: its increase is the table's commits)",
    ["table"],
)
TABLE_FRAGMENTS = Gauge(
    "memstream_table_fragments",
    "Data fragments of a projection table (after the last upkeep)",
    ["table"],
)
DISK_FREE = Gauge(
    "memstream_disk_free_bytes",
    "Free bytes on the disk of a folder memstream writes to",
    ["folder"],
)


def describe_process(role: str) -> None:
    """Set the build info of this process (``role``: api, worker, embedder)."""
    try:
        own = version("memstream")
    except PackageNotFoundError:  # run from a checkout that was not installed
        own = "unknown"
    BUILD.info({"version": own, "python_version": platform.python_version(), "role": role})


def dead_letter_reason(reason: str) -> str:
    """The reason class of a dead letter (its label; the reason itself is in the record)."""
    return "unappliable" if reason.startswith("cannot be applied") else "invalid_event"


@contextmanager
def timed_job(job: str, clock: Callable[[], float] = time.perf_counter) -> Iterator[None]:
    """Count and time one run of a lifecycle job; a raise counts as ``failed``."""
    started = clock()
    try:
        yield
    except BaseException:
        JOB_RUNS.labels(job, "failed").inc()
        raise
    finally:
        JOB_SECONDS.labels(job).observe(clock() - started)
    JOB_RUNS.labels(job, "done").inc()
