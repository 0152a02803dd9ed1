"""What metrics and tracing cost: ingest throughput and search p50, before and after.

Compares two checkouts of memstream on this machine, in one sitting and the same run
order: ``--before`` (a checkout without metrics and tracing, e.g. ``git worktree add
/tmp/before <commit>``) and this one, with tracing off; and this one with tracing on
(spans exported over OTLP/HTTP to a receiver on loopback, every publish traced). Each
round runs every variant once, odd rounds in that order and even rounds in the reverse
(two runs of the same code differ by about 2% by their place in a round alone); the
medians of the rounds are compared.

- **ingest**: ``memstream up`` of the variant (embedded broker, worker; the background
  lanes stopped: no embedder, no lifecycle timer, so ingest is what is measured) on a
  fresh folder; one message first, waited for (so the consumer group's join, a few
  seconds that vary from start to start, is not measured); then ``--messages`` published
  through the Python publisher as fast as it goes; the time from the first send until
  every row is in the ``memories`` table.
- **search**: ``memstream serve`` of the variant over one synthetic corpus (built once:
  ``--user-size`` memories for the user searched among ``--total``; see
  ``bench/query.py``), ``--queries`` searches one at a time over loopback HTTP after a
  warm-up; the p50 of the client-measured round trip.

Each measurement runs in a child process whose ``PYTHONPATH`` is the variant's
checkout, so the worker, the server and the publisher are all that variant's code.

Usage: python bench/observability.py --before /tmp/before [--rounds 3] [--messages 30000]
                                     [--total 200000] [--user-size 10000] [--queries 300]
                                     [--only ingest|search]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

#: The worker's background lanes switched off (as ``bench/ingest.py --lanes-stopped``).
QUIET_LANES = {"MEMSTREAM_EMBEDDER": "none", "MEMSTREAM_LIFECYCLE_EVERY_SECONDS": "1000000"}


def _ingest(messages: int, traced: bool) -> float:
    """Messages per second, publish to searchable (this process's code is the variant's)."""
    from ingest import events, open_store

    from memstream.storage.lance.tables import MEMORIES
    from memstream.streams.publisher import Publisher
    from memstream.testing import WorkerProcess, wait_until

    if traced:
        from memstream.observability import tracing

        assert tracing.configure("bench")
    with tempfile.TemporaryDirectory() as folder:
        data = Path(folder) / "data"
        env = {**QUIET_LANES, "MEMSTREAM_METRICS_PORT": "0"}
        worker = WorkerProcess(data, env=env, log_path=Path(folder) / "worker.log").start()
        try:
            worker.wait_ready(timeout=90)
            store = open_store(data)
            warm_up = events(1, "warm-up")

            async def first() -> None:
                async with Publisher(worker.bootstrap) as publisher:
                    await publisher.publish(warm_up)

            asyncio.run(first())
            wait_until(lambda: store.count(MEMORIES) >= 1, timeout=120, interval=0.05)
            batch = events(messages, "t")
            started = time.perf_counter()

            async def publish() -> None:
                async with Publisher(worker.bootstrap) as publisher:
                    for start in range(0, len(batch), 5000):
                        await publisher.publish(batch[start : start + 5000])

            asyncio.run(publish())
            wait_until(lambda: store.count(MEMORIES) >= messages + 1, timeout=600, interval=0.05)
            return messages / (time.perf_counter() - started)
        finally:
            worker.stop()


def _search(data: Path, queries: int, user: str) -> float:
    """p50 ms of ``queries`` searches through ``memstream serve`` of the variant."""
    import httpx
    from query import NAMES, QUESTIONS, served, vocabulary

    with served(data) as url:
        rng, words = random.Random(1), vocabulary(random.Random(7))
        with httpx.Client(base_url=url, timeout=30) as http:
            for _ in range(30):
                http.post("/v1/search", json={"user_id": user, "query": "warm up"})
            took = []
            for _ in range(queries):
                question = rng.choice(QUESTIONS).format(
                    n=rng.choice(NAMES), w=rng.choice(words), v=rng.choice(words)
                )
                started = time.perf_counter()
                answer = http.post("/v1/search", json={"user_id": user, "query": question})
                took.append((time.perf_counter() - started) * 1000)
                assert answer.status_code == 200, answer.text
        return statistics.median(took)


def _child(args: argparse.Namespace) -> None:
    if args.one == "ingest":
        value = _ingest(args.messages, args.traced)
    else:
        value = _search(Path(args.corpus), args.queries, f"user{args.user_size}")
    print(json.dumps({"value": value}))


def _measure(
    what: str, tree: Path, args: argparse.Namespace, corpus: Path, env: dict[str, str]
) -> float:
    command = [
        sys.executable, str(HERE / "observability.py"), "--one", what,
        "--messages", str(args.messages), "--queries", str(args.queries),
        "--user-size", str(args.user_size), "--corpus", str(corpus),
    ]  # fmt: skip
    if "OTEL_EXPORTER_OTLP_ENDPOINT" in env:
        command.append("--traced")
    done = subprocess.run(
        command,
        env={**env, "PYTHONPATH": str(tree)},
        capture_output=True,
        text=True,
        timeout=1200,
    )
    if done.returncode != 0:
        raise SystemExit(f"{what} on {tree} failed:\n{done.stderr[-3000:]}")
    return float(json.loads(done.stdout.strip().splitlines()[-1])["value"])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--before", type=Path, help="a checkout without metrics and tracing")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--messages", type=int, default=30_000)
    parser.add_argument("--total", type=int, default=200_000)
    parser.add_argument("--user-size", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--only", choices=["ingest", "search"], help="measure one of the two")
    parser.add_argument("--one", choices=["ingest", "search"], help=argparse.SUPPRESS)
    parser.add_argument("--traced", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--corpus", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        _child(args)
        return
    if args.before is None:
        parser.error("--before CHECKOUT is required")
    from query import build

    from memstream.testing import SpanReceiver

    this = HERE.parent
    base_env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    with tempfile.TemporaryDirectory() as folder, SpanReceiver() as receiver:
        corpus = Path(folder) / "corpus"
        if args.only != "ingest":
            build(corpus, {f"user{args.user_size}": args.user_size}, args.total)
        traced_env = {
            **base_env,
            "OTEL_EXPORTER_OTLP_ENDPOINT": receiver.endpoint,
            "OTEL_BSP_SCHEDULE_DELAY": "1000",
        }
        variants = {
            "before (no metrics, no tracing)": (args.before, base_env),
            "after, tracing off": (this, base_env),
            "after, tracing on": (this, traced_env),
        }
        results: dict[str, dict[str, list[float]]] = {
            name: {"ingest": [], "search": []} for name in variants
        }
        for round_ in range(1, args.rounds + 1):
            # odd rounds in one order, even rounds in the reverse: a variant's place in
            # the round (measured at 2% between two runs of the same code) cancels out
            order = list(variants.items())
            for name, (tree, env) in order if round_ % 2 else order[::-1]:
                for what in [args.only] if args.only else ["ingest", "search"]:
                    value = _measure(what, tree, args, corpus, env)
                    results[name][what].append(value)
                    unit = "messages/s" if what == "ingest" else "ms p50"
                    print(f"round {round_}: {name}: {what} {value:,.1f} {unit}", flush=True)
        print(f"spans received while tracing: {len(receiver.spans):,}")
    first = next(iter(variants))
    base = {what: statistics.median(v) for what, v in results[first].items() if v}
    print(
        f"\nmedians of {args.rounds} rounds ({args.messages:,} messages; "
        f"{args.queries} searches of a {args.user_size:,}-memory user among {args.total:,}):"
    )
    for name in variants:
        line = f"  {name:<32}"
        for what, unit in (("ingest", "messages/s"), ("search", "ms p50")):
            if results[name][what]:
                value = statistics.median(results[name][what])
                change = (value / base[what] - 1) * 100
                line += f"   {what} {value:,.1f} {unit} ({change:+.1f}%)"
        print(line)


if __name__ == "__main__":
    main()
