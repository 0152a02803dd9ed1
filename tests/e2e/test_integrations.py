"""The frameworks' memory adapters against one real ``memstream up``: LangGraph's store
through the behaviours LangGraph's own stores are held to and inside a compiled graph,
and the OpenAI Agents SDK's session, tools and context filter in real runs of its
``Runner`` (through the OpenAI SDK, against a local model whose moves the test scripts)."""

from __future__ import annotations

import asyncio
import json
import logging
import uuid
from collections.abc import Iterator
from typing import Any, TypedDict

import pytest
from agents import Agent, OpenAIChatCompletionsModel, RunConfig, Runner, set_tracing_disabled
from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime
from langgraph.store.base import GetOp, ListNamespacesOp, PutOp, SearchOp
from openai import AsyncOpenAI
from support.chat_server import ScriptedChat, scripted_chat

from memstream.client import MemoryClient
from memstream.integrations.langgraph import MemstreamStore
from memstream.integrations.openai_agents import (
    MEMORY_PREAMBLE,
    MemstreamSession,
    memory_context,
    memory_tools,
)
from memstream.testing import WorkerProcess

pytestmark = [pytest.mark.broker, pytest.mark.slow]


@pytest.fixture(scope="module")
def memstream(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MemoryClient]:
    data = tmp_path_factory.mktemp("integrations") / "data"
    with WorkerProcess(data) as worker, MemoryClient(worker.api_url) as client:
        yield client


def someone(name: str) -> str:
    return f"{name}-{uuid.uuid4().hex[:8]}"


# -- LangGraph ------------------------------------------------------------------------


def test_a_put_is_read_back_updated_and_deleted(memstream: MemoryClient) -> None:
    store = MemstreamStore(memstream)
    user = someone("ana")
    namespace = (user, "memories")
    value = {"content": "Prefers window seats", "nested": {"n": 1, "list": [1, "two"]}}
    store.put(namespace, "seat", value)
    item = store.get(namespace, "seat")
    assert item is not None and item.value == value and item.key == "seat"
    assert item.namespace == namespace
    store.put(namespace, "seat", {"content": "Prefers aisle seats"})
    updated = store.get(namespace, "seat")
    assert updated is not None and updated.value == {"content": "Prefers aisle seats"}
    # the earlier value is history in memstream, not lost
    chain = memstream.history(
        user, memstream.list(user, tag="langgraph")["memories"][0]["memory_id"]
    )
    assert [json.loads(m["content"])["value"]["content"] for m in chain] == [
        "Prefers window seats",
        "Prefers aisle seats",
    ]
    store.delete(namespace, "seat")
    assert store.get(namespace, "seat") is None
    assert store.get(namespace, "never-put") is None


def test_search_ranks_filters_and_keeps_to_the_namespace(memstream: MemoryClient) -> None:
    store = MemstreamStore(memstream)
    user, other = someone("bo"), someone("cy")
    store.put((user, "food"), "1", {"text": "Loves spicy ramen", "rating": 5})
    store.put((user, "food"), "2", {"text": "Dislikes olives", "rating": 1})
    store.put((user, "travel"), "3", {"text": "Ramen tour of Tokyo planned", "rating": 4})
    store.put((other, "food"), "4", {"text": "Loves ramen too", "rating": 5})

    found = store.search((user,), query="ramen", limit=10)
    assert {i.key for i in found} == {"1", "3"}  # another user's never
    assert all(i.score is not None and i.score > 0 for i in found)
    assert [i.score for i in found] == sorted((i.score or 0 for i in found), reverse=True)
    assert [i.key for i in store.search((user, "food"), query="ramen")] == ["1"]
    assert [i.key for i in store.search((user,), filter={"rating": {"$gte": 4}}, limit=10)] == [
        "3",
        "1",
    ]  # newest first without a query
    assert [i.key for i in store.search((user,), filter={"rating": 1})] == ["2"]
    assert len(store.search((user,), limit=2)) == 2
    assert [i.key for i in store.search((user,), limit=1, offset=2)] == ["1"]


