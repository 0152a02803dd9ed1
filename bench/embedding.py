"""Embedding throughput and lag under a steady message rate (default 100 messages/s).

Runs ``memstream up`` with the default MiniLM embedder on a fresh folder, publishes
LoCoMo turns (real conversational text, read from ``../shared/bench``) at a fixed rate
for a fixed time, one conversation per user, and samples ``embedding_lag`` (memories
still waiting for a vector) once a second through the API. Prints the lag over time,
the embedding throughput while publishing, and how long the backlog takes to drain;
first, the model's own rate on the same turns (MiniLM alone, in this process, batches of
the agent's default size, before the worker starts), so the pipeline's rate can be set beside it.

Usage: python bench/embedding.py [--rate 100] [--seconds 60] [--context-turns 2]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
import time
from pathlib import Path

from memstream.adapters.embedders import MiniLMEmbedder
from memstream.client import MemoryClient
from memstream.events.codec import from_document
from memstream.projections.episodes import search_text
from memstream.streams.publisher import Publisher
from memstream.testing import WorkerProcess, wait_until


def turns(bench: Path, n: int) -> list:
    rows = [json.loads(x) for x in (bench / "locomo10_events.jsonl").read_text().splitlines()]
    rows = (rows * (n // len(rows) + 1))[:n]
    return [
        from_document(
            {
                "event_id": f"{i}-{r['event_id']}",
                "user_id": r["stream_id"],
                "session_id": f"{r['stream_id']}:{r['session_id']}:{i // len(rows)}",
                "role": "user",
                "speaker": r["speaker"],
                "content": r["content"],
                "occurred_at": r["timestamp"] + "Z",
            }
        )
        for i, r in enumerate(rows)
    ]


async def publish_paced(bootstrap: str, events: list, rate: float) -> None:
    async with Publisher(bootstrap) as publisher:
        started = time.perf_counter()
        step = max(1, int(rate / 10))  # ten sends a second
        for i in range(0, len(events), step):
            await publisher.publish(events[i : i + step])
            delay = started + (i + step) / rate - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rate", type=float, default=100)
    parser.add_argument("--seconds", type=int, default=60)
    parser.add_argument("--context-turns", type=int, default=2)
    parser.add_argument(
        "--lifecycle-off", action="store_true", help="stop the lifecycle timer (consolidation)"
    )
    parser.add_argument(
        "--bench", default=str(Path(__file__).parents[1] / ".." / "shared" / "bench")
    )
    args = parser.parse_args()
    events = turns(Path(args.bench), int(args.rate * args.seconds))
    model_rate = model_alone(events[:2000])
    print(f"the model alone: {model_rate:.0f} turns/s (MiniLM, 2 threads, batches of 256)")
    with tempfile.TemporaryDirectory(prefix="memstream-embed-") as tmp:
        env = {
            "MEMSTREAM_EMBEDDER": "minilm",
            "MEMSTREAM_EMBED_CONTEXT_TURNS": str(args.context_turns),
            "MEMSTREAM_OPTIMIZE_EVERY_SECONDS": "30",
        }
        if args.lifecycle_off:
            env["MEMSTREAM_LIFECYCLE_EVERY_SECONDS"] = "1000000"
        worker = WorkerProcess(Path(tmp) / "data", env=env).start()
        try:
            worker.wait_ready()
            client = MemoryClient(worker.api_url)
            wait_until(lambda: _stats(client) is not None, timeout=120)
            loop_started = time.perf_counter()
            samples: list[tuple[float, int, int]] = []

            async def run() -> None:
                publishing = asyncio.create_task(publish_paced(worker.bootstrap, events, args.rate))
                while not publishing.done() or samples[-1][2] > 0 or samples[-1][1] < len(events):
                    s = await asyncio.to_thread(_stats, client)
                    if s is not None:
                        memories = sum(s["memories"].values())
                        samples.append(
                            (time.perf_counter() - loop_started, memories, s["embedding_lag"])
                        )
                    await asyncio.sleep(1)
                await publishing

            asyncio.run(run())
        finally:
            worker.stop()
    publish_end = len(events) / args.rate
    during = [s for s in samples if s[0] <= publish_end]
    embedded_at_end = during[-1][1] - during[-1][2] if during else 0
    total = samples[-1][0]
    print(
        f"{len(events)} LoCoMo turns at {args.rate:.0f}/s for {args.seconds} s, "
        f"{args.context_turns} context turns, lifecycle timer "
        f"{'stopped' if args.lifecycle_off else 'running'}"
    )
    for t, memories, lag in samples[:: max(1, len(samples) // 15)]:
        print(f"  t={t:6.1f} s  memories {memories:6d}  waiting for a vector {lag:6d}")
    # Seconds behind: what waits for a vector, at the rate it arrives (sampled each second).
    behind = sorted(lag / args.rate for _, _, lag in during) or [0.0]
    print(
        f"embedding lag while publishing (waiting / rate): p50 {behind[len(behind) // 2]:.1f} s, "
        f"p99 {behind[min(len(behind) - 1, int(len(behind) * 0.99))]:.1f} s"
    )
    print(
        f"embedded while publishing: {embedded_at_end / publish_end:.0f}/s; "
        f"max lag {max(s[2] for s in samples)}; all embedded {total:.0f} s after the start "
        f"({total - publish_end:.0f} s after the last publish); overall {len(events) / total:.0f}/s"
    )


def model_alone(events: list) -> float:
    """Turns per second MiniLM embeds by itself (each turn's search text, alone)."""
    embedder = MiniLMEmbedder(threads=2)
    texts = [search_text(e.speaker, e.content) for e in events]
    embedder.embed(texts[:64])  # warm up
    started = time.perf_counter()
    for start in range(0, len(texts), 256):  # the agent's batch (MEMSTREAM_EMBED_BATCH_SIZE)
        embedder.embed(texts[start : start + 256])
    return len(texts) / (time.perf_counter() - started)


def _stats(client: MemoryClient) -> dict | None:
    try:
        return client.stats()
    except Exception:
        return None


if __name__ == "__main__":
    main()
