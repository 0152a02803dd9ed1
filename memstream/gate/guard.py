"""Who is asking, and whether they may: API keys, tenants, rate limits and the audit
log at the HTTP front door (:mod:`memstream.tenancy`).

With keys configured, every request but ``/healthz``, ``/readyz`` and the API's
documents carries (``/metrics``, the whole deployment's counts, an admin key's, unless
``MEMSTREAM_API_METRICS_OPEN``)
``Authorization: Bearer <key>``: none, or a key unknown or revoked, is answered 401; a
key reaching a user outside its tenant, or writing with a read key, 403 with the same
words whether that user exists or not; a key over its rate, 429 with ``Retry-After``.
Without keys the server is served on loopback only (``serve`` refuses anything else)
and every request acts as the operator.
"""

from __future__ import annotations

import ipaddress
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace

from fastapi import HTTPException, Request

from memstream.application.callers import Caller, Door
from memstream.policies.scope import is_identifier
from memstream.settings import Settings
from memstream.streams.errors import StreamsError
from memstream.tenancy.audit import AuditLog
from memstream.tenancy.keys import ApiKey, KeyStore, key_store_of
from memstream.tenancy.limits import Buckets

__all__ = [
    "AGENT_HEADER",
    "FORBIDDEN",
    "SESSION_HEADER",
    "Guard",
    "Principal",
    "is_loopback",
    "serving_rule",
]

#: The request headers a caller names its agent and the agent's session by.
AGENT_HEADER = "Memstream-Agent"
SESSION_HEADER = "Memstream-Session"

#: What a key is told about a user it cannot reach: never whether the user exists.
FORBIDDEN = "this API key cannot act on that user"


@dataclass
class Principal:
    """Whoever a request acts as: a key, or the operator (no keys configured)."""

    key: ApiKey | None
    guard: Guard
    #: the request's method and path, for the audit line of a refusal
    where: str = ""
    #: the front door the request came through, as the audit log names it
    door: Door = "api"
    #: the agent and its session, as the request's ``Memstream-Agent`` and
    #: ``Memstream-Session`` headers name them (what they were shown is recorded)
    agent: str | None = None
    session_id: str | None = None

    @property
    def key_id(self) -> str | None:
        return self.key.key_id if self.key is not None else None

    @property
    def tenant(self) -> str | None:
        return self.key.tenant if self.key is not None else None

    def reach(self, user_id: object, write: bool = False) -> None:
        """Refuse (403) unless this principal may act on ``user_id`` (``write``: change
        its memory). A malformed id is refused like a foreign one; a valid one is then
        checked by the operation (422)."""
        if self.key is None:
            return
        if not isinstance(user_id, str) or not self.key.reaches(user_id):
            raise self.refuse(FORBIDDEN, user_id)
        if write and not self.key.may_write:
            raise self.refuse("this API key is read-only", user_id)

    def reads(self, user_id: object) -> None:
        """A read of ``user_id``'s memory: reach it, and count one search."""
        self.reach(user_id)
        self.limit("search")

    def writes(self, user_id: object) -> None:
        """A change of ``user_id``'s memory: reach it to write, and count one event."""
        self.reach(user_id, write=True)
        self.limit("publish")

    def reach_all(self, user_ids: Iterable[object], write: bool = False) -> None:
        for user_id in user_ids:
            self.reach(user_id, write)

    def need_tenant_view(self) -> None:
        """Refuse (403) a request over every tenant's memory (stats of all users) to a key."""
        if self.key is not None:
            raise self.refuse("name a user of this key's tenant (user_id)")

    def admin(self, what: str = "key management") -> ApiKey:
        """The key, if it is its tenant's admin key; else 403."""
        if self.key is None or not self.key.is_admin:
            raise self.refuse(f"{what} needs an admin key")
        return self.key

    def refuse(self, why: str, user_id: object = None) -> HTTPException:
        """A 403 saying ``why``, recorded in the audit log (without content: the user
        only when it is a well-formed id)."""
        shown = user_id if isinstance(user_id, str) and is_identifier(user_id) else None
        self.guard.audit.refused(
            key_id=self.key_id,
            tenant=self.tenant,
            status=403,
            reason=why,
            where=self.where,
            user_id=shown,
        )
        return HTTPException(403, detail=why)

    def limit(self, kind: str, units: int = 1) -> None:
        """Count ``units`` against this key's ``kind`` rate (429 beyond it)."""
        if self.key is not None:
            self.guard.buckets.take(self.key.key_id, kind, units, self.guard.clock())

    def caller(self, door: Door | None = None) -> Caller:
        """This principal as the operations layer audits its changes (through ``door``,
        else the door its request came through)."""
        return Caller(door or self.door, self.key_id, self.tenant, self.agent, self.session_id)

    def audit(self, operation: str, user_id: str | None, status: int, **detail: str | int) -> None:
        self.guard.audit.record(
            operation,
            key_id=self.key_id,
            tenant=self.tenant,
            user_id=user_id,
            status=status,
            detail=detail,
        )


@dataclass(eq=False)  # hashed by identity: FastAPI caches a dependency by it
class Guard:
    """The key store, the rate buckets and the audit log of one API process."""

    keys: KeyStore
    buckets: Buckets
    audit: AuditLog
    clock: Callable[[], float] = time.monotonic

    def principal(self, authorization: str | None, where: str = "") -> Principal:
        """Who an ``Authorization`` header makes the caller (401 when keys are required
        and it names no active key, recorded in the audit log); ``where``: the request's
        method and path."""
        if not self.keys.configured:
            return Principal(None, self, where)
        scheme, _, token = (authorization or "").partition(" ")
        key = self.keys.authenticate(token.strip()) if scheme.lower() == "bearer" else None
        if key is None:
            why = (
                "an API key is required: Authorization: Bearer <key>"
                if not authorization
                else "this API key is unknown or revoked"
            )
            self.audit.refused(key_id=None, tenant=None, status=401, reason=why, where=where)
            raise HTTPException(401, detail=why, headers={"WWW-Authenticate": "Bearer"})
        return Principal(key, self, where)

    async def __call__(self, request: Request) -> Principal:
        """The FastAPI dependency: the request's principal, with the agent and session
        its headers name (422 for a value that is no identifier)."""
        where = f"{request.method} {request.url.path}"
        who = self.principal(request.headers.get("authorization"), where)
        agent = _named(request, AGENT_HEADER)
        session_id = _named(request, SESSION_HEADER)
        if agent is None and session_id is None:
            return who
        return replace(who, agent=agent, session_id=session_id)


def _named(request: Request, header: str) -> str | None:
    """The identifier ``header`` names (None: no such header; 422: not an identifier)."""
    value = request.headers.get(header)
    if value is not None and not is_identifier(value):
        raise HTTPException(422, detail=f"{header}: must be 1 to 200 letters, digits or _.:@+/-")
    return value


def is_loopback(host: str) -> bool:
    """Whether ``host`` is a loopback address (only this machine can connect)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def serving_rule(settings: Settings) -> str:
    """How the API of ``settings`` will be guarded, as a sentence for the log; a
    StreamsError when it would serve beyond loopback without keys."""
    keys = key_store_of(settings)
    if keys.configured:
        active = sum(key.active for key in keys.records())
        return f"API keys required ({active} active)"
    if not is_loopback(settings.api_host):
        raise StreamsError(
            f"refusing to serve the API on {settings.api_host} without API keys: anyone who "
            "can reach it could read and change every user's memory. Create a key first "
            "(memstream keys create --tenant NAME), or serve on 127.0.0.1"
        )
    return "no API keys: serving on loopback only, every request acts as the operator"
