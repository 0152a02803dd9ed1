"""Consolidation, reflection and archive summaries by Anthropic and OpenAI models,
through the real SDKs against a local HTTP server that speaks each API (rate limits,
server errors and malformed answers included), and the lifecycle jobs retrying a failed
session later."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta

import pytest
from support.model_server import ModelServer, model_server

from memstream.adapters.extractor import ModelExtractor
from memstream.adapters.language_models import AnthropicModel, JsonModel, ModelError, OpenAIModel
from memstream.adapters.reflection import ModelReflector, Week
from memstream.adapters.summarizer import ModelSummarizer, local_summaries
from memstream.events.codec import encode
from memstream.events.vocabulary import FactsConsolidated, SessionEnded
from memstream.jobs.lifecycle import LifecycleJobs, LifecyclePolicy
from memstream.runtime.assembly import make_model
from memstream.settings import Settings
from memstream.storage.lance.store import ProjectionStore
from memstream.storage.lance.tables import MEMORIES
from memstream.storage.log_records import LogRecord
from memstream.streams.errors import StreamsError
from memstream.streams.projector import Projector
from memstream.testing import FakeClock, message
from memstream.text.extractor import Turn

T0 = datetime(2024, 6, 1, 10, 0, tzinfo=UTC)

TURNS = [
    Turn("e-1", "Maria", "user", "Hi there, how are you?", T0),
    Turn(
        "e-2", "Maria", "user", "Big news: I moved to Porto last week.", T0 + timedelta(minutes=1)
    ),
    Turn("e-3", "Maria", "user", "And I joined Blue Fin Labs.", T0 + timedelta(minutes=2)),
]


@pytest.fixture
def server() -> Iterator[str]:
    with model_server() as url:
        yield url


Factory = Callable[[str, list[float]], JsonModel]


def anthropic(url: str, sleeps: list[float]) -> JsonModel:
    return AnthropicModel(
        "sk-ant-test",
        model="claude-haiku-4-5",
        base_url=url,
        max_retries=2,
        backoff_seconds=0.5,
        sleep=sleeps.append,
    )


def openai(url: str, sleeps: list[float]) -> JsonModel:
    return OpenAIModel(
        "sk-test",
        model="gpt-4.1-mini",
        base_url=f"{url}/v1",
        max_retries=2,
        backoff_seconds=0.5,
        sleep=sleeps.append,
    )


PROVIDERS = [pytest.param(anthropic, id="anthropic"), pytest.param(openai, id="openai")]


@pytest.mark.parametrize("factory", PROVIDERS)
def test_extracts_facts_with_provenance_and_usage_after_a_rate_limit(
    server: str, factory: Factory
) -> None:
    sleeps: list[float] = []
    ModelServer.plan = ["429", "ok"]
    memories, usage = ModelExtractor(factory(server, sleeps)).extract("u1", "s1", TURNS)

    assert sleeps == [0.5]  # one backoff, then the answer
    assert [(m.subject, m.attribute, m.value) for m in memories] == [
        ("Maria", "lives_in", "Porto"),
        ("Maria", "works_at", "Blue Fin Labs"),
    ]
    porto, job = memories
    assert porto.source_event_ids == ["e-2"] and job.source_event_ids == ["e-3"]
    assert porto.occurred_at == TURNS[1].occurred_at and porto.session_id == "s1"
    assert porto.exclusive and porto.kind == "fact" and porto.tags == ["home"]
    assert usage is not None and usage.calls == 1
    assert (usage.input_tokens, usage.output_tokens) == ModelServer.usages[-1]
    prompt = str(ModelServer.requests[-1]["body"]["messages"])
    assert "[2] 2024-06-01 10:01 UTC (Saturday) Maria: Big news" in prompt


def test_anthropic_request_forces_the_schema_tool(server: str) -> None:
    ModelExtractor(anthropic(server, [])).extract("u1", "s1", TURNS)
    request = ModelServer.requests[-1]
    body = request["body"]
    assert request["path"] == "/v1/messages"
    headers = request["headers"]
    assert "sk-ant-test" in headers.get("x-api-key", "") + headers.get("authorization", "")
    assert "anthropic-version" in headers
    assert body["model"] == "claude-haiku-4-5"
    assert body["tool_choice"] == {"type": "tool", "name": "record_answer"}
    schema = body["tools"][0]["input_schema"]
    assert "memories" in schema["properties"] and "turns" in str(schema)
    assert "long-term memory" in body["system"]


def test_openai_request_asks_for_a_strict_json_schema(server: str) -> None:
    ModelExtractor(openai(server, [])).extract("u1", "s1", TURNS)
    request = ModelServer.requests[-1]
    body = request["body"]
    assert request["path"] == "/v1/chat/completions"
    assert request["headers"]["authorization"] == "Bearer sk-test"
    fmt = body["response_format"]
    assert fmt["type"] == "json_schema" and fmt["json_schema"]["strict"] is True
    schema = fmt["json_schema"]["schema"]
    item = schema["$defs"]["ExtractedMemory"]
    assert item["additionalProperties"] is False
    assert set(item["required"]) == set(item["properties"])
    assert body["messages"][0]["role"] == "system"


@pytest.mark.parametrize(
    ("factory", "plan", "says", "backoffs"),
    [
        pytest.param(anthropic, ["malformed"], "malformed", 0, id="anthropic-malformed"),
        pytest.param(anthropic, ["no-tool"], "without calling", 0, id="anthropic-no-tool"),
        pytest.param(anthropic, ["500", "500", "500"], "500", 2, id="anthropic-5xx"),
        # an answer that is not the JSON asked for is asked again twice, at once
        pytest.param(openai, ["malformed"] * 3, "malformed", 0, id="openai-malformed"),
        pytest.param(openai, ["not-json"] * 3, "not JSON", 0, id="openai-not-json"),
        pytest.param(openai, ["429", "429", "429"], "429", 2, id="openai-429"),
    ],
)
def test_failures_raise_a_model_error_after_the_retries(
    server: str, factory: Factory, plan: list[str], says: str, backoffs: int
) -> None:
    sleeps: list[float] = []
    ModelServer.plan = list(plan)
    with pytest.raises(ModelError, match=says):
        ModelExtractor(factory(server, sleeps)).extract("u1", "s1", TURNS)
    assert sleeps == [0.5 * 2**i for i in range(backoffs)]
    assert len(ModelServer.requests) == len(plan)


def local(url: str, json_mode: str = "auto") -> OpenAIModel:
    """A model on a local server that speaks OpenAI's API and wants no key."""
    return OpenAIModel("no-key", model="qwen2.5:7b", base_url=f"{url}/v1", json_mode=json_mode,
                       backoff_seconds=0.5, sleep=lambda _: None)  # fmt: skip


