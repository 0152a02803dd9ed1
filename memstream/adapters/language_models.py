"""Language models that answer in JSON, through the official Anthropic and OpenAI SDKs.

A :class:`JsonModel` takes a system prompt, a user prompt and a pydantic model, asks
for an answer shaped by that model's JSON schema (Anthropic: a forced tool call;
OpenAI: ``response_format`` with a strict JSON schema), validates it, and returns it
with the tokens it cost. Rate limits, timeouts, connection errors and server errors are
retried with exponential backoff; what still fails, and any answer that does not
validate, raises :class:`ModelError` so that the caller can try again later instead of
losing the work.
"""

from __future__ import annotations

import json
import logging
import re
import time
from collections.abc import Callable
from typing import Any, Protocol, TypeVar

from pydantic import BaseModel, ValidationError

from memstream.adapters.retries import with_retries
from memstream.events.vocabulary import TokenUsage

__all__ = [
    "AnthropicModel",
    "JsonModel",
    "ModelError",
    "OpenAIModel",
    "SdkModel",
    "combined_usage",
    "lenient_json",
    "strict_schema",
]


T = TypeVar("T", bound=BaseModel)
log = logging.getLogger(__name__)


class ModelError(Exception):
    """A model call failed after its retries, or its answer did not validate."""


class JsonModel(Protocol):
    """A language model that answers with a validated pydantic object."""

    name: str

    def ask(
        self, system: str, prompt: str, answer: type[T], max_tokens: int = 4096
    ) -> tuple[T, TokenUsage]: ...


def combined_usage(a: TokenUsage | None, b: TokenUsage | None) -> TokenUsage | None:
    """What two model calls (or attempts) cost together; None when neither asked one."""
    if a is None or b is None:
        return a or b
    return TokenUsage(
        input_tokens=a.input_tokens + b.input_tokens,
        output_tokens=a.output_tokens + b.output_tokens,
        calls=a.calls + b.calls,
    )


def strict_schema(model: type[BaseModel]) -> dict[str, Any]:
    """``model``'s JSON schema in the strict form structured outputs accept: every
    object closed (``additionalProperties: false``) and every property required."""

    def close(node: Any) -> Any:
        if isinstance(node, dict):
            out = {k: close(v) for k, v in node.items() if k not in ("title", "default")}
            if out.get("type") == "object" and "properties" in out:
                out["additionalProperties"] = False
                out["required"] = list(out["properties"])
            return out
        if isinstance(node, list):
            return [close(v) for v in node]
        return node

    schema: dict[str, Any] = close(model.model_json_schema())
    return schema


def _validated(answer: type[T], document: Any, what: str) -> T:
    try:
        return answer.model_validate(document)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or '(answer)'}: {e['msg']}"
            for e in exc.errors()[:5]
        )
        raise ModelError(f"{what} answered malformed JSON: {problems}") from None


