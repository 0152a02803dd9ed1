"""The MCP server, driven by the ``mcp`` SDK's own client: in process over a real store
(every tool's schema, reads, errors), and over stdio as ``memstream mcp`` against a real
worker (the configuration `memstream mcp --print-config` prints starts it)."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp import Client, MCPError, StdioServerParameters
from support.doc_blocks import doc_blocks

from memstream.application import Operations
from memstream.mcp.scope import Scope
from memstream.mcp.server import memory_server
from memstream.mcp.tools import TOOLS
from memstream.storage.write_tokens import WriteToken
from memstream.testing import WorkerProcess


def _call(operations: Operations, *calls: tuple[str, dict[str, Any]]) -> list[Any]:
    async def run() -> list[Any]:
        async with Client(memory_server(operations, Scope("ana"))) as client:
            return [await client.call_tool(name, arguments) for name, arguments in calls]

    return asyncio.run(run())


def test_the_tools_are_listed_with_schemas_and_no_user_argument(
    operations: Operations,
) -> None:
    async def run() -> Any:
        async with Client(memory_server(operations, Scope("ana"))) as client:
            return (await client.list_tools()).tools

    tools = asyncio.run(run())
    assert [t.name for t in tools] == list(TOOLS)
    for tool in tools:
        properties = tool.input_schema.get("properties", {})
        assert not {"user_id", "user", "project_id"} & set(properties), tool.name
        assert tool.description
    search = next(t for t in tools if t.name == "search_memory")
    assert search.input_schema["required"] == ["query"]
    assert set(search.input_schema["properties"]) == {
        "query", "kind", "tag", "entity", "after", "before", "limit", "min_similarity",
        "after_write", "as_of",
    }  # fmt: skip


def test_reads_answer_for_the_bound_user_only(operations: Operations) -> None:
    found, context, entity, stats = _call(
        operations,
        ("search_memory", {"query": "Miso", "entity": "Miso"}),
        ("get_context", {"query": "What does Miso like to eat?"}),
        ("get_entity_info", {"name": "Miso"}),
        ("memory_stats", {}),
    )
    assert not found.is_error
    results = found.structured_content["results"]
    assert found.structured_content["freshness"]["position"].startswith("w1.")
    assert context.structured_content["freshness"]["position"].startswith("w1.")
    assert sorted(r["content"] for r in results) == [
        "Ana's cat Miso likes tuna.",  # the correction; the sardines it replaced are history
        "I live in Lisbon with my cat Miso.",
    ]
    assert all("Miso" in r["entities"] for r in results)
    assert "Ana's cat Miso likes tuna." in context.structured_content["context"]
    assert entity.structured_content["name"] == "Miso"
    assert stats.structured_content["user_id"] == "ana"
    (bob,) = asyncio.run(_bob(operations))
    assert bob.structured_content["results"] == []


def test_reads_as_of_a_past_moment(operations: Operations) -> None:
    remembered = WriteToken("e1", {("memory.commands", 0): 0}).text()  # before the correction
    then, block, now = _call(
        operations,
        ("search_memory", {"query": "Miso likes", "as_of": remembered}),
        ("get_context", {"query": "What does Miso like to eat?", "as_of": remembered}),
        ("search_memory", {"query": "Miso likes"}),
    )
    said_then = [r["content"] for r in then.structured_content["results"]]
    assert "Ana's cat Miso likes sardines." in said_then
    assert "Ana's cat Miso likes tuna." not in said_then
    assert then.structured_content["as_of"]["asked"] == remembered
    assert "sardines" in block.structured_content["context"]
    assert "tuna" not in block.structured_content["context"]
    assert block.structured_content["as_of"]["position"].startswith("w1.")
    assert "Ana's cat Miso likes tuna." in [r["content"] for r in now.structured_content["results"]]


async def _bob(operations: Operations) -> list[Any]:
    async with Client(memory_server(operations, Scope("bob"))) as client:
        return [await client.call_tool("search_memory", {"query": "Miso"})]


def test_a_refusal_is_a_clear_tool_error(operations: Operations) -> None:
    unknown, bad_kind, blank, stray, none, text, extra = _call(
        operations,
        ("explain_memory", {"memory_id": "fact-nope"}),
        ("search_memory", {"query": "Miso", "kind": "rumour"}),
        ("get_context", {"query": "!!!"}),
        ("search_memory", {"query": "Miso", "k": 1}),
        ("search_memory", {"query": "Miso", "limit": 0}),
        ("weak_facts", {"limit": "many"}),
        ("memory_stats", {"user_id": "bob"}),
    )
    assert unknown.is_error and "no memory fact-nope for user ana" in unknown.content[0].text
    assert blank.is_error and "query" in blank.content[0].text
    said = [
        (bad_kind, "search_memory: kind: must be one of 'episode', 'fact', 'preference', "
        "'procedure', 'opinion', 'reflection', 'summary', 'chunk'"),
        (stray, "search_memory takes no argument k; its arguments are query, kind, tag, "
         "entity, after, before, limit, min_similarity, after_write, as_of"),
        (none, "search_memory: limit: must be at least 1"),
        (text, "weak_facts: limit: must be a whole number"),
        (extra, "memory_stats takes no argument user_id; its arguments are none"),
    ]  # fmt: skip
    for result, message in said:
        assert result.is_error and result.content[0].text.endswith(message)
        assert "\n" not in result.content[0].text
    for result in (unknown, bad_kind, blank, stray, none, text, extra):
        assert "Traceback" not in json.dumps(result.model_dump(mode="json"))


@pytest.mark.parametrize("uri", ["memstream://stats", "memstream://entities/Miso"])
def test_entity_profiles_and_stats_are_resources(operations: Operations, uri: str) -> None:
    async def run() -> Any:
        async with Client(memory_server(operations, Scope("ana"))) as client:
            return await client.read_resource(uri)

    contents = asyncio.run(run()).contents
    assert json.loads(contents[0].text)


@pytest.mark.broker
@pytest.mark.slow
def test_memstream_mcp_over_stdio_and_http(tmp_path: Path) -> None:
    """Against a real worker, the SDK's client, over stdio (``memstream mcp`` as the
    configuration `--print-config` prints starts it) and over streamable HTTP (``/mcp``
    on the API), lists the tools, remembers a fact, finds it, corrects it, sees the
    history, gets a context block with the corrected fact only, and forgets it."""
    (readme_config,) = [
        json.loads(b.body)["mcpServers"]["memstream"]
        for b in doc_blocks()
        if b.lang == "json" and "mcpServers" in b.body
    ]
    data = tmp_path / "memstream-data"
    worker = WorkerProcess(data, log_path=tmp_path / "worker.log").start()
    # What `--print-config` prints, run as a client would: from another folder, with
    # a PATH that does not hold the virtual environment.
    printed = subprocess.run(
        [sys.executable, "-m", "memstream", "mcp", "--user", "ana", "--print-config"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "MEMSTREAM_DATA": "memstream-data",
             "MEMSTREAM_BROKER_PORT": str(worker.broker_port)},
        timeout=60,
    )  # fmt: skip
    assert printed.returncode == 0, printed.stderr
    config = json.loads(printed.stdout)["mcpServers"]["memstream"]
    assert config["args"][-3:] == readme_config["args"] == ["mcp", "--user", "ana"]
    assert set(readme_config["env"]) <= set(config["env"])
    assert config["env"]["MEMSTREAM_DATA"] == str(data)  # absolute
    assert Path(config["command"]).is_absolute() and os.access(config["command"], os.X_OK)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {**config["env"], "PATH": "/usr/bin:/bin"}
    try:
        worker.wait_serving()
        asyncio.run(_remember_correct_forget(StdioServerParameters(
            command=config["command"], args=config["args"], env=env, cwd=str(elsewhere)
        ), "ana"))  # fmt: skip
        asyncio.run(_remember_correct_forget(f"{worker.api_url}/mcp?user_id=ben", "ben"))
        # The command line (in its own process) and the HTTP API change memory too.
        here = subprocess.run(
            [sys.executable, "-m", "memstream", "remember", "--in-process", "--user", "cara",
             "Cara keeps bees."],
            capture_output=True, text=True, timeout=120, cwd=tmp_path,
            env={**os.environ, "MEMSTREAM_DATA": str(data),
                 "MEMSTREAM_BROKER_PORT": str(worker.broker_port)},
        )  # fmt: skip
        assert here.returncode == 0, here.stderr
        api = httpx.post(
            f"{worker.api_url}/v1/memories", json={"user_id": "dan", "content": "Dan rows."}
        )
        assert api.status_code == 202, api.text
        # Every front door's changes are audited alike, by the operations layer.
        audited = [
            json.loads(line) for line in (data / "logs" / "audit.jsonl").read_text().splitlines()
        ]
        doors = {(a["user_id"], a["operation"]): a["door"] for a in audited}
        for user, door in (("ana", "mcp"), ("ben", "mcp"), ("cara", "cli"), ("dan", "api")):
            assert doors.get((user, "remember")) == door, (user, audited)
        for user in ("ana", "ben"):
            assert {"correct", "forget"} <= {o for u, o in doors if u == user}
        assert len({tuple(sorted(a)) for a in audited}) == 1  # one shape of line
        for query in ("", "?user_id=", "?user_id=%C3%B5", "?user_id=ana&project_id=a%20b"):
            refused = httpx.post(f"{worker.api_url}/mcp{query}", json={"jsonrpc": "2.0"})
            assert refused.status_code == 422, query
            assert "_id" in refused.json()["detail"][0], query
            assert refused.json()["error"]["message"] == refused.json()["detail"][0]
        # What an agent's MCP client shows when its URL names no user:
        assert asyncio.run(_refusal_of(f"{worker.api_url}/mcp")) == (
            "user_id: the URL must name the user, as in /mcp?user_id=ana"
        )
    finally:
        worker.stop(timeout=60)


def _leaves(group: BaseExceptionGroup[Any]) -> list[BaseException]:
    """The exceptions inside ``group`` and the groups nested in it."""
    found: list[BaseException] = []
    for inner in group.exceptions:
        found += _leaves(inner) if isinstance(inner, BaseExceptionGroup) else [inner]
    return found


async def _refusal_of(url: str) -> str:
    """What the SDK's client raises when it connects to ``url`` and lists the tools."""
    said: list[str] = []
    try:
        async with Client(url) as client:
            await client.list_tools()
    except* MCPError as refused:
        said += [str(e) for e in _leaves(refused)]
    assert len(said) == 1, f"{url}: {said}"
    return said[0]