@pytest.mark.parametrize(
    ("formats", "kept", "asked"),
    [
        ({"json_schema", "json_object"}, "schema", ["json_schema"]),
        ({"json_object"}, "object", ["json_schema", "json_object", "json_object"]),
        (set(), "prompt", ["json_schema", "json_object", None, None]),
    ],
)
def test_a_local_server_is_asked_for_json_the_way_it_can_answer(
    server: str, formats: set[str], kept: str, asked: list[str | None]
) -> None:
    ModelServer.formats = formats
    model = local(server)
    extractor = ModelExtractor(model)
    memories, _ = extractor.extract("u1", "s1", TURNS)
    assert sorted(m.content for m in memories) == [
        "Maria lives in Porto.",
        "Maria works at Blue Fin Labs.",
    ]
    assert model.json_mode == kept
    if kept != "schema":  # the mode that works is kept for the next session
        extractor.extract("u1", "s2", TURNS)
    sent = [(r["body"].get("response_format") or {}).get("type") for r in ModelServer.requests]
    assert sent == asked
    for request in ModelServer.requests[len(asked) - 1 :]:
        if kept != "schema":  # the schema rides in the system prompt instead
            assert '"memories"' in request["body"]["messages"][0]["content"]


@pytest.mark.parametrize(
    ("plan", "calls"),
    [
        (["fenced"], 1),
        (["think"], 1),
        (["not-json", "ok"], 2),
        (["malformed", "not-json", "fenced"], 3),
    ],
)
def test_a_local_answer_is_read_tolerantly_and_asked_again_when_malformed(
    server: str, plan: list[str], calls: int
) -> None:
    ModelServer.plan = list(plan)
    memories, usage = ModelExtractor(local(server, "prompt")).extract("u1", "s1", TURNS)
    assert len(memories) == 2 and [m.source_event_ids for m in memories] == [["e-2"], ["e-3"]]
    assert usage is not None and usage.calls == calls == len(ModelServer.requests)
    assert usage.output_tokens == 42 * calls  # every attempt's tokens are counted