class SdkModel:
    """What both SDK clients share: the connection, and our retries (the SDKs' own are
    off, so that each retry is counted and logged).

    Args:
        api_key: the key.
        model: the model (the class's ``default_model``, a small one, when None).
        base_url: another endpoint that speaks the provider's API.
        max_retries: attempts after a retryable failure, with exponential backoff.
        backoff_seconds: the first backoff (doubling with each attempt).
        timeout_seconds: longest one request may take.
    """

    provider: str
    default_model: str

    def __init__(
        self,
        api_key: str,
        model: str | None = None,
        base_url: str | None = None,
        max_retries: int = 4,
        backoff_seconds: float = 1.0,
        timeout_seconds: float = 120.0,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.model = model or self.default_model
        self.name = f"{self.provider}/{self.model}"
        self._max_retries = max_retries
        self._backoff = backoff_seconds
        self._sleep = sleep
        self._connect(api_key, base_url, timeout_seconds)

    def _connect(self, api_key: str, base_url: str | None, timeout_seconds: float) -> None:
        raise NotImplementedError

    def ask(
        self, system: str, prompt: str, answer: type[T], max_tokens: int = 4096
    ) -> tuple[T, TokenUsage]:
        """``answer`` as the model fills it in, and what the call cost."""
        raise NotImplementedError

    def _call(self, call: Callable[[], Any], sdk_error: type[Exception]) -> Any:
        try:
            return with_retries(
                call, self.name, sdk_error, self._max_retries, self._backoff, self._sleep
            )
        except sdk_error as exc:
            raise ModelError(f"{self.name} failed: {exc}") from exc


class AnthropicModel(SdkModel):
    """Claude (a Haiku-class model by default) through the ``anthropic`` SDK; the answer
    is a forced tool call whose input schema is the answer's JSON schema."""

    provider = "anthropic"
    default_model = "claude-haiku-4-5"

    def _connect(self, api_key: str, base_url: str | None, timeout_seconds: float) -> None:
        import anthropic

        self._sdk = anthropic
        self._client = anthropic.Anthropic(
            api_key=api_key, base_url=base_url, max_retries=0, timeout=timeout_seconds
        )

    def ask(
        self, system: str, prompt: str, answer: type[T], max_tokens: int = 4096
    ) -> tuple[T, TokenUsage]:
        tool = "record_answer"

        def call() -> Any:
            return self._client.messages.create(
                model=self.model,
                max_tokens=max_tokens,
                system=system,
                messages=[{"role": "user", "content": prompt}],
                tools=[
                    {
                        "name": tool,
                        "description": "Record the answer.",
                        "input_schema": answer.model_json_schema(),
                    }
                ],
                tool_choice={"type": "tool", "name": tool},
            )

        response = self._call(call, self._sdk.APIError)
        usage = TokenUsage(
            input_tokens=response.usage.input_tokens,
            output_tokens=response.usage.output_tokens,
            calls=1,
        )
        for block in response.content:
            if block.type == "tool_use" and block.name == tool:
                return _validated(answer, block.input, self.name), usage
        raise ModelError(f"{self.name} answered without calling {tool} ({response.stop_reason})")


class OpenAIModel(SdkModel):
    """A chat model through the ``openai`` SDK: OpenAI's own (a small GPT model by
    default), or a local server that speaks its API (Ollama, vLLM, llama.cpp, LM Studio)
    at ``base_url``.

    How the answer's shape is asked for (``json_mode``):

    - ``schema``: a strict JSON-schema response format (OpenAI; vLLM and llama.cpp
      take it too);
    - ``object``: a JSON-object response format, the schema in the system prompt
      (servers that constrain to JSON but not to a schema);
    - ``prompt``: no response format, the schema in the system prompt;
    - ``auto``: ``schema`` first; a server that refuses the response format (400) is
      asked again with the next mode, which is then kept.

    Whatever the mode, the answer is read tolerantly (code fences, a reasoning model's
    ``<think>`` block and prose around the object are skipped) and validated; an answer
    that is not the JSON asked for is asked for again, ``malformed_retries`` times, then
    raises :class:`ModelError` with what was wrong.
    """

    provider = "openai"
    default_model = "gpt-4.1-mini"
    modes: tuple[str, ...] = ("schema", "object", "prompt")

    def __init__(
        self,
        api_key: str,
        *args: Any,
        json_mode: str = "schema",
        malformed_retries: int = 2,
        **kwargs: Any,
    ) -> None:
        """``api_key`` and the rest as :class:`SdkModel` takes them; ``json_mode`` and
        ``malformed_retries`` as the class says."""
        if json_mode != "auto" and json_mode not in self.modes:
            raise ValueError(f"json_mode {json_mode!r} is none of auto, {', '.join(self.modes)}")
        self.json_mode = "schema" if json_mode == "auto" else json_mode
        self._falls_back = json_mode == "auto"
        self._malformed_retries = malformed_retries
        super().__init__(api_key, *args, **kwargs)

    def _connect(self, api_key: str, base_url: str | None, timeout_seconds: float) -> None:
        import openai

        self._sdk = openai
        self._client = openai.OpenAI(
            api_key=api_key, base_url=base_url, max_retries=0, timeout=timeout_seconds
        )

    def ask(
        self, system: str, prompt: str, answer: type[T], max_tokens: int = 4096
    ) -> tuple[T, TokenUsage]:
        spent = TokenUsage(input_tokens=0, output_tokens=0, calls=0)
        for attempt in range(self._malformed_retries + 1):
            text, usage = self._answer_text(system, prompt, answer, max_tokens)
            spent = combined_usage(spent, usage) or spent  # each answer is one call
            try:
                return _validated(answer, lenient_json(text, self.name), self.name), spent
            except ModelError:
                if attempt == self._malformed_retries:
                    raise
                log.warning("%s answered malformed JSON; asking again", self.name)
        raise AssertionError("unreachable")

    def _answer_text(
        self, system: str, prompt: str, answer: type[T], max_tokens: int
    ) -> tuple[str, TokenUsage]:
        """One answer's text in the mode that works, falling back (``auto``) when the
        server refuses a response format."""
        while True:
            try:
                response = self._call(
                    lambda: self._request(system, prompt, answer, max_tokens),
                    self._sdk.APIError,
                )
                break
            except ModelError as exc:
                refused = isinstance(exc.__cause__, self._sdk.BadRequestError)
                if not (refused and self._falls_back and self.json_mode != self.modes[-1]):
                    raise
                fallback = self.modes[self.modes.index(self.json_mode) + 1]
                log.warning("%s refused %s output (%s); trying %s", self.name,
                            self.json_mode, exc.__cause__, fallback)  # fmt: skip
                self.json_mode = fallback
        usage = TokenUsage(
            input_tokens=response.usage.prompt_tokens if response.usage else 0,
            output_tokens=response.usage.completion_tokens if response.usage else 0,
            calls=1,
        )
        if not response.choices:
            raise ModelError(f"{self.name} answered no choices")
        message = response.choices[0].message
        if getattr(message, "refusal", None):
            raise ModelError(f"{self.name} refused: {message.refusal}")
        return message.content or "", usage

    def _request(self, system: str, prompt: str, answer: type[T], max_tokens: int) -> Any:
        options: dict[str, Any] = {}
        if self.json_mode == "schema":
            options["response_format"] = {
                "type": "json_schema",
                "json_schema": {
                    "name": answer.__name__,
                    "schema": strict_schema(answer),
                    "strict": True,
                },
            }
        else:
            system = f"{system}\n\n{_SCHEMA_INSTRUCTION}\n{json.dumps(strict_schema(answer))}"
            if self.json_mode == "object":
                options["response_format"] = {"type": "json_object"}
        return self._client.chat.completions.create(
            model=self.model,
            max_completion_tokens=max_tokens,
            messages=[
                {"role": "system", "content": system},
                {"role": "user", "content": prompt},
            ],
            **options,
        )


_SCHEMA_INSTRUCTION = (
    "Answer with a single JSON object and nothing else (no prose, no code fence), "
    "valid against this JSON schema:"
)
_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.DOTALL)
_THINKING = re.compile(r"<think(?:ing)?>.*?</think(?:ing)?>", re.DOTALL)


def lenient_json(text: str, who: str) -> Any:
    """The JSON object in a model's answer: the whole text when it is JSON, else the
    object inside a code fence or between the first "{" and the last "}", after a
    reasoning model's ``<think>`` block; :class:`ModelError` when there is none."""
    text = _THINKING.sub("", text).strip()
    candidates = [text]
    fenced = _FENCE.search(text)
    if fenced:
        candidates.append(fenced.group(1).strip())
    if "{" in text and "}" in text:
        candidates.append(text[text.index("{") : text.rindex("}") + 1])
    problem = "empty answer"
    for candidate in candidates:
        try:
            return json.loads(candidate)
        except json.JSONDecodeError as exc:
            problem = str(exc)
    shown = " ".join(text.split())[:80]
    raise ModelError(f"{who} answered text that is not JSON ({problem}): {shown!r}")
