"""The command line as a person uses it: how long commands take, and publish -> searchable.

Runs ``memstream up`` (embedded broker, worker, HTTP API, the default MiniLM embedder)
on a fresh data folder, then times the ``memstream`` command itself, each run a new
process as typed in a shell:

1. start-up: ``memstream --version`` and ``--help``; ``publish`` of one message;
   ``search`` and ``stats`` answered by the running server (the command finds it through
   the data folder), and the same with ``--in-process`` (the command opens the data
   folder and loads the model itself, as it must when no server runs). Median and
   slowest wall time of ``--runs`` runs, and the CPU time (user + system) the command
   itself used.
2. ``memstream publish --jsonl`` of 1,000 LoCoMo turns (one user, real conversational
   text): when the command returns (every line acknowledged), when all 1,000 are in the
   user's memories (full-text searchable), and when all have a vector (vector
   searchable); then a search for the last turn's words must find it.

The worker's lanes run as in a deployment (the embedder embeds the 1,000 turns; the
lifecycle timer is on).

Usage: python bench/cli.py [--runs 5] [--lines 1000]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from memstream.client import MemoryClient
from memstream.testing import WorkerProcess

MEMSTREAM = [sys.executable, "-m", "memstream"]


def timed(command: list[str], env: dict[str, str]) -> float:
    return run(command, env)[0]


def run(command: list[str], env: dict[str, str]) -> tuple[float, float]:
    """The wall time and the CPU time (user + system) of one ``memstream`` command."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(MEMSTREAM + command, env=env, capture_output=True, text=True)
    took = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"memstream {' '.join(command)} failed: {done.stderr.strip()}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return took, cpu


def lines_of(bench: Path, user: str, count: int) -> list[str]:
    rows = [json.loads(x) for x in (bench / "locomo10_events.jsonl").read_text().splitlines()]
    return [
        json.dumps(
            {
                "type": "message",
                "user_id": user,
                "session_id": f"{r['stream_id']}-{r['session_id']}",
                "role": "user",
                "speaker": r["speaker"],
                "content": r["content"],
                "occurred_at": r["timestamp"] + "Z",
            }
        )
        for r in rows[:count]
    ]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--lines", type=int, default=1000)
    parser.add_argument(
        "--bench", default=str(Path(__file__).parents[1] / ".." / "shared" / "bench")
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="memstream-cli-") as tmp:
        data = Path(tmp) / "data"
        with WorkerProcess(data, env={"MEMSTREAM_EMBEDDER": "minilm"}) as worker:
            env = {
                **os.environ,
                "MEMSTREAM_DATA": str(data),
                "MEMSTREAM_BROKER_PORT": str(worker.broker_port),
            }
            env.pop("MEMSTREAM_API_URL", None)
            start_up(args.runs, env, worker.api_url)
            publish_to_searchable(Path(args.bench), Path(tmp), args.lines, worker.api_url, env)


def start_up(runs: int, env: dict[str, str], api_url: str) -> None:
    one = ["publish", "--user", "u-start", "--session", "s1", "I moved to Porto in May"]
    commands = {
        "memstream --version": ["--version"],
        "memstream --help": ["--help"],
        "publish one message": one,
        "search (server)": ["search", "--user", "u-start", "where did I move"],
        "stats (server)": ["stats", "--user", "u-start"],
        "search --in-process": ["search", "--in-process", "--user", "u-start", "Porto"],
        "stats --in-process": ["stats", "--in-process", "--user", "u-start"],
    }
    # the searches below need the user's first message applied
    run(one, env)
    with MemoryClient(api_url) as api:
        deadline = time.monotonic() + 60
        while not api.search("u-start", "Porto", k=1)["results"] and time.monotonic() < deadline:
            time.sleep(0.1)
    print(
        f"command start-up, each a new process ({runs} runs; the server's embedding lane and "
        "lifecycle timer run beside them, so wall time is that of a live deployment; CPU "
        "time is the command's own):"
    )
    print(f"  {'command':<24} {'wall median':>12} {'slowest':>9} {'CPU median':>11} {'most':>7}")
    for name, command in commands.items():
        runs_of = [run(command, env) for _ in range(runs)]
        walls, cpus = [w for w, _ in runs_of], [c for _, c in runs_of]
        print(
            f"  {name:<24} {statistics.median(walls):11.2f}s {max(walls):8.2f}s "
            f"{statistics.median(cpus):10.2f}s {max(cpus):6.2f}s"
        )


def publish_to_searchable(
    bench: Path, tmp: Path, count: int, api_url: str, env: dict[str, str]
) -> None:
    user = "u-publish"
    lines = lines_of(bench, user, count)
    path = tmp / "turns.jsonl"
    path.write_text("\n".join(lines) + "\n")
    with MemoryClient(api_url) as api:
        started = time.perf_counter()
        timed(["publish", "--jsonl", str(path)], env)
        acknowledged = time.perf_counter() - started
        stored = embedded = None
        while embedded is None and time.perf_counter() - started < 600:
            stats = api.stats(user)
            now = time.perf_counter() - started
            memories = sum(stats["memories"].values())
            if stored is None and memories >= count:
                stored = now
            if stored is not None and stats["embedding_lag"] == 0:
                embedded = now
            time.sleep(0.05)
        last = json.loads(lines[-1])["content"]
        found = api.search(user, last, k=5)["results"]
    hit = any(r["content"] == last for r in found)
    print(f"\nmemstream publish --jsonl of {count} LoCoMo turns (one user):")
    print(f"  acknowledged (command returned)      {acknowledged:6.2f} s")
    print(f"  all {count} full-text searchable       {_seconds(stored)}")
    print(f"  all {count} vector searchable          {_seconds(embedded)}")
    print(f"  a search for the last turn finds it  {'yes' if hit else 'NO'}")


def _seconds(value: float | None) -> str:
    return "not within 600 s" if value is None else f"{value:6.2f} s"


if __name__ == "__main__":
    main()
