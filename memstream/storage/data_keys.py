"""Per-user data keys: the keys every personal record is sealed under, and their erasure.

Each user has a live 256-bit data key, created at the user's first event. Erasing the
user destroys it: whatever was sealed under it (log records, archive rows) can no
longer be read by anyone, wherever the copies are. The store is a
:class:`~memstream.storage.shared_folder.SharedFolder`, so it lives where every host of a
deployment reaches it: a local folder, or the data location on S3. Per user (named by
the SHA-256 of the id, so the store lists no ids) it keeps:

- ``live/<h>/<key id>.json``: the live key (its id, the key, when it was made);
  a store written by an older memstream may hold one ``live/<h>.json`` instead;
- ``erased/<h>.json``: the ids of the user's destroyed keys and when the last erasure
  happened (no key material), so a record sealed under a destroyed key is known to be
  erased rather than missing, and a plaintext record older than the erasure is dropped;
- ``erasing/<h>.json``: an erasure asked for and not yet finished (the projections
  still to purge); it is what makes an erasure survive a crash;
- ``erased-rows/<h>.json``: what the pass that finished the last erasure removed, by
  store (counts only), for the erasure's receipt.

No document is changed in place and no lock is needed. Two processes that make a new
user's key at once each write a key of their own and then list the user's keys: every
process takes the least key id it finds, so they agree from then on, and a record
sealed under the other key still opens (it is live too). An erasure lists and destroys
every live key. With a secret (``MEMSTREAM_DATA_KEYS_SECRET``) the key material is
sealed at rest (AES-GCM under a key derived from the secret), so the store may sit
beside the data it protects, on S3, without opening it to whoever can read the bucket.
The store must not live in the log or the archive it protects, and its backups (or a
versioned bucket's old versions) are what an erasure must also reach.

A key is cached in memory. Every erasure also writes a new ``erasure-stamp`` (a random
token), and the cache is checked against it (one small read, however many users a batch
holds) before keys seal anything, so a key destroyed by another process is never used
to seal again.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import secrets
import threading
from collections.abc import Collection, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from memstream.storage.errors import StorageError
from memstream.storage.shared_folder import SharedFolder

__all__ = ["DataKey", "DataKeys", "Erasure", "MissingDataKey", "SealedKeyStore"]


class MissingDataKey(StorageError):
    """A record is sealed under a key this store never held (nor erased): the wrong
    store, or a lost one. The record is kept (dead-lettered), not dropped."""


class SealedKeyStore(StorageError):
    """The store's keys are sealed under a secret this process was not given (or
    another one)."""


@dataclass(frozen=True, slots=True)
class DataKey:
    user_id: str
    key_id: str
    key: bytes


@dataclass(frozen=True, slots=True)
class Erasure:
    """An erasure asked for and not yet finished everywhere."""

    user_id: str
    key_ids: tuple[str, ...]
    requested_at: datetime


#: How many users' keys are looked up (or made) at once.
_FETCHERS = 16
#: Rewritten (a new random token) by every erasure: what key caches are checked against.
_STAMP = "erasure-stamp"


def _hashed(user_id: str) -> str:
    return hashlib.sha256(user_id.encode("utf-8")).hexdigest()[:40]


def _name(user_id: str) -> str:
    return _hashed(user_id) + ".json"


class _Wrapping:
    """Seals key material at rest under a key derived from the deployment's secret."""

    def __init__(self, secret: bytes) -> None:
        derived = HKDF(
            algorithm=hashes.SHA256(), length=32, salt=None, info=b"memstream data keys"
        ).derive(secret)
        self._cipher = AESGCM(derived)

    def seal(self, key: bytes, where: str) -> str:
        nonce = os.urandom(12)
        return base64.b64encode(nonce + self._cipher.encrypt(nonce, key, where.encode())).decode()

    def open(self, sealed: str, where: str) -> bytes:
        raw = base64.b64decode(sealed)
        try:
            return self._cipher.decrypt(raw[:12], raw[12:], where.encode())
        except InvalidTag:
            raise SealedKeyStore(
                "the data keys are sealed under another secret than "
                "MEMSTREAM_DATA_KEYS_SECRET: give the secret the store was made with"
            ) from None


