"""Documents as use cases: submitting one (its bytes kept, its event published), reading
its status as it is chunked and indexed, removing it, and listing a user's."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from typing import Any

from memstream.application.callers import LOCAL, Caller
from memstream.application.core import UNKNOWN_DOCUMENT_WAIT, Parts, UseCase
from memstream.application.documents import (
    DOCUMENT_DONE,
    DocumentAccepted,
    document_view,
    embedded_chunks,
    received_view,
    submission,
)
from memstream.application.errors import NotFound
from memstream.application.read_after_write import NotYetApplied
from memstream.application.reading import MemoryReads
from memstream.events.vocabulary import (
    DocumentRemoved,
)
from memstream.policies.scope import valid_identifier
from memstream.projections.documents import document_key
from memstream.storage.document_originals import DocumentOriginals
from memstream.storage.filters import equals
from memstream.storage.lance.tables import (
    DOCUMENTS,
)
from memstream.storage.layout import DataLayout
from memstream.storage.write_tokens import WriteToken
from memstream.streams.topics import DOCUMENTS as DOCUMENTS_TOPIC

__all__ = ["DocumentCases"]


class DocumentCases(UseCase):
    """The use cases of documents (see the module docstring); a wait for a document
    not seen yet asks ``reads`` whether the worker has caught up with the log."""

    def __init__(self, parts: Parts, reads: MemoryReads) -> None:
        super().__init__(parts)
        self._reads = reads

    async def add(
        self,
        user_id: str,
        data: bytes,
        *,
        name: str | None = None,
        media_type: str | None = None,
        title: str | None = None,
        document_id: str | None = None,
        project_id: str | None = None,
        tags: Sequence[str] = (),
        caller: Caller = LOCAL,
    ) -> DocumentAccepted:
        """Take a document: its original is stored in the data location under its
        checksum, then ``DocumentSubmitted`` is published (the documents lane parses
        it). The same bytes as the document's current version publish nothing."""
        event = submission(
            user_id,
            data,
            self.clock(),
            max_bytes=self.settings.document_max_bytes,
            name=name,
            media_type=media_type,
            title=title,
            document_id=document_id,
            project_id=project_id,
            tags=tags,
        )
        current = await self._blocking(self._document_row, user_id, event.document_id)
        if (
            current is not None
            and current["checksum"] == event.checksum
            and current["status"] != "removed"
        ):
            self._audited(caller, "document_add", user_id, 200, document=event.document_id)
            return DocumentAccepted(event.document_id, event.checksum, False, [])
        originals = DocumentOriginals(DataLayout(self.settings.data_location).documents)
        await self._blocking(originals.put, user_id, data)
        published = await self.sink.publish([event])
        self._audited(caller, "document_add", user_id, 202, document=event.document_id)
        token = published.token.text() if published.token is not None else None
        return DocumentAccepted(event.document_id, event.checksum, True, published.event_ids, token)

    def _document_row(self, user_id: str, document_id: str) -> dict[str, Any] | None:
        try:
            store = self.store
        except NotFound:  # no projections yet
            return None
        rows = store.by_ids(DOCUMENTS, [document_key(user_id, document_id)])
        return dict(rows[0]) if rows else None

    async def status(
        self,
        user_id: str,
        document_id: str,
        wait_seconds: float = 0.0,
        checksum: str | None = None,
    ) -> dict[str, Any]:
        """A document's status; with ``wait_seconds``, waits that long at most for it
        (its version ``checksum``, if given: one just submitted) to be indexed, empty
        or failed (for a document it does not know at all, until the worker has applied
        what was published before the wait: a few seconds at most).

        Raises:
            NotFound: the user has no such document (or it is not applied yet).
        """
        valid_identifier("user_id", user_id)
        valid_identifier("document_id", document_id)
        row, settled = await self._document_when(
            user_id,
            document_id,
            wait_seconds,
            lambda r: r["status"] in DOCUMENT_DONE and checksum in (None, r["checksum"]),
            checksum is None,
        )
        if wait_seconds and row is not None and row["status"] in DOCUMENT_DONE:
            self._searches_see_now(user_id)
        if checksum is not None and (row is None or row["checksum"] != checksum):
            return received_view(user_id, document_id, checksum)  # accepted, not applied yet
        if row is None:
            # settled: the worker has applied every document event published before the
            # wait, so none was submitted (not: none applied yet)
            why = ": none was submitted before this read" if settled else ""
            raise NotFound(f"no document {document_id} for user {user_id}{why}")
        view = document_view(row)
        view["embedded_chunks"] = await self._blocking(embedded_chunks, self.store, row)
        return view

    async def _document_when(
        self,
        user_id: str,
        document_id: str,
        wait_seconds: float,
        done: Callable[[dict[str, Any]], bool],
        may_be_unknown: bool,
    ) -> tuple[dict[str, Any] | None, bool]:
        """The document's row once ``done`` says so, or after ``wait_seconds``; and
        whether the worker had applied every document event published before the wait.

        A document not seen at all (``may_be_unknown``) may be on its way, just
        submitted: it is waited for until the worker has applied every document event
        published before the wait began (then it does not exist), and a few seconds at
        most when that cannot be told (the broker does not answer)."""
        started = time.monotonic()
        settled = False  # every document event published before the wait is applied
        asked = False  # the log was asked that (once: a broker that is down is not asked again)
        while True:
            if self.parts.opened_store is not None:
                await self._blocking(self.parts.opened_store.refresh)
            row = await self._blocking(self._document_row, user_id, document_id)
            if row is None and may_be_unknown and wait_seconds and not asked:
                asked = True
                left = min(wait_seconds, UNKNOWN_DOCUMENT_WAIT) - (time.monotonic() - started)
                settled = await self._published_documents_applied(user_id, left)
                if settled:
                    row = await self._blocking(self._document_row, user_id, document_id)
            waited = time.monotonic() - started
            unknown = (
                row is None and may_be_unknown and (settled or waited >= UNKNOWN_DOCUMENT_WAIT)
            )
            if (row is not None and done(row)) or unknown or waited >= wait_seconds:
                return row, settled
            await asyncio.sleep(0.2)

    async def _published_documents_applied(self, user_id: str, seconds: float) -> bool:
        """Whether the projections hold every document event published so far (waiting
        ``seconds`` at most in all); False when the log cannot say in time."""
        deadline = time.monotonic() + seconds
        ends, epoch = await self._reads.log_position(max(seconds, 0.1) / 2, DOCUMENTS_TOPIC)
        if ends is None or epoch is None:
            return False
        written = {at: end - 1 for at, end in ends.items() if end > 0}
        if not written:
            return True  # nothing was ever published there
        token = WriteToken(epoch, written).text()
        try:
            await self._reads.after_write(
                token, user_id, seconds=max(0.0, deadline - time.monotonic())
            )
        except NotYetApplied:
            return False
        return True

    def _searches_see_now(self, user_id: str) -> None:
        """Searches answered here from now on see what a wait saw applied (a document
        indexed or removed), not the user's memories as held in memory a moment ago
        (they are read again at the user's next search)."""
        if self.parts.opened_searcher is not None:
            self.parts.opened_searcher.forget(user_id)

    async def remove(
        self,
        user_id: str,
        document_id: str,
        wait_seconds: float = 0.0,
        caller: Caller = LOCAL,
    ) -> dict[str, Any]:
        """Remove a document: ``DocumentRemoved`` soft-deletes the chunks and facts of
        every version of it (a document removed already publishes nothing). With
        ``wait_seconds``, waits that long at most for the removal to be applied; the
        answer's ``document`` is then the document's status.

        Raises:
            NotFound: the user has no such document (or it is not applied yet).
        """
        valid_identifier("user_id", user_id)
        valid_identifier("document_id", document_id)
        row = await self._blocking(self._document_row, user_id, document_id)
        if row is None:
            raise NotFound(f"no document {document_id} for user {user_id}")
        if row["status"] == "removed":
            self._audited(caller, "document_remove", user_id, 200, document=document_id)
            return {"document_id": document_id, "removed": True, "accepted": []}
        now = self.clock()
        event = DocumentRemoved(
            event_id=f"removed:{document_id}:{now.strftime('%Y%m%dT%H%M%S.%fZ')}",
            user_id=user_id,
            document_id=document_id,
            occurred_at=now,
        )
        published = await self.sink.publish([event])
        self._audited(caller, "document_remove", user_id, 202, document=document_id)
        answer: dict[str, Any] = {
            "document_id": document_id,
            "removed": False,
            "accepted": published.event_ids,
            "token": published.token.text() if published.token is not None else None,
        }
        if wait_seconds:
            row, _ = await self._document_when(
                user_id, document_id, wait_seconds, lambda r: r["status"] == "removed", False
            )
            answer["document"] = document_view(row) if row is not None else None
            if row is not None and row["status"] == "removed":
                self._searches_see_now(user_id)
        return answer

    async def listed(self, user_id: str) -> list[dict[str, Any]]:
        """The user's documents, newest first."""
        valid_identifier("user_id", user_id)

        def rows() -> list[dict[str, Any]]:
            try:
                store = self.store
            except NotFound:
                return []
            mine: list[dict[str, Any]] = store.scan(
                DOCUMENTS, where=equals("user_id", user_id)
            ).to_pylist()
            return mine

        found = await self._blocking(rows)
        found.sort(key=lambda r: (r["submitted_at"], r["document_id"]), reverse=True)
        return [document_view(r) for r in found]
