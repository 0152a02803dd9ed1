"""Read admission: a few searches run, a few more wait, the next is refused at once."""

from __future__ import annotations

import asyncio

import pytest

from memstream.application.admission import ReadAdmission
from memstream.application.errors import Overloaded


def test_beyond_the_running_and_the_waiting_a_read_is_refused_at_once() -> None:
    async def scenario() -> list[str]:
        gate = ReadAdmission(running=1, waiting=1)
        release = asyncio.Event()
        order: list[str] = []

        async def read(name: str) -> None:
            async with gate.turn():
                order.append(name)
                await release.wait()

        first = asyncio.create_task(read("first"))
        await asyncio.sleep(0)
        second = asyncio.create_task(read("second"))  # waits for the slot
        await asyncio.sleep(0)
        with pytest.raises(Overloaded):
            await read("third")
        release.set()
        await asyncio.gather(first, second)
        await read("fourth")  # the line is empty again
        return order

    assert asyncio.run(scenario()) == ["first", "second", "fourth"]
