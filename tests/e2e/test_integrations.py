"""Memory where agents are built, against one real ``memstream up``: LangGraph's store
through the behaviours LangGraph's own stores are held to and inside a compiled graph;
the OpenAI Agents SDK's session, tools and context filter in real runs of its
``Runner`` (through the OpenAI SDK, against a local model whose moves the test scripts);
and the coding agents' hooks, each run as its host runs it: the command its installed
settings name, fed the payloads its documented contract describes."""

from __future__ import annotations

import asyncio
import json
import logging
import signal
import subprocess
import sys
import uuid
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TypedDict

import pytest
from agents import Agent, OpenAIChatCompletionsModel, RunConfig, Runner, set_tracing_disabled
from agents.run_config import CallModelData, ModelInputData
from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime
from langgraph.store.base import GetOp, ListNamespacesOp, PutOp, SearchOp
from openai import AsyncOpenAI
from support.chat_server import ScriptedChat, scripted_chat
from support.doc_blocks import ROOT

from memstream.client import MemoryClient
from memstream.integrations.langgraph import MemstreamStore
from memstream.integrations.openai_agents import (
    MEMORY_PREAMBLE,
    MemstreamSession,
    memory_context,
    memory_tools,
)
from memstream.testing import WorkerProcess, wait_until

pytestmark = [pytest.mark.broker, pytest.mark.slow]


@pytest.fixture(scope="module")
def deployment(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WorkerProcess]:
    data = tmp_path_factory.mktemp("integrations") / "data"
    with WorkerProcess(data) as worker:
        yield worker


@pytest.fixture(scope="module")
def memstream(deployment: WorkerProcess) -> Iterator[MemoryClient]:
    with MemoryClient(deployment.api_url) as client:
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


def test_what_the_store_cannot_keep_is_refused_by_name(memstream: MemoryClient) -> None:
    store = MemstreamStore(memstream)
    user = someone("ned")
    deep: dict[str, Any] = {}
    for _ in range(5000):
        deep = {"a": deep}
    with pytest.raises(ValueError, match="not a JSON document memstream can keep"):
        store.put((user, "x"), "deep", deep)
    with pytest.raises(ValueError, match="memstream keeps an item of at most 4000"):
        store.put((user, "x"), "big", {"text": "x" * 5000})
    store.put((user, "x"), "ok", {"text": "a red kite"})
    # a question longer than search takes is asked by its beginning, not refused
    (found,) = store.search((user,), query="red kite " + "and so on " * 400)
    assert found.key == "ok"


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


def test_a_prebuilt_react_agent_with_langmems_memory_tools_runs_on_the_store(
    memstream: MemoryClient, chat: ScriptedChat
) -> None:
    """``create_react_agent(..., store=MemstreamStore())`` with langmem's tools, unchanged:
    the model (the real OpenAI SDK under LangChain, against the scripted server) stores a
    memory with ``manage_memory`` in one conversation and finds it with ``search_memory``
    in the next."""
    from langchain_openai import ChatOpenAI

    namespace = ("{langgraph_user_id}", "memories")  # the first label is the user
    model = ChatOpenAI(model="scripted", base_url=chat.url, api_key="local", max_retries=0)
    # LangGraph 1 names langchain's create_agent the prebuilt agent's successor, and
    # langmem still imports what LangGraph 1 moved: both only warn
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        from langgraph.prebuilt import create_react_agent
        from langmem import create_manage_memory_tool, create_search_memory_tool

        agent = create_react_agent(
            model,
            tools=[create_manage_memory_tool(namespace), create_search_memory_tool(namespace)],
            store=MemstreamStore(memstream),
        )
    user = someone("jo")
    config: Any = {"configurable": {"langgraph_user_id": user}}
    chat.answers[:] = [
        {"tool": "manage_memory", "arguments": {"content": "Jo takes oat milk in coffee."}},
        {"text": "Noted."},
    ]
    said = agent.invoke({"messages": [{"role": "user", "content": "I take oat milk."}]}, config)
    assert said["messages"][-1].content == "Noted."
    chat.answers[:] = [
        {"tool": "search_memory", "arguments": {"query": "oat milk coffee"}},
        {"text": "With oat milk."},
    ]
    asked = len(chat.requests)
    question = {"messages": [{"role": "user", "content": "How do I take my coffee?"}]}
    assert agent.invoke(question, config)["messages"][-1].content == "With oat milk."
    (found,) = [m for m in chat.requests[asked + 1]["messages"] if m["role"] == "tool"]
    assert "Jo takes oat milk in coffee." in found["content"]
    # a memory like any other: the user's context block holds it
    block = memstream.context(user, "how does Jo take coffee")["context"] or ""
    assert "Jo takes oat milk in coffee." in block  # the item's text, not its JSON
    assert "namespace" not in block and '{"' not in block


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


