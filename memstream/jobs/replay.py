"""Rebuilding the projections from the log: from Kafka (offset 0) or from the event archive.

A replay writes a new projection generation in a folder of its own while the live one
keeps serving, through the same :class:`~memstream.streams.projector.Projector` the worker uses.
No model or LLM is called. ``switch_generation`` then makes the data folder use it.

- :func:`rebuild`: worker processes decode and build rows, this process writes them
  in log order (one writer).
- :func:`rebuild_by_partitions`: from the event archive, one process per group of
  partitions reads, decodes and writes its partitions' records, as the workers of a
  deployment do: a user's rows all come from the user's partition, so each process is
  the only writer of its users' rows and the result is the same as with one writer.
"""

from __future__ import annotations

import multiprocessing
import os
import shutil
import time
from collections import deque
from collections.abc import Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc

from memstream.clock import system_clock
from memstream.storage.archive.cold_store import ColdStore
from memstream.storage.archive.event_archive import EventArchive
from memstream.storage.filesystems import Location
from memstream.storage.lance.store import ProjectionStore
from memstream.storage.layout import DataLayout
from memstream.storage.write_tokens import WriteToken
from memstream.streams import log_reader
from memstream.streams.batches import BatchResult, PreparedBatch, prepare_table, ready
from memstream.streams.errors import StreamsError
from memstream.streams.lifeline import start_child
from memstream.streams.projector import Projector
from memstream.streams.sealing import RecordKeys
from memstream.streams.topics import PROJECTED_TOPICS

#: A replay writes its bookkeeping (session rows, watermarks, checkpoints) this often;
#: an interrupted replay is started again from scratch anyway.
_FLUSH_EVERY_SECONDS = 5.0

__all__ = [
    "ReplayReport",
    "archive_batches",
    "kafka_batches",
    "rebuild",
    "rebuild_by_partitions",
    "records_through",
    "switch_generation",
]

_BATCH = 20_000


@dataclass(frozen=True)
class ReplayReport:
    records: int
    applied: int
    dead_letters: int
    seconds: float
    generation: str
    projections_uri: str

    @property
    def rate(self) -> float:
        return self.records / self.seconds if self.seconds else 0.0


def archive_batches(data: Location) -> Iterator[pa.Table]:
    """Every record of ``data``'s event archive, in log order per topic, in Arrow batches.

    Topics are read one after the other (messages first): what each projects depends
    only on the order within its own partitions.
    """
    archive = EventArchive(DataLayout(data).events)
    for topic in PROJECTED_TOPICS:
        yield from archive.read_tables(topic, _BATCH)


def records_through(records: pa.Table, token: WriteToken) -> pa.Table:
    """The rows of ``records`` (the event archive's schema: ``log_epoch``, ``topic``,
    ``partition``, ``offset``) at or before ``token``: every record of an older life of
    the log, of the token's life those at or before its offset in a partition it names
    (none of a partition it does not name), and none of a newer life."""
    if records.num_rows == 0:
        return records
    epochs = records.column("log_epoch")
    keep = pc.less(epochs, token.log_epoch)
    same = pc.equal(epochs, token.log_epoch)
    for (topic, partition), offset in token.positions.items():
        here = pc.and_(
            pc.and_(same, pc.equal(records.column("topic"), topic)),
            pc.and_(
                pc.equal(records.column("partition"), partition),
                pc.less_equal(records.column("offset"), offset),
            ),
        )
        keep = pc.or_(keep, here)
    return records.filter(keep)


def kafka_batches(bootstrap: str, log_epoch: str) -> Iterator[pa.Table]:
    """Every record of the projected topics from offset 0 to the end offsets seen at start."""
    return log_reader.kafka_batches(bootstrap, log_epoch, _BATCH, PROJECTED_TOPICS)


def rebuild(
    batches: Iterable[pa.Table],
    into: Location,
    consumer: str,
    workers: int | None = None,
    vector_dimension: int | None = None,
    cold_store: ColdStore | None = None,
    keys: RecordKeys | None = None,
    vector_model: str | None = None,
) -> ReplayReport:
    """Apply record ``batches`` to a new projection generation under the folder ``into``.

    Decoding and row building (most of the work) run in ``workers`` spawned processes
    (default: one per core), the parent writes the prepared batches in log order.
    Restored memories are read back from ``cold_store`` (the data folder's). At the
    end, every memory the archive index says is archived leaves the hot tables (the
    topics' interleaving may have applied an archiving before the message it archives).
    Sealed records are opened with ``keys``; those of erased users are left out. The
    vectors kept are those of ``vector_model`` (None: each memory's first vector).
    """
    started = time.perf_counter()
    layout, generation, store = _new_generation(into, vector_dimension)
    projector = _projector(store, consumer, cold_store, keys, vector_model)
    results: list[BatchResult] = []
    total = 0
    count = workers or os.cpu_count() or 1
    context = multiprocessing.get_context("spawn")  # never fork a process that holds LanceDB
    with ProcessPoolExecutor(
        max_workers=count,
        mp_context=context,
        initializer=start_child,
        initargs=(os.getpid(),),
    ) as pool:
        for _ in range(count):  # start the workers while the first batch is read
            pool.submit(ready)
        pending: deque[Future[PreparedBatch]] = deque()
        for batch in batches:
            total += batch.num_rows
            pending.append(
                pool.submit(prepare_table, batch, store.vector_dimension, keys, vector_model)
            )
            while len(pending) > count:
                results.append(projector.commit(pending.popleft().result()))
        while pending:
            results.append(projector.commit(pending.popleft().result()))
    projector.flush()
    return _finish(
        layout,
        generation,
        projector,
        (total, sum(r.applied for r in results), sum(len(r.dead_letters) for r in results)),
        started,
    )