def test_an_unknown_json_mode_is_refused() -> None:
    with pytest.raises(ValueError, match="json_mode 'xml'"):
        OpenAIModel("no-key", base_url="http://127.0.0.1:9/v1", json_mode="xml")


def test_a_memory_citing_no_turn_of_the_session_is_dropped(server: str) -> None:
    turns = [*TURNS[:1], Turn("e-9", "Maria", "user", "I moved to Faro.", T0)]
    memories, _ = ModelExtractor(openai(server, [])).extract("u1", "s1", turns[:1])
    assert memories == []  # nothing said, nothing invented
    memories, _ = ModelExtractor(openai(server, [])).extract("u1", "s1", turns)
    assert [m.source_event_ids for m in memories] == [["e-9"]]


@pytest.mark.parametrize("factory", PROVIDERS)
def test_model_reflection_keeps_provenance_and_usage(server: str, factory: Factory) -> None:
    facts = [
        {
            "memory_id": "f1",
            "content": "Maria lives in Porto.",
            "occurred_at": T0,
            "source_event_ids": ["e-2"],
        },
        {
            "memory_id": "f2",
            "content": "Maria works at Blue Fin Labs.",
            "occurred_at": T0,
            "source_event_ids": ["e-3"],
        },
    ]
    reflector = ModelReflector(factory(server, []))
    event = reflector.reflect(Week("u1", T0, T0 + timedelta(days=7), facts, {"Maria": 3}), T0)
    assert event is not None
    assert event.memory.content == "A week with 2 new things learned."
    assert event.writer == reflector.name and event.usage is not None
    assert event.memory.source_memory_ids == ["f1", "f2"]
    assert event.memory.source_event_ids == ["e-2", "e-3"]


def test_settings_choose_the_model_when_a_key_is_present(server: str) -> None:
    assert make_model(Settings(extractor="auto")) is None
    chosen = make_model(Settings(anthropic_api_key="k", openai_api_key="o"))
    assert chosen is not None and chosen.name == "anthropic/claude-haiku-4-5"
    chosen = make_model(Settings(openai_api_key="o", openai_chat_model="gpt-x"))
    assert chosen is not None and chosen.name == "openai/gpt-x"
    assert make_model(Settings(extractor="local", openai_api_key="o")) is None
    with pytest.raises(StreamsError, match=r"OPENAI_API_KEY \(or MEMSTREAM_OPENAI_BASE_URL"):
        make_model(Settings(extractor="openai"))


