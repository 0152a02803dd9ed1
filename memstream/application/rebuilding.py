"""Rebuilding and moving memory: replaying the log into a new projection generation,
re-embedding it with another embedder, switching to it (refused when it holds less
history), and a user's export and import."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from datetime import timedelta
from typing import IO, Literal

import pyarrow as pa

from memstream.application import transfer
from memstream.application.callers import LOCAL, Caller
from memstream.application.core import UseCase
from memstream.application.errors import LessHistory, NotAvailable
from memstream.application.read_after_write import read_token
from memstream.events.errors import InvalidQuery
from memstream.jobs import reembedding, replay
from memstream.jobs.replay import ReplayReport
from memstream.observability import metrics, tracing
from memstream.policies.scope import valid_identifier
from memstream.portability.exports import EXPORT_FORMATS, ExportFormat
from memstream.portability.imports import open_import
from memstream.projections.vectors import vectors_table
from memstream.runtime import assembly as components
from memstream.settings import EmbedderName
from memstream.storage.archive.event_archive import EventArchive
from memstream.storage.filesystems import Location
from memstream.storage.lance.store import ProjectionStore
from memstream.storage.lance.tables import (
    ARCHIVE_INDEX,
    MEMORIES,
)
from memstream.storage.layout import DataLayout
from memstream.storage.schemas import vectors_schema
from memstream.storage.write_tokens import WriteToken, merged
from memstream.streams import history
from memstream.streams.projector import Projector
from memstream.streams.sealing import record_keys_of
from memstream.streams.topics import (
    COMMANDS,
    LIFECYCLE,
    MESSAGES,
    PROJECTED_TOPICS,
    read_epoch,
    start_offsets,
)
from memstream.text.passages import passage_of

__all__ = ["Rebuilding"]


class Rebuilding(UseCase):
    """The use cases that rebuild and move memory (see the module docstring)."""

    def export(
        self,
        user_id: str,
        export_format: ExportFormat,
        counted: Callable[[int], None] | None = None,
        caller: Caller = LOCAL,
    ) -> Iterator[bytes]:
        """The user's export, a piece at a time, produced as it is read (see
        :mod:`memstream.application.transfer`); ``counted`` follows its progress.

        Raises:
            InvalidQuery: a malformed user id or an unknown format.
        """
        valid_identifier("user_id", user_id)
        if export_format not in EXPORT_FORMATS:
            raise InvalidQuery(f"format: must be one of {', '.join(EXPORT_FORMATS)}")
        self._audited(caller, "export", user_id, 200, format=export_format)

        store: ProjectionStore | None = None
        if export_format != "events":  # opened now: a refusal comes before any byte
            store = self.store
            store.refresh()
        return transfer.export_stream(
            self.settings, store, user_id, export_format, self.clock(), counted
        )

    async def import_file(
        self,
        user_id: str,
        source: IO[bytes],
        caller: Caller = LOCAL,
        progress: Callable[[int, int], None] | None = None,
    ) -> transfer.ImportReport:
        """Import the file ``source`` (seekable) for ``user_id`` (see
        :mod:`memstream.portability.imports`), read as a stream: each batch's document
        originals stored, then its events published; ``progress`` is told (published,
        read so far) after each batch.

        Raises:
            UnknownShape: the file is none of the shapes read (nothing published).
            Unavailable: the log refused a batch (those before it are published;
                importing the file again is safe).
        """
        valid_identifier("user_id", user_id)
        stream = await self._blocking(open_import, source, user_id)
        batches = stream.batches(transfer.IMPORT_BATCH)
        published = originals = 0
        tokens: list[WriteToken | None] = []
        kinds: Counter[str] = Counter()
        with tracing.span("import", door=caller.door):
            while (batch := await self._blocking(next, batches, None)) is not None:
                stored, events = batch
                originals += await self._blocking(
                    transfer.store_originals, self.settings, user_id, stored
                )
                if events:
                    tokens.append((await self.sink.publish(events)).token)
                published += len(events)
                kinds.update(event.type for event in events)
                if progress is not None:
                    progress(published, published)
        for kind, count in kinds.items():
            metrics.PUBLISHED.labels(kind, caller.door).inc(count)
        plan = stream.plan
        skipped = len(plan.skipped) + plan.more_skipped
        self._audited(caller, "import", user_id, 202, events=published, skipped=skipped)
        token = merged(tokens)
        return transfer.ImportReport(
            plan.shape,
            published,
            originals,
            plan.skipped,
            plan.more_skipped,
            token.text() if token is not None else None,
        )

    async def replay(
        self,
        source: Literal["kafka", "archive"],
        into: str,
        swap: bool = False,
        writers: int = 1,
        through: str | None = None,
    ) -> tuple[replay.ReplayReport, str | None]:
        """Rebuild the projections into ``into`` from the log or the event archive; with
        ``swap`` switch the data folder to them; with ``writers`` above one, from the
        archive by that many processes, each writing a group of partitions; with
        ``through`` (a token, as ``memstream position`` prints one) only the records at or
        before its positions: the memory as it stood there. Answers the report and the
        generation switched to, if any."""
        if writers > 1 and source != "archive":
            raise InvalidQuery(
                "replay with several writers reads the event archive: --source archive"
            )
        cut = read_token(through) if through is not None else None
        if cut is not None and writers > 1:
            raise InvalidQuery("replay --through rebuilds with one writer")
        target = self.settings.location_of(into)
        cold_store = components.make_cold_store(self.settings)
        keys = record_keys_of(self.settings)
        vector_model = components.embedder_model(self.settings)
        if writers > 1:
            report = await self._blocking(
                lambda: replay.rebuild_by_partitions(
                    self.settings.data_location,
                    target,
                    self.settings.consumer_group,
                    writers,
                    cold_store=cold_store,
                    keys=keys,
                    vector_model=vector_model,
                )
            )
        else:
            records = await self._log_records(source)
            if cut is not None:
                records = (replay.records_through(table, cut) for table in records)
            report = await self._blocking(
                lambda: replay.rebuild(
                    records,
                    target,
                    self.settings.consumer_group,
                    cold_store=cold_store,
                    keys=keys,
                    vector_model=vector_model,
                )
            )
        generation = self.switch(into) if swap else None
        return report, generation

    async def reembed(
        self,
        embedder: EmbedderName,
        source: Literal["kafka", "archive"],
        into: str,
        progress: Callable[[int], None] | None = None,
    ) -> tuple[ReplayReport, int]:
        """Rebuild the projections into ``into`` with the vectors of ``embedder``: the log
        replayed keeping that model's vectors, then every memory without one embedded,
        published (acknowledged before it is stored) and stored
        (:mod:`memstream.jobs.reembedding`).
        The data folder's projections keep serving; ``switch`` moves to the new ones.
        Answers the replay's report and how many memories were embedded (``progress``
        hears the running count after each batch)."""
        settings = self.settings.model_copy(update={"embedder": embedder})
        model = await self._blocking(components.make_embedder, settings)
        if model is None:
            raise InvalidQuery("reembed needs an embedder, not none")
        records = await self._log_records(source)
        target = settings.location_of(into)
        cold_store = components.make_cold_store(settings)
        report = await self._blocking(
            lambda: replay.rebuild(
                records,
                target,
                settings.consumer_group,
                vector_dimension=model.dimension,
                cold_store=cold_store,
                keys=record_keys_of(settings),
                vector_model=model.model,
            )
        )
        store = ProjectionStore.at(
            DataLayout(target).projections(), vector_dimension=model.dimension
        )
        projector = Projector(
            store,
            settings.consumer_group,
            self.clock,
            cold_store=cold_store,
            vector_model=model.model,
        )
        batches = reembedding.missing_vectors(
            store, model, self.clock(), settings.embed_context_turns, settings.embed_batch_size
        )
        embedded = 0
        schema = vectors_schema(model.dimension)
        while (events := await self._blocking(next, batches, None)) is not None:
            await self.sink.publish(events)  # in the log before the store has them
            await self._blocking(projector.add_vectors, vectors_table(events, schema, model.model))
            embedded += sum(1 for e in events if passage_of(e.memory_id)[1] is None)  # memories
            if progress is not None:
                progress(embedded)
        await self._blocking(store.upkeep.optimize, timedelta(minutes=1))
        return report, embedded

    async def _log_records(self, source: Literal["kafka", "archive"]) -> Iterator[pa.Table]:
        if source == "archive":
            return replay.archive_batches(self.settings.data_location)
        epoch = await read_epoch(self.settings.bootstrap, self.clock(), create=False)
        if epoch is None:
            raise NotAvailable(f"the log at {self.settings.bootstrap} has no memstream topics")
        starts = await start_offsets(self.settings.bootstrap, PROJECTED_TOPICS)
        missing = await self._blocking(lambda: self._history_missing_from(epoch, starts))
        if missing:
            raise LessHistory(
                f"a replay from Kafka would miss memories: {missing}. "
                "`--source archive` replays the whole history"
            )
        return replay.kafka_batches(self.settings.bootstrap, epoch)

    def _history_missing_from(
        self, log_epoch: str, starts: dict[tuple[str, int], int]
    ) -> str | None:
        """What the log (life ``log_epoch``, earliest offsets ``starts``) lacks of what the
        event archive and the projections in use know of."""
        archived = EventArchive(DataLayout(self.settings.data_location).events).files()
        live = DataLayout(self.settings.data_location).existing_projections()
        applied = (
            {}
            if live is None
            else ProjectionStore.at(live).load_checkpoints(self.settings.consumer_group)
        )
        return history.log_shortfall(log_epoch, starts, archived, applied)

    def switch(self, into: str, force: bool = False) -> str:
        """Switch the data folder to the projections a replay or re-embedding built in
        ``into`` (the worker stopped); answers the generation now in use.

        Raises:
            LessHistory: unless ``force``, when they applied less of any partition than
                the projections in use (switching would lose what they lack).
        """
        rebuilt = self.settings.location_of(into)
        if not force:
            self._refuse_less_history(into, rebuilt)
        return replay.switch_generation(rebuilt, self.settings.data_location)

    def _refuse_less_history(self, into: str, rebuilt: Location) -> None:
        live_tables = DataLayout(self.settings.data_location).existing_projections()
        rebuilt_tables = DataLayout(rebuilt).existing_projections()
        if live_tables is None or rebuilt_tables is None:
            return  # nothing to lose, or nothing to switch to (which switching says)
        live, new = ProjectionStore.at(live_tables), ProjectionStore.at(rebuilt_tables)
        consumer = self.settings.consumer_group
        short = history.store_shortfalls(
            live.load_checkpoints(consumer),
            new.load_checkpoints(consumer),
            (MESSAGES, COMMANDS, LIFECYCLE),
        )
        held, live_held = _memories_held(new), _memories_held(live)
        if not short and held >= live_held:
            return
        behind = f"{history.describe_shortfalls(short)}; " if short else ""
        raise LessHistory(
            f"{into} holds less history than the projections in use: {behind}it holds "
            f"{held:,} memories (hot and archived), the live ones {live_held:,}. Stop the "
            "worker and replay again (`--source archive` holds the whole history), or give "
            "--force to switch all the same and lose the difference"
        )


def _memories_held(store: ProjectionStore) -> int:
    """The memories a store holds: those in the hot tables and those archived."""
    return store.count(MEMORIES) + store.count(ARCHIVE_INDEX)
