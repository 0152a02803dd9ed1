"""The log of what was served: every context block and search answer a front door gave
a caller, recorded as a ``ContextServed`` event (who asked, the question, the memory
ids with their scores and the answer's digest; never the memories' text), and read
back: what each agent was shown, where a memory was used, and an answer rendered again
from its record (:mod:`memstream.queries.served`).

Recording is best effort and never delays the answer: the event goes to the log in
the background beside the search's access report, and a log that cannot take it
loses that record (logged), not the answer.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable, Sequence
from typing import Any

from memstream.application.callers import Caller
from memstream.application.core import ACCESS_REPORT_SECONDS
from memstream.application.errors import NotFound, Unavailable
from memstream.application.fresh_reads import FreshReads
from memstream.application.past_views import find_moment
from memstream.events.vocabulary import ContextServed, Event, ServedLine
from memstream.policies.limits import MAX_LISTED
from memstream.policies.scope import valid_identifier
from memstream.queries.served import Rebuilt, ServedRows, rebuild, served_rows
from memstream.storage.lance.store import MomentGone, ProjectionStore, is_gone
from memstream.storage.lance.tables import SERVED
from memstream.streams.partitioning import partition_of

log = logging.getLogger(__name__)

__all__ = ["ServedLog", "served_document"]


class ServedLog(FreshReads):
    """Recording what was served, and reading it back (see the module docstring)."""

    def _records_for(self, caller: Caller | None) -> bool:
        """Whether an answer given to ``caller`` is recorded: a caller named, and the
        deployment records what it serves (else nothing of the record is built)."""
        return caller is not None and self.settings.served_log

    def _served(
        self,
        caller: Caller | None,
        user_id: str,
        answer: str,
        question: str,
        lines: list[ServedLine],
        digest: str,
        *,
        project_id: str | None = None,
        as_of: str | None = None,
        asked_as_of: str | None = None,
        budget_tokens: int | None = None,
    ) -> ContextServed | None:
        """The record of an answer given to ``caller`` (None: no caller to record,
        nothing served, or the deployment records nothing)."""
        if caller is None or not lines or not self._records_for(caller):
            return None
        return ContextServed(
            user_id=user_id,
            served_at=self.clock(),
            answer=answer,
            door=caller.door,
            key_id=caller.key_id,
            tenant=caller.tenant,
            agent=caller.agent,
            session_id=caller.session_id,
            project_id=project_id,
            question=question,
            as_of=as_of,
            asked_as_of=asked_as_of,
            budget_tokens=budget_tokens,
            lines=lines,
            digest=digest,
        )

    def _report(self, events: Sequence[Event | None]) -> None:
        """Publish ``events`` (the Nones left out) in the background, best effort."""
        if any(e is not None for e in events):
            self._report_after(lambda: events)

    def _report_after(self, reports: Callable[[], Sequence[Event | None]]) -> None:
        """:meth:`_report` of the events ``reports`` makes, made in the background too,
        once the answer is on its way: a search's access report and record (a dozen
        models, a digest) held its answer back 0.2 ms when made before it."""

        async def report() -> None:
            try:
                events = [e for e in reports() if e is not None]
            except Exception:  # a report, not the answer
                log.warning("could not make a read's reports", exc_info=True)
                return
            if events:
                await self._publish_quietly(events)

        task = asyncio.create_task(report())
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)

    async def _publish_quietly(self, events: list[Event]) -> None:
        names = ", ".join(sorted({e.type for e in events}))
        try:
            await asyncio.wait_for(self.sink.publish(events), ACCESS_REPORT_SECONDS)
        except (Unavailable, TimeoutError) as exc:  # a report, not the answer
            log.warning("could not publish %s: %s", names, exc or "timed out")
        except Exception:
            log.warning("could not publish %s", names, exc_info=True)

    async def served(
        self, user_id: str, memory_id: str | None = None, limit: int = 50
    ) -> list[dict[str, Any]]:
        """What callers were given of ``user_id``'s memory, newest first; with
        ``memory_id``, the answers that held that memory (where it was used)."""
        valid_identifier("user_id", user_id)
        if memory_id is not None:
            valid_identifier("memory_id", memory_id)
        limit = max(1, min(limit, MAX_LISTED))
        rows = await self._blocking(self.store.served, user_id, memory_id, limit)
        return [served_document(row) for row in rows]

    async def served_answer(self, user_id: str, served_id: str) -> dict[str, Any]:
        """One answer as recorded, with its text rendered again from its lines over
        memory as it stood when it was read (``rebuilt``: the text, its digest, whether
        it is the one recorded, and the lines no memory was found for)."""
        valid_identifier("user_id", user_id)
        valid_identifier("served_id", served_id)
        found = await self._blocking(self._served_row, user_id, served_id)
        document = served_document(found)
        rebuilt, moment = await self._blocking(self._rebuild, user_id, found)
        document["rebuilt"] = {
            "text": rebuilt.text,
            "digest": rebuilt.digest,
            "matches": rebuilt.digest == found["digest"] and not rebuilt.missing,
            "missing": list(rebuilt.missing),
            "read_as_of": moment,
        }
        return document

    def _served_row(self, user_id: str, served_id: str) -> dict[str, Any]:
        rows = [r for r in self.store.by_ids(SERVED, [served_id]) if r["user_id"] == user_id]
        if not rows:
            raise NotFound(f"no served answer {served_id} for user {user_id}")
        return rows[0]

    def _rebuild(self, user_id: str, row: dict[str, Any]) -> tuple[Rebuilt, str | None]:
        """The answer ``row`` records, rendered from memory as it stood when it was read
        (the first moment that held its position; what that moment no longer holds, and
        every line of an answer no moment is kept for, or whose versions upkeep or an
        erasure removed since, from memory as it stands now: a memory's words never
        change) and the time of that moment (None: none used)."""
        lines = [ServedLine.model_validate(line) for line in json.loads(row["lines"])]
        then: ProjectionStore | None = None
        when: str | None = None
        if row["as_of"]:
            partition = partition_of(user_id, self.settings.messages_partitions)
            try:
                moment = find_moment(self.store, self.settings.consumer_group, partition,
                                     row["as_of"])  # fmt: skip
            except NotFound:
                moment = None
            if moment is not None:
                try:
                    then = self.store.pinned(moment.versions)
                    when = moment.recorded_at.isoformat()
                except MomentGone:  # its versions went since (upkeep, an erasure)
                    then = None
        try:
            found = served_rows(then or self.store, user_id, lines)
        except Exception as exc:  # its files went while it was read: memory now
            if then is None or not is_gone(exc):
                raise
            then, when = None, None
            found = served_rows(self.store, user_id, lines)
        rebuilt = rebuild(row["answer"], lines, found)
        if rebuilt.missing and then is not None:
            now = served_rows(self.store, user_id, lines)
            found = ServedRows(
                {**now.memories, **found.memories},
                {**now.archived, **found.archived},
                {**now.entities, **found.entities},
            )
            rebuilt = rebuild(row["answer"], lines, found)
        return rebuilt, when


def served_document(row: dict[str, Any]) -> dict[str, Any]:
    """A ``served`` row as the front doors answer it: its lines as JSON values."""
    document = {k: v for k, v in row.items() if k not in ("lines", "memory_ids")}
    document["served_at"] = row["served_at"].isoformat()
    document["lines"] = json.loads(row["lines"])
    return document
