"""The console's pages of the stream and the deployment: logging in and out, stream
health (with ``/console/health.json`` for its live charts), dead letters and API keys.

Health is the deployment's for the operator and an admin key, a tenant's own figures
for any other key; dead letters are an admin's (a tenant's admin sees those keyed to
its users); keys are an admin's (a tenant's own; the operator names the tenant)."""

from __future__ import annotations

import time
from typing import Any

from fastapi import APIRouter, HTTPException, Request
from fastapi.encoders import jsonable_encoder
from fastapi.responses import JSONResponse, RedirectResponse

from memstream.application import Operations
from memstream.console.access import SECURITY_HEADERS, ConsoleAccess, Viewer
from memstream.console.recent import Recent
from memstream.console.samples import Samples
from memstream.console.sessions import COOKIE
from memstream.events.errors import InvalidQuery
from memstream.tenancy.keys import KeyStoreError

__all__ = ["COUNTS_SECONDS", "SIZES_SECONDS", "session_pages", "stream_pages"]

#: How old the health page's counts may be: counting a million memories takes a third of
#: a second of a core, not to be spent for every poll of every open page.
COUNTS_SECONDS = 60.0
#: How old the storage sizes a page shows may be (a listing of the cold store and the
#: event archive); the sampler measures them every twenty samples beside.
SIZES_SECONDS = 60.0


def stream_pages(
    router: APIRouter,
    ops: Operations,
    access: ConsoleAccess,
    samples: Samples,
    sizes: dict[str, float],
) -> None:
    """Add the pages of this module to ``router`` (``sizes``: the storage sizes the
    sampler last measured)."""
    keys = access.guard.keys
    session_pages(router, access)

    counted = Recent(max(COUNTS_SECONDS, samples.every_seconds))

    async def tenant_users(tenant: str | None) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = await counted.get(
            f"users {tenant}", lambda: ops.reads.users(tenant)
        )
        return found

    async def stats_of(viewer: Viewer) -> dict[str, Any]:
        """The counts the viewer's health page shows (at most a sample interval old:
        counting a million memories is not done for every poll of an open page)."""
        if viewer.who.key is None:
            found: dict[str, Any] = await counted.get(
                "deployment",
                lambda: ops.health.stats(samples.latest()),
            )
            return found
        users = await tenant_users(viewer.who.key.tenant)
        return {
            "users": len(users),
            "memories": sum(u["memories"] for u in users),
            "archived": sum(u["archived"] for u in users),
        }

    async def health_of(viewer: Viewer) -> dict[str, Any]:
        now = ops.clock()
        stats = await stats_of(viewer)
        sample = samples.latest()
        if viewer.is_admin and viewer.who.key is None:
            measured = await _measured_sizes(sizes, ops)
            return await ops.health.deployment(sample, now, measured, stats)
        tenant = viewer.who.key.tenant if viewer.who.key is not None else None
        users = await tenant_users(tenant)
        mine = await ops.health.tenant(users, now)
        if viewer.is_admin:  # a tenant's admin: its users, with the stream's figures
            found = await ops.health.deployment(sample, now, None, stats)
            found.update(mine)
            found["scope"] = "tenant-admin"
            return found
        return mine

    @router.get("/console")
    async def health(request: Request) -> Any:
        viewer = access.viewer(request)
        figures = await health_of(viewer)
        return access.page("health.html", viewer, health=figures, every=samples.every_seconds)

    @router.get("/console/health.json")
    async def health_json(request: Request) -> Any:
        """What an open health page asks every few seconds: the partitions, the counts
        (as recent as the last sample) and the last hour's series."""
        viewer = access.viewer(request)
        if not viewer.is_admin:
            return JSONResponse({"scope": "tenant"}, headers=SECURITY_HEADERS)
        latest = samples.latest()
        partitions = await ops.health.partitions(latest)
        body = {
            "scope": "deployment" if viewer.who.key is None else "tenant-admin",
            "stats": await stats_of(viewer),
            "partitions": partitions,
            "waiting": latest.lag() if latest is not None else None,
            "series": samples.series(),
        }
        return JSONResponse(jsonable_encoder(body), headers=SECURITY_HEADERS)

    @router.get("/console/dead-letters")
    async def dead_letters(request: Request) -> Any:
        viewer = access.viewer(request)
        tenant = _admin_tenant(viewer, "dead letters")
        rows = await ops.observing.dead_letters(tenant)
        return access.page("dead_letters.html", viewer, rows=rows)

    @router.get("/console/dead-letters/{dead_letter_id:text}")
    async def dead_letter(request: Request, dead_letter_id: str) -> Any:
        viewer = access.viewer(request)
        tenant = _admin_tenant(viewer, "dead letters")
        row = await ops.observing.dead_letter(dead_letter_id, tenant)
        return access.page("dead_letter.html", viewer, row=row)

    @router.get("/console/keys")
    async def key_list(request: Request) -> Any:
        viewer = access.viewer(request)
        tenant = _admin_tenant(viewer, "key management")
        listed = [k.public() for k in keys.records() if tenant is None or k.tenant == tenant]
        return access.page(
            "keys.html", viewer, keys=listed, tenant=tenant, created=None, first=not keys.configured
        )

    @router.post("/console/keys")
    async def key_create(request: Request) -> Any:
        form = await request.form()
        viewer = access.acting(request, form)
        tenant = _admin_tenant(viewer, "key management")
        if not keys.configured:
            _may_mint_the_first_key(access, request, viewer, form.get("first"))
        named = tenant or str(form.get("tenant", "")).strip()
        role = str(form.get("role", "read"))
        try:
            record, token = keys.create(named, role, str(form.get("name", ""))[:200])  # type: ignore[arg-type]
        except KeyStoreError as exc:
            raise HTTPException(422, detail=str(exc)) from None
        viewer.who.audit("key_create", None, 201, created_key=record.key_id, role=record.role)
        listed = [k.public() for k in keys.records() if tenant is None or k.tenant == tenant]
        created = {**record.public(), "key": token}
        return access.page(
            "keys.html", viewer, keys=listed, tenant=tenant, created=created, first=False
        )

    @router.post("/console/keys/{key_id}/revoke")
    async def key_revoke(request: Request, key_id: str) -> Any:
        form = await request.form()
        viewer = access.acting(request, form)
        tenant = _admin_tenant(viewer, "key management")
        try:
            record = keys.revoke(key_id[:40], tenant=tenant)
        except KeyStoreError as exc:
            raise HTTPException(404, detail=str(exc)) from None
        viewer.who.audit("key_revoke", None, 200, revoked_key=record.key_id)
        return RedirectResponse("/console/keys", 303, headers=SECURITY_HEADERS)


