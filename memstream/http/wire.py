"""How the API reads HTTP/1.1 off the wire, and what it answers a request it cannot read.

uvicorn's protocol over httptools (llhttp, in C), not h11 (pure Python): reading and
writing a search's request and answer costs the event loop about a millisecond less.
A request the parser refuses never reaches the app, so uvicorn answers it itself, in
plain text; here it is answered in the API's own shape (``{"detail": ...}``, JSON, the
connection closed): 414 for a URL longer than the parser takes (65,535 bytes), 400 for
anything else that is not HTTP/1.1. The answer names the limit, never the request's
bytes.
"""

from __future__ import annotations

import json
from typing import Any

import uvicorn
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

__all__ = ["URL_LIMIT_BYTES", "ApiHttpProtocol", "api_server_config", "unreadable_answer"]

#: The longest URL httptools parses (its offsets are 16-bit).
URL_LIMIT_BYTES = 65_535


def unreadable_answer(url_bytes: int, default_headers: list[tuple[bytes, bytes]]) -> bytes:
    """The whole HTTP answer to a request the parser refused, whose URL so far had
    ``url_bytes`` bytes."""
    if url_bytes > URL_LIMIT_BYTES:
        status = b"414 URI Too Long"  # RFC 9110's phrase (Python's is RFC 2616's)
        detail = f"the URL is longer than {URL_LIMIT_BYTES:,} bytes: send the query in a body"
    else:
        status = b"400 Bad Request"
        detail = "the request could not be read as HTTP/1.1"
    body = json.dumps({"detail": detail}).encode()
    head = [b"HTTP/1.1 " + status + b"\r\n"]
    head += [name + b": " + value + b"\r\n" for name, value in default_headers]
    head += [
        b"content-type: application/json\r\n",
        b"content-length: " + str(len(body)).encode() + b"\r\n",
        b"connection: close\r\n\r\n",
    ]
    return b"".join(head) + body


class ApiHttpProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol answering an unreadable request as the API does."""

    def send_400_response(self, msg: str) -> None:
        url = getattr(self, "url", b"")
        self.transport.write(unreadable_answer(len(url), self.server_state.default_headers))
        self.transport.close()


def api_server_config(app: Any, host: str, port: int, **options: Any) -> uvicorn.Config:
    """uvicorn's configuration of the API ``app`` on ``host:port``: this protocol, no
    access log (the API meters and logs requests itself), and ``options``."""
    return uvicorn.Config(
        app,
        host=host,
        port=port,
        http=ApiHttpProtocol,
        log_level="warning",
        access_log=False,
        **options,
    )
