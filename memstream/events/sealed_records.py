"""Sealed records: an event's bytes encrypted under its user's data key.

A sealed record is a short binary envelope that names the user and the key and carries
the event's bytes encrypted with AES-256-GCM (the user id and key id are the
associated data, so an envelope cannot be moved to another user or key)::

    b"\\x00mss1" | user id length (2 bytes, big-endian) | user id (UTF-8)
      | key id (8 bytes) | nonce (12 bytes) | ciphertext and tag

It starts with a NUL byte, which no JSON document (a plaintext event) can, so a reader
tells the two apart by the first byte. The user id stays readable, so the record can
still be keyed, routed and dropped; everything else (the text, the vector, the facts)
is readable only with the key. Destroying the key erases every copy at once, in logs
and files nobody can rewrite. This module only encrypts and decrypts; the keys are
:mod:`memstream.storage.data_keys`'.
"""

from __future__ import annotations

import binascii
from dataclasses import dataclass

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from memstream.events.errors import InvalidEvent

__all__ = [
    "NONCE_BYTES",
    "Envelope",
    "cipher_of",
    "envelope_of",
    "is_sealed",
    "open_envelope",
    "seal",
]

NONCE_BYTES = 12
_MAGIC = b"\x00mss1"
_KEY_ID_BYTES = 8
#: the magic, the user id's length, the key id and the nonce, besides the user id
_FIXED = len(_MAGIC) + 2 + _KEY_ID_BYTES + NONCE_BYTES
_TAG_BYTES = 16


@dataclass(frozen=True, slots=True)
class Envelope:
    user_id: str
    key_id: str
    nonce: bytes
    data: bytes


def _associated(user_id: str, key_id: str) -> bytes:
    return f"memstream-sealed-v1|{user_id}|{key_id}".encode()


def cipher_of(key: bytes) -> AESGCM:
    """The cipher of a 256-bit data key (made once per key by its holder)."""
    return AESGCM(key)


def seal(plaintext: bytes, user_id: str, key_id: str, cipher: AESGCM, nonce: bytes) -> bytes:
    """The envelope of ``plaintext`` under ``cipher``'s key (``key_id``: 16 hex digits;
    ``nonce``: 12 fresh random bytes)."""
    user = user_id.encode("utf-8")
    data = cipher.encrypt(nonce, plaintext, _associated(user_id, key_id))
    return b"".join(
        (_MAGIC, len(user).to_bytes(2, "big"), user, bytes.fromhex(key_id), nonce, data)
    )


def is_sealed(raw: bytes) -> bool:
    return raw.startswith(_MAGIC)


def envelope_of(raw: bytes) -> Envelope:
    """The envelope in a sealed record.

    Raises:
        InvalidEvent: it is not a well-formed envelope.
    """
    if not raw.startswith(_MAGIC) or len(raw) < _FIXED + _TAG_BYTES:
        raise InvalidEvent(["sealed: not a well-formed sealed record"])
    at = len(_MAGIC)
    length = int.from_bytes(raw[at : at + 2], "big")
    at += 2
    if len(raw) < _FIXED + length + _TAG_BYTES:
        raise InvalidEvent(["sealed: not a well-formed sealed record"])
    try:
        user_id = raw[at : at + length].decode("utf-8")
    except UnicodeDecodeError:
        raise InvalidEvent(["sealed: the user id is not UTF-8"]) from None
    at += length
    key_id = binascii.hexlify(raw[at : at + _KEY_ID_BYTES]).decode("ascii")
    at += _KEY_ID_BYTES
    return Envelope(user_id, key_id, raw[at : at + NONCE_BYTES], raw[at + NONCE_BYTES :])


def open_envelope(envelope: Envelope, cipher: AESGCM) -> bytes:
    """The bytes sealed in ``envelope``.

    Raises:
        InvalidEvent: they were not sealed under ``cipher``'s key for this user, or were
            altered.
    """
    try:
        return cipher.decrypt(
            envelope.nonce, envelope.data, _associated(envelope.user_id, envelope.key_id)
        )
    except (InvalidTag, ValueError):
        raise InvalidEvent(
            [f"sealed: does not open with key {envelope.key_id} of {envelope.user_id}"]
        ) from None
