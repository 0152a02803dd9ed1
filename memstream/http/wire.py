"""How the API reads HTTP/1.1 off the wire, and what it answers a request it cannot read.

uvicorn's h11 protocol: h11 holds at most 16 KiB of a request's line and headers while
they arrive, so a client cannot make the server keep an endless head in memory (uvicorn
over httptools keeps every header it is sent; it answered searches no sooner here,
``docs/benchmarks.md``). A request h11 refuses (malformed, or a head past that bound)
never reaches the app, so uvicorn answers it itself, in plain text; here it is answered
in the API's own shape (400, ``{"detail": ...}``, JSON, the connection closed). The
answer names the bound, never the request's bytes.
"""

from __future__ import annotations

import json
from typing import Any

import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

__all__ = ["HEAD_LIMIT_BYTES", "ApiHttpProtocol", "api_server_config", "unreadable_answer"]

#: The most of a request's line and headers h11 holds while they arrive (h11's own
#: default, set here so that the answer above can name it).
HEAD_LIMIT_BYTES = 16 * 1024


def unreadable_answer(default_headers: list[tuple[bytes, bytes]]) -> bytes:
    """The whole HTTP answer to a request the parser refused, with the server's
    ``default_headers`` (its date and name)."""
    detail = (
        "the request could not be read as HTTP/1.1: malformed, or its line and headers "
        f"over {HEAD_LIMIT_BYTES // 1024} KiB (send long queries in a body)"
    )
    body = json.dumps({"detail": detail}).encode()
    head = [b"HTTP/1.1 400 Bad Request\r\n"]
    head += [name + b": " + value + b"\r\n" for name, value in default_headers]
    head += [
        b"content-type: application/json\r\n",
        b"content-length: " + str(len(body)).encode() + b"\r\n",
        b"connection: close\r\n\r\n",
    ]
    return b"".join(head) + body


class ApiHttpProtocol(H11Protocol):
    """uvicorn's h11 protocol answering an unreadable request as the API does."""

    def send_400_response(self, msg: str) -> None:
        self.transport.write(unreadable_answer(self.server_state.default_headers))
        self.transport.close()


def api_server_config(app: Any, host: str, port: int, **options: Any) -> uvicorn.Config:
    """uvicorn's configuration of the API ``app`` on ``host:port``: this protocol and
    its bound on a request's head, no access log (the API meters and logs requests
    itself), and ``options``."""
    return uvicorn.Config(
        app,
        host=host,
        port=port,
        http=ApiHttpProtocol,
        h11_max_incomplete_event_size=HEAD_LIMIT_BYTES,
        log_level="warning",
        access_log=False,
        **options,
    )
