"""A busy API port ends ``memstream up`` and ``memstream serve`` at once, in one line
that names the port and how to choose another, before the broker, the worker or the
model start; the server that holds the port keeps its address file."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from memstream.server_address import ADDRESS_FILE, running_api
from memstream.testing import WorkerProcess, free_port


def _memstream(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memstream", *args], capture_output=True, text=True, timeout=60
    )


@pytest.mark.parametrize("command", ["up", "serve"])
def test_a_port_held_by_another_program_ends_the_server_at_once(
    command: str, tmp_path: Path
) -> None:
    data = tmp_path / "data"
    with socket.create_server(("127.0.0.1", 0)) as holder:
        port = holder.getsockname()[1]
        done = _memstream(command, "--data", str(data), "--port", str(port))
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr == (
        f"error: the HTTP API port {port} on 127.0.0.1 is in use by another program: "
        "choose another with --port or MEMSTREAM_API_PORT\n"
    )
    # at once: it ended before the broker, the worker or the model started
    assert not (data / ADDRESS_FILE).exists()
    assert not (data / "logs" / "broker.log").exists()


@pytest.mark.broker
def test_a_second_server_on_the_first_ones_port_leaves_the_first_announced(
    tmp_path: Path,
) -> None:
    data = tmp_path / "data"
    first = WorkerProcess(data).start()
    try:
        first.wait_serving()
        announced = (data / ADDRESS_FILE).read_text()
        port = str(first.api_port)
        for command in ("serve", "up"):
            done = _memstream(command, "--data", str(data), "--port", port)
            assert done.returncode == 2, done.stderr
            assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
        # `up` sees the server of its data folder first and says so; `serve` finds the
        # port taken. Neither touched the first server's address file.
        assert (data / ADDRESS_FILE).read_text() == announced
        assert running_api(data) == first.api_url
        other = tmp_path / "other"
        done = _memstream("serve", "--data", str(other), "--port", port)
        assert f"port {port} on 127.0.0.1 is in use" in done.stderr
        assert json.loads(announced)["url"] == first.api_url
        # a second deployment on all three of the first one's ports: each is named in
        # one refusal, with the deployment holding it, before anything starts
        ports = {"MEMSTREAM_METRICS_PORT": str(first.metrics_port),
                 "MEMSTREAM_BROKER_PORT": str(first.broker_port)}  # fmt: skip
        started = time.monotonic()
        done = subprocess.run(
            [sys.executable, "-m", "memstream", "up", "--data", str(other), "--port", port],
            capture_output=True, text=True, timeout=60, env={**os.environ, **ports},
        )  # fmt: skip
        took = time.monotonic() - started
        assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
        holder = f"memstream serving {data} (pid {first.process.pid})"  # type: ignore[union-attr]
        for serving, number in (
            ("the HTTP API", port),
            ("the metrics", ports["MEMSTREAM_METRICS_PORT"]),
            ("the embedded broker", ports["MEMSTREAM_BROKER_PORT"]),
        ):
            assert f"{serving} port {number} on 127.0.0.1 is in use by {holder}" in done.stderr
        assert "a second deployment needs its own ports and its own broker" in done.stderr
        assert "--kafka" not in done.stderr  # never the advice to join the first one
        assert not (other / "logs" / "broker.log").exists()
        print(f"three busy ports refused in {took:.2f} s")
    finally:
        assert first.stop(timeout=60) == 0


@pytest.mark.parametrize("command", ["up", "worker"])
def test_a_busy_metrics_port_ends_a_worker_at_once(command: str, tmp_path: Path) -> None:
    data = tmp_path / "data"
    with socket.create_server(("127.0.0.1", 0)) as holder:
        port = holder.getsockname()[1]
        options = ["--port", str(free_port())] if command == "up" else ["--kafka", "127.0.0.1:9"]
        done = subprocess.run(
            [sys.executable, "-m", "memstream", command, "--data", str(data), *options],
            capture_output=True,
            text=True,
            timeout=60,
            env={**os.environ, "MEMSTREAM_METRICS_PORT": str(port)},
        )
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr == (
        f"error: the metrics port {port} on 127.0.0.1 is in use by another program: choose "
        "another with MEMSTREAM_METRICS_PORT (0: no metrics port)\n"
    )
    assert not (data / "logs" / "broker.log").exists()
