"""What an idle deployment costs: the CPU of each of its processes while nothing happens.

Starts ``memstream up`` on a new data folder (the embedded broker, the HTTP API child,
the embedder off, as the tests start it), publishes a few messages and waits until they
are searchable, so the tables hold rows and the first upkeep has something to do; then
lets the deployment sit for ``--seconds`` and prints the CPU seconds each process used
meanwhile (read from ``/proc``), and their sum as a share of one core. A deployment
that sits idle should cost next to nothing; the tests keep dozens side by side, each
for a minute or more.

Upkeep runs every ``--optimize-every`` seconds (the tests' 10 by default; the product's
default is 30) and the lifecycle timer at its default; ``--optimize-every 0`` turns
upkeep off altogether (an interval of a day), to see what upkeep's share is.

Usage: python bench/idle.py [--seconds 40] [--optimize-every 10] [--partitions 2]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).parent))

from ingest import cpu_seconds

from memstream.testing import WorkerProcess, descendants, wait_until


def _processes(root: int) -> dict[int, str]:
    """``root`` and every process under it, with its command line."""
    named = {}
    for pid in {root} | descendants(root):
        try:
            command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:  # gone meanwhile
            continue
        named[pid] = command.strip()
    return named


def _role(command: str) -> str:
    if "tansu" in command:
        return "broker (tansu)"
    if "multiprocessing.spawn" in command:
        return "HTTP API child"
    if "resource_tracker" in command:
        return "multiprocessing resource tracker"
    if "memstream up" in command:
        return "worker (memstream up)"
    return command[:60]


def _idle_cpu(
    data: Path, env: dict[str, str], seconds: float, settle: float
) -> tuple[dict[int, str], dict[int, float]]:
    """Start a deployment on ``data``, give it a few searchable messages, wait
    ``settle`` seconds (the first upkeep of them), then return its processes and the CPU
    seconds each used in the next ``seconds``."""
    with WorkerProcess(data, env=env) as worker:
        turns = [
            {"user_id": "ana", "session_id": "s1", "role": "user", "speaker": "Ana",
             "content": f"Ana mentioned idea number {n} about the garden."}
            for n in range(20)
        ]  # fmt: skip
        answer = httpx.post(f"{worker.api_url}/v1/events", json=turns, timeout=30)
        answer.raise_for_status()

        def searchable() -> bool:
            found = httpx.post(
                f"{worker.api_url}/v1/search",
                json={"user_id": "ana", "query": "garden idea", "k": 50},
                timeout=30,
            ).json()
            return len(found.get("results", [])) == len(turns)

        wait_until(searchable, timeout=120)
        time.sleep(settle)
        assert worker.process is not None
        processes = _processes(worker.process.pid)
        before = {pid: cpu_seconds({pid}) for pid in processes}
        time.sleep(seconds)
        return processes, {pid: cpu_seconds({pid}) - before[pid] for pid in processes}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=40.0)
    parser.add_argument("--optimize-every", type=float, default=10.0)
    parser.add_argument("--partitions", type=int, default=2)
    options = parser.parse_args()
    every = options.optimize_every or 86_400.0
    env = {
        "MEMSTREAM_MESSAGES_PARTITIONS": str(options.partitions),
        "MEMSTREAM_OPTIMIZE_EVERY_SECONDS": f"{every:g}",
    }
    with tempfile.TemporaryDirectory(prefix="memstream-idle-") as tmp:
        processes, used = _idle_cpu(Path(tmp) / "data", env, options.seconds,
                                    every + 2 if options.optimize_every else 12.0)  # fmt: skip
    upkeep = "off" if not options.optimize_every else f"every {every:g} s"
    print(f"an idle deployment over {options.seconds:g} s (upkeep {upkeep}, "
          f"{options.partitions} partitions a topic):")  # fmt: skip
    for pid, seconds in sorted(used.items(), key=lambda item: -item[1]):
        print(f"  {seconds:6.2f} s CPU  {_role(processes[pid])}")
    total = sum(used.values())
    print(f"  {total:6.2f} s CPU in all: {total / options.seconds:.1%} of one core")


if __name__ == "__main__":
    sys.exit(main())
