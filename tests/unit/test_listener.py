"""The API's listening socket: the connections asyncio accepts on it send small writes
at once (TCP_NODELAY), so an answer's body does not wait on the client's delayed
acknowledgement of its headers on a kept-alive connection."""

from __future__ import annotations

import asyncio
import socket

from memstream.streams.listener import listen_on


def test_connections_accepted_on_the_listener_have_nagle_off() -> None:
    async def accepted_nodelay() -> int:
        listener = listen_on("127.0.0.1", 0)
        found: asyncio.Future[int] = asyncio.get_running_loop().create_future()

        class Probe(asyncio.Protocol):
            def connection_made(self, transport: asyncio.BaseTransport) -> None:
                accepted = transport.get_extra_info("socket")
                found.set_result(accepted.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
                transport.close()

        server = await asyncio.get_running_loop().create_server(Probe, sock=listener)
        port = listener.getsockname()[1]
        async with server:
            _, writer = await asyncio.open_connection("127.0.0.1", port)
            value = await asyncio.wait_for(found, 10)
            writer.close()
        return value

    assert asyncio.run(accepted_nodelay()) == 1
