"""Read-your-writes benchmark: from publish to readable with the write's token, under load.

Runs ``memstream up`` (embedded Tansu broker, worker, HTTP API) as a child process on a
fresh data folder, then, through the HTTP API as a client would:

1. a background load: ``--rate`` messages a second (default 1,000), in batches of 100
   over 100 users, for ``--seconds``;
2. meanwhile, ``--probers`` probe users (4), each every ``--probe-every`` seconds: one
   message with a word of its own, then at once a search for that word given the
   write's token (``after_write``). The time from sending the message to the search's answer is what
   a caller waits to read its write; every probe's answer is checked to hold the message
   first (a miss is counted and reported). p50/p95/p99/max;
   Half the probers instead search without the token every 50 ms until the message is
   first (what a caller without tokens does): the same time measured by polling, to
   tell what the token's wait adds to the worker's own lag;
3. the cost of a token to a search whose write is long applied: the same searches with
   and without ``after_write`` (alternating, after the load stops), p50 and p99 of each.

The worker's background lanes (the embedder, the lifecycle timer) run as deployed by
default; ``--lanes-stopped`` switches them off. It prints what it ran with.

Usage: python bench/read_your_writes.py [--rate 1000] [--seconds 30] [--probers 4]
       [--lanes-stopped]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import tempfile
import time
from pathlib import Path

import httpx
from ingest import DEPLOYED_UPKEEP, QUIET_LANES, RUNNING_LANES

from memstream.testing import WorkerProcess

BATCH = 100
USERS = 100


def quantiles(values: list[float]) -> str:
    if not values:
        return "none"
    ordered = sorted(values)

    def at(q: float) -> float:
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))]

    return (
        f"p50 {statistics.median(ordered) * 1000:.0f} ms, p95 {at(0.95) * 1000:.0f} ms, "
        f"p99 {at(0.99) * 1000:.0f} ms, max {ordered[-1] * 1000:.0f} ms (n={len(ordered)})"
    )


async def load(api: httpx.AsyncClient, rate: int, seconds: float, sent: list[int]) -> None:
    """``rate`` messages a second in batches of ``BATCH``, for ``seconds``."""
    started = time.perf_counter()
    n = 0
    while (elapsed := time.perf_counter() - started) < seconds:
        due = int(elapsed * rate)
        while n + BATCH <= due:
            batch = [
                {
                    "user_id": f"u{(n + i) % USERS}",
                    "session_id": f"s{(n + i) // 500}",
                    "role": "user",
                    "event_id": f"load-{n + i}",
                    "content": f"note {n + i} about the river, the coffee and the piano",
                }
                for i in range(BATCH)
            ]
            answer = await api.post("/v1/events", json=batch)
            answer.raise_for_status()
            n += BATCH
            sent[0] = n
        await asyncio.sleep(0.01)


async def probes(
    api: httpx.AsyncClient,
    user: str,
    every: float,
    until: float,
    found: list[float],
    missed: list[int],
    polling: bool = False,
) -> None:
    """A message with a word of its own, then at once a search for it with its token
    (``polling``: without it, every 50 ms until the message is first)."""
    i = 0
    while time.perf_counter() < until:
        word = f"probeword{i}z{user}"
        started = time.perf_counter()
        written = await api.post(
            "/v1/events",
            json={"user_id": user, "session_id": "p", "role": "user",
                  "content": f"the probe saw {word}"},
        )  # fmt: skip
        written.raise_for_status()
        token = written.json()["token"]
        asked = {"user_id": user, "query": word, "k": 3}
        answer = await api.post(
            "/v1/search", json=asked if polling else {**asked, "after_write": token}
        )
        while polling and time.perf_counter() - started < 30 and not _first(answer, word):
            await asyncio.sleep(0.05)
            answer = await api.post("/v1/search", json=asked)
        took = time.perf_counter() - started
        results = answer.json().get("results", []) if answer.status_code == 200 else []
        if results and word in results[0]["content"]:
            found.append(took)
        else:
            missed.append(answer.status_code)
        i += 1
        await asyncio.sleep(max(0.0, every - took))


def _first(answer: httpx.Response, word: str) -> bool:
    results = answer.json().get("results", []) if answer.status_code == 200 else []
    return bool(results) and word in results[0]["content"]


async def token_cost(api: httpx.AsyncClient, rounds: int) -> tuple[list[float], list[float]]:
    """Searches of the prober with and without an applied token, alternating."""
    written = await api.post(
        "/v1/events",
        json={"user_id": "prober0", "session_id": "p", "role": "user", "content": "last probe"},
    )
    token = written.json()["token"]
    plain: list[float] = []
    waited: list[float] = []
    for i in range(rounds):
        for into, extra in ((plain, {}), (waited, {"after_write": token})):
            query = {"user_id": "prober0", "query": f"probe saw {i % 7}", "k": 10, **extra}
            started = time.perf_counter()
            answer = await api.post("/v1/search", json=query)
            into.append(time.perf_counter() - started)
            answer.raise_for_status()
    return plain, waited


async def run(url: str, rate: int, seconds: float, every: float, probers: int) -> None:
    limits = httpx.Limits(max_connections=8)
    async with (
        httpx.AsyncClient(base_url=url, timeout=60, limits=limits) as loader,
        httpx.AsyncClient(base_url=url, timeout=60) as prober,
    ):
        sent = [0]
        found: list[float] = []
        polled: list[float] = []
        missed: list[int] = []
        started = time.perf_counter()
        await asyncio.gather(
            load(loader, rate, seconds, sent),
            *(
                probes(
                    prober,
                    f"prober{p}",
                    every,
                    started + seconds,
                    polled if p % 2 else found,
                    missed,
                    polling=bool(p % 2),
                )
                for p in range(probers)
            ),
        )
        took = time.perf_counter() - started
        print(f"load: {sent[0]:,} messages in {took:.1f} s ({sent[0] / took:,.0f} msg/s)")
        print(f"publish to readable with the token:      {quantiles(found)}")
        print(f"publish to first found, polling 50 ms:   {quantiles(polled)}")
        print(f"probes not first or refused: {len(missed)} {missed[:10]}")
        plain, waited = await token_cost(prober, 200)
        print(f"search without a token:        {quantiles(plain)}")
        print(f"search with an applied token:  {quantiles(waited)}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rate", type=int, default=1000)
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--probe-every", type=float, default=0.25)
    parser.add_argument("--probers", type=int, default=4)
    parser.add_argument("--lanes-stopped", action="store_true")
    args = parser.parse_args()
    lanes = QUIET_LANES if args.lanes_stopped else RUNNING_LANES
    print(
        f"background lanes: embedder and lifecycle timer "
        f"{'stopped' if args.lanes_stopped else 'running'}; {os.cpu_count()} cores; "
        f"load {args.rate} msg/s for {args.seconds:g} s, {args.probers} probers each every "
        f"{args.probe_every:g} s",
        flush=True,
    )
    with tempfile.TemporaryDirectory() as folder:
        worker = WorkerProcess(Path(folder) / "data", env={**DEPLOYED_UPKEEP, **lanes}).start()
        try:
            worker.wait_serving(timeout=120)
            asyncio.run(
                run(worker.api_url, args.rate, args.seconds, args.probe_every, args.probers)
            )
        finally:
            worker.stop(timeout=60)


if __name__ == "__main__":
    main()
