"""The README's examples run: every ``sh`` and ``python`` block (unless an HTML comment
``<!-- not run: why -->`` right above it says why not) runs against a real ``memstream
up``, in order, as a user would type it; the JSON example is a valid event.

The blocks name memstream's defaults; the test points them at its own worker: the data
folder and broker port through ``MEMSTREAM_*`` variables, the API port and ``/tmp/``
rewritten in the text.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from memstream.testing import WorkerProcess
from projections.codec import from_document

pytestmark = [pytest.mark.broker, pytest.mark.slow]

README = Path(__file__).resolve().parent.parent / "README.md"
_FENCE = re.compile(
    r"(?:<!-- not run: (?P<why>[^>]*) -->\n)?```(?P<lang>\w*)\n(?P<body>.*?)```", re.S
)


@dataclass(frozen=True)
class Block:
    lang: str
    body: str
    line: int
    not_run: str | None


def readme_blocks() -> list[Block]:
    text = README.read_text()
    return [
        Block(m["lang"], m["body"], text.count("\n", 0, m.start("body")), m["why"])
        for m in _FENCE.finditer(text)
    ]


def test_every_block_either_runs_or_says_why_not() -> None:
    blocks = readme_blocks()
    runnable = [b for b in blocks if b.lang in ("sh", "python") and b.not_run is None]
    assert len(runnable) >= 4
    for block in blocks:
        assert block.lang in ("sh", "python", "json", ""), f"line {block.line}: {block.lang}"
        assert block.not_run is None or block.not_run.strip(), f"line {block.line}"


def test_the_json_event_is_valid() -> None:
    (event,) = [b for b in readme_blocks() if b.lang == "json" and '"type"' in b.body]
    assert from_document(json.loads(event.body)).type == "message"


def test_the_examples_run_against_a_real_worker(tmp_path: Path) -> None:
    data = tmp_path / "memstream-data"
    worker = WorkerProcess(
        data, env={"MEMSTREAM_EMBEDDER": "minilm"}, log_path=tmp_path / "worker.log"
    ).start()  # the defaults, embedder included
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "MEMSTREAM_DATA": str(data),
        "MEMSTREAM_BROKER_PORT": str(worker.broker_port),
    }
    outputs: list[str] = []
    try:
        worker.wait_serving()
        for block in readme_blocks():
            if block.lang not in ("sh", "python") or block.not_run is not None:
                continue
            code = block.body.replace("8787", str(worker.api_port)).replace("/tmp/", f"{tmp_path}/")
            command = ["bash", "-euo", "pipefail", "-c", code]
            if block.lang == "python":
                command = [sys.executable, "-c", code]
            done = subprocess.run(
                command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=240
            )
            where = f"README line {block.line}:\n{done.stdout}\n{done.stderr}"
            assert done.returncode == 0, where
            assert "Traceback" not in done.stderr, where
            outputs.append(done.stdout)
    finally:
        worker.stop(timeout=60)
    tour, http, client, agents, mcp_over_http, keys, erasure, commands = outputs
    assert "acme" in keys and "support bot" in keys and "admin" in keys
    assert "erased zoe" in erasure and "ZX81" not in erasure
    assert "accepted 1 of 2" in tour and "line 2: rejected (sent to memory.dlq)" in tour
    assert "I moved to Porto last week" in tour and "replayed " in tour
    assert '"accepted":["sha256:' in http and "I moved to Porto" in http
    assert "I moved to Porto" in client
    assert "[preference] Ana's cat Miso likes tuna." in agents or "Miso likes tuna" in agents
    assert '"context":"## What is known' in agents and "confidence now" in agents
    assert "'search_memory', 'get_context'" in mcp_over_http and "Miso" in mcp_over_http
    assert "Vitaly works at Red Kite Studio." in commands and "superseded" in commands
