"""A broker that goes away: publishes are refused at once, logged once, and taken again
as soon as a broker answers on the same address (a real embedded broker, stopped and
started again)."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

import pytest

from memstream.application.errors import Unavailable
from memstream.application.sinks import PROBE_SECONDS, BrokerSink
from memstream.observability.logs import RepeatSummary
from memstream.settings import Settings
from memstream.testing import embedded_broker, free_port, message

pytestmark = [pytest.mark.broker]


def test_while_no_broker_answers_publishes_fail_fast_and_are_logged_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    port = free_port()
    settings = Settings(
        data=str(tmp_path / "data"), kafka=f"127.0.0.1:{port}", journal="off", min_free_mb=16
    )
    caplog.set_level(logging.INFO)
    caplog.handler.addFilter(RepeatSummary())  # as memstream up and serve log

    async def run() -> list[str]:
        sink = BrokerSink(settings)
        try:
            with embedded_broker(port):
                before = await sink.publish([message(event_id="before")])
                assert before.event_ids == ["before"]
            refusals = []
            for i in range(12):  # the first notices the outage; the others are refused at once
                with pytest.raises(Unavailable) as refused:
                    await sink.publish([message(event_id=f"during-{i}")])
                refusals.append(str(refused.value))
            with embedded_broker(port):
                # a knock that found nobody is trusted for PROBE_SECONDS: then it is back
                await asyncio.sleep(PROBE_SECONDS)
                after = await sink.publish([message(event_id="after")])
                assert after.event_ids == ["after"]
        finally:
            await sink.close()  # a failed assertion leaves no producer open behind it
        return refusals

    refusals = asyncio.run(run())
    assert "did not accept the events" in refusals[0]  # the producer found out, once
    # the rest never reached a producer: refused on a TCP connect that found no listener
    assert all(r.startswith(f"no broker answers at 127.0.0.1:{port}") for r in refusals[1:])
    warnings = [r for r in caplog.records if r.levelno >= logging.WARNING]
    ours = [r for r in warnings if r.name == "memstream.application.sinks"]
    assert len(ours) == 1 and "refusing at once" in ours[0].getMessage()
    kinds = {(r.name, r.levelno, r.msg) for r in warnings}
    assert len(warnings) == len(kinds) < 15, [r.getMessage() for r in warnings]  # no flood
    assert any(
        "answers again (12 publishes were refused)" in r.getMessage() for r in caplog.records
    )
