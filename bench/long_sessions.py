"""Consolidating long coding sessions: a round's time and the vector lag beside it.

Each of ``--users`` users (default 30) gets the corpus's coding conversations
(``tests/fixtures/conversations``, kind ``coding``: eleven, four of them with answers of
2,000 to 5,600 characters) as their history. Everything is published at once to
``memstream up`` (embedded Tansu broker, worker with the MiniLM embedder lane and the
lifecycle timer, HTTP API), then, every half second until every turn has its vector and
consolidation has stopped adding facts for 25 s, the bench reads the embedding lag
(memories without a vector, from ``stats``). It prints how long ingest and embedding took, the
consolidation rounds (count, mean and longest, from the worker's
``memstream_lifecycle_run_duration_seconds`` and its log), and the largest vector lag
and how long the lag lasted, once with the default bound on a round's text
(``MEMSTREAM_CONSOLIDATE_CHARACTERS_PER_TICK``, 400,000) and once without one.

Nothing else runs beside it: the worker's own lanes (the embedder, the lifecycle timer)
are what is measured.

Usage: python bench/long_sessions.py [--users 30] [--only bounded|unbounded]
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).parent))

from corpus import read_corpus
from locomo import serving

from memstream.client import MemoryClient
from memstream.testing import WorkerProcess

UNBOUNDED = str(10**12)
_ROUND = re.compile(r"lifecycle: published (\d+) events \(([\d.]+) s\)")


def histories(users: int) -> tuple[list[dict], list[dict], int]:
    """The events of every user's history (the coding conversations, in time order),
    the session ends, and the characters of all their turns."""
    corpus = read_corpus()
    coding = [t for t in corpus.turns if corpus.kinds[t["stream_id"]] == "coding"]
    coding.sort(key=lambda t: (t["timestamp"], t["event_id"]))
    events, ends = [], []
    for n in range(users):
        user = f"dev-{n:03d}"
        for t in coding:
            events.append(
                {
                    "event_id": f"{user}-{t['event_id'].replace(':', '-')}",
                    "user_id": user,
                    "session_id": f"{t['stream_id']}-{t['session_id']}",
                    "role": t["role"],
                    "speaker": t["speaker"],
                    "content": t["content"],
                    "occurred_at": t["timestamp"] + "Z",
                }
            )
        last = events[-1]
        ends.append(
            {
                "type": "session_ended",
                "user_id": user,
                "session_id": last["session_id"],
                "occurred_at": last["occurred_at"],
            }
        )
    return events, ends, sum(len(e["content"]) for e in events)


def measure(events: list[dict], ends: list[dict], env: dict[str, str]) -> dict[str, float]:
    """Publish, then sample the lag until done; the figures of one run."""
    with tempfile.TemporaryDirectory(prefix="memstream-long-") as tmp:
        log = Path(tmp) / "worker.log"
        worker = WorkerProcess(Path(tmp) / "data", env=env, log_path=log).start()
        try:
            client = serving(worker)
            started = time.perf_counter()
            for at in range(0, len(events), 200):
                client.publish(events[at : at + 200])
            client.publish(ends)
            figures = _sample(client, len(events), started)
            figures.update(_rounds(worker, log))
        finally:
            worker.stop()
    return figures


def _sample(client: MemoryClient, turns: int, started: float) -> dict[str, float]:
    most_lag, lag_seconds, embedded_at = 0, 0.0, None
    facts, facts_changed = -1, time.perf_counter()
    last = time.perf_counter()
    while True:
        time.sleep(0.5)
        stats = client.stats()
        now = time.perf_counter()
        episodes = stats["memories"].get("episode", 0)
        lag = stats["embedding_lag"] + (turns - episodes)  # not yet a memory: no vector
        most_lag = max(most_lag, lag)
        if lag:
            lag_seconds += now - last
        elif embedded_at is None and episodes == turns:
            embedded_at = now - started
        last = now
        derived = sum(n for kind, n in stats["memories"].items() if kind != "episode")
        if derived != facts:
            facts, facts_changed = derived, now
        if embedded_at is not None and now - facts_changed > 25:
            return {
                "embedded_s": embedded_at,
                "facts": facts,
                "facts_done_s": facts_changed - started,
                "most_lag": most_lag,
                "lag_s": lag_seconds,
            }
        if now - started > 3600:
            raise TimeoutError("not done in an hour")


def _rounds(worker: WorkerProcess, log: Path) -> dict[str, float]:
    """The consolidation job's runs (count, total seconds) from the worker's metrics, and
    the longest tick (consolidation and publishing) from its log."""
    text = httpx.get(f"{worker.metrics_url}/metrics", timeout=10).text

    def series(name: str) -> float:
        found = re.search(rf'^{name}{{job="consolidate"}} ([\d.e+-]+)$', text, re.M)
        return float(found.group(1)) if found else 0.0

    ticks = [float(s) for n, s in _ROUND.findall(log.read_text()) if int(n)]
    return {
        "rounds": series("memstream_lifecycle_run_duration_seconds_count"),
        "round_total_s": series("memstream_lifecycle_run_duration_seconds_sum"),
        "longest_tick_s": max(ticks, default=0.0),
        "ticks_publishing": len(ticks),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--users", type=int, default=30)
    parser.add_argument("--only", choices=["bounded", "unbounded"])
    args = parser.parse_args()
    events, ends, characters = histories(args.users)
    sessions = len({(e["user_id"], e["session_id"]) for e in events})
    print(
        f"{args.users} users, {len(events)} turns in {sessions} sessions, {characters:,} characters"
    )
    runs = {
        "bounded (400,000 characters a round)": {"MEMSTREAM_EMBEDDER": "minilm"},
        "unbounded": {
            "MEMSTREAM_EMBEDDER": "minilm",
            "MEMSTREAM_CONSOLIDATE_CHARACTERS_PER_TICK": UNBOUNDED,
        },
    }
    for label, env in runs.items():
        if args.only and not label.startswith(args.only):
            continue
        f = measure(events, ends, env)
        mean = f["round_total_s"] / f["rounds"] if f["rounds"] else 0.0
        print(
            f"\n{label}:\n"
            f"  every turn embedded after {f['embedded_s']:.1f} s; "
            f"{f['facts']:.0f} facts, the last after {f['facts_done_s']:.1f} s\n"
            f"  consolidation: {f['rounds']:.0f} runs, mean {mean:.2f} s, "
            f"{f['round_total_s']:.1f} s in all; longest tick {f['longest_tick_s']:.2f} s\n"
            f"  vector lag: at most {f['most_lag']:.0f} memories, "
            f"above 0 for {f['lag_s']:.1f} s",
            flush=True,
        )


if __name__ == "__main__":
    main()
