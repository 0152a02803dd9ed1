"""What recording what was served costs a search and a context block.

Two deployments (``memstream up``: embedded Tansu broker, worker, HTTP API) run side by
side on fresh data folders, one recording every answer it gives (``served_log``, the
default) and one not (``MEMSTREAM_SERVED_LOG=false``). Each is given the same
``--messages`` messages of one user, and once both have applied them, the same
searches and context blocks are asked of each over HTTP, as an agent asks
(``Memstream-Agent`` and ``Memstream-Session`` headers), alternating between the two
deployments round by round so that both see the machine alike. Printed: p50 and p99
of each (the client's wall time per request), and how many answers the recording
deployment's worker had applied to its ``served`` table when it stopped.

What recording adds to a request: the answer's lines as ids (a pass over the block)
and the event, built before the answer is sent; its publish (sealed under the user's
key, through the broker) runs after, beside the next requests, and the worker applies
it in the background: both take the same two cores the reads use, which is why the
whole deployment is measured and not the request alone.

Background lanes: the embedder and the lifecycle timer are stopped in both (full text,
names and time only), so the recording's cost is not lost in theirs.

Usage: python bench/served.py [--messages 2000] [--rounds 20] [--per-round 25]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import httpx
from ingest import QUIET_LANES

from memstream.storage.filesystems import resolve_location
from memstream.storage.lance.store import ProjectionStore
from memstream.storage.lance.tables import SERVED
from memstream.storage.layout import DataLayout
from memstream.testing import WorkerProcess, wait_until

WORDS = ["garden", "lisbon", "porto", "bike", "office", "train", "coffee", "piano", "sister",
         "doctor", "flat", "cello", "tea", "market", "lease", "boxes", "ferry", "rain"]  # fmt: skip
NAMES = ["Maria", "Rita", "Sam", "Elena", "Tomas", "Ines"]
QUESTIONS = [
    "Where does Rita live now?",
    "What did Maria say about the flat in Porto?",
    "When is the ferry to Lisbon?",
    "Who plays the cello?",
    "What happened at the market with Sam?",
]
AGENT = {"Memstream-Agent": "bench-agent", "Memstream-Session": "bench-1"}


def _messages(count: int) -> list[dict[str, object]]:
    said = []
    for i in range(count):
        name = NAMES[i % len(NAMES)]
        words = " ".join(WORDS[(i * 7 + j) % len(WORDS)] for j in range(6))
        said.append({
            "event_id": f"m{i}", "user_id": "ana", "session_id": f"s{i // 40}",
            "role": "user" if i % 2 == 0 else "assistant", "speaker": "Ana",
            "content": f"{name} and I talked about the {words} on day {i // 40}.",
            "occurred_at": f"2026-11-{1 + (i // 200) % 28:02d}T{8 + i % 12:02d}:00:00+00:00",
        })  # fmt: skip
    return said


def _load(worker: WorkerProcess, said: list[dict[str, object]]) -> None:
    for start in range(0, len(said), 500):
        answer = httpx.post(f"{worker.api_url}/v1/events", json=said[start : start + 500],
                            timeout=60)  # fmt: skip
        answer.raise_for_status()

    def applied() -> bool:
        stats = httpx.get(f"{worker.api_url}/v1/stats", params={"user_id": "ana"}, timeout=30)
        return bool(stats.json()["memories"].get("episode", 0) >= len(said))

    wait_until(applied, timeout=600, interval=1.0)


#: Answers that held something, per deployment (an empty one is not recorded).
GIVEN: dict[str, int] = {}


def _timed(client: httpx.Client, path: str, body: dict[str, object]) -> float:
    started = time.perf_counter()
    answer = client.post(path, json=body, headers=AGENT)
    took = (time.perf_counter() - started) * 1000
    answer.raise_for_status()
    found = answer.json()
    if found.get("results") or found.get("context"):
        GIVEN[str(client.base_url)] = GIVEN.get(str(client.base_url), 0) + 1
    return took


def _percentiles(samples: list[float]) -> str:
    ordered = sorted(samples)
    p99 = ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]
    return f"p50 {statistics.median(ordered):6.1f} ms  p99 {p99:6.1f} ms  (n={len(ordered)})"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--messages", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--per-round", type=int, default=25)
    args = parser.parse_args()
    print("background lanes: embedder stopped, lifecycle timer stopped (both deployments)")
    said = _messages(args.messages)
    with tempfile.TemporaryDirectory() as folder:
        deployments = {
            mode: WorkerProcess(
                Path(folder) / mode, env={**QUIET_LANES, "MEMSTREAM_SERVED_LOG": flag}
            ).start()
            for mode, flag in (("recording", "true"), ("not recording", "false"))
        }
        try:
            for worker in deployments.values():
                worker.wait_ready()
                _load(worker, said)
            print(f"loaded {args.messages} messages of one user into each deployment")
            took: dict[tuple[str, str], list[float]] = {}
            clients = {mode: httpx.Client(base_url=w.api_url, timeout=60)
                       for mode, w in deployments.items()}  # fmt: skip
            for client in clients.values():  # warm both: models, caches, connections
                for question in QUESTIONS:
                    _timed(client, "/v1/search", {"user_id": "ana", "query": question})
                    _timed(client, "/v1/context", {"user_id": "ana", "query": question})
            for round_ in range(args.rounds):
                order = list(clients) if round_ % 2 == 0 else list(reversed(clients))
                for mode in order:
                    for i in range(args.per_round):
                        body = {"user_id": "ana", "query": QUESTIONS[i % len(QUESTIONS)]}
                        for route in ("search", "context"):
                            took.setdefault((route, mode), []).append(
                                _timed(clients[mode], f"/v1/{route}", body)
                            )
            for route in ("search", "context"):
                for mode in clients:
                    print(f"{route:>8} {mode:>14}: {_percentiles(took[(route, mode)])}")
            asked = GIVEN[str(clients["recording"].base_url)]
            for client in clients.values():
                client.close()
            time.sleep(3)  # the last reports reach the log and the worker
        finally:
            for worker in deployments.values():
                worker.stop()
        data = resolve_location(str(Path(folder) / "recording"))
        held = ProjectionStore.at(DataLayout(data).projections()).count(SERVED)
        said_log = deployments["recording"].log_path.read_text(errors="replace")
        lost = said_log.count("could not publish")
        if lost:
            print(f"reports the recording deployment could not publish: {lost}")
            print("\n".join(line for line in said_log.splitlines() if "could not" in line)[:2000])
        print(f"answers that held memories the recording deployment gave: {asked}; recorded "
              f"in its served table: {held}")  # fmt: skip


if __name__ == "__main__":
    main()
