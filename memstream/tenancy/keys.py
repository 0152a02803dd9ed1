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

The store is a folder of the data location (``api-keys``, on S3 when the data is), one
document a key (``<key id>.json``), so every API replica on every host reaches it and
no two writers ever write the same document but to revoke. A process lists the folder
before each request (on S3 at most once a second) and reads only the documents that
changed, so a revoked key stops working at the next request of every process (within a
second on S3). A ``keys.json`` an older memstream kept in the local state is still
read. Once a key has been created, keys are required: a store whose keys are all
revoked refuses every request rather than opening the API again.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import secrets
import time
from dataclasses import asdict, dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from memstream.settings import Settings
from memstream.storage.shared_folder import SharedFolder

__all__ = [
    "API_KEYS_FOLDER",
    "KEYS_FILE",
    "ROLES",
    "ApiKey",
    "KeyStore",
    "KeyStoreError",
    "Role",
    "key_store_of",
    "owns",
    "valid_tenant",
]

#: The file an older memstream kept the keys in (in the data folder's local state).
KEYS_FILE = "keys.json"
#: The store's folder in the data location.
API_KEYS_FOLDER = "api-keys"

Role = Literal["read", "write", "admin"]
ROLES: tuple[Role, ...] = ("read", "write", "admin")

_TENANT = re.compile(r"^[a-z0-9][a-z0-9_-]{0,62}$")
_TOKEN = re.compile(r"^msk_([0-9a-f]{12})_([A-Za-z0-9_-]{32,64})$")


#: How coarse a file's modification time may be: a folder time this recent is not
#: trusted to say nothing changed since (two changes may share one tick).
_COARSE_NS = 1_000_000_000


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
    """The API keys of a deployment (see the module docstring).

    Args:
        where: the store's folder (a shared folder of the data location), or a local
            folder holding it as ``api-keys`` beside an older ``keys.json``.
        legacy: a ``keys.json`` an older memstream wrote, read beside the folder.
        refresh_seconds: how long a listing of the folder is trusted.
    """

    def __init__(
        self,
        where: Path | SharedFolder,
        legacy: Path | None = None,
        refresh_seconds: float | None = None,
    ) -> None:
        if isinstance(where, Path):
            legacy = where / KEYS_FILE
            where = SharedFolder.local(where / API_KEYS_FOLDER)
        self.folder = where
        self.legacy = legacy
        self.refresh_seconds = (
            refresh_seconds
            if refresh_seconds is not None
            else (0.0 if where.location.is_local else 1.0)
        )
        self._listed_at = -float("inf")
        self._listed_folder_time: int | None = None
        self._stamps: dict[str, tuple[int, int]] = {}
        self._documents: dict[str, ApiKey] = {}
        self._legacy_seen: tuple[int, int] | None = None
        self._legacy_keys: dict[str, ApiKey] = {}

    @property
    def configured(self) -> bool:
        """Whether keys are required: a key was ever created (even if revoked since)."""
        return bool(self._current())

    def records(self) -> list[ApiKey]:
        return sorted(self._current().values(), key=lambda k: (k.tenant, k.created_at))

    def active_key(self, key_id: str) -> ApiKey | None:
        """The key named ``key_id`` if it is active (a console session rests on it)."""
        found = self._current().get(key_id)
        return found if found is not None and found.active else None

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
        keys = self._current(fresh=True)
        key_id = secrets.token_hex(6)  # 48 random bits: a name no other writer takes
        while key_id in keys:
            key_id = secrets.token_hex(6)
        token = f"msk_{key_id}_{secrets.token_urlsafe(32)}"
        at = (now or datetime.now(UTC)).isoformat()
        record = ApiKey(key_id, tenant, role, at, _digest(token), name[:200])
        self._write(record)
        return record, token

    def revoke(self, key_id: str, tenant: str | None = None, now: datetime | None = None) -> ApiKey:
        """Revoke ``key_id`` (of ``tenant`` only, when given); KeyStoreError when there is no
        such key."""
        found = self._current(fresh=True).get(key_id)
        if found is None or (tenant is not None and found.tenant != tenant):
            raise KeyStoreError(f"no key {key_id[:40]!r}")
        if found.active:
            found = replace(found, revoked_at=(now or datetime.now(UTC)).isoformat())
            self._write(found)
        return found

    def _current(self, fresh: bool = False) -> dict[str, ApiKey]:
        """The keys as the store holds them now (documents read again only when they
        changed)."""
        now = time.monotonic()
        due = now - self._listed_at >= self.refresh_seconds and not self._unmoved()
        if fresh or due:
            listed_time = self.folder.folder_time()  # before listing: a later change moves it
            stamps = self.folder.stamps()
            for name, stamp in stamps.items():
                if self._stamps.get(name) != stamp:
                    raw = self.folder.read(name)
                    if raw is not None:
                        self._documents[name] = ApiKey(**json.loads(raw))
            for gone in set(self._documents) - set(stamps):
                del self._documents[gone]
            self._stamps, self._listed_at = stamps, now
            self._listed_folder_time = listed_time
        keys = dict(self._legacy())
        keys.update((k.key_id, k) for k in self._documents.values())
        return keys

    def _unmoved(self) -> bool:
        """Whether a local folder's own time says no key document was added, replaced
        or removed since the last listing (a listing per request costs more than the
        request's search): file times tick coarsely (a few ms), so a time less than a
        second old is not trusted."""
        if self._listed_folder_time is None:
            return False
        current = self.folder.folder_time()
        return current == self._listed_folder_time and time.time_ns() - current > _COARSE_NS

    def _legacy(self) -> dict[str, ApiKey]:
        """The keys of an older memstream's ``keys.json`` (revoking one writes its
        document in the folder, which wins)."""
        if self.legacy is None:
            return {}
        try:
            stat = self.legacy.stat()
        except FileNotFoundError:
            return {}
        seen = (stat.st_mtime_ns, stat.st_size)
        if seen != self._legacy_seen:
            document = json.loads(self.legacy.read_text())
            self._legacy_keys = {k["key_id"]: ApiKey(**k) for k in document["keys"]}
            self._legacy_seen = seen
        return self._legacy_keys

    def _write(self, key: ApiKey) -> None:
        self.folder.write(f"{key.key_id}.json", json.dumps(asdict(key), indent=1).encode())
        self._listed_at = -float("inf")


def key_store_of(settings: Settings) -> KeyStore:
    """The API keys of a deployment: ``api-keys`` in its data location (beside an
    older memstream's ``keys.json`` in the local state)."""
    return KeyStore(SharedFolder(settings.api_keys_location), settings.local_dir / KEYS_FILE)