def test_namespaces_are_listed_by_prefix_suffix_and_depth(memstream: MemoryClient) -> None:
    user = someone("dee")
    store = MemstreamStore(memstream, user_id=user)  # the whole namespace is the store's
    for namespace in [("a", "b", "c"), ("a", "b", "d"), ("a", "e"), ("f",)]:
        store.put(namespace, "k", {"v": 1})
    assert store.list_namespaces() == [("a", "b", "c"), ("a", "b", "d"), ("a", "e"), ("f",)]
    assert store.list_namespaces(prefix=("a", "b")) == [("a", "b", "c"), ("a", "b", "d")]
    assert store.list_namespaces(suffix=("d",)) == [("a", "b", "d")]
    assert store.list_namespaces(prefix=("a", "*", "c")) == [("a", "b", "c")]
    assert store.list_namespaces(max_depth=2) == [("a", "b"), ("a", "e"), ("f",)]
    assert store.list_namespaces(limit=1, offset=1) == [("a", "b", "d")]


def test_batch_and_abatch_run_mixed_operations_in_order(memstream: MemoryClient) -> None:
    user = someone("eve")
    store = MemstreamStore(memstream)
    results = store.batch(
        [
            PutOp((user, "x"), "k1", {"n": 1}),
            GetOp((user, "x"), "k1"),
            PutOp((user, "x"), "k2", {"n": 2}),
            SearchOp((user,), filter={"n": 2}),
            ListNamespacesOp(match_conditions=None, max_depth=None, limit=10, offset=0),
            PutOp((user, "x"), "k1", None),
            GetOp((user, "x"), "k1"),
        ]
    )
    assert results[1].value == {"n": 1}  # type: ignore[union-attr]
    assert [i.key for i in results[3]] == ["k2"]  # type: ignore[union-attr]
    assert (user, "x") in results[4]  # type: ignore[operator]
    assert results[6] is None

    async def run() -> Any:
        await store.aput((user, "y"), "k", {"async": True})
        return await store.aget((user, "y"), "k")

    assert asyncio.run(run()).value == {"async": True}


def test_a_compiled_graph_reads_and_writes_memory_through_its_store(
    memstream: MemoryClient,
) -> None:
    class State(TypedDict):
        user: str
        said: str
        known: list[str]

    def remember(state: State, runtime: Runtime[None]) -> dict[str, Any]:
        assert runtime.store is not None
        runtime.store.put((state["user"], "notes"), str(uuid.uuid4()), {"text": state["said"]})
        return {}

    def recall(state: State, runtime: Runtime[None]) -> dict[str, Any]:
        assert runtime.store is not None
        found = runtime.store.search((state["user"], "notes"), query="sister")
        return {"known": [i.value["text"] for i in found]}

    builder = StateGraph(State)
    builder.add_node("remember", remember)
    builder.add_node("recall", recall)
    builder.add_edge(START, "remember")
    builder.add_edge("remember", "recall")
    builder.add_edge("recall", END)
    graph = builder.compile(store=MemstreamStore(memstream))
    user = someone("fay")
    graph.invoke({"user": user, "said": "My sister Rita lives in Coimbra.", "known": []})
    out = graph.invoke({"user": user, "said": "I like tea.", "known": []})
    assert out["known"] == ["My sister Rita lives in Coimbra."]
    # the same memory any other door reads
    assert "Coimbra" in (memstream.context(user, "where does my sister live")["context"] or "")


# -- OpenAI Agents SDK ----------------------------------------------------------------


@pytest.fixture(scope="module")
def chat() -> Iterator[ScriptedChat]:
    set_tracing_disabled(True)  # the SDK would send its traces to OpenAI
    with scripted_chat() as served:
        yield served


def model_of(chat: ScriptedChat) -> OpenAIChatCompletionsModel:
    client = AsyncOpenAI(base_url=chat.url, api_key="local", max_retries=0)
    return OpenAIChatCompletionsModel(model="scripted", openai_client=client)


