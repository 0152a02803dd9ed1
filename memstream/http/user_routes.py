"""Users: statistics, how fresh a user's reads are, the users a tenant holds, erasing a
user and exporting one."""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter, Path, Query, Response
from fastapi.responses import StreamingResponse

from memstream.application.results import erasure_document
from memstream.events.identifier_rules import IDENTIFIER_PATTERN
from memstream.gate.guard import Principal
from memstream.http.answers import ErasureAnswer
from memstream.http.contract import (
    errors,
)
from memstream.http.export_answers import UserExport
from memstream.http.parameters import (
    AFTER_WRITE,
    READ,
    SUFFIXES,
    USER,
    WAIT,
    WRITE,
    RouteDeps,
)
from memstream.http.resource_answers import FreshnessAnswer, Stats, UserList
from memstream.portability.exports import MEDIA_TYPES, ExportFormat

__all__ = ["user_router"]


def user_router(deps: RouteDeps) -> APIRouter:
    """The routes of this module, over ``deps``."""
    router = APIRouter(tags=["users"])
    ops = deps.operations
    WHO = deps.who

    @router.get(
        "/v1/stats",
        response_model=Stats,
        response_model_exclude_unset=True,
        responses=errors(*READ),
    )
    async def get_stats(
        user_id: str | None = Query(None, pattern=IDENTIFIER_PATTERN, max_length=200),
        who: Principal = WHO,
    ) -> dict[str, Any]:
        if user_id is None:
            who.need_tenant_view()
        else:
            who.reads(user_id)
        return await ops.reads.stats(user_id)

    @router.get(
        "/v1/freshness",
        response_model=FreshnessAnswer,
        response_model_exclude_unset=True,
        responses=errors(*READ, 503),
    )
    async def get_freshness(
        user_id: str = USER,
        after_write: str | None = AFTER_WRITE,
        wait: Literal["applied", "vectors"] = WAIT,
        who: Principal = WHO,
    ) -> dict[str, Any]:
        """How fresh reads of the user are: the position the projections hold of the
        user's partitions, the user's writes not applied yet and memories waiting for
        their vector. With ``after_write``, answers once that write is applied (503 with
        ``Retry-After`` after a bounded wait): ``publish --wait`` asks this."""
        who.reads(user_id)
        return await ops.reads.freshness(user_id, after_write, wait)

    @router.get(
        "/v1/users",
        response_model=UserList,
        response_model_exclude_unset=True,
        responses=errors(*READ),
    )
    async def get_users(
        tenant: str | None = Query(None, pattern=IDENTIFIER_PATTERN, max_length=200),
        who: Principal = WHO,
    ) -> dict[str, Any]:
        """The users memory is held of, each with its memories, archived memories and
        when its newest memory happened: a key's own tenant's (``tenant`` may only name
        it); every tenant's for the operator (or the one ``tenant`` names)."""
        if who.tenant is not None:
            if tenant is not None and tenant != who.tenant:
                raise who.refuse(f"this key lists the users of {who.tenant} only")
            tenant = who.tenant
        return {"users": await ops.reads.users(tenant)}

    @router.delete(
        "/v1/users/{user_id:user_id}",
        response_model=ErasureAnswer,
        responses={
            **errors(*WRITE),
            202: {"description": "The keys are destroyed; the rows are still being dropped"},
        },
    )
    async def erase_user(
        response: Response,
        user_id: str = Path(pattern=IDENTIFIER_PATTERN, max_length=200),
        who: Principal = WHO,
    ) -> dict[str, Any]:
        """Erase everything memstream keeps of a user, for good (a tenant admin key): the
        user's data keys are destroyed, so nothing sealed for the user in the log, the
        journal or the event archive can be read again, and every projection and the
        cold store drop the user. 200 when all of it is done, with the erasure's signed
        receipt (what each store removed, and every read path probed for the user with
        nothing found); 202 when the keys are gone and the worker has not dropped the
        rows yet (asking again waits for it)."""
        who.writes(user_id)  # first: a foreign user gets the answer every route gives
        if who.key is not None:
            who.admin("erasing a user")
        done = await ops.upkeep.erase(user_id, caller=who.caller())
        response.status_code = 200 if done.complete else 202
        return erasure_document(done)

    @router.get(
        "/v1/users/{user_id:maybe_text}/export",
        responses={
            **errors(401, 403, 404, 422),
            200: {
                "description": "The export, streamed: JSON lines (events), a JSON "
                "document (json) or Markdown (markdown)",
                "model": UserExport,
                "content": {  # the events' JSON lines and the dossier: text
                    media: {"schema": {"type": "string"}}
                    for media in MEDIA_TYPES.values()
                    if media != "application/json"
                },
            },
        },
        response_class=StreamingResponse,
    )
    async def export_user(
        user_id: str = Path(pattern=IDENTIFIER_PATTERN, max_length=200),
        format: ExportFormat = "events",
        who: Principal = WHO,
    ) -> StreamingResponse:
        """Everything memstream holds of a user (a tenant admin key): ``events``, the
        user's events as JSON lines, which ``memstream import`` turns back into the same
        memory in another store; ``json``, the user's rows of every projection;
        ``markdown``, a dossier to read. Streamed as it is read."""
        who.reads(user_id)
        if who.key is not None:
            who.admin("exporting a user")
        pieces = ops.rebuilding.export(user_id, format, caller=who.caller())
        name = f"{user_id.replace('/', '_')}.{SUFFIXES[format]}"
        return StreamingResponse(
            pieces,
            media_type=MEDIA_TYPES[format],
            headers={"Content-Disposition": f'attachment; filename="{name}"'},
        )

    return router
