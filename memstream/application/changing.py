"""Changing memory: publishing what channels say, remembering, correcting, confirming
and forgetting a memory (named by its id or a short prefix of it), each as an event
through the sink and audited."""

from __future__ import annotations

from collections import Counter
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import Any, TypeVar

from memstream.application import commands
from memstream.application.callers import LOCAL, Caller
from memstream.application.core import UseCase
from memstream.application.errors import NotFound
from memstream.application.intake import channel_events, door_checked
from memstream.application.results import (
    Accepted,
)
from memstream.events.errors import InvalidEvent, InvalidQuery
from memstream.events.vocabulary import RememberFact
from memstream.observability import metrics, tracing
from memstream.projections.archiving import archive_id
from memstream.projections.memory_state import is_hidden, state_id
from memstream.storage.filters import equals
from memstream.storage.lance.tables import (
    ARCHIVE_INDEX,
    MEMORIES,
    MEMORY_STATE,
)
from memstream.streams.publisher import CheckedLine, check_lines

_T = TypeVar("_T")

__all__ = ["MemoryChanges"]


class MemoryChanges(UseCase):
    """The use cases that change memory (see the module docstring)."""

    async def publish(self, documents: Sequence[Any], caller: Caller = LOCAL) -> Accepted:
        """Validate every document as a channel event, then publish them all, or none
        (audited per user, with the count of the user's events).

        Raises:
            InvalidEvents: naming, per index, what is wrong (nothing was published).
        """
        events = channel_events(documents, self.clock())
        with (
            tracing.memory_span("create_memory", _one_user(e.user_id for e in events)) as span,
            tracing.span("publish", events=len(events), door=caller.door),
        ):
            span.records(len(events))
            accepted = Accepted.of(await self.sink.publish(events))
        for kind, count in Counter(event.type for event in events).items():
            metrics.PUBLISHED.labels(kind, caller.door).inc(count)
        users = Counter(event.user_id for event in events)
        for user_id, count in users.items():
            self._audited(caller, "publish", user_id, 202, events=count)
        return accepted

    async def publish_lines(
        self, lines: Sequence[bytes], caller: Caller = LOCAL
    ) -> tuple[list[CheckedLine], str | None]:
        """Publish JSON lines: valid events to their topics, invalid lines to the
        dead-letter topic with their reason; every line as checked (the valid ones
        audited per user, as :meth:`publish` audits), and the lines' write token."""
        checked = check_lines(lines, self.clock())
        store = _one_user(c.event.user_id for c in checked if c.event is not None)
        with (
            tracing.memory_span("create_memory", store) as span,
            tracing.span("publish", events=len(checked), door=caller.door),
        ):
            span.records(sum(c.event is not None for c in checked))
            token = await self.sink.publish_lines(checked)
        for kind, count in Counter(c.event.type for c in checked if c.event).items():
            metrics.PUBLISHED.labels(kind, caller.door).inc(count)
        users = Counter(c.event.user_id for c in checked if c.event is not None)
        for user_id, count in users.items():
            self._audited(caller, "publish", user_id, 202, events=count)
        return checked, token.text() if token is not None else None

    async def remember(self, fields: dict[str, Any], caller: Caller = LOCAL) -> Accepted:
        """``remember_fact``: a memory stated by the user or an agent. The same statement
        in the same scope is one memory (see :func:`commands.remembering`): while its
        memory stands, remembering it again publishes nothing and answers that memory;
        once it was forgotten or replaced, it is remembered anew. A value of a slot
        (``exclusive``, with a subject and an attribute) is stated anew by every call,
        so Lisbon, Berlin, Lisbon ends Lisbon however soon each follows the last (the
        caller's ``event_id``, when given, still makes a retry one event)."""
        with tracing.memory_span("upsert_memory", fields.get("user_id")) as span:
            accepted = await self._remember(fields, caller)
            span.records(len(accepted.event_ids))
            return accepted

    async def _remember(self, fields: dict[str, Any], caller: Caller) -> Accepted:
        now = self.clock()
        event, memory_id = commands.remembering(fields, now)
        try:
            door_checked(event)
        except InvalidEvent as exc:
            raise InvalidQuery("; ".join(exc.problems)) from None
        if "event_id" not in fields and _in_a_slot(event):
            event, memory_id = commands.remembering(fields, now, again=True)
            accepted = Accepted.of(await self.sink.publish([event]), memory_id)
            self._audited(caller, "remember", event.user_id, 202)
            return accepted
        standing = await self._blocking(self._standing, event.user_id, memory_id)
        if standing is True:
            self._audited(caller, "remember", event.user_id, 200)  # stored before
            return Accepted([], memory_id)
        if standing is False:
            event, memory_id = commands.remembering(fields, now, again=True)
        accepted = Accepted.of(await self.sink.publish([event]), memory_id)
        self._audited(caller, "remember", event.user_id, 202)
        return accepted

    def _standing(self, user_id: str, memory_id: str) -> bool | None:
        """Whether a memory of the user stands (True), was forgotten or replaced (False),
        or is not stored (None: never written, or not applied yet)."""
        try:
            store = self.store
        except NotFound:  # no projections yet
            return None
        mine = equals("user_id", user_id)
        stored = store.by_ids(MEMORIES, [memory_id], columns=["memory_id"], where=mine)
        archived = store.by_ids(ARCHIVE_INDEX, [archive_id(user_id, memory_id)], ["memory_id"])
        if not stored and not archived:
            return None
        states = store.by_ids(MEMORY_STATE, [state_id(user_id, memory_id)])
        return not is_hidden(states[0] if states else None)

    async def correct(
        self, user_id: str, memory_id: str, content: str, caller: Caller = LOCAL
    ) -> Accepted:
        """``correct_fact``: the new content replaces the memory, which stays as history."""
        with tracing.memory_span("update_memory", user_id, memory_id) as span:
            memory_id = await self._memory_named(user_id, memory_id)
            event, new_id = await self._command(
                commands.correction, self.store, user_id, memory_id, content, self.clock()
            )
            accepted = Accepted.of(await self.sink.publish([event]), new_id)
            span.records(1)
        self._audited(caller, "correct", user_id, 202)
        return accepted

    async def confirm(self, user_id: str, memory_id: str, caller: Caller = LOCAL) -> Accepted:
        """``confirm_fact``: full confidence, never decays."""
        with tracing.memory_span("update_memory", user_id, memory_id) as span:
            memory_id = await self._memory_named(user_id, memory_id)
            event = await self._command(
                commands.confirmation, self.store, user_id, memory_id, self.clock()
            )
            accepted = Accepted.of(await self.sink.publish([event]), memory_id)
            span.records(1)
        self._audited(caller, "confirm", user_id, 202)
        return accepted

    async def forget(self, user_id: str, memory_id: str, caller: Caller = LOCAL) -> Accepted:
        """``forget``: never returned by search again; kept for history."""
        with tracing.memory_span("delete_memory", user_id, memory_id) as span:
            memory_id = await self._memory_named(user_id, memory_id)
            event = await self._command(
                commands.forgetting, self.store, user_id, memory_id, self.clock()
            )
            accepted = Accepted.of(await self.sink.publish([event]), memory_id)
            span.records(1)
        self._audited(caller, "forget", user_id, 202)
        return accepted

    async def _command(self, build: Callable[..., Awaitable[_T] | _T], *args: Any) -> Any:
        try:
            return await self._blocking(build, *args)
        except commands.UnknownMemory as exc:
            raise NotFound(str(exc)) from None


def _one_user(users: Iterable[str]) -> str | None:
    """The user all of ``users`` are, or None when they are several (or none)."""
    distinct = set(users)
    return distinct.pop() if len(distinct) == 1 else None


def _in_a_slot(event: RememberFact) -> bool:
    """Whether ``event`` states a slot's value (one subject, one attribute, one value)."""
    return bool(event.exclusive and event.subject and event.attribute)