def test_the_session_keeps_items_exactly_and_pops_and_clears(memstream: MemoryClient) -> None:
    user = someone("gus")
    session = MemstreamSession("chat-1", user_id=user, client=memstream)
    items: list[Any] = [
        {"role": "user", "content": "Hi, I'm Gus."},
        {"role": "assistant", "content": [{"type": "output_text", "text": "Hello Gus!",
                                           "annotations": []}]},
        {"type": "function_call", "call_id": "c1", "name": "lookup", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c1", "output": "nothing found"},
    ]  # fmt: skip

    async def run() -> None:
        await session.add_items(items[:2])
        await session.add_items(items[2:])
        assert await session.get_items() == items
        assert await session.get_items(limit=2) == items[2:]
        assert await session.pop_item() == items[3]
        assert await session.get_items() == items[:3]
        await session.clear_session()
        assert await session.get_items() == []
        assert await session.pop_item() is None

    asyncio.run(run())


def test_a_run_remembers_and_the_next_turn_is_given_the_context(
    memstream: MemoryClient, chat: ScriptedChat
) -> None:
    user = someone("hal")
    session = MemstreamSession("chat-2", user_id=user, client=memstream)
    agent = Agent(
        name="helper",
        instructions="You help Hal.",
        model=model_of(chat),
        tools=memory_tools(user, client=memstream),
    )
    config = RunConfig(call_model_input_filter=memory_context(user, client=memstream))

    async def run() -> None:
        chat.answers[:] = [{"text": "Noted: Rita lives in Coimbra."}]
        first = await Runner.run(agent, "My sister Rita lives in Coimbra.", session=session,
                                 run_config=config)  # fmt: skip
        assert first.final_output == "Noted: Rita lives in Coimbra."
        chat.answers[:] = [
            {"tool": "search_memory", "arguments": {"query": "Rita"}},
            {"text": "She lives in Coimbra."},
        ]
        asked = len(chat.requests)
        second = await Runner.run(agent, "Where does Rita live?", session=session,
                                  run_config=config)  # fmt: skip
        assert second.final_output == "She lives in Coimbra."
        calls = chat.requests[asked:]
        assert len(calls) == 2
        for call in calls:
            messages = call["messages"]
            assert messages[0] == {"role": "system", "content": "You help Hal."}  # untouched
            notes = [m for m in messages if str(m.get("content", "")).startswith(MEMORY_PREAMBLE)]
            assert len(notes) == 1 and notes[0]["role"] == "user"
            assert "Coimbra" in notes[0]["content"]
            # the note sits right before the turn's question
            at = messages.index(notes[0])
            assert messages[at + 1] == {"role": "user", "content": "Where does Rita live?"}
        tool_output = [m for m in calls[1]["messages"] if m["role"] == "tool"]
        assert "Coimbra" in tool_output[0]["content"]
        history = await session.get_items()
        assert history[0] == {"role": "user", "content": "My sister Rita lives in Coimbra."}
        assert len(history) == 6  # 2 turns: question, tool call, tool output, answers

    asyncio.run(run())


def test_memory_down_means_no_memory_and_one_warning(
    chat: ScriptedChat, caplog: pytest.LogCaptureFixture
) -> None:
    down = MemoryClient("http://127.0.0.1:9", timeout=1.0)
    agent = Agent(name="helper", model=model_of(chat), tools=memory_tools("x", client=down))
    config = RunConfig(call_model_input_filter=memory_context("x", client=down))
    chat.answers[:] = [
        {"tool": "search_memory", "arguments": {"query": "anything"}},
        {"text": "Fine."},
    ]
    asked = len(chat.requests)
    with caplog.at_level(logging.WARNING, logger="memstream.integrations.openai_agents"):
        result = asyncio.run(Runner.run(agent, "Hello?", run_config=config))
    assert result.final_output == "Fine."
    first = chat.requests[asked]["messages"]
    assert first[-1] == {"role": "user", "content": "Hello?"}
    assert not any(MEMORY_PREAMBLE in str(m.get("content")) for m in first)
    tool = [m for m in chat.requests[asked + 1]["messages"] if m["role"] == "tool"]
    assert "memory is unavailable: cannot reach memstream" in tool[0]["content"]
    no_context = [r for r in caplog.records if "no context" in r.getMessage()]
    assert len(no_context) == 1
