"""What the HTTP API promises in its OpenAPI document: the error body every failure
answers with, the status codes each route can return, the request bodies and the
identifier rules of paths and parameters.

Every error is ``{"detail": ...}``: a sentence, a list of ``field: problem`` lines, or
(for ``POST /v1/events``) a list of ``{index, problems}``, one per refused event. The
document says which status codes a route can answer, and describes request bodies
precisely enough that a client (or a fuzzer) that follows it is accepted.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from fastapi import FastAPI, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.utils import get_openapi
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict
from pydantic.json_schema import models_json_schema
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match

from memstream.application import (
    InvalidEvents,
    Unavailable,
)
from memstream.events.identifiers import Identifier
from memstream.events.omissions import TIMED_WHEN_PUBLISHED
from memstream.events.problems import message_of
from memstream.events.vocabulary import (
    ConfirmFact,
    CorrectFact,
    ForgetMemory,
    MessageEvent,
    RememberFact,
    RememberFields,
    SessionEnded,
)
from memstream.gate.refusals import STATUS_OF

__all__ = [
    "CONTROL_FREE_PATTERN",
    "ErrorBody",
    "EventProblems",
    "RememberRequest",
    "errors",
    "install_error_handlers",
    "install_event_body_schema",
    "single_valued_parameters",
]

#: Text without control characters (what an entity name or a free-text parameter may be).
CONTROL_FREE_PATTERN = r"^[^\x00-\x1f\x7f]+$"

#: The events a channel may send to ``POST /v1/events``.
CHANNEL_EVENT_MODELS: tuple[type[BaseModel], ...] = (
    MessageEvent,
    SessionEnded,
    RememberFact,
    CorrectFact,
    ConfirmFact,
    ForgetMemory,
)


class EventProblems(BaseModel):
    """What is wrong with one event of a batch (``index`` counts from 0)."""

    index: int
    problems: list[str]


class ErrorBody(BaseModel):
    """The body of every error answer."""

    detail: str | list[str] | list[EventProblems]
    #: of a publish refused part-way (503, 507): the ids of the events that were taken
    #: all the same and will be applied (the others were not); sending every event again
    #: with the same ids is safe
    accepted: list[str] | None = None


class RememberRequest(RememberFields):
    """``POST /v1/memories``: a memory stated by the user or an agent."""

    model_config = ConfigDict(extra="forbid")

    user_id: Identifier


_DESCRIPTIONS = {
    401: "Keys are required and the request carries none, or one unknown or revoked.",
    403: "The key cannot act on that user, is read-only, or is not an admin key.",
    413: "The request body is larger than the server takes (MEMSTREAM_MAX_BODY_BYTES).",
    429: "The key is over its rate (see Retry-After).",
    404: "No such memory or entity for this user, or (`as_of`) memory as of that moment "
    "is no longer kept.",
    422: "The request is malformed: each problem is named.",
    501: "This server has no cold store.",
    503: "The broker cannot take events now, or memstream is stopping (see Retry-After); "
    "`accepted` lists the events of a publish taken before the refusal, if any.",
    507: "A disk memstream writes to is nearly full (see Retry-After); "
    "`accepted` lists the events of a publish taken before the refusal, if any.",
}


def errors(*codes: int) -> dict[int | str, dict[str, Any]]:
    """The ``responses`` of a route that can fail with ``codes``."""
    return {code: {"model": ErrorBody, "description": _DESCRIPTIONS[code]} for code in codes}


def _lines(errors_: Sequence[Any]) -> list[str]:
    lines = []
    for item in errors_:
        where = ".".join(str(p) for p in item.get("loc", ()) if p not in ("body", "query", "path"))
        lines.append(f"{where or 'body'}: {message_of(item)}")
    return lines


async def single_valued_parameters(request: Request) -> None:
    """Refuse a query parameter given more than once (every parameter takes one value)."""
    params = request.query_params
    repeated = sorted({key for key in params if len(params.getlist(key)) > 1})
    if repeated:
        raise HTTPException(422, detail=[f"{k}: given more than once" for k in repeated])


def install_error_handlers(app: FastAPI) -> None:
    """Answer request validation failures and unparsable bodies in the error body's
    shape, with 422, and each refusal of the operations layer with its status (503 and
    507 with ``Retry-After``)."""

    @app.exception_handler(InvalidEvents)
    async def _invalid_events(request: Request, exc: InvalidEvents) -> JSONResponse:
        return JSONResponse(status_code=422, content={"detail": exc.problems})

    async def _refused(request: Request, exc: Exception) -> JSONResponse:
        status = next(code for kind, code in STATUS_OF if isinstance(exc, kind))
        retry_after = getattr(exc, "retry_after", None)
        headers = {"Retry-After": str(retry_after)} if retry_after is not None else None
        content: dict[str, Any] = {"detail": str(exc)}
        if isinstance(exc, Unavailable) and exc.taken:
            content["accepted"] = list(exc.taken)
        return JSONResponse(status_code=status, content=content, headers=headers)

    for kind, _ in STATUS_OF:
        app.add_exception_handler(kind, _refused)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        return JSONResponse(status_code=422, content={"detail": _lines(exc.errors())})

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        if exc.status_code == 400:  # a body FastAPI could not parse
            return JSONResponse(status_code=422, content={"detail": [f"body: {exc.detail}"]})
        headers = exc.headers
        if exc.status_code == 405:  # Starlette names the first route's methods only
            headers = {"Allow": ", ".join(_methods_at(request))}
        return JSONResponse(
            status_code=exc.status_code, content={"detail": exc.detail}, headers=headers
        )


def _methods_at(request: Request) -> list[str]:
    """Every method some route serves at the request's path."""
    methods: set[str] = set()
    for route in request.app.router.routes:
        match, _ = route.matches({**request.scope, "method": "GET"})
        route_methods = getattr(route, "methods", None)
        if match is not Match.NONE and route_methods:
            methods |= set(route_methods)
    return sorted(methods)


def install_event_body_schema(app: FastAPI, path: str, max_events: int) -> None:
    """Describe ``path``'s body (one channel event, or a list of them) in the OpenAPI
    document, from the event models themselves (the route parses the body with the
    codec, so old schema versions keep working)."""

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is not None:
            return app.openapi_schema
        document = get_openapi(
            title=app.title, version=app.version, description=app.description, routes=app.routes
        )
        _, definitions = models_json_schema(
            [(m, "validation") for m in CHANNEL_EVENT_MODELS],
            ref_template="#/components/schemas/{model}",
        )
        schemas = definitions.get("$defs", {})
        for model in CHANNEL_EVENT_MODELS:
            schema = schemas[model.__name__]
            required = schema.setdefault("required", [])
            if model is not MessageEvent:  # only a message may leave out its type
                required.append("type")
            if model.model_fields["type"].default in TIMED_WHEN_PUBLISHED:
                required.remove("occurred_at")  # it happened when the server took it
        document.setdefault("components", {}).setdefault("schemas", {}).update(schemas)
        event = {
            "anyOf": [{"$ref": f"#/components/schemas/{m.__name__}"} for m in CHANNEL_EVENT_MODELS]
        }
        body = {
            "anyOf": [
                event,
                {"type": "array", "items": event, "minItems": 1, "maxItems": max_events},
            ]
        }
        document["paths"][path]["post"]["requestBody"] = {
            "required": True,
            "content": {"application/json": {"schema": body}},
        }
        app.openapi_schema = document
        return document

    app.openapi = openapi  # type: ignore[method-assign]
