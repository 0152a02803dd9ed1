"""The HTTP API's listening socket, taken before anything else starts.

``memstream up`` and ``memstream serve`` bind and listen on their port first, before the
broker, the worker or the model start, so a port in use is refused at once in one line
that names the port and how to choose another. The socket is handed to the server (in
``up``, to the API's child process), so nothing can take the port in between, and a
server announces itself in ``api.json`` only while it holds a bound socket.
"""

from __future__ import annotations

import errno
import socket

from memstream.operations.errors import OperationError

__all__ = ["PortInUse", "listen_on"]

#: Connections the kernel queues before the server accepts them (uvicorn's default).
_BACKLOG = 2048


class PortInUse(OperationError):
    """The API cannot listen on the port it was given."""


def listen_on(host: str, port: int) -> socket.socket:
    """A socket bound to ``host:port`` and listening, as uvicorn binds its own.

    Raises:
        PortInUse: another program holds the port, or the address cannot be bound.
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    listener = socket.socket(family, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listener.bind((host, port))
        listener.listen(_BACKLOG)
    except OSError as exc:
        listener.close()
        if exc.errno == errno.EADDRINUSE:
            raise PortInUse(
                f"the HTTP API port {port} on {host} is in use by another program: choose "
                "another with --port or MEMSTREAM_API_PORT"
            ) from None
        raise PortInUse(
            f"the HTTP API cannot listen on {host}:{port} ({exc.strerror or exc}): set "
            "MEMSTREAM_API_HOST and MEMSTREAM_API_PORT (or --port)"
        ) from None
    return listener