def test_the_session_reads_its_own_items_while_the_worker_is_frozen(
    deployment: WorkerProcess, memstream: MemoryClient
) -> None:
    user = someone("ivy")
    session = MemstreamSession("chat-3", user_id=user, client=memstream)
    items: list[Any] = [{"role": "user", "content": "Remember the blue door."}]

    async def run() -> list[Any]:
        await session.add_items(items)  # accepted: durable, not yet applied
        return await session.get_items()

    deployment.signal(signal.SIGSTOP)  # the worker applies nothing; the API still answers
    try:
        assert asyncio.run(run()) == items
        # not applied: a list that does not wait for the client's writes shows nothing
        assert memstream.list(user, session_id="chat-3", after_write=None)["memories"] == []
    finally:
        deployment.signal(signal.SIGCONT)
    wait_until(lambda: memstream.list(user, session_id="chat-3")["memories"], 30)
    assert asyncio.run(session.get_items()) == items  # listed now, and not twice


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
        # the session reads its own items at once; search has them once the worker applied
        assert len(await session.get_items()) == 2
        await asyncio.to_thread(
            wait_until, lambda: memstream.search(user, "Rita Coimbra")["results"], 30
        )
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


def test_a_long_message_is_given_the_block_of_its_beginning(memstream: MemoryClient) -> None:
    user = someone("kay")
    memstream.remember(user, "Kay's passport number ends in 4471.")
    wait_until(lambda: memstream.search(user, "passport")["results"], 30)
    long = "What does my passport number end in? " + "Some pasted text. " * 500
    turn = ModelInputData(input=[{"role": "user", "content": long}], instructions="Help.")
    data: Any = CallModelData(turn, agent=None, context=None)  # type: ignore[arg-type]
    given: Any = memory_context(user, client=memstream)(data)
    assert given.input[0]["content"].startswith(MEMORY_PREAMBLE)
    assert "4471" in given.input[0]["content"]
    assert given.input[1]["content"] == long  # the message itself, whole


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


# -- coding agents' hooks -------------------------------------------------------------

FIXTURES = ROOT / "tests" / "fixtures" / "hooks"


