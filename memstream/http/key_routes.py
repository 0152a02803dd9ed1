"""API keys of a tenant: create, list, revoke (an admin key)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException, Path

from memstream.gate.guard import Principal
from memstream.http.contract import (
    errors,
)
from memstream.http.parameters import (
    NewKey,
    RouteDeps,
)
from memstream.http.resource_answers import ApiKeyAnswer, ApiKeyList, NewApiKey
from memstream.tenancy.keys import KeyStoreError

__all__ = ["key_router"]


def key_router(deps: RouteDeps) -> APIRouter:
    """The routes of this module, over ``deps``."""
    router = APIRouter(tags=["keys"])
    WHO = deps.who
    guard = deps.guard

    @router.post(
        "/v1/keys",
        status_code=201,
        response_model=NewApiKey,
        response_model_exclude_unset=True,
        responses=errors(401, 403, 422),
    )
    async def create_key(body: NewKey, who: Principal = WHO) -> dict[str, Any]:
        """A new key of the admin key's tenant; the key itself is in this answer only."""
        admin = who.admin()
        try:
            record, token = guard.keys.create(admin.tenant, body.role, body.name)
        except KeyStoreError as exc:
            raise HTTPException(422, detail=str(exc)) from None
        who.audit("key_create", None, 201, created_key=record.key_id, role=record.role)
        return {**record.public(), "key": token}

    @router.get(
        "/v1/keys",
        response_model=ApiKeyList,
        response_model_exclude_unset=True,
        responses=errors(401, 403),
    )
    async def list_keys(who: Principal = WHO) -> dict[str, Any]:
        """The admin key's tenant's keys (never the keys themselves, nor their hashes)."""
        admin = who.admin()
        return {"keys": [k.public() for k in guard.keys.records() if k.tenant == admin.tenant]}

    @router.delete(
        "/v1/keys/{key_id}",
        response_model=ApiKeyAnswer,
        response_model_exclude_unset=True,
        responses=errors(401, 403, 404, 422),
    )
    async def revoke_key(key_id: str = Path(max_length=40), who: Principal = WHO) -> dict[str, Any]:
        """Revoke one of the tenant's keys: it is refused from the next request on."""
        admin = who.admin()
        try:
            record = guard.keys.revoke(key_id, tenant=admin.tenant)
        except KeyStoreError as exc:
            raise HTTPException(404, detail=str(exc)) from None
        who.audit("key_revoke", None, 200, revoked_key=record.key_id)
        return record.public()

    return router