def test_a_local_server_needs_no_key_and_answers_through_the_settings(server: str) -> None:
    """``MEMSTREAM_EXTRACTOR=openai`` with a base URL and no key: a local server."""
    settings = Settings(extractor="openai", openai_base_url=f"{server}/v1",
                        openai_chat_model="llama3.1:8b", openai_json_mode="object")  # fmt: skip
    model = make_model(settings)
    assert isinstance(model, OpenAIModel) and model.json_mode == "object"
    ModelServer.plan = ["fenced"]
    memories, usage = ModelExtractor(model).extract("u1", "s1", TURNS)
    assert len(memories) == 2 and usage is not None and usage.calls == 1
    request = ModelServer.requests[-1]
    assert request["headers"]["authorization"] == "Bearer no-key"
    assert request["body"]["model"] == "llama3.1:8b"


# -- the job: a failed session is retried later, never dropped ---------------------------


def _records(topic: str, events: list[object], start: int = 0) -> list[LogRecord]:
    return [
        LogRecord("e1", topic, 0, start + i, T0, b"u1", encode(e))  # type: ignore[arg-type]
        for i, e in enumerate(events)
    ]


def test_a_failed_session_stays_pending_and_is_consolidated_at_the_next_run(
    server: str, store: ProjectionStore
) -> None:
    clock = FakeClock(T0)
    projector = Projector(store, consumer="memstream", clock=clock)
    said = [
        message(
            event_id=t.event_id,
            user_id="u1",
            session_id="s1",
            speaker=t.speaker,
            role="user",
            content=t.content,
            occurred_at=t.occurred_at,
        )
        for t in TURNS
    ]
    ended = SessionEnded(
        event_id="end-1", user_id="u1", session_id="s1", occurred_at=T0 + timedelta(minutes=3)
    )
    projector.apply(_records("memory.messages", [*said, ended]))
    policy = LifecyclePolicy(model_concurrency=2)
    model = openai(server, [])
    jobs = LifecycleJobs(store, ModelExtractor(model), policy)
    now = T0 + timedelta(minutes=5)

    ModelServer.plan = ["500", "500", "500"]
    first = jobs.consolidate(now)
    assert [type(e).__name__ for e in first.events] == ["SessionClosed"]
    assert list(first.failed) == [f"u1|s1|{TURNS[-1].occurred_at.isoformat()}"]
    projector.apply(_records("memory.lifecycle", first.events))

    ModelServer.plan = ["malformed"] * 3  # asked again twice, still malformed
    second = jobs.consolidate(now)
    assert second.events == [] and list(second.failed) == list(first.failed)

    third = jobs.consolidate(now)  # the model answers properly now
    assert not third.failed
    [consolidated] = third.events
    assert isinstance(consolidated, FactsConsolidated)
    assert consolidated.extractor == "openai/gpt-4.1-mini"
    assert consolidated.usage is not None and consolidated.usage.calls == 1
    projector.apply(_records("memory.lifecycle", third.events, start=10))
    store.refresh()
    facts = store.scan(MEMORIES, where="kind = 'fact'").to_pylist()
    assert sorted(f["content"] for f in facts) == [
        "Maria lives in Porto.",
        "Maria works at Blue Fin Labs.",
    ]
    assert jobs.consolidate(now).events == []  # consolidated once, never again


@pytest.mark.parametrize("factory", PROVIDERS)
def test_model_summaries_and_the_local_fallback(server: str, factory: Factory) -> None:
    filler = " It was a long day of meetings and travel." * 16  # over 600 characters
    texts = [
        "Maria flew to Lisbon on 12 May 2024 for the launch party." + filler,
        "Jonas plays piano.",  # short: its own summary, never sent to the model
        "Jonas plays piano on Tuesdays at the old school." + filler,
    ]
    summarize = ModelSummarizer(factory(server, []))
    assert summarize(texts) == [
        "Summary 1: Maria flew to Lisbon on",
        "Jonas plays piano.",
        "Summary 2: Jonas plays piano on Tuesdays",
    ]
    ModelServer.plan = ["malformed"] * 3  # (OpenAI asks twice more) falls back to the
    assert summarize(texts) == local_summaries(texts)  # local summaries, never blocks