def _may_mint_the_first_key(
    access: ConsoleAccess, request: Request, viewer: Viewer, ticked: object
) -> None:
    """Refuse the first key unless asked by a browser on this machine at a loopback
    address (the command line may mint it too), with its box ticked: it switches keys on
    for everyone."""
    if not access.on_loopback(request):
        raise viewer.who.refuse(
            "the first API key is created at a loopback address of this server "
            "(http://127.0.0.1:PORT/console/keys) or with memstream keys create"
        )
    if ticked != "yes":
        raise InvalidQuery(
            "the first key switches keys on for the whole deployment: tick that you "
            "understand every client without a key is refused from then on"
        )


async def _measured_sizes(sizes: dict[str, float], ops: Operations) -> dict[str, float]:
    """The storage sizes, measured now when the last measure is older than
    :data:`SIZES_SECONDS` (a page never shows sizes from minutes before its writes)."""
    if time.monotonic() - sizes.get("measured_at", float("-inf")) > SIZES_SECONDS:
        sizes.update(await ops.health.storage_sizes())
        sizes["measured_at"] = time.monotonic()
    return {k: v for k, v in sizes.items() if k != "measured_at"}


def session_pages(router: APIRouter, access: ConsoleAccess) -> None:
    """Logging in (an API key for a session cookie) and out."""
    keys = access.guard.keys

    @router.get("/console/login")
    async def login_form(request: Request, next: str = "/console") -> Any:
        if not keys.configured:
            return RedirectResponse(_local(next), 303, headers=SECURITY_HEADERS)
        return access.page("login.html", None, next=_local(next))

    @router.post("/console/login")
    async def login(request: Request) -> Any:
        form = await request.form()
        back = _local(str(form.get("next", "/console")))
        if not access.same_origin(request):  # no logging a browser into a key another site chose
            return access.page(
                "login.html",
                None,
                status=403,
                next=back,
                why="this login form came from another site",
            )
        key = keys.authenticate(str(form.get("key", "")).strip())
        if key is None:
            access.guard.audit.refused(
                key_id=None, tenant=None, status=401, reason="console login refused",
                where="POST /console/login",
            )  # fmt: skip
            return access.page(
                "login.html", None, status=401, next=back, why="this API key is unknown or revoked"
            )
        response = RedirectResponse(back, 303, headers=SECURITY_HEADERS)
        access.set_cookie(
            response, access.sessions.issue(key.key_id), secure=request.url.scheme == "https"
        )
        return response

    @router.post("/console/logout")
    async def logout(request: Request) -> Any:
        form = await request.form()
        access.acting(request, form)
        response = RedirectResponse("/console/login", 303, headers=SECURITY_HEADERS)
        response.delete_cookie(COOKIE, path="/console")
        return response


def _admin_tenant(viewer: Viewer, what: str) -> str | None:
    """The tenant an admin acts for (None: the operator, every tenant); 403 otherwise."""
    if viewer.who.key is None:
        return None
    return viewer.who.admin(what).tenant


def _local(target: str) -> str:
    """``target`` if it is a console address of this server, else the console's home:
    a login never sends the browser elsewhere."""
    if target.startswith("/console") and not target.startswith("//") and "\\" not in target:
        return target
    return "/console"
