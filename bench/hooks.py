"""Coding-agent hooks, export and import, timed against running deployments.

1. Hooks. ``memstream up`` (MiniLM embedder, table upkeep as deployed) holds a user of
   ``--memories`` LoCoMo turns (10,000), all embedded before timing starts. Then:
   - the inject path: ``memstream hook prompt`` run as a coding agent runs it (a new
     process, the hook's JSON on stdin, the context block on stdout) for ``--prompts``
     LoCoMo questions, one after the other: p50 / p99 of the whole process, and of the
     server's context operation alone (``took_ms``);
   - capture: ``memstream hook stop`` of a 500-turn Claude Code transcript (with tool
     calls between the turns): how long the hook takes, and until every turn is listed.
   The embedder is idle while the hooks are timed (every vector was computed before);
   the lifecycle timer runs, as deployed, and the lines it logged meanwhile are counted.
2. Export and import of a user of ``--export-memories`` turns (100,000), between two
   deployments with the background lanes off (no embedder, no lifecycle timer: the
   figures are of the export and the import alone): ``memstream export`` (events per
   second), ``memstream import`` into an empty deployment (events per second published),
   and until the imported user's digest equals the exported one (events per second
   applied).

Usage: python bench/hooks.py [--memories 10000] [--prompts 40] [--export-memories 100000]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
from ingest import DEPLOYED_UPKEEP, QUIET_LANES

from memstream.testing import WorkerProcess, wait_until

MEMSTREAM = [sys.executable, "-m", "memstream"]
BENCH = Path(__file__).parents[1] / ".." / "shared" / "bench"


def turns(user: str, count: int, tag: str = "") -> list[dict[str, Any]]:
    """``count`` LoCoMo turns for ``user`` (the conversations again, as new sessions,
    when more are asked for than there are)."""
    rows = [json.loads(x) for x in (BENCH / "locomo10_events.jsonl").read_text().splitlines()]
    out = []
    for i in range(count):
        r, lap = rows[i % len(rows)], i // len(rows)
        out.append(
            {
                "event_id": f"{tag}{user}-{i}",
                "user_id": user,
                "session_id": f"{r['stream_id']}-{r['session_id']}-{lap}",
                "role": "user",
                "speaker": r["speaker"],
                "content": r["content"],
                "occurred_at": r["timestamp"] + "Z",
            }
        )
    return out


def publish(api: httpx.Client, events: list[dict[str, Any]]) -> None:
    for start in range(0, len(events), 1000):
        answer = api.post("/v1/events", json=events[start : start + 1000])
        answer.raise_for_status()


def count(api: httpx.Client, user: str, what: str = "episode") -> int:
    stats = api.get("/v1/stats", params={"user_id": user}).json()
    return int(stats.get("memories", {}).get(what, 0))


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def transcript(path: Path, pairs: int) -> None:
    """A Claude Code transcript of ``pairs`` user and assistant turns, a tool call and
    its result between each pair."""
    lines: list[dict[str, Any]] = []
    for i in range(pairs):
        at = f"2026-11-20T{10 + i // 60 % 12:02d}:{i % 60:02d}:00.000Z"
        base = {"sessionId": "bench-session", "timestamp": at, "isSidechain": False}
        tool = {"type": "tool_use", "id": f"tool{i}", "name": "Edit", "input": {"path": f"{i}"}}
        result = {"type": "tool_result", "tool_use_id": f"tool{i}", "content": "ok"}
        said = {"type": "text", "text": f"Module {i} is done."}
        for uuid, kind, content in (
            (f"u{i}", "user", f"Step {i}: refactor module {i}."),
            (f"t{i}", "assistant", [tool]),
            (f"r{i}", "user", [result]),
            (f"a{i}", "assistant", [said]),
        ):
            message = {"role": kind, "content": content}
            lines.append({**base, "type": kind, "uuid": uuid, "message": message})
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))


def run_hook(
    event: str, payload: dict[str, Any], url: str, env: dict[str, str]
) -> tuple[float, str]:
    started = time.perf_counter()
    done = subprocess.run(
        [*MEMSTREAM, "hook", event, "--user", "dev", "--api", url],
        input=json.dumps(payload), capture_output=True, text=True, env=env,
    )  # fmt: skip
    took = time.perf_counter() - started
    if done.returncode != 0 or done.stderr.strip():
        raise SystemExit(f"memstream hook {event}: {done.stderr.strip()}")
    return took, done.stdout


def timed_until(check: Callable[[], bool], timeout: float = 3600) -> float:
    started = time.perf_counter()
    wait_until(check, timeout=timeout, interval=0.1)
    return time.perf_counter() - started


def embedded_user(worker: WorkerProcess, memories: int) -> httpx.Client:
    """Give the serving ``worker`` a user ``dev`` of ``memories`` LoCoMo turns, wait until
    every one is applied and embedded, say how long that took; a client of its API."""
    api = httpx.Client(base_url=worker.api_url, timeout=120)
    publish(api, turns("dev", memories))
    waited = timed_until(lambda: count(api, "dev") >= memories)
    embedded = timed_until(
        lambda: api.get("/v1/stats", params={"user_id": "dev"}).json()["embedding_lag"] == 0
    )
    print(f"user dev: {memories:,} memories applied in {waited:.1f} s, "
          f"embedded {embedded:.1f} s later (the embedder is idle from here on)")  # fmt: skip
    return api


def hooks(args: argparse.Namespace, tmp: Path) -> None:
    worker = WorkerProcess(tmp / "hooks", env={"MEMSTREAM_EMBEDDER": "minilm", **DEPLOYED_UPKEEP})
    worker.start()
    try:
        worker.wait_serving(timeout=120)
        api = embedded_user(worker, args.memories)
        questions = [
            json.loads(x)["question"]
            for x in (BENCH / "locomo10_questions.jsonl").read_text().splitlines()
        ][: args.prompts]
        repo = tmp / "repo"
        # the repo stands in for Claude Code's folder: transcripts are read only from there
        env = {**os.environ, "XDG_STATE_HOME": str(tmp / "state"), "CLAUDE_CONFIG_DIR": str(repo)}
        (repo / ".git").mkdir(parents=True)
        log_before = len(worker.log().splitlines())
        walls, server = [], []
        for question in questions:
            payload = {"session_id": "s", "cwd": str(repo), "prompt": question,
                       "hook_event_name": "UserPromptSubmit", "transcript_path": ""}  # fmt: skip
            took, out = run_hook("prompt", payload, worker.api_url, env)
            walls.append(took * 1000)
            ask = {"user_id": "dev", "query": question, "budget_tokens": 600,
                   "project_id": "repo"}  # fmt: skip
            server.append(api.post("/v1/context", json=ask).json()["took_ms"])
            assert not out or "additionalContext" in out
        print(f"inject (memstream hook prompt, {len(walls)} prompts, a new process each): "
              f"p50 {statistics.median(walls):.0f} ms, p99 {percentile(walls, 0.99):.0f} ms; "
              f"the server's context operation p50 {statistics.median(server):.1f} ms, "
              f"p99 {percentile(server, 0.99):.1f} ms")  # fmt: skip
        path = repo / "transcript.jsonl"
        transcript(path, args.turns // 2)
        payload = {"session_id": "bench-session", "transcript_path": str(path), "cwd": str(repo),
                   "hook_event_name": "Stop"}  # fmt: skip
        before = count(api, "dev")
        took, _ = run_hook("stop", payload, worker.api_url, env)
        listed = timed_until(lambda: count(api, "dev") >= before + args.turns)
        print(f"capture (memstream hook stop, a {args.turns}-turn transcript with "
              f"{args.turns // 2} tool calls): the hook took {took * 1000:.0f} ms, every turn "
              f"listed {listed * 1000:.0f} ms after it returned "
              f"({args.turns / (took + listed):,.0f} turns/s)")  # fmt: skip
        again, _ = run_hook("stop", payload, worker.api_url, env)
        print(f"the same hook fired again (nothing new): {again * 1000:.0f} ms")
        lifecycle = sum("lifecycle" in line for line in worker.log().splitlines()[log_before:])
        print(f"lifecycle timer (running, as deployed): {lifecycle} log lines while timing")
    finally:
        worker.stop(timeout=60)


def export_import(args: argparse.Namespace, tmp: Path) -> None:
    source = WorkerProcess(tmp / "source", env=QUIET_LANES).start()
    target = WorkerProcess(tmp / "target", env=QUIET_LANES).start()
    try:
        source.wait_serving(timeout=120)
        target.wait_serving(timeout=120)
        api = httpx.Client(base_url=source.api_url, timeout=120)
        publish(api, turns("big", args.export_memories, "x"))
        wait_until(lambda: count(api, "big") >= args.export_memories, timeout=3600)
        digest = subprocess.run(
            [*MEMSTREAM, "digest", "--user", "big", "--data", str(source.data)],
            capture_output=True, text=True, check=True,
        ).stdout  # fmt: skip
        exported = tmp / "big.jsonl"
        started = time.perf_counter()
        subprocess.run(
            [*MEMSTREAM, "export", "--user", "big", "-o", str(exported), "--data",
             str(source.data)], check=True,
        )  # fmt: skip
        took = time.perf_counter() - started
        events = len(exported.read_bytes().splitlines()) - 1
        size = exported.stat().st_size / 1e6
        print(f"export of {events:,} events ({size:.0f} MB): {took:.1f} s, "
              f"{events / took:,.0f} events/s")  # fmt: skip
        started = time.perf_counter()
        subprocess.run(
            [*MEMSTREAM, "import", "--user", "big", str(exported), "--data", str(target.data),
             "--kafka", target.bootstrap], check=True, capture_output=True,
        )  # fmt: skip
        published = time.perf_counter() - started

        def same() -> bool:
            there = subprocess.run(
                [*MEMSTREAM, "digest", "--user", "big", "--data", str(target.data)],
                capture_output=True, text=True,
            )  # fmt: skip
            return there.stdout == digest

        applied = published + timed_until(same)
        print(f"import into an empty deployment: published in {published:.1f} s "
              f"({events / published:,.0f} events/s), the same digest after {applied:.1f} s "
              f"({events / applied:,.0f} events/s)")  # fmt: skip
    finally:
        source.stop(timeout=120)
        target.stop(timeout=120)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--prompts", type=int, default=40)
    parser.add_argument("--turns", type=int, default=500)
    parser.add_argument("--export-memories", type=int, default=100_000)
    parser.add_argument("--skip", choices=("hooks", "export"), help="leave one part out")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="memstream-hooks-") as folder:
        tmp = Path(folder)
        if args.skip != "hooks":
            hooks(args, tmp)
        if args.skip != "export":
            export_import(args, tmp)


if __name__ == "__main__":
    main()
