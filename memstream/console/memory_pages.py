"""The console's pages of a user's memory: the user list, a user's timeline, one memory
with its provenance, history, entities, confidence, accesses and the answers agents
were given it in (where it was used), both as they stand and ``as_of`` a past moment
(the timeline and the memory as they stood then), and the actions a
write key may take on it (correct, confirm, forget, restore), each through the
operations layer and audited as the console's."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse
from pydantic import TypeAdapter, ValidationError

from memstream.application import NotFound, Operations
from memstream.console.access import SECURITY_HEADERS, ConsoleAccess
from memstream.console.curves import confidence_curve
from memstream.events.errors import InvalidQuery
from memstream.events.identifiers import UtcDateTime
from memstream.policies.limits import MAX_LISTED
from memstream.projections.documents import CHUNK_KIND
from memstream.queries.memory_list import ListRequest
from memstream.queries.search.request import MEMORY_KINDS

__all__ = ["memory_pages"]

#: memories a timeline page shows
PAGE_SIZE = 50
_ACTIONS = ("correct", "confirm", "forget", "restore")
#: answers a memory's page lists it was given in
_USES = 20
_TIME: TypeAdapter[datetime] = TypeAdapter(UtcDateTime)


def memory_pages(router: APIRouter, ops: Operations, access: ConsoleAccess) -> None:
    """Add the pages of this module to ``router`` (the timeline last: its address is a
    prefix of the others')."""

    @router.get("/console/users")
    async def users(request: Request, q: str = "") -> Any:
        viewer = access.viewer(request)
        tenant = None if viewer.who.key is None else viewer.who.key.tenant
        everyone = await ops.reads.users(tenant)
        wanted = q.strip()
        shown = [u for u in everyone if wanted in u["user_id"]] if wanted else everyone
        return access.page("users.html", viewer, users=shown[:500], q=wanted, total=len(shown))

    @router.get("/console/users/{user_id:console_id}/memories/{memory_id:console_id}")
    async def memory(request: Request, user_id: str, memory_id: str) -> Any:
        viewer = access.viewer(request)
        viewer.who.reads(user_id)
        if request.query_params.get("expand") == "1":
            expanded = await ops.upkeep.expand(user_id, memory_id)
            return access.page(
                "archived.html", viewer, user_id=user_id, expanded=expanded, memory_id=memory_id
            )
        as_of = request.query_params.get("as_of") or None
        try:
            explained = await ops.reads.explain(user_id, memory_id, as_of=as_of)
        except NotFound:
            if as_of is not None:
                raise
            # an archived memory: its index row, and the way to expand or restore it
            found = await ops.reads.memory(user_id, memory_id)
            return access.page(
                "archived.html",
                viewer,
                user_id=user_id,
                archived=found,
                memory_id=found.get("memory_id", memory_id),
                expanded=None,
            )
        document = await ops.reads.memory(user_id, explained["memory"]["memory_id"], as_of=as_of)
        names = await ops.observing.entity_names(user_id, list(document.get("entity_ids") or ()))
        provenance = await ops.observing.provenance(user_id, document["memory_id"])
        used = await ops.reads.served(user_id, document["memory_id"], limit=_USES)
        confidence = explained["confidence"]
        rate = ops.upkeep.decay_rate(document["kind"])
        curve = (
            confidence_curve(
                float(confidence["written"]),
                rate,
                float(confidence["days_since_used"]),
                int(confidence["access_count"]),
            )
            if rate is not None and confidence["written"] is not None and not document["protected"]
            else None
        )
        return access.page(
            "memory.html",
            viewer,
            user_id=user_id,
            memory=document,
            explained=explained,
            entities=names,
            provenance=provenance,
            used=used,
            as_of=explained.get("as_of"),
            curve=curve,
            source=_chunk_source(document),
            done=request.query_params.get("done"),
            actions=_ACTIONS,
        )

    @router.post("/console/users/{user_id:console_id}/memories/{memory_id:console_id}/{action}")
    async def act(request: Request, user_id: str, memory_id: str, action: str) -> Any:
        form = await request.form()
        viewer = access.acting(request, form)
        if action not in _ACTIONS:
            raise NotFound(f"no action {action[:40]!r}: one of {', '.join(_ACTIONS)}")
        viewer.who.writes(user_id)
        caller = viewer.who.caller()
        if action == "correct":
            content = str(form.get("content", "")).strip()
            if not content:
                raise InvalidQuery("content: the corrected memory cannot be empty")
            await ops.changes.correct(user_id, memory_id, content, caller)
        elif action == "confirm":
            await ops.changes.confirm(user_id, memory_id, caller)
        elif action == "forget":
            if form.get("sure") != "yes":
                raise InvalidQuery("forget: tick 'for good' to forget this memory")
            await ops.changes.forget(user_id, memory_id, caller)
        else:
            await ops.upkeep.restore(user_id, memory_id, caller)
        # back to the memory acted on: its page shows the change once it is applied
        where = f"/console/users/{user_id}/memories/{memory_id}?done={action}"
        return RedirectResponse(where, 303, headers=SECURITY_HEADERS)

    @router.get("/console/users/{user_id:console_id}")
    async def timeline(request: Request, user_id: str) -> Any:
        viewer = access.viewer(request)
        viewer.who.reach(user_id)
        asked = request.query_params
        kind = asked.get("kind") or None
        if kind is not None and kind not in MEMORY_KINDS:
            raise InvalidQuery(f"kind: must be one of {', '.join(MEMORY_KINDS)}")
        listing = ListRequest(
            user_id=user_id,
            kind=kind,
            session_id=asked.get("session") or None,
            project_id=asked.get("project") or None,
            tag=asked.get("tag") or None,
            after=_time("after", asked.get("after")),
            before=_time("before", asked.get("before")),
            order="oldest" if asked.get("order") == "oldest" else "newest",
            limit=min(PAGE_SIZE, MAX_LISTED),
            cursor=asked.get("cursor") or None,
            include_hidden=asked.get("hidden") == "1",
            as_of=asked.get("as_of") or None,
        )
        page = await ops.reads.list_memories(listing)
        filters = {
            name: asked.get(name, "")
            for name in (
                "kind",
                "project",
                "session",
                "tag",
                "after",
                "before",
                "order",
                "hidden",
                "as_of",
            )
        }
        return access.page(
            "timeline.html",
            viewer,
            user_id=user_id,
            memories=page.memories,
            next_cursor=page.next_cursor,
            freshness=page.freshness,
            as_of=page.as_of,
            filters=filters,
            kinds=MEMORY_KINDS,
        )


def _chunk_source(document: dict[str, Any]) -> dict[str, Any] | None:
    """Where a document's chunk comes from (its page and sections), else None."""
    if document.get("kind") != CHUNK_KIND or not document.get("metadata"):
        return None
    try:
        found = json.loads(document["metadata"])
    except ValueError:
        return None
    return found if isinstance(found, dict) else None


def _time(name: str, value: str | None) -> datetime | None:
    if not value:
        return None
    try:
        return _TIME.validate_python(value)
    except ValidationError:
        raise InvalidQuery(f"{name}: a time such as 2024-05-01T12:00:00Z") from None
