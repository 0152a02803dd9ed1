"""Per-user data keys: the keys every personal record is sealed under, and their erasure.

Each user has one live 256-bit data key at a time, created at the user's first event.
Erasing the user destroys it: whatever was sealed under it (log records, archive
rows) can no longer be read by anyone, wherever the copies are. The store keeps, per
user (a file named by the SHA-256 of the id, so the folder lists no ids):

- ``live/<h>.json``: the live key (its id, the key, when it was made);
- ``erased/<h>.json``: the ids of the user's destroyed keys and when the last erasure
  happened (no key material), so a record sealed under a destroyed key is known to be
  erased rather than missing, and a plaintext record older than the erasure is dropped;
- ``erasing/<h>.json``: an erasure asked for and not yet finished (the projections
  still to purge); it is what makes an erasure survive a crash.

Every write goes to a temporary file, is fsync'd and renamed (or linked, so that two
processes creating the same user's key agree on one); the folder is fsync'd after. The
store must not live in the log or the archive it protects, and its backups are what an
erasure must also reach. A key is cached in memory; the cache is checked against the
file (one ``stat``) before a key seals anything, so a key destroyed by another process
is never used to seal again.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import secrets
import threading
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from storage.durable import fsync_folder, write_new_file
from storage.errors import StorageError

__all__ = ["DataKey", "DataKeys", "Erasure", "MissingDataKey"]


class MissingDataKey(StorageError):
    """A record is sealed under a key this store never held (nor erased): the wrong
    store, or a lost one. The record is kept (dead-lettered), not dropped."""


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


def _name(user_id: str) -> str:
    return hashlib.sha256(user_id.encode("utf-8")).hexdigest()[:40] + ".json"


class DataKeys:
    """The data key store in ``folder`` (created when first needed)."""

    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)
        self._lock = threading.Lock()
        self._live: dict[str, tuple[DataKey, int]] = {}  # user -> (key, inode of its file)
        self._erased: dict[str, tuple[frozenset[str], datetime | None]] = {}

    # -- sealing side -------------------------------------------------------------

    def key_for(self, user_id: str, create: bool = True) -> DataKey | None:
        """The user's live key, made (and made durable) if the user has none and
        ``create`` (else None)."""
        path = self.folder / "live" / _name(user_id)
        cached = self._live.get(user_id)
        if cached is not None:
            try:
                if path.stat().st_ino == cached[1]:
                    return cached[0]
            except FileNotFoundError:
                pass
        with self._lock:
            self._erased.pop(user_id, None)
            key = self._read_live(user_id)
            if key is None and create:
                key = self._create(user_id)
            return key

    def _read_live(self, user_id: str) -> DataKey | None:
        path = self.folder / "live" / _name(user_id)
        try:
            with path.open("rb") as file:
                inode = os.fstat(file.fileno()).st_ino
                document = json.loads(file.read())
        except FileNotFoundError:
            return None
        key = DataKey(user_id, document["key_id"], base64.b64decode(document["key"]))
        self._live[user_id] = (key, inode)
        return key

    def _create(self, user_id: str) -> DataKey:
        folder = self.folder / "live"
        folder.mkdir(parents=True, exist_ok=True)
        key = DataKey(user_id, secrets.token_hex(8), secrets.token_bytes(32))
        document = {
            "key_id": key.key_id,
            "key": base64.b64encode(key.key).decode("ascii"),
            "created_at": datetime.now(UTC).isoformat(),
        }
        temporary = folder / f".{_name(user_id)}.{secrets.token_hex(4)}"
        write_new_file(temporary, json.dumps(document).encode())
        try:
            os.link(temporary, folder / _name(user_id))  # the first process to link wins
        except FileExistsError:
            pass
        finally:
            temporary.unlink()
        fsync_folder(folder)
        found = self._read_live(user_id)
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
        live = self._read_live(user_id)
        if live is not None and live.key_id == key_id:
            return live.key
        erased, _ = self._erasures_of(user_id, fresh=True)
        if key_id in erased:
            return None
        raise MissingDataKey(
            f"no data key {key_id} for user {user_id} in {self.folder}: is this the data "
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
        document = _read_json(self.folder / "erased" / _name(user_id)) or {}
        at = document.get("erased_at")
        found = (
            frozenset(document.get("key_ids", ())),
            datetime.fromisoformat(at) if at else None,
        )
        self._erased[user_id] = found
        return found

    def forget_cached(self, user_id: str) -> None:
        """Read the user's keys from the folder next time (another process erased it)."""
        self._live.pop(user_id, None)
        self._erased.pop(user_id, None)

    # -- erasure -------------------------------------------------------------------

    def erase(self, user_id: str, now: datetime) -> Erasure:
        """Destroy the user's live key and note the erasure as pending (idempotent: a
        pending erasure is returned as it was asked)."""
        with self._lock:
            name = _name(user_id)
            live = self._read_live(user_id)
            pending = self._pending_of(user_id)
            if pending is not None and live is None:
                return pending  # asked again before it finished: the same erasure
            erased, _ = self._erasures_of(user_id, fresh=True)
            key_ids = {*erased, *((live.key_id,) if live else ())}
            erasure = Erasure(user_id, tuple(sorted(key_ids)), now)
            self._write(
                "erasing",
                name,
                {
                    "user_id": user_id,
                    "key_ids": list(erasure.key_ids),
                    "requested_at": now.isoformat(),
                },
            )
            self._write(
                "erased", name, {"key_ids": list(erasure.key_ids), "erased_at": now.isoformat()}
            )
            try:
                (self.folder / "live" / name).unlink()
            except FileNotFoundError:
                pass
            else:
                fsync_folder(self.folder / "live")
            self.forget_cached(user_id)
            return erasure

    def pending(self) -> list[Erasure]:
        """The erasures asked for and not finished."""
        folder = self.folder / "erasing"
        if not folder.is_dir():
            return []
        found = []
        for path in sorted(folder.glob("*.json")):
            document = _read_json(path)
            if document is not None:
                found.append(_erasure(document))
        return found

    def _pending_of(self, user_id: str) -> Erasure | None:
        document = _read_json(self.folder / "erasing" / _name(user_id))
        return _erasure(document) if document is not None else None

    def is_pending(self, user_id: str) -> bool:
        return (self.folder / "erasing" / _name(user_id)).exists()

    def finish(self, user_id: str) -> None:
        """The user's erasure reached every projection: no longer pending."""
        path = self.folder / "erasing" / _name(user_id)
        try:
            path.unlink()
        except FileNotFoundError:
            return
        fsync_folder(path.parent)

    def _write(self, kind: str, name: str, document: dict[str, Any]) -> None:
        folder = self.folder / kind
        folder.mkdir(parents=True, exist_ok=True)
        temporary = folder / f".{name}.{secrets.token_hex(4)}"
        write_new_file(temporary, json.dumps(document).encode())
        os.replace(temporary, folder / name)
        fsync_folder(folder)


def _erasure(document: dict[str, Any]) -> Erasure:
    return Erasure(
        document["user_id"],
        tuple(document["key_ids"]),
        datetime.fromisoformat(document["requested_at"]),
    )


def _read_json(path: Path) -> dict[str, Any] | None:
    try:
        document = json.loads(path.read_bytes())
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        raise StorageError(f"{path} cannot be read: {exc}") from exc
    return document if isinstance(document, dict) else None