def rebuild_by_partitions(
    data: Location,
    into: Location,
    consumer: str,
    writers: int,
    vector_dimension: int | None = None,
    cold_store: ColdStore | None = None,
    keys: RecordKeys | None = None,
    vector_model: str | None = None,
) -> ReplayReport:
    """:func:`rebuild` from ``data``'s event archive with ``writers`` spawned processes,
    each reading, decoding and writing the records of its own partitions (partition
    ``p`` goes to the ``p``-th process, round robin). Each is the only writer of its
    partitions' users' rows; this process then does what spans them (archived
    memories out of the hot tables, compaction)."""
    started = time.perf_counter()
    layout, generation, store = _new_generation(into, vector_dimension)
    partitions = sorted({f.partition for f in EventArchive(DataLayout(data).events).files()})
    groups = [partitions[i::writers] for i in range(writers) if partitions[i::writers]]
    context = multiprocessing.get_context("spawn")  # never fork a process that holds LanceDB
    with ProcessPoolExecutor(
        max_workers=max(1, len(groups)),
        mp_context=context,
        initializer=start_child,
        initargs=(os.getpid(),),
    ) as pool:
        futures = [
            pool.submit(
                _replay_partitions,
                data,
                layout.location.child(generation),
                consumer,
                group,
                store.vector_dimension,
                cold_store,
                keys,
                vector_model,
            )
            for group in groups
        ]
        counts = [future.result() for future in futures]
    store.refresh()
    projector = _projector(store, consumer, cold_store, keys, vector_model)
    totals = (sum(c[0] for c in counts), sum(c[1] for c in counts), sum(c[2] for c in counts))
    return _finish(layout, generation, projector, totals, started)


def _replay_partitions(
    data: Location,
    projections: Location,
    consumer: str,
    partitions: list[int],
    vector_dimension: int,
    cold_store: ColdStore | None,
    keys: RecordKeys | None,
    vector_model: str | None,
) -> tuple[int, int, int]:
    """One writer of :func:`rebuild_by_partitions`: the archived records of
    ``partitions``, topic after topic, applied in log order. Answers the records read,
    applied and dead-lettered."""
    store = ProjectionStore.at(projections, vector_dimension=vector_dimension)
    projector = _projector(store, consumer, cold_store, keys, vector_model)
    archive = EventArchive(DataLayout(data).events)
    records = applied = dead = 0
    for topic in PROJECTED_TOPICS:
        for table in archive.read_tables(topic, _BATCH, partitions=set(partitions)):
            result = projector.commit(prepare_table(table, vector_dimension, keys, vector_model))
            records += table.num_rows
            applied += result.applied
            dead += len(result.dead_letters)
    projector.flush()
    return records, applied, dead


def _new_generation(
    into: Location, vector_dimension: int | None
) -> tuple[DataLayout, str, ProjectionStore]:
    """A new, empty generation under the folder ``into`` (which must hold none)."""
    layout = DataLayout(into)
    if layout.current_generation() is not None:
        raise StreamsError(f"{into.uri} already holds projections: replay into an empty folder")
    generation = layout.new_generation_name(system_clock())
    store = ProjectionStore.at(layout.location.child(generation), vector_dimension=vector_dimension)
    return layout, generation, store


def _projector(
    store: ProjectionStore,
    consumer: str,
    cold_store: ColdStore | None,
    keys: RecordKeys | None,
    vector_model: str | None,
) -> Projector:
    return Projector(
        store,
        consumer=consumer,
        clock=system_clock,
        sole_writer_of_empty_store=True,
        flush_every_seconds=_FLUSH_EVERY_SECONDS,
        cold_store=cold_store,
        keys=keys,
        vector_model=vector_model,
    )


def _finish(
    layout: DataLayout,
    generation: str,
    projector: Projector,
    counts: tuple[int, int, int],
    started: float,
) -> ReplayReport:
    """What ends every replay: the memories the archive index says are archived leave
    the hot tables (the topics' interleaving may have applied an archiving before the
    message it archives), the tables are compacted and the generation named current."""
    projector.reconcile_archive()
    store = projector.store
    store.upkeep.optimize(retain=timedelta(minutes=1))
    layout.switch_to(generation)
    records, applied, dead = counts
    return ReplayReport(
        records, applied, dead, time.perf_counter() - started, generation, store.uri
    )


def switch_generation(replayed: Location, data: Location) -> str:
    """Move the generation built in folder ``replayed`` into ``data`` and switch to it."""
    source = DataLayout(replayed)
    target = DataLayout(data)
    generation = source.current_generation()
    if generation is None:
        raise StreamsError(f"{replayed.uri} holds no replayed projections")
    if not (source.location.is_local and target.location.is_local):
        raise StreamsError("--swap moves folders and needs a local data folder")
    shutil.move(
        str(Path(source.location.path) / generation), str(Path(target.location.path) / generation)
    )
    target.switch_to(generation)
    return generation
