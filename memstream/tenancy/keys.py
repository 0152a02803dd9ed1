"""API keys bound to tenants: what a key may do, whose memory it reaches, and where
the keys are kept.

A tenant owns the users whose ids are in its namespace: tenant ``acme`` owns
``acme:ana``, ``acme:support/bob`` and every other id that starts with ``acme:``. A
tenant's name has no ``:``, so no id is in two namespaces, and whether a key reaches a
user is decided from the two names alone: a refusal says nothing about whether the
user exists.

A key is ``msk_<key id>_<secret>``; the store keeps its id, tenant, role and the
SHA-256 of the whole key, never the key (it is shown once, when created). Roles:
``read`` (search, context, memories, entities, stats), ``write`` (also publish and the
memory commands) and ``admin`` (also the tenant's keys over the API).

The store is ``keys.json`` in the data folder's local state, written whole and renamed
into place, and read again whenever it changes, so a revoked key stops working at the
next request of every process. Once a key has been created, keys are required: a store
whose keys are all revoked refuses every request rather than opening the API again.
"""

from __future__ import annotations

import fcntl
import hashlib
import hmac
import json
import os
import re
import secrets
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

__all__ = [
    "KEYS_FILE",
    "ROLES",
    "ApiKey",
    "KeyStore",
    "KeyStoreError",
    "Role",
    "owns",
    "valid_tenant",
]

#: The key store's file in the data folder's local state.
KEYS_FILE = "keys.json"

Role = Literal["read", "write", "admin"]
ROLES: tuple[Role, ...] = ("read", "write", "admin")

_TENANT = re.compile(r"^[a-z0-9][a-z0-9_-]{0,62}$")
_TOKEN = re.compile(r"^msk_([0-9a-f]{12})_([A-Za-z0-9_-]{32,64})$")


class KeyStoreError(ValueError):
    """A key operation that cannot be done (an unknown key, a bad tenant name)."""


def valid_tenant(name: str) -> str:
    """``name`` if it can name a tenant (lower-case letters, digits, ``-`` and ``_``),
    else KeyStoreError saying why."""
    if not _TENANT.match(name):
        raise KeyStoreError(
            f"tenant {name[:80]!r}: 1-63 lower-case letters, digits, '-' or '_', "
            "starting with a letter or digit"
        )
    return name


def owns(tenant: str, user_id: str) -> bool:
    """Whether ``user_id`` is in ``tenant``'s namespace (``tenant:...``)."""
    return user_id.startswith(f"{tenant}:") and len(user_id) > len(tenant) + 1


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True)
class ApiKey:
    """A key as the store keeps it (its hash, never the key)."""

    key_id: str
    tenant: str
    role: Role
    created_at: str
    sha256: str
    name: str = ""
    revoked_at: str | None = None

    @property
    def active(self) -> bool:
        return self.revoked_at is None

    @property
    def may_write(self) -> bool:
        return self.role in ("write", "admin")

    @property
    def is_admin(self) -> bool:
        return self.role == "admin"

    def reaches(self, user_id: str) -> bool:
        """Whether this key may act on ``user_id``'s memory."""
        return owns(self.tenant, user_id)

    def public(self) -> dict[str, str | None]:
        """What a listing shows: everything but the hash."""
        shown = asdict(self)
        del shown["sha256"]
        return shown


class KeyStore:
    """The API keys of a data folder (see the module docstring)."""

    def __init__(self, folder: Path) -> None:
        self.path = folder / KEYS_FILE
        self._seen: tuple[int, int] | None = None
        self._keys: dict[str, ApiKey] = {}

    @property
    def configured(self) -> bool:
        """Whether keys are required: a key was ever created (even if revoked since)."""
        return bool(self._current())

    def records(self) -> list[ApiKey]:
        return sorted(self._current().values(), key=lambda k: (k.tenant, k.created_at))

    def authenticate(self, token: str) -> ApiKey | None:
        """The active key ``token`` is, or None (unknown, malformed or revoked)."""
        match = _TOKEN.match(token)
        if match is None:
            return None
        found = self._current().get(match.group(1))
        if found is None or not found.active:
            return None
        return found if hmac.compare_digest(found.sha256, _digest(token)) else None

    def create(
        self, tenant: str, role: Role = "write", name: str = "", now: datetime | None = None
    ) -> tuple[ApiKey, str]:
        """A new key of ``tenant``: its record and the key itself (shown only now)."""
        valid_tenant(tenant)
        if role not in ROLES:
            raise KeyStoreError(f"role {role!r}: one of {', '.join(ROLES)}")
        with self._locked():
            keys = dict(self._current())
            key_id = secrets.token_hex(6)
            while key_id in keys:
                key_id = secrets.token_hex(6)
            token = f"msk_{key_id}_{secrets.token_urlsafe(32)}"
            at = (now or datetime.now(UTC)).isoformat()
            record = ApiKey(key_id, tenant, role, at, _digest(token), name[:200])
            keys[key_id] = record
            self._write(keys.values())
        return record, token

    def revoke(self, key_id: str, tenant: str | None = None, now: datetime | None = None) -> ApiKey:
        """Revoke ``key_id`` (of ``tenant`` only, when given); KeyStoreError when there is no
        such key."""
        with self._locked():
            keys = dict(self._current())
            found = keys.get(key_id)
            if found is None or (tenant is not None and found.tenant != tenant):
                raise KeyStoreError(f"no key {key_id[:40]!r}")
            if found.active:
                found = replace(found, revoked_at=(now or datetime.now(UTC)).isoformat())
                keys[key_id] = found
                self._write(keys.values())
        return found

    @contextmanager
    def _locked(self) -> Iterator[None]:
        """One change of the store at a time, across processes."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.path.with_suffix(".lock"), "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            self._seen = None  # read the file again under the lock
            yield

    def _current(self) -> dict[str, ApiKey]:
        """The keys as the file holds them now (read again only when it changed)."""
        try:
            stat = self.path.stat()
        except FileNotFoundError:
            self._seen, self._keys = None, {}
            return self._keys
        seen = (stat.st_mtime_ns, stat.st_size)
        if seen != self._seen:
            document = json.loads(self.path.read_text())
            self._keys = {k["key_id"]: ApiKey(**k) for k in document["keys"]}
            self._seen = seen
        return self._keys

    def _write(self, keys: Iterable[ApiKey]) -> None:
        document = {"keys": [asdict(k) for k in keys]}
        temporary = self.path.with_suffix(".tmp")
        with open(temporary, "w") as out:
            json.dump(document, out, indent=1)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temporary, 0o600)
        os.replace(temporary, self.path)
        self._seen = None
