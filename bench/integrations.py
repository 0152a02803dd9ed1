"""What each framework adapter adds to an agent's turn, against a running server.

``memstream up`` (MiniLM embedder, table upkeep as deployed) holds a user of
``--memories`` LoCoMo turns, all embedded before timing starts. Then, for ``--turns``
LoCoMo questions, one turn after another, each adapter does what it does in a turn:

- **Vercel AI SDK** (Node, the built ``@memstream/client``): ``generateText`` with the
  SDK's test model (answering at once), with and without memstream's middleware, tools
  and ``onFinish``: memory's cost is the difference. The TypeScript client's plain
  search is timed beside it.
- **LangGraph** (``MemstreamStore``): a ``search`` for the question (what a graph reads
  before answering) and a ``put`` of what was learned: by default it returns once reads
  show it (so it includes the worker applying the event); with ``wait_visible=False``,
  once memstream accepted it.
- **OpenAI Agents SDK**: the context filter (one context block), ``get_items`` of the
  session and ``add_items`` of the turn's two items (returning once accepted).
- **Coding agents' hooks**: each host's prompt hook and turn-end hook, run as the host
  runs them (a new process, the payload on standard input).

The embedder is idle when timing starts; the turns stored while timing are embedded
in the background meanwhile (it shares the two cores), and the embedding lag when
timing ends is printed. The lifecycle timer runs, as deployed.

Usage: python bench/integrations.py [--memories 2000] [--turns 40]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hooks import BENCH, embedded_user, percentile
from ingest import DEPLOYED_UPKEEP

from memstream.client import MemoryClient
from memstream.integrations.langgraph import MemstreamStore
from memstream.integrations.openai_agents import MemstreamSession, memory_context
from memstream.testing import WorkerProcess

ROOT = Path(__file__).resolve().parents[1]
TYPESCRIPT = ROOT / "clients" / "typescript"


def summary(name: str, values: list[float]) -> str:
    return f"{name}: p50 {statistics.median(values):.1f} ms, p95 {percentile(values, 0.95):.1f} ms"


def timed(do: Callable[[], Any]) -> float:
    started = time.perf_counter()
    do()
    return (time.perf_counter() - started) * 1000


def ai_sdk(url: str, user: str, questions: list[str], tmp: Path) -> None:
    asked = tmp / "questions.json"
    asked.write_text(json.dumps(questions))
    script = (ROOT / "bench" / "ai_sdk_turns.mjs").read_text()
    env = {**os.environ, "BENCH_URL": url, "BENCH_USER": user, "BENCH_QUESTIONS": str(asked)}
    done = subprocess.run(
        ["node", "--input-type=module", "-e", script], cwd=TYPESCRIPT, env=env,
        capture_output=True, text=True, check=True, timeout=600,
    )  # fmt: skip
    times = json.loads(done.stdout.strip().splitlines()[-1])
    added = [m - p for m, p in zip(times["memory"], times["plain"], strict=True)]
    print("Vercel AI SDK (generateText with the SDK's test model):")
    print(f"  {summary('turn without memory', times['plain'])}")
    print(f"  {summary('turn with middleware + tools + onFinish', times['memory'])}")
    print(f"  {summary('added by memory', added)}")
    print(f"  {summary('TypeScript client search (k=5)', times['search'])}")


def langgraph(client: MemoryClient, user: str, questions: list[str]) -> None:
    print("LangGraph (MemstreamStore):")
    for wait in (True, False):
        store = MemstreamStore(client, wait_visible=wait)
        searched, put = [], []
        for i, question in enumerate(questions):
            searched.append(
                timed(lambda s=store, q=question: s.search((user, "notes"), query=q, limit=5))
            )
            value = {"text": f"Learned in turn {i}: {question}"}
            where = (user, f"notes-{wait}")
            put.append(timed(lambda s=store, w=where, i=i, v=value: s.put(w, f"k{i}", v)))
        how = "returns once list and search show it" if wait else "wait_visible=False: accepted"
        print(f"  {summary('search (query, limit 5)', searched)}")
        print(f"  {summary(f'put ({how})', put)}")
        added = [s + p for s, p in zip(searched, put, strict=True)]
        print(f"  {summary('added per turn (one search, one put)', added)}")


def agents_sdk(client: MemoryClient, user: str, questions: list[str]) -> None:
    from agents.run_config import CallModelData, ModelInputData

    session = MemstreamSession(f"agents-{uuid.uuid4().hex[:6]}", user_id=user, client=client)
    add_context = memory_context(user, client=client)
    filtered, read, added = [], [], []
    for question in questions:
        turn = ModelInputData(input=[{"role": "user", "content": question}], instructions="Help.")
        data = CallModelData(turn, agent=None, context=None)  # type: ignore[arg-type]
        filtered.append(timed(lambda d=data: add_context(d)))
        read.append(timed(lambda: asyncio.run(session.get_items())))
        items: list[Any] = [{"role": "user", "content": question},
                            {"role": "assistant", "content": "An answer."}]  # fmt: skip
        added.append(timed(lambda it=items: asyncio.run(session.add_items(it))))
    print("OpenAI Agents SDK:")
    print(f"  {summary('context filter (one context block)', filtered)}")
    print(f"  {summary(f'session get_items (up to {2 * len(questions)} items)', read)}")
    print(f"  {summary('session add_items (2 items, returns once accepted)', added)}")
    total = [f + r + a for f, r, a in zip(filtered, read, added, strict=True)]
    print(f"  {summary('added per turn', total)}")


HOOKS = {
    "codex": ("UserPromptSubmit", "Stop"),
    "gemini": ("BeforeAgent", "AfterAgent"),
    "cursor": ("beforeSubmitPrompt", "afterAgentResponse"),
}


def hooks(url: str, user: str, questions: list[str], tmp: Path) -> None:
    fixtures = ROOT / "tests" / "fixtures" / "hooks"
    repo = tmp / "repo"
    (repo / ".git").mkdir(parents=True, exist_ok=True)
    print("Coding agents' hooks (a new process each, as the host runs it):")
    for host, events in HOOKS.items():
        took: dict[str, list[float]] = {event: [] for event in events}
        for i, question in enumerate(questions[:20]):
            for event in events:
                payload = (fixtures / host / f"{event}.json").read_text()
                fill = {"CWD": str(repo), "SESSION": f"b-{i}", "TURN": f"t{i}",
                        "PROMPT": question, "ANSWER": "An answer."}  # fmt: skip
                for name, value in fill.items():
                    payload = payload.replace(f"${name}", json.dumps(value)[1:-1])
                command = [sys.executable, "-m", "memstream", "hook", "--host", host, event,
                           "--user", user, "--api", url]  # fmt: skip
                started = time.perf_counter()
                done = subprocess.run(command, input=payload, capture_output=True, text=True)
                took[event].append((time.perf_counter() - started) * 1000)
                if done.returncode != 0 or done.stderr.strip():
                    raise SystemExit(f"{host} {event}: {done.stderr.strip()}")
        print("  " + "; ".join(summary(f"{host} {e}", took[e]) for e in events))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--memories", type=int, default=2000)
    parser.add_argument("--turns", type=int, default=40)
    args = parser.parse_args()
    questions = [
        json.loads(x)["question"]
        for x in (BENCH / "locomo10_questions.jsonl").read_text().splitlines()
    ][: args.turns]
    with tempfile.TemporaryDirectory(prefix="memstream-bench-") as folder:
        tmp = Path(folder)
        worker = WorkerProcess(tmp / "data", env={"MEMSTREAM_EMBEDDER": "minilm",
                                                  **DEPLOYED_UPKEEP})  # fmt: skip
        worker.start()
        try:
            worker.wait_serving(timeout=120)
            api = embedded_user(worker, args.memories)
            print(f"{args.turns} turns per adapter")
            with MemoryClient(worker.api_url) as client:
                ai_sdk(worker.api_url, "dev", questions, tmp)
                langgraph(client, "dev", questions)
                agents_sdk(client, "dev", questions)
                hooks(worker.api_url, "dev", questions, tmp)
            lag = api.get("/v1/stats", params={"user_id": "dev"}).json()["embedding_lag"]
            print(
                f"embedder: {lag} memories not yet embedded when timing ended (it ran in "
                f"the background, on the same cores, for the turns stored while timing)"
            )
        finally:
            worker.stop(timeout=60)


if __name__ == "__main__":
    main()
