"""Console sessions: an API key exchanged at login for a signed, expiring cookie, and
the per-session token every action carries against cross-site requests.

A session token is ``<key id>.<expires>.<nonce>.<signature>``: HMAC-SHA256 under a secret
kept in the data location (``console-sessions``), so every API replica signs and checks
alike and a restart keeps people logged in. The token names the key, never holds it; each
request checks that the key is still active, so revoking a key ends its sessions at
once. Without API keys (loopback only, the operator) a session still carries its action
token. The cookie is HttpOnly and SameSite=Strict, scoped to ``/console``; actions also
carry the token in a form field derived from the session (a cross-site form cannot
know it), compared in constant time.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass

from memstream.storage.shared_folder import SharedFolder

__all__ = ["COOKIE", "OPERATOR", "Session", "Sessions"]

#: The session cookie's name.
COOKIE = "memstream_console"
#: The key id a session of the operator (no API keys configured) names.
OPERATOR = "-"
_TOKEN = re.compile(
    r"^([0-9a-f]{1,40}|-)\.(\d{1,12})\.([A-Za-z0-9_-]{16,64})\.([A-Za-z0-9_-]{43})$"
)
_SECRET_PREFIX = "secret-"


@dataclass(frozen=True)
class Session:
    """An open session: the key it rests on (:data:`OPERATOR` without keys), when it
    expires (seconds since the epoch) and its action token."""

    key_id: str
    expires: int
    action_token: str

    def accepts(self, token: str | None) -> bool:
        """Whether ``token`` (a form's) is this session's action token."""
        return token is not None and hmac.compare_digest(token, self.action_token)


class Sessions:
    """Issues and opens session tokens under the deployment's secret."""

    def __init__(
        self, folder: SharedFolder, ttl_seconds: float, clock: Callable[[], float] = time.time
    ) -> None:
        self.folder = folder
        self.ttl_seconds = ttl_seconds
        self.clock = clock
        self._secret: bytes | None = None

    def secret(self) -> bytes:
        """The signing secret: the first (by name) of the folder's secrets, written on first
        use. Two replicas starting at once may each write one; both then pick the same."""
        if self._secret is None:
            names = [n for n in self.folder.names() if n.startswith(_SECRET_PREFIX)]
            if not names:
                self.folder.write(
                    f"{_SECRET_PREFIX}{secrets.token_hex(8)}", secrets.token_bytes(32)
                )
                names = [n for n in self.folder.names() if n.startswith(_SECRET_PREFIX)]
            data = self.folder.read(min(names))
            if data is None or len(data) < 32:
                raise RuntimeError(f"the console's secret {min(names)} is unreadable")
            self._secret = data
        return self._secret

    def issue(self, key_id: str) -> str:
        """A new session token for ``key_id`` (:data:`OPERATOR` without keys)."""
        expires = int(self.clock() + self.ttl_seconds)
        body = f"{key_id}.{expires}.{secrets.token_urlsafe(18)}"
        return f"{body}.{self._sign(body)}"

    def open(self, token: str | None) -> Session | None:
        """The session ``token`` is, or None: malformed, forged, or expired."""
        if not token:
            return None
        match = _TOKEN.match(token)
        if match is None:
            return None
        key_id, expires, _, signature = match.groups()
        body = token.rsplit(".", 1)[0]
        if not hmac.compare_digest(signature, self._sign(body)):
            return None
        if int(expires) <= self.clock():
            return None
        return Session(key_id, int(expires), self._sign("action." + token))

    def _sign(self, text: str) -> str:
        digest = hmac.new(self.secret(), text.encode(), hashlib.sha256).digest()
        return base64.urlsafe_b64encode(digest).decode().rstrip("=")
