"""Sealing what memstream writes to the log and opening what it reads back.

Every record memstream produces for a user (a publish through the API, the CLI or the
client; the embedder's vectors; the lifecycle jobs' facts, decisions and archive
events) is sealed under the user's data key before it enters the intake journal or
the log (:mod:`memstream.events.sealed_records`, :mod:`memstream.storage.data_keys`). A
record a channel wrote to Kafka itself arrives as plaintext: the worker seals it before the event
archive keeps it, so the archive holds nothing readable without the keys.

When the worker reads a record back, a sealed one is opened with its key; one whose
key was destroyed (its user erased) is skipped as if it had never been written, and so
is a plaintext record of an erased user that the log received before the erasure.
A record sealed under a key the store never had is dead-lettered (its bytes kept),
because that means the wrong key store, not an erasure.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import replace

from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from memstream.events.codec import encode
from memstream.events.errors import InvalidEvent
from memstream.events.sealed_records import (
    NONCE_BYTES,
    cipher_of,
    envelope_of,
    is_sealed,
    open_envelope,
    seal,
)
from memstream.events.vocabulary import Event, UserErased
from memstream.settings import Settings
from memstream.storage.data_keys import DataKey, DataKeys, Erasure, MissingDataKey
from memstream.storage.errors import StorageError
from memstream.storage.filesystems import Location
from memstream.storage.log_records import LogRecord
from memstream.storage.shared_folder import SharedFolder

__all__ = [
    "RecordKeys",
    "data_keys_of",
    "erasure_event",
    "opened_values",
    "record_keys_of",
    "sealed_records",
]


def data_keys_of(settings: Settings) -> DataKeys:
    """The data key store of a deployment (``MEMSTREAM_DATA_KEYS_DIR``, by default
    ``data-keys`` in the data location), its keys sealed under
    ``MEMSTREAM_DATA_KEYS_SECRET`` when one is given.

    Raises:
        StorageError: a store on S3 without a secret (whoever reads the bucket would
            read the keys and, with them, every record sealed under them).
    """
    location = settings.data_keys_location
    secret = settings.data_keys_secret.get_secret_value() if settings.data_keys_secret else ""
    if not location.is_local and not secret and settings.seal_events:
        raise StorageError(
            f"the data keys would lie unsealed in {location.uri}: set "
            "MEMSTREAM_DATA_KEYS_SECRET (a long random string, the same on every host)"
        )
    return DataKeys(SharedFolder(location), secret.encode() or None)


class RecordKeys:
    """Seals records for the log and opens records from it, with one data key store.

    Args:
        keys: the store.
        sealing: whether records produced here are sealed (off: written as plaintext,
            still opened when sealed).
    """

    def __init__(self, keys: DataKeys, sealing: bool = True) -> None:
        self.keys = keys
        self.sealing = sealing
        self._ciphers: dict[tuple[str, str], AESGCM] = {}  # (user, key id) -> cipher
        #: moves whenever a user's keys are forgotten here: a batch opened before an
        #: erasure and written after it is opened again.
        self.generation = 0

    def __reduce__(self) -> tuple[object, ...]:
        # A replay's worker process unpickles one per batch: it keeps one per store.
        return (_record_keys_at, (self.keys.store.location, self.keys.secret, self.sealing))

    # -- sealing ------------------------------------------------------------------

    def seal(self, key: bytes | None, value: bytes) -> bytes:
        """``value`` sealed under the data key of the user ``key`` names (a record
        without a user key, or one sealed already, is returned as it is)."""
        return self.seal_all([(key, value)])[0]

    def seal_all(self, records: Sequence[tuple[bytes | None, bytes]]) -> list[bytes]:
        """``seal`` for many records, each user's key looked up once."""
        return [v for v in self._seal_all(records, derived=False) if v is not None]

    def seal_derived(self, records: Sequence[tuple[bytes | None, bytes]]) -> list[bytes | None]:
        """``seal`` for records the worker derived from what it holds (vectors, facts,
        archive events): None for a user erased since (no live key, an erasure noted),
        whose records must not be published: they were made from erased data."""
        return self._seal_all(records, derived=True)

    def _seal_all(
        self, records: Sequence[tuple[bytes | None, bytes]], derived: bool
    ) -> list[bytes | None]:
        if not self.sealing:
            return [value for _, value in records]
        found: dict[bytes, tuple[str, str, AESGCM] | None] = {}
        sealed: list[bytes | None] = []
        self.keys.check_cache()  # once for the batch: no key erased since is used
        self.keys.fetch(
            {k.decode("utf-8") for k, v in records if k is not None and not is_sealed(v)},
            create=not derived,
        )
        for key, value in records:
            if key is None or is_sealed(value):
                sealed.append(value)
                continue
            if key not in found:
                found[key] = self._sealing_key(key.decode("utf-8"), derived)
            using = found[key]
            if using is None:
                sealed.append(None)
                continue
            user_id, key_id, cipher = using
            sealed.append(seal(value, user_id, key_id, cipher, os.urandom(NONCE_BYTES)))
        return sealed

    def _sealing_key(self, user_id: str, derived: bool) -> tuple[str, str, AESGCM] | None:
        data_key = self.keys.key_for(user_id, create=not derived, checked=True)
        if data_key is None:
            if self.keys.erased_at(user_id) is not None:
                return None
            data_key = self.keys.key_for(user_id, checked=True)  # came as plaintext
            assert data_key is not None
        return user_id, data_key.key_id, self._cipher(data_key)

    def _cipher(self, data_key: DataKey) -> AESGCM:
        at = (data_key.user_id, data_key.key_id)
        cipher = self._ciphers.get(at)
        if cipher is None:
            cipher = self._ciphers[at] = cipher_of(data_key.key)
        return cipher

    def seal_event(self, event: Event) -> bytes:
        return self.seal(event.user_id.encode(), encode(event))

    # -- opening ------------------------------------------------------------------

    def open(self, value: bytes) -> bytes | None:
        """The event bytes in ``value``: itself if plaintext, opened if sealed, None if
        sealed under an erased key.

        Raises:
            InvalidEvent: a malformed envelope, or a key this store never had.
        """
        opened = self.open_naming_user(value)
        return opened[0] if opened is not None else None

    def open_naming_user(self, value: bytes) -> tuple[bytes, str | None] | None:
        """``open``, with the user the record was sealed for (None: plaintext)."""
        if not is_sealed(value):
            return value, None
        envelope = envelope_of(value)
        at = (envelope.user_id, envelope.key_id)
        cipher = self._ciphers.get(at)
        if cipher is None:
            try:
                key = self.keys.lookup(envelope.user_id, envelope.key_id)
            except MissingDataKey as exc:
                raise InvalidEvent([f"sealed: {exc}"]) from None
            if key is None:
                return None
            cipher = self._ciphers[at] = cipher_of(key)
        return open_envelope(envelope, cipher), envelope.user_id

    def admit(self, record: LogRecord, user_id: str, sealed_for: str | None) -> LogRecord | None:
        """The record to archive for a decoded event of ``user_id`` (``sealed_for``: the
        user the record was sealed for, None for plaintext): sealed, if it came as
        plaintext and sealing is on; None when it is a plaintext record the log received
        before the user was erased.

        Raises:
            InvalidEvent: a sealed record whose event names another user.
        """
        if sealed_for is not None:
            if sealed_for != user_id:
                raise InvalidEvent(["sealed: the event's user_id is not the envelope's"])
            return record
        erased_at = self.keys.erased_at(user_id)
        if erased_at is not None and record.timestamp <= erased_at:
            return None
        if not self.sealing:
            return record
        return replace(record, value=self.seal(user_id.encode(), record.value))

    def forget(self, user_id: str) -> None:
        """Read ``user_id``'s keys from the store again (it was erased)."""
        self.keys.forget_cached(user_id)
        for at in [at for at in self._ciphers if at[0] == user_id]:
            del self._ciphers[at]
        self.generation += 1