def installed(host: str, project: Path, api: str, user: str) -> dict[str, str]:
    """The command the host's settings run at each event, after ``memstream hook install``."""
    done = subprocess.run(
        [sys.executable, "-m", "memstream", "hook", "install", host, "--project", str(project),
         "--api", api, "--user", user, "--wait", "30"],  # a loaded machine's worker
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    # what install found there: a memstream answering, or a warning that none does yet
    answering = f"memstream answers at {api}" in done.stdout
    assert answering != (f"warning: nothing answers at {api} now" in done.stderr), done
    settings_file = {"codex": ".codex/hooks.json", "gemini": ".gemini/settings.json",
                     "cursor": ".cursor/hooks.json"}[host]  # fmt: skip
    settings = json.loads((project / settings_file).read_text())
    commands = {}
    for event, entries in settings["hooks"].items():
        (entry,) = entries
        hook = entry["hooks"][0] if "hooks" in entry else entry
        commands[event] = hook["command"]
    return commands


def hook_run(
    command: str, host: str, event: str, project: Path, **fill: str
) -> subprocess.CompletedProcess[str]:
    """Run ``command`` as the host does: a shell, in the project, the host's payload for
    ``event`` (its placeholders filled) on standard input."""
    payload = (FIXTURES / host / f"{event}.json").read_text()
    for name, value in {"CWD": str(project), "WHEN": "2026-11-28T09:00:09.000Z", **fill}.items():
        payload = payload.replace(f"${name}", value)
    env = {"PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin", "HOME": str(project.parent)}
    return subprocess.run(
        ["sh", "-c", command], input=payload, cwd=project, env=env, capture_output=True,
        text=True, timeout=60, check=False,
    )  # fmt: skip


def run_as_host(command: str, host: str, event: str, project: Path, **fill: str) -> str:
    """What the hook printed on standard output, checked to be exactly one JSON document
    or nothing, after a run without a complaint."""
    done = hook_run(command, host, event, project, **fill)
    assert done.returncode == 0, done.stderr
    assert not done.stderr, done.stderr
    if done.stdout:
        assert done.stdout.count("\n") == 1, done.stdout  # one line: the host's answer
        json.loads(done.stdout)
    return done.stdout.strip()


def stored(memstream: MemoryClient, user: str, session: str) -> list[tuple[str, str]]:
    page = memstream.list(user, session_id=session, order="oldest")
    return [(m["speaker"], m["content"]) for m in page["memories"]]


def searchable(memstream: MemoryClient, user: str, words: str) -> None:
    """Wait until search finds ``words`` (a server's view of the tables may lag the
    worker by up to its read consistency interval)."""
    wait_until(lambda: memstream.search(user, words, project_id="shop")["results"], 30)


@pytest.fixture(scope="module")
def api_url(memstream: MemoryClient) -> str:
    return memstream.url


def test_codex_hooks_store_each_turn_once_and_inject_what_was_said(
    memstream: MemoryClient, api_url: str, tmp_path: Path
) -> None:
    user, project = someone("dev"), tmp_path / "shop"
    (project / ".git").mkdir(parents=True)
    hooks = installed("codex", project, api_url, user)
    assert set(hooks) == {"SessionStart", "UserPromptSubmit", "Stop"}
    turn = {"SESSION": "s-1", "TURN": "t-1", "PROMPT": "We chose Postgres 16 for the orders table.",
            "ANSWER": "Noted: orders go in Postgres 16."}  # fmt: skip
    assert run_as_host(hooks["SessionStart"], "codex", "SessionStart", project, **turn) == ""
    run_as_host(hooks["UserPromptSubmit"], "codex", "UserPromptSubmit", project, **turn)
    assert run_as_host(hooks["Stop"], "codex", "Stop", project, **turn) == ""
    run_as_host(hooks["Stop"], "codex", "Stop", project, **turn)  # fired twice: stored once
    # the next prompt's hook (another process) waits for the turn the last one stored
    ask = {**turn, "SESSION": "s-2", "TURN": "t-2", "PROMPT": "Which database holds orders?"}
    said = json.loads(run_as_host(hooks["UserPromptSubmit"], "codex", "UserPromptSubmit",
                                  project, **ask))  # fmt: skip
    assert said["hookSpecificOutput"]["hookEventName"] == "UserPromptSubmit"
    assert "Postgres 16" in said["hookSpecificOutput"]["additionalContext"]
    # what the hook put before the prompt is recorded under the host and its session
    asked = "codex-s-2"
    shown = wait_until(lambda: [s for s in memstream.served(user) if s["session_id"] == asked], 30)
    assert {(s["agent"], s["answer"]) for s in shown} == {("codex", "context")}
    assert shown[0]["question"] == "Which database holds orders?"
    rebuilt = memstream.served_answer(user, shown[0]["served_id"])["rebuilt"]
    assert rebuilt["matches"] and rebuilt["text"] in said["hookSpecificOutput"]["additionalContext"]
    session = "codex-s-1"
    wait_until(lambda: len(stored(memstream, user, session)) >= 2, timeout=30)
    assert stored(memstream, user, session) == [
        (user, "We chose Postgres 16 for the orders table."),
        ("codex", "Noted: orders go in Postgres 16."),
    ]
    assert memstream.list(user, session_id=session)["memories"][0]["project_id"] == "shop"


def test_gemini_hooks_store_the_turn_at_its_end_and_share_memory_with_codex(
    memstream: MemoryClient, api_url: str, tmp_path: Path
) -> None:
    user, project = someone("dev"), tmp_path / "shop"
    (project / ".git").mkdir(parents=True)
    hooks = installed("gemini", project, api_url, user)
    assert set(hooks) == {"SessionStart", "BeforeAgent", "AfterAgent", "SessionEnd"}
    first = {"SESSION": "g-1", "PROMPT": "Deploys go out on Thursdays only.",
             "ANSWER": "Understood: Thursday deploys."}  # fmt: skip
    assert run_as_host(hooks["BeforeAgent"], "gemini", "BeforeAgent", project, **first) == "{}"
    assert run_as_host(hooks["AfterAgent"], "gemini", "AfterAgent", project, **first) == "{}"
    run_as_host(hooks["AfterAgent"], "gemini", "AfterAgent", project, **first)
    assert run_as_host(hooks["SessionEnd"], "gemini", "SessionEnd", project, **first) == "{}"
    wait_until(lambda: len(stored(memstream, user, "gemini-g-1")) >= 2, timeout=30)
    assert stored(memstream, user, "gemini-g-1") == [
        (user, "Deploys go out on Thursdays only."),
        ("gemini", "Understood: Thursday deploys."),
    ]
    # what Codex captured for this user is in Gemini's context, and the other way round
    codex = installed("codex", project, api_url, user)
    turn = {"SESSION": "c-1", "TURN": "t-1", "PROMPT": "Our CI runs on Buildkite.",
            "ANSWER": "Got it."}  # fmt: skip
    run_as_host(codex["UserPromptSubmit"], "codex", "UserPromptSubmit", project, **turn)
    # Gemini's hooks wait for what Codex's stored: the hooks keep one token per user
    for question, answer in [("When do deploys go out?", "Thursdays"),
                             ("Which service runs our CI builds?", "Buildkite")]:  # fmt: skip
        ask = {"SESSION": "g-2", "PROMPT": question}
        said = json.loads(
            run_as_host(hooks["BeforeAgent"], "gemini", "BeforeAgent", project, **ask)
        )
        assert answer in said["hookSpecificOutput"]["additionalContext"], said
        assert said["hookSpecificOutput"]["hookEventName"] == "BeforeAgent"
    # at the start, what matters for the project, if anything does (else nothing, as JSON)
    start = json.loads(run_as_host(hooks["SessionStart"], "gemini", "SessionStart", project, **ask))
    if start != {}:
        assert start["hookSpecificOutput"]["hookEventName"] == "SessionStart"
        assert isinstance(start["hookSpecificOutput"]["additionalContext"], str)


def test_cursor_hooks_answer_continue_and_put_the_block_in_its_rules_file(
    memstream: MemoryClient, api_url: str, tmp_path: Path
) -> None:
    user, project = someone("dev"), tmp_path / "shop"
    (project / ".git").mkdir(parents=True)
    hooks = installed("cursor", project, api_url, user)
    assert set(hooks) == {"beforeSubmitPrompt", "afterAgentResponse", "sessionEnd"}
    rules = project / ".cursor" / "rules" / "memstream.mdc"
    turn = {"SESSION": "k-1", "TURN": "gen-1",
            "PROMPT": "The API style guide says kebab-case URLs.",
            "ANSWER": "I will use kebab-case URLs."}  # fmt: skip
    said = run_as_host(hooks["beforeSubmitPrompt"], "cursor", "beforeSubmitPrompt", project, **turn)
    assert json.loads(said) == {"continue": True}
    assert not rules.exists()  # nothing remembered yet: no stale block either
    run_as_host(hooks["afterAgentResponse"], "cursor", "afterAgentResponse", project, **turn)
    ask = {**turn, "SESSION": "k-2", "TURN": "gen-2", "PROMPT": "What case do our URLs use?"}
    said = run_as_host(hooks["beforeSubmitPrompt"], "cursor", "beforeSubmitPrompt", project, **ask)
    assert json.loads(said) == {"continue": True}
    text = rules.read_text()  # after the turn the last hook stored
    assert text.startswith("---\n") and "alwaysApply: true" in text
    assert "kebab-case" in text
    wait_until(lambda: len(stored(memstream, user, "cursor-k-1")) >= 2, timeout=30)
    assert stored(memstream, user, "cursor-k-1") == [
        (user, "The API style guide says kebab-case URLs."),
        ("cursor", "I will use kebab-case URLs."),
    ]


@pytest.mark.parametrize(
    ("host", "event", "answer"),
    [("codex", "UserPromptSubmit", ""), ("gemini", "BeforeAgent", "{}"),
     ("cursor", "beforeSubmitPrompt", '{"continue": true}')],
)  # fmt: skip
def test_a_host_goes_on_when_memstream_is_down(
    tmp_path: Path, host: str, event: str, answer: str
) -> None:
    project = tmp_path / "shop"
    project.mkdir()
    hooks = installed(host, project, "http://127.0.0.1:9", "dev")
    done = hook_run(hooks[event], host, event, project, SESSION="s", TURN="t", PROMPT="hi")
    assert done.returncode == 0 and done.stdout.strip() == answer
    assert "not reachable at http://127.0.0.1:9" in done.stderr
    assert len(done.stderr.splitlines()) == 1 and "Traceback" not in done.stderr


# -- planted links in a cloned project ------------------------------------------------

#: Every file a host's installer or hook writes into a project.
PROJECT_FILES = [".claude/settings.json", ".codex/hooks.json", ".gemini/settings.json",
                 ".cursor/hooks.json", ".cursor/rules/memstream.mdc"]  # fmt: skip
INSTALLED = {"claude-code": ".claude", "codex": ".codex", "gemini": ".gemini", "cursor": ".cursor"}


def _plant(project: Path, outside: Path, kind: str) -> None:
    """Links where the hooks write, as a cloned repository can hold them: each target and
    its ``.partial`` name linked to a file outside (``absolute``, ``relative``), only the
    ``.partial`` names (``partial``), or each host's folder linked to a folder outside."""
    if kind == "folder":
        for folder in [*INSTALLED.values()]:
            (outside / folder / "rules").mkdir(parents=True)
            for name in ("settings.json", "hooks.json", "rules/memstream.mdc"):
                (outside / folder / name).write_text("{}\n")
            (project / folder).symlink_to(outside / folder, target_is_directory=True)
        return
    for number, name in enumerate(PROJECT_FILES):
        link = project / name
        link.parent.mkdir(parents=True, exist_ok=True)
        for suffix in ("", ".partial") if kind != "partial" else (".partial",):
            victim = outside / f"victim-{number}{suffix}"
            victim.write_text("the user's own file\n")
            planted = link.with_name(link.name + suffix)
            if kind == "relative":
                planted.symlink_to(Path(*[".."] * len(Path(name).parts), "outside", victim.name))
                assert planted.resolve() == victim
            else:
                planted.symlink_to(victim)


def _fingerprint(folder: Path) -> dict[str, str]:
    import hashlib

    return {
        str(p.relative_to(folder)): ("link:" + str(p.readlink())) if p.is_symlink()
        else hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "folder"
        for p in sorted(folder.rglob("*"))
    }  # fmt: skip


@pytest.mark.parametrize("kind", ["absolute", "relative", "folder", "partial"])
def test_links_planted_in_a_project_change_nothing_outside_it(
    memstream: MemoryClient, api_url: str, tmp_path: Path, kind: str
) -> None:
    user = someone("dev")
    memstream.publish({"user_id": user, "session_id": "s", "role": "user",
                       "content": "The API style guide says kebab-case URLs."})  # fmt: skip
    searchable(memstream, user, "kebab-case")
    clean = tmp_path / "clean"
    clean.mkdir()
    commands = {
        host: installed(host, clean, api_url, user) for host in ("codex", "gemini", "cursor")
    }
    project, outside = tmp_path / "shop", tmp_path / "outside"
    (project / ".git").mkdir(parents=True)
    outside.mkdir()
    (outside / "notes.txt").write_text("nothing here may change\n")
    _plant(project, outside, kind)
    before = _fingerprint(outside)

    for host in INSTALLED:
        done = subprocess.run(
            [sys.executable, "-m", "memstream", "hook", "install", host, "--project",
             str(project), "--api", api_url, "--user", user],
            capture_output=True, text=True, timeout=60, check=False,
        )  # fmt: skip
        if kind == "partial":  # the target is written in the project; the link is left alone
            assert done.returncode == 0, done.stderr
            target = project / INSTALLED[host] / ("hooks.json" if host in {"codex", "cursor"}
                                                  else "settings.json")  # fmt: skip
            assert not target.is_symlink() and "memstream" in target.read_text()
        else:
            assert done.returncode == 2, (host, done.stdout)
            assert "Traceback" not in done.stderr and len(done.stderr.splitlines()) == 1
            assert "link" in done.stderr and str(project) in done.stderr, done.stderr

    turn = {"SESSION": "k-1", "TURN": "gen-1", "PROMPT": "What case do our URLs use?"}
    for host, event in [("codex", "UserPromptSubmit"), ("gemini", "BeforeAgent"),
                        ("cursor", "beforeSubmitPrompt")]:  # fmt: skip
        done = hook_run(commands[host][event], host, event, project, **turn)
        assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
        assert "kebab-case" in done.stdout or host == "cursor", done.stdout
    rules = project / ".cursor" / "rules" / "memstream.mdc"
    if kind == "partial":  # written in the project, as it should be
        assert not done.stderr and "kebab-case" in rules.read_text()
    else:  # refused in one line naming the link; the host goes on
        assert json.loads(done.stdout) == {"continue": True}
        assert len(done.stderr.splitlines()) == 1 and "link" in done.stderr, done.stderr
    assert _fingerprint(outside) == before  # not one byte outside the project changed


# -- another site's page --------------------------------------------------------------


def test_another_sites_page_stores_reads_and_mints_nothing_without_keys(
    memstream: MemoryClient, deployment: WorkerProcess
) -> None:
    """A keyless deployment (the default) against a page of another origin that tries
    every state-changing route, and a DNS-rebinding page reading as its own origin."""
    from support.browser import chromium
    from support.cross_site import MARKER, answered, attack, attempts, rebinding_read

    from memstream.tenancy.keys import KeyStore

    user = someone("ana")
    memstream.publish({"user_id": user, "session_id": "s", "role": "user",
                       "content": "My bank PIN is 4321."})  # fmt: skip
    (secret,) = wait_until(lambda: memstream.list(user)["memories"], timeout=30)
    refused = {403: answered(memstream.url, 403)}
    with chromium() as browser:
        attack(browser, deployment.api_port, user, secret["memory_id"])
        rebound = answered(memstream.url, 421)
        read = rebinding_read(browser, deployment.api_port, user)
    # Chromium shows a 421 to a page as a failed fetch (status 0); the server says 421
    assert {r["status"] for r in read} <= {0, 421} and not any(
        "4321" in r["text"] or user in r["text"] for r in read
    ), read
    assert answered(memstream.url, 421) >= rebound + len(read)
    assert answered(memstream.url, 403) >= refused[403] + attempts()  # each one refused
    # a write of the same user after the attack: once it shows, any accepted before it has
    memstream.publish({"user_id": user, "session_id": "s", "role": "user", "content": "sentinel"})
    wait_until(lambda: len(memstream.list(user)["memories"]) == 2, timeout=30)
    shown = memstream.list(user)["memories"]
    kept = memstream.list(user, include_hidden=True)["memories"]  # forgotten, corrected too
    assert sorted(m["content"] for m in shown) == ["My bank PIN is 4321.", "sentinel"]
    assert sorted(m["content"] for m in kept) == sorted(m["content"] for m in shown), MARKER
    assert memstream.documents(user) == []
    assert KeyStore(Path(deployment.data)).records() == []  # no key minted: still keyless


# -- a value said again ----------------------------------------------------------------


def _all_applied(memstream: MemoryClient, user: str, count: int) -> None:
    """Wait until ``count`` memories of ``user`` are applied, hidden ones included."""
    wait_until(
        lambda: len(memstream.list(user, include_hidden=True)["memories"]) >= count, timeout=30
    )


def _current(memstream: MemoryClient, user: str) -> list[str]:
    """The contents of the user's memories that stand (hidden ones left out)."""
    return [m["content"] for m in memstream.list(user, kind="fact")["memories"]]


def test_a_slots_earlier_value_said_again_is_the_value_through_every_door(
    memstream: MemoryClient,
) -> None:
    """Lisbon, Berlin, Lisbon, back to back, each door: the last one said stands."""
    import httpx

    said = ["Ana lives in Lisbon", "Ana lives in Berlin", "Ana lives in Lisbon"]
    slot = {"subject": "Ana", "attribute": "home", "exclusive": True}
    api, client = someone("api"), someone("client")
    for content in said:
        answer = httpx.post(f"{memstream.url}/v1/memories", timeout=30,
                            json={"user_id": api, "content": content, **slot})  # fmt: skip
        assert answer.status_code == 202, answer.text
        memstream.remember(client, content, **slot)
    for user in (api, client):
        _all_applied(memstream, user, 3)  # each value kept as history
        assert _current(memstream, user) == [said[-1]]


@pytest.mark.parametrize("wait_visible", [True, False])
def test_a_langgraph_put_of_an_earlier_value_is_the_value(
    memstream: MemoryClient, wait_visible: bool
) -> None:
    store = MemstreamStore(memstream, wait_visible=wait_visible)
    namespace = (someone("ana"), "prefs")
    for value in ("A", "B", "A"):
        store.put(namespace, "editor", {"content": value})
    _all_applied(memstream, namespace[0], 3)
    item = store.get(namespace, "editor")
    assert item is not None and item.value == {"content": "A"}


@pytest.mark.parametrize("wait_visible", [True, False])
def test_a_langgraph_put_then_delete_ends_deleted(
    memstream: MemoryClient, wait_visible: bool
) -> None:
    """A delete right after a put (not yet applied without waiting): the item ends
    deleted (the delete saw no row and did nothing, so the item stayed)."""
    store = MemstreamStore(memstream, wait_visible=wait_visible)
    namespace = (someone("ana"), "prefs")
    store.put(namespace, "theme", {"content": "dark"})
    store.delete(namespace, "theme")
    _all_applied(memstream, namespace[0], 1)
    wait_until(lambda: store.get(namespace, "theme") is None, 30)
    assert memstream.list(namespace[0], kind="fact")["memories"] == []


def test_a_langgraph_namespace_deeper_than_the_tags_is_found(memstream: MemoryClient) -> None:
    """35 labels (memstream tags 29 depths): searched by its own namespace, a deeper
    prefix and a shallow one, with and without a query; text with a lone surrogate
    kept, repaired."""
    store = MemstreamStore(memstream)
    deep = (someone("deep"), *(f"level{i}" for i in range(34)))
    store.put(deep, "note", {"text": "the staging bucket is called orchard-7 \ud800"})
    store.put((*deep[:31], "other"), "note", {"text": "the staging bucket is elsewhere"})
    item = store.get(deep, "note")
    assert item is not None and item.value["text"].endswith("orchard-7 \ufffd")
    for prefix in (deep, deep[:32], deep[:3]):
        listed = store.search(prefix)
        found = store.search(prefix, query="staging bucket orchard")
        expected = {deep} if len(prefix) > 31 else {deep, (*deep[:31], "other")}
        assert {i.namespace for i in listed} == expected, prefix
        assert {i.namespace for i in found} == expected, prefix


def test_the_session_takes_any_session_id_long_items_and_many(memstream: MemoryClient) -> None:
    """A session id with spaces, another script and 200 characters more; a tool output
    of 300,000 characters; a lone surrogate; 1,200 items in one call: every item kept
    (each was refused with 422, and every item of its call lost)."""
    user = someone("hal")
    name = "chat with 日本語 " + "x" * 200
    huge = "output line\n" * 25_000
    items: list[Any] = [
        {"role": "user", "content": "caf\ud800 order?"},
        {"type": "function_call_output", "call_id": "c1", "output": huge},
        *({"role": "assistant", "content": f"step {n}"} for n in range(1_200)),
    ]
    asyncio.run(MemstreamSession(name, user_id=user, client=memstream).add_items(items))
    other = MemstreamSession(name + "y", user_id=user, client=memstream)
    asyncio.run(other.add_items([{"role": "user", "content": "another chat"}]))

    def stored_items(session_id: str) -> list[Any]:  # a new session: what the server lists
        fresh = MemstreamSession(session_id, user_id=user, client=memstream)
        return asyncio.run(fresh.get_items())

    wait_until(lambda: len(stored_items(name)) == len(items), 60)
    mine = stored_items(name)
    assert mine[0] == {"role": "user", "content": "caf\ufffd order?"}
    output = mine[1]["output"]
    assert output.startswith("output line") and output.endswith("characters more, not kept]")
    assert mine[2:] == items[2:]
    wait_until(
        lambda: stored_items(name + "y") == [{"role": "user", "content": "another chat"}], 30
    )


def test_hooks_lose_no_turn_of_hostile_input(
    memstream: MemoryClient, api_url: str, tmp_path: Path
) -> None:
    """Codex with a 250-character session id (every turn had the first's id) and a
    prompt holding a lone surrogate (refused: the turn lost); Gemini saying the same
    words in two turns (stored once)."""
    user, project = someone("dev"), tmp_path / "shop"
    (project / ".git").mkdir(parents=True)
    codex, gemini = (
        installed("codex", project, api_url, user),
        installed("gemini", project, api_url, user),
    )
    long = "s" * 250
    for n, prompt in enumerate(["first prompt", "second prompt", "caf\\ud800 third"]):
        turn = {"SESSION": long, "TURN": f"t-{n}", "PROMPT": prompt, "ANSWER": f"answer {n}"}
        run_as_host(codex["UserPromptSubmit"], "codex", "UserPromptSubmit", project, **turn)
    said = {"SESSION": "g-twice", "PROMPT": "run the tests", "ANSWER": "all green"}
    for when in ("2026-11-28T09:00:09.000Z", "2026-11-28T09:04:00.000Z"):
        run_as_host(gemini["AfterAgent"], "gemini", "AfterAgent", project, WHEN=when, **said)
    wait_until(lambda: len(memstream.list(user, kind="episode", limit=50)["memories"]) >= 7, 30)
    rows = memstream.list(user, kind="episode", limit=50, order="oldest")["memories"]
    assert [r["content"] for r in rows if r["channel"] == "codex"] == [
        "first prompt", "second prompt", "caf\ufffd third"
    ]  # fmt: skip
    assert [r["content"] for r in rows if r["channel"] == "gemini"] == [
        "run the tests", "all green", "run the tests", "all green"
    ]  # fmt: skip
