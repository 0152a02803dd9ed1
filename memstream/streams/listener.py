"""A server's listening socket, taken before anything else starts.

``memstream up`` and ``memstream serve`` bind and listen on the API's port first, and a
worker or an embedder on its metrics port, before the broker, the worker or the model
start, so a port in use is refused at once in one line that names the port and how to
choose another. The socket is handed to the server (in ``up``, the API's to its child
process), so nothing can take the port in between, and a server announces itself in
``api.json`` only while it holds a bound socket.
"""

from __future__ import annotations

import errno
import socket

from memstream.streams.errors import StreamsError

__all__ = ["PortBusy", "PortInUse", "listen_on"]

#: Connections the kernel queues before the server accepts them (uvicorn's default).
_BACKLOG = 2048


class PortInUse(StreamsError):
    """A server cannot listen on the port it was given."""


class PortBusy(PortInUse):
    """Another program listens on the port."""


def listen_on(
    host: str,
    port: int,
    *,
    serving: str = "the HTTP API",
    port_setting: str = "--port or MEMSTREAM_API_PORT",
    host_setting: str = "MEMSTREAM_API_HOST",
) -> socket.socket:
    """A socket bound to ``host:port`` and listening, as uvicorn binds its own; a
    refusal names what it was for (``serving``) and the settings that change it.

    Raises:
        PortInUse: another program holds the port, or the address cannot be bound.
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # The protocol named, not 0: asyncio turns Nagle's algorithm off (TCP_NODELAY) only
    # on connections whose socket says TCP, and the ones accepted here inherit it.
    # Without it every answer after the first on a kept-alive connection waited for the
    # client's delayed acknowledgement (40 ms), its headers and body being two writes.
    listener = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listener.bind((host, port))
        listener.listen(_BACKLOG)
    except OSError as exc:
        listener.close()
        if exc.errno == errno.EADDRINUSE:
            raise PortBusy(
                f"{serving} port {port} on {host} is in use by another program: choose "
                f"another with {port_setting}"
            ) from None
        raise PortInUse(
            f"{serving} cannot listen on {host}:{port} ({exc.strerror or exc}): set "
            f"{host_setting} and {port_setting}"
        ) from None
    return listener