def sealed_records(
    keys: RecordKeys | None, records: list[tuple[bytes, bytes]]
) -> list[tuple[bytes, bytes]]:
    """(key, value) records the worker derived, to produce, each value sealed under its
    user's key; the records of users erased since they were made are left out."""
    if keys is None:
        return records
    sealed = keys.seal_derived(records)
    return [(key, value) for (key, _), value in zip(records, sealed, strict=True) if value]


def opened_values(keys: RecordKeys | None, values: list[bytes]) -> list[bytes]:
    """The event bytes of log values, leaving out the erased and the unopenable (the
    projector dead-letters those)."""
    if keys is None:
        return values
    found = []
    for value in values:
        try:
            plain = keys.open(value)
        except InvalidEvent:
            continue
        if plain is not None:
            found.append(plain)
    return found


def erasure_event(erasure: Erasure) -> UserErased:
    """The ``UserErased`` event of an erasure (the same id however often it is sent)."""
    return UserErased(
        event_id=f"erase:{erasure.user_id}:{erasure.requested_at.isoformat()}",
        user_id=erasure.user_id,
        key_ids=list(erasure.key_ids),
        requested_at=erasure.requested_at,
    )


#: The record keys a replay's worker process made, by store, secret and sealing.
_MADE: dict[tuple[str, bytes | None, bool], RecordKeys] = {}


def _record_keys_at(location: Location, secret: bytes | None, sealing: bool) -> RecordKeys:
    at = (location.uri, secret, sealing)
    if at not in _MADE:
        _MADE[at] = RecordKeys(DataKeys(SharedFolder(location), secret), sealing)
    return _MADE[at]


def record_keys_of(settings: Settings) -> RecordKeys:
    return RecordKeys(data_keys_of(settings), sealing=settings.seal_events)