class DataKeys:
    """The data key store in ``folder`` (a local folder, or a shared folder on S3).

    Args:
        folder: where the store lives (created when first needed).
        secret: seals key material at rest; a store made with one needs it to be read.
    """

    def __init__(self, folder: Path | SharedFolder, secret: bytes | None = None) -> None:
        self.store = folder if isinstance(folder, SharedFolder) else SharedFolder.local(folder)
        self.secret = secret
        self._wrapping = _Wrapping(secret) if secret else None
        self._lock = threading.Lock()
        self._live: dict[str, tuple[DataKey, str]] = {}  # user -> (key, its document)
        self._erased: dict[str, tuple[frozenset[str], datetime | None]] = {}
        self._stamp: bytes | None = None  # the erasure stamp the cache was checked against

    @property
    def uri(self) -> str:
        return self.store.uri

    # -- sealing side -------------------------------------------------------------

    def check_cache(self) -> None:
        """Forget the cached keys if any process erased a user since the last check."""
        stamp = self.store.read(_STAMP)
        if stamp != self._stamp:
            self._live.clear()
            self._erased.clear()
            self._stamp = stamp

    def key_for(self, user_id: str, create: bool = True, checked: bool = False) -> DataKey | None:
        """The user's live key, made (and made durable) if the user has none and
        ``create`` (else None); ``checked``: :meth:`check_cache` was just called."""
        if not checked:
            self.check_cache()
        cached = self._live.get(user_id)
        if cached is not None:
            return cached[0]
        self._erased.pop(user_id, None)
        key = self._read_live(user_id)
        if key is None and create:
            key = self._create(user_id)
        return key

    def fetch(self, user_ids: Collection[str], create: bool = True) -> None:
        """Bring the keys of ``user_ids`` into the cache (made where ``create`` and
        missing), several users at a time: on S3 each user's first key costs a few
        requests, and a batch may hold hundreds of new users. Call :meth:`check_cache`
        first."""
        missing = [u for u in user_ids if u not in self._live]
        if len(missing) < 2:
            return
        with ThreadPoolExecutor(max_workers=min(_FETCHERS, len(missing))) as pool:
            list(pool.map(lambda u: self.key_for(u, create, checked=True), missing))

    def _live_documents(self, user_id: str) -> list[str]:
        """The user's live key documents, the one to seal under first."""
        folder = f"live/{_hashed(user_id)}"
        found = [f"{folder}/{name}" for name in self.store.names(folder)]
        if not self.store.location.is_local:
            return found  # older stores were local folders only
        legacy = f"live/{_name(user_id)}"
        return found + ([legacy] if self.store.exists(legacy) else [])

    def _read_live(self, user_id: str, key_id: str | None = None) -> DataKey | None:
        for document in self._live_documents(user_id):
            key = self._read_key(user_id, document)
            if key is not None and (key_id is None or key.key_id == key_id):
                if key_id is None:
                    self._live[user_id] = (key, document)
                return key
        return None

    def _read_key(self, user_id: str, document: str) -> DataKey | None:
        content = _parse(self.store, document)
        if content is None:
            return None
        if "sealed" in content:
            if self._wrapping is None:
                raise SealedKeyStore(
                    f"the data keys in {self.uri} are sealed: set MEMSTREAM_DATA_KEYS_SECRET "
                    "to the secret they were made with"
                )
            key = self._wrapping.open(content["sealed"], f"{_hashed(user_id)}/{content['key_id']}")
        else:
            key = base64.b64decode(content["key"])
        return DataKey(user_id, content["key_id"], key)

    def _create(self, user_id: str) -> DataKey:
        key = DataKey(user_id, secrets.token_hex(8), secrets.token_bytes(32))
        document: dict[str, str] = {
            "key_id": key.key_id,
            "created_at": datetime.now(UTC).isoformat(),
        }
        if self._wrapping is not None:
            document["sealed"] = self._wrapping.seal(key.key, f"{_hashed(user_id)}/{key.key_id}")
        else:
            document["key"] = base64.b64encode(key.key).decode("ascii")
        self.store.write(
            f"live/{_hashed(user_id)}/{key.key_id}.json", json.dumps(document).encode()
        )
        found = self._read_live(user_id)  # another process's key, made at once, may win
        assert found is not None
        return found

    # -- opening side --------------------------------------------------------------

    def lookup(self, user_id: str, key_id: str) -> bytes | None:
        """The key ``key_id`` of the user, or None when it was erased.

        Raises:
            MissingDataKey: this store never had it.
        """
        cached = self._live.get(user_id)
        if cached is not None and cached[0].key_id == key_id:
            return cached[0].key
        erased, _ = self._erasures_of(user_id)
        if key_id in erased:
            return None
        live = self._read_live(user_id, key_id)
        if live is not None:
            return live.key
        erased, _ = self._erasures_of(user_id, fresh=True)
        if key_id in erased:
            return None
        raise MissingDataKey(
            f"no data key {key_id} for user {user_id} in {self.uri}: is this the data "
            "key store the record was sealed for?"
        )

    def erased_at(self, user_id: str) -> datetime | None:
        """When the user was last erased (None: never)."""
        return self._erasures_of(user_id)[1]

    def _erasures_of(
        self, user_id: str, fresh: bool = False
    ) -> tuple[frozenset[str], datetime | None]:
        if not fresh and user_id in self._erased:
            return self._erased[user_id]
        document = _parse(self.store, f"erased/{_name(user_id)}") or {}
        at = document.get("erased_at")
        found = (
            frozenset(document.get("key_ids", ())),
            datetime.fromisoformat(at) if at else None,
        )
        self._erased[user_id] = found
        return found

    def forget_cached(self, user_id: str) -> None:
        """Read the user's keys from the store next time (another process erased it)."""
        self._live.pop(user_id, None)
        self._erased.pop(user_id, None)

    # -- erasure -------------------------------------------------------------------

    def erase(self, user_id: str, now: datetime) -> Erasure:
        """Destroy the user's live keys and note the erasure as pending (idempotent: a
        pending erasure is returned as it was asked)."""
        with self._lock:
            name = _name(user_id)
            live = self._live_documents(user_id)
            pending = self._pending_of(user_id)
            if pending is not None and not live:
                return pending  # asked again before it finished: the same erasure
            erased, _ = self._erasures_of(user_id, fresh=True)
            live_ids = {_key_id_of(self.store, document) for document in live}
            key_ids = {*erased, *(k for k in live_ids if k)}
            erasure = Erasure(user_id, tuple(sorted(key_ids)), now)
            self._write(
                f"erasing/{name}",
                {
                    "user_id": user_id,
                    "key_ids": list(erasure.key_ids),
                    "requested_at": now.isoformat(),
                },
            )
            self._write(
                f"erased/{name}", {"key_ids": list(erasure.key_ids), "erased_at": now.isoformat()}
            )
            for document in live:
                self.store.remove(document)
            self.store.write(_STAMP, secrets.token_bytes(16))  # every cache checks it
            self.forget_cached(user_id)
            return erasure

    def pending(self) -> list[Erasure]:
        """The erasures asked for and not finished."""
        found = []
        for name in self.store.names("erasing"):
            document = _parse(self.store, f"erasing/{name}")
            if document is not None:
                found.append(_erasure(document))
        return found

    def _pending_of(self, user_id: str) -> Erasure | None:
        document = _parse(self.store, f"erasing/{_name(user_id)}")
        return _erasure(document) if document is not None else None

    def is_pending(self, user_id: str) -> bool:
        return self.store.exists(f"erasing/{_name(user_id)}")

    def finish(self, user_id: str, removed: Mapping[str, int] | None = None) -> None:
        """The user's erasure reached every projection: no longer pending. ``removed``:
        what the pass that finished it removed, by store (rows per table, files), kept
        for the erasure's receipt (:meth:`removed_by_erasure`)."""
        name = _name(user_id)
        if removed is not None:
            self._write(f"erased-rows/{name}", {k: int(v) for k, v in removed.items()})
        self.store.remove(f"erasing/{name}")

    def removed_by_erasure(self, user_id: str) -> dict[str, int]:
        """What the last finished erasure of ``user_id`` removed, by store (empty when
        none said)."""
        document = _parse(self.store, f"erased-rows/{_name(user_id)}") or {}
        return {str(k): int(v) for k, v in document.items()}

    def _write(self, name: str, document: dict[str, Any]) -> None:
        self.store.write(name, json.dumps(document).encode())


def _key_id_of(store: SharedFolder, document: str) -> str | None:
    content = _parse(store, document)
    return None if content is None else str(content["key_id"])


def _erasure(document: dict[str, Any]) -> Erasure:
    return Erasure(
        document["user_id"],
        tuple(document["key_ids"]),
        datetime.fromisoformat(document["requested_at"]),
    )


def _parse(store: SharedFolder, name: str) -> dict[str, Any] | None:
    try:
        raw = store.read(name)
    except OSError as exc:
        raise StorageError(f"{store.uri}/{name} cannot be read: {exc}") from exc
    if raw is None:
        return None
    try:
        document = json.loads(raw)
    except ValueError as exc:
        raise StorageError(f"{store.uri}/{name} cannot be read: {exc}") from exc
    return document if isinstance(document, dict) else None
