"""The console's pages of recall: the playground (a search with its whole path, then
the context block an agent would receive, with its budget and what was left out), an
entity with the entities mentioned with it, and a user's documents."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import RedirectResponse
from pydantic import Field, TypeAdapter, ValidationError
from starlette.datastructures import UploadFile

from memstream.application import Operations
from memstream.console.access import SECURITY_HEADERS, ConsoleAccess
from memstream.console.graph import HEIGHT, WIDTH, layout
from memstream.events.errors import InvalidQuery
from memstream.events.problems import problems_of
from memstream.policies.limits import MAX_CONTEXT_TOKENS
from memstream.queries.search.request import MEMORY_KINDS
from memstream.queries.search.searcher import SearchRequest
from memstream.queries.search.trace import OUTCOMES

__all__ = ["recall_pages"]

_RETRIEVERS = ("full_text", "vector", "entity")


def recall_pages(router: APIRouter, ops: Operations, access: ConsoleAccess) -> None:
    """Add the pages of this module to ``router``."""

    @router.get("/console/users/{user_id:console_id}/playground")
    async def playground(request: Request, user_id: str) -> Any:
        viewer = access.viewer(request)
        viewer.who.reads(user_id)
        asked = request.query_params
        form: dict[str, Any] = {
            name: asked.get(name, "")
            for name in ("q", "k", "project", "tags", "after", "before", "now", "budget")
        }
        form["kinds"] = asked.getlist("kinds")
        values: dict[str, Any] = {"form": form, "kinds": MEMORY_KINDS, "user_id": user_id}
        if form["q"].strip():
            request_fields = _search_fields(user_id, form)
            try:
                search = SearchRequest.model_validate(request_fields)
            except ValidationError as exc:
                raise InvalidQuery("; ".join(problems_of(exc))) from None
            budget = _budget(form["budget"])
            response, trace, block = await ops.reads.playground(search, budget)
            values.update(
                response=response,
                candidates=trace.ordered(),
                trace=trace,
                retrievers=_RETRIEVERS,
                outcomes=OUTCOMES,
                block=block,
                request_json=search.model_dump_json(exclude_defaults=True),
            )
        page = access.page("playground.html", viewer, **values)
        if "response" in values:  # the traced search's part, and the whole (search + block)
            took = values["response"].took_ms
            page.headers["Server-Timing"] = (
                f"search;dur={took}, playground;dur={values['block'].took_ms:.2f}"
            )
        return page

    @router.get("/console/users/{user_id:console_id}/entities/{entity_id:console_id}")
    async def entity(request: Request, user_id: str, entity_id: str) -> Any:
        viewer = access.viewer(request)
        viewer.who.reads(user_id)
        found = await ops.observing.entity_graph(user_id, entity_id)
        profile = found["profile"]
        nodes, edges = layout(
            (profile["entity_id"], profile["name"], profile["type"]),
            [
                (n["entity_id"], n["canonical_name"], n["type"], n["together"])
                for n in found["neighbours"]
            ],
        )
        return access.page(
            "entity.html",
            viewer,
            user_id=user_id,
            profile=profile,
            neighbours=found["neighbours"],
            nodes=nodes,
            edges=edges,
            width=WIDTH,
            height=HEIGHT,
        )

    @router.get("/console/users/{user_id:console_id}/documents")
    async def documents(request: Request, user_id: str) -> Any:
        viewer = access.viewer(request)
        viewer.who.reads(user_id)
        listed = await ops.documents.listed(user_id)
        return access.page("documents.html", viewer, user_id=user_id, documents=listed)

    largest = ops.settings.document_max_bytes + 64_000  # as the API: the form's bytes too
    too_large = (
        f"a document may be {ops.settings.document_max_bytes / 1e6:g} MB at most on this "
        "server (MEMSTREAM_DOCUMENT_MAX_BYTES)"
    )

    # the route's own cap is wider than a document may be: past the cap the server answers
    # a bare 413 of its own, below it this page says what the limit is
    @router.post("/console/users/{user_id:console_id}/documents", max_body_size=2 * largest)
    async def upload(request: Request, user_id: str) -> Any:
        declared = request.headers.get("content-length", "")
        if declared.isascii() and declared.isdigit() and int(declared) > largest:
            async for _ in request.stream():  # read to its end: the browser then shows the page
                pass
            raise HTTPException(413, detail=too_large)
        try:
            form = await request.form()
        except HTTPException as exc:
            raise HTTPException(413, detail=too_large) if exc.status_code == 413 else exc from None
        viewer = access.acting(request, form)
        viewer.who.writes(user_id)
        sent = form.get("file")
        if not isinstance(sent, UploadFile) or not sent.filename:
            raise InvalidQuery("file: choose a document to upload")
        title = str(form.get("title", "")).strip() or None
        accepted = await ops.documents.add(
            user_id,
            await sent.read(),
            name=sent.filename,
            media_type=sent.content_type,
            title=title,
            caller=viewer.who.caller(),
        )
        where = (
            f"/console/users/{user_id}/documents/{accepted.document_id}?version={accepted.checksum}"
        )
        return RedirectResponse(where, 303, headers=SECURITY_HEADERS)

    @router.get("/console/users/{user_id:console_id}/documents/{document_id:console_id}")
    async def document(request: Request, user_id: str, document_id: str) -> Any:
        viewer = access.viewer(request)
        viewer.who.reads(user_id)
        version = request.query_params.get("version")
        if version:  # one just uploaded: received until the worker has applied it
            status = await ops.documents.status(user_id, document_id, checksum=version)
            if status["status"] == "received" and status.get("checksum") == version:
                pending = {
                    **status,
                    "title": document_id,
                    "facts": 0,
                    "versions": [],
                    "parts": {"chunks": [], "facts": []},
                }
                return access.page("document.html", viewer, user_id=user_id, document=pending)
        found = await ops.observing.document_detail(user_id, document_id)
        return access.page("document.html", viewer, user_id=user_id, document=found)


#: A context block's budget, as the API takes it (``budget_tokens``).
_BUDGET: TypeAdapter[int] = TypeAdapter(Annotated[int, Field(ge=1, le=MAX_CONTEXT_TOKENS)])


def _budget(given: str) -> int | None:
    """The playground's budget (None: the default), validated as the API validates it."""
    if not given.strip():
        return None
    try:
        return _BUDGET.validate_python(given.strip(), strict=False)
    except ValidationError as exc:
        raise InvalidQuery("budget: " + "; ".join(e["msg"] for e in exc.errors())) from None


def _search_fields(user_id: str, form: dict[str, Any]) -> dict[str, Any]:
    """The search request the playground's form asks for (validated by the caller)."""
    fields: dict[str, Any] = {"user_id": user_id, "query": form["q"]}
    if form["k"]:
        k = form["k"].strip()
        # a number as the API's JSON would carry it; else refused as the API refuses it
        fields["k"] = int(k) if k.isascii() and k.isdigit() and len(k) <= 9 else k
    if form["project"]:
        fields["project_id"] = form["project"]
    if form["kinds"]:
        fields["kinds"] = form["kinds"]
    tags = [t.strip() for t in form["tags"].split(",") if t.strip()]
    if tags:
        fields["tags"] = tags
    for name in ("after", "before", "now"):
        if form[name]:
            fields[name] = form[name]
    return fields
