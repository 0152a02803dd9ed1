"""The deployment's signing key: an Ed25519 key pair that signs what memstream attests
(an erasure's receipt), kept in ``signing-key`` of the data location.

The key is made on first use and shared by every process of the deployment through a
:class:`~memstream.storage.shared_folder.SharedFolder`. Two processes making it at once
may each write one; both then use the first by name, as the console's secret does. A
signature is checked against the deployment's public key, never against the key a
document names: a receipt signed by any other key is not the deployment's, whatever it
says. The public key can be handed out (``memstream erase --public-key``) so anyone can
check a receipt without the deployment.
"""

from __future__ import annotations

import base64
import hashlib
import secrets

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey,
    Ed25519PublicKey,
)

from memstream.storage.shared_folder import SharedFolder

__all__ = ["SigningKey", "key_id_of", "verify"]

_PREFIX = "ed25519-"


def key_id_of(public_key: bytes) -> str:
    """A public key's short name: the first 16 hex digits of its SHA-256."""
    return hashlib.sha256(public_key).hexdigest()[:16]


def verify(public_key: bytes, signature: str, message: bytes) -> bool:
    """Whether ``signature`` (base64) is ``public_key``'s (raw, 32 bytes) of ``message``."""
    try:
        raw = base64.b64decode(signature, validate=True)
        Ed25519PublicKey.from_public_bytes(public_key).verify(raw, message)
    except (InvalidSignature, ValueError):
        return False
    return True


class SigningKey:
    """The deployment's key pair, read (or made) on first use."""

    def __init__(self, folder: SharedFolder) -> None:
        self.folder = folder
        self._private: Ed25519PrivateKey | None = None

    def made(self) -> bool:
        """Whether the deployment has a key yet (nothing is made by asking)."""
        return self._private is not None or any(n.startswith(_PREFIX) for n in self.folder.names())

    def _key(self) -> Ed25519PrivateKey:
        if self._private is None:
            names = [n for n in self.folder.names() if n.startswith(_PREFIX)]
            if not names:
                made = Ed25519PrivateKey.generate().private_bytes_raw()
                self.folder.write(f"{_PREFIX}{secrets.token_hex(8)}", made)
                names = [n for n in self.folder.names() if n.startswith(_PREFIX)]
            data = self.folder.read(min(names))
            if data is None or len(data) != 32:
                raise RuntimeError(f"the deployment's signing key {min(names)} is unreadable")
            self._private = Ed25519PrivateKey.from_private_bytes(data)
        return self._private

    @property
    def public_key(self) -> bytes:
        """The public half, raw (32 bytes)."""
        return self._key().public_key().public_bytes_raw()

    @property
    def key_id(self) -> str:
        return key_id_of(self.public_key)

    def sign(self, message: bytes) -> str:
        """The signature of ``message``, base64."""
        return base64.b64encode(self._key().sign(message)).decode()
