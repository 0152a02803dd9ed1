"""What MCP costs an agent: a tool call over stdio against the same operation called in
process.

On the LoCoMo store ``bench/context.py`` builds (``--data``; built here when missing), a
worker runs with its embedder lane off and its lifecycle timer idle (every 24 h), so
nothing else competes for the cores. For each question of one conversation, three paths
answer the same call, one after another:

- the operation in process (:class:`~memstream.application.Operations`, what every front
  door calls);
- the MCP server in process (the SDK's client and server over memory streams);
- ``memstream mcp --user U`` over stdio, started as Claude Desktop starts it.

Every path is warmed on all the questions first (so each has the query embeddings
cached and its tables open), and the paths take turns on each question: what differs
between them is the protocol, not the work. Printed: p50/p99 per path and tool, and the
overhead of stdio MCP over the operation.

Usage: python bench/mcp_overhead.py [--data FOLDER] [--user conv-26] [--rounds 3]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from context import ingest
from locomo import read_jsonl
from mcp import Client, StdioServerParameters

from memstream.application import Operations
from memstream.mcp.scope import Scope
from memstream.mcp.server import memory_server
from memstream.queries.search.searcher import SearchRequest
from memstream.settings import Settings
from memstream.storage import filters
from memstream.storage.lance.tables import ENTITIES
from memstream.storage.layout import DataLayout
from memstream.testing import WorkerProcess

Call = Callable[[str], Awaitable[Any]]
PATHS = ("operation in process", "MCP in process", "MCP over stdio")


async def interleaved(calls: dict[str, Call], inputs: list[str], rounds: int) -> dict[str, float]:
    """Each input through every path in turn (so drift in the machine's load falls on all
    alike), after a warming pass; prints and answers each path's p50."""
    for text in inputs:
        for call in calls.values():
            await call(text)
    took: dict[str, list[float]] = {path: [] for path in calls}
    for _ in range(rounds):
        for text in inputs:
            for path, call in calls.items():
                started = time.perf_counter()
                await call(text)
                took[path].append((time.perf_counter() - started) * 1000)
    return {path: line(path, values) for path, values in took.items()}


def line(label: str, took: list[float]) -> float:
    took = sorted(took)
    p50 = statistics.median(took)
    p99 = took[max(0, int(len(took) * 0.99) - 1)]
    print(f"  {label:<22} p50 {p50:6.2f} ms   p99 {p99:6.2f} ms   ({len(took)} calls)")
    return p50


async def measure(settings: Settings, user: str, queries: list[str], rounds: int) -> None:
    # The same read consistency as the servers: each read first checks for new versions.
    operations = Operations(
        settings, read_consistency_seconds=settings.api_read_consistency_seconds
    )
    known = operations.store.scan(
        ENTITIES,
        ["canonical_name"],
        filters.all_of(filters.equals("user_id", user), filters.equals("type", "person")),
    )
    names = sorted(known.column("canonical_name").to_pylist())[:40]
    command = shutil.which("memstream", path=str(Path(sys.executable).parent))
    assert command is not None
    stdio = StdioServerParameters(
        command=command,
        args=["mcp", "--user", user],
        env={
            **os.environ,
            "MEMSTREAM_DATA": settings.data,
            "MEMSTREAM_BROKER_PORT": str(settings.broker_port),
        },
    )
    async with (
        Client(memory_server(operations, Scope(user))) as in_process,
        Client(stdio) as over_stdio,
    ):
        for tool, argument, inputs, operation in (
            ("search_memory", "query", queries, _search(operations, user)),
            ("get_entity_info", "name", names, _entity(operations, user)),
        ):
            print(f"{tool} ({len(inputs)} inputs x {rounds} rounds):")
            p50 = await interleaved(
                {
                    PATHS[0]: operation,
                    PATHS[1]: _tool(in_process, tool, argument),
                    PATHS[2]: _tool(over_stdio, tool, argument),
                },
                inputs,
                rounds,
            )
            print(
                f"  stdio MCP adds {p50[PATHS[2]] - p50[PATHS[0]]:.2f} ms at p50 to the "
                f"operation (in-process MCP {p50[PATHS[1]] - p50[PATHS[0]]:.2f} ms)"
            )
    await operations.close()


def _search(operations: Operations, user: str) -> Call:
    async def call(query: str) -> Any:
        return (await operations.reads.search(SearchRequest(user_id=user, query=query))).results

    return call


def _entity(operations: Operations, user: str) -> Call:
    async def call(name: str) -> Any:
        return await operations.reads.entity(user, name)

    return call


def _tool(client: Client, tool: str, argument: str) -> Call:
    async def call(text: str) -> Any:
        result = await client.call_tool(tool, {argument: text})
        assert not result.is_error, result.content
        return result

    return call


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument(
        "--bench", default=str(Path(__file__).parents[1] / ".." / "shared" / "bench")
    )
    parser.add_argument("--data", help="the LoCoMo data folder bench/context.py keeps")
    parser.add_argument("--user", default="conv-26")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    bench = Path(args.bench).resolve()
    questions = read_jsonl(bench / "locomo10_questions.jsonl")
    queries = [q["question"] for q in questions if q["stream_id"] == args.user]
    with tempfile.TemporaryDirectory(prefix="memstream-mcp-") as tmp:
        data = Path(args.data) if args.data else Path(tmp) / "data"
        if DataLayout(Settings(data=str(data)).data_location).existing_projections() is None:
            ingest(data, read_jsonl(bench / "locomo10_events.jsonl"))
        worker = WorkerProcess(
            data, env={"MEMSTREAM_EMBEDDER": "none", "MEMSTREAM_LIFECYCLE_EVERY_SECONDS": "86400"}
        ).start()
        try:
            worker.wait_serving(timeout=120)
            settings = Settings(data=str(data), embedder="minilm", broker_port=worker.broker_port)
            print(
                f"{len(queries)} questions of {args.user}, {args.rounds} rounds each; "
                "worker running with no embedder lane and an idle lifecycle timer"
            )
            asyncio.run(measure(settings, args.user, queries, args.rounds))
        finally:
            worker.stop(timeout=120)


if __name__ == "__main__":
    main()