async def _remember_correct_forget(server: StdioServerParameters | str, user: str) -> None:
    async with Client(server) as client:
        assert [t.name for t in (await client.list_tools()).tools] == list(TOOLS)

        async def tool(name: str, **arguments: Any) -> dict[str, Any]:
            result = await client.call_tool(name, arguments)
            assert not result.is_error, result.content
            return dict(result.structured_content or {})

        async def found(text: str, present: bool = True) -> list[str]:
            # at once: a search waits for the writes made through the tools
            results = (await tool("search_memory", query="favourite tea"))["results"]
            ids = [r["memory_id"] for r in results if text in r["content"]]
            assert bool(ids) == present, f"{text!r} {'not' if present else 'still'} found"
            return ids

        assert (await tool("memory_stats"))["user_id"] == user
        old = await tool("remember_fact", content="Ana's favourite tea is genmaicha.")
        assert (await found("genmaicha")) == [old["memory_id"]]
        # An agent's retry (spacing and case aside) is the same memory, published once.
        again = await tool("remember_fact", content="ana's favourite  tea is Genmaicha.")
        assert again == {"memory_id": old["memory_id"], "accepted": [], "token": None}
        new = await tool(
            "correct_fact", memory_id=old["memory_id"], new_content="Ana's favourite tea is sencha."
        )
        assert (await found("sencha")) == [new["memory_id"]]
        await found("genmaicha", present=False)  # history now
        why = await tool("explain_memory", memory_id=new["memory_id"])
        assert [m["content"] for m in why["history"]] == [
            "Ana's favourite tea is genmaicha.",
            "Ana's favourite tea is sencha.",
        ]
        block = (await tool("get_context", query="What is Ana's favourite tea?"))["context"]
        assert "sencha" in block and "genmaicha" not in block
        await tool("forget_memory", memory_id=new["memory_id"])
        await found("sencha", present=False)
        # Once replaced, the same statement remembered is a new memory.
        anew = await tool("remember_fact", content="Ana's favourite tea is genmaicha.")
        assert anew["memory_id"] != old["memory_id"] and len(anew["accepted"]) == 1
        assert (await found("genmaicha")) == [anew["memory_id"]]
        refused = await client.call_tool("forget_memory", {"memory_id": "fact-nope"})
        assert (
            refused.is_error and f"no memory fact-nope for user {user}" in refused.content[0].text
        )
