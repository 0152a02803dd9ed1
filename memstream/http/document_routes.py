"""The documents routes of the HTTP API: submit a document, read its status, list them,
remove one.

``POST /v1/documents`` takes a file as ``multipart/form-data`` (the ``file`` part, with
``user_id`` and optional ``title``, ``document_id``, ``project_id``, ``tags``, the tags
comma-separated), or JSON
with the document's ``text``. It answers 202 with the document id and the version's
checksum once the original is stored and ``DocumentSubmitted`` is in the log (200 when
the same bytes were submitted before); ``?wait=N`` then waits up to N seconds and
answers the status. A type memstream does not read is 415, naming those it does; a
document over ``MEMSTREAM_DOCUMENT_MAX_BYTES`` is 413.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException, Path, Query, Request, Response
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from starlette.datastructures import FormData, UploadFile

from memstream.adapters.document_parsing import ACCEPTED
from memstream.application.documents import DocumentAccepted
from memstream.events.identifier_rules import IDENTIFIER_PATTERN
from memstream.events.identifiers import Identifier, Tag
from memstream.events.problems import problems_of
from memstream.events.vocabulary import MediaType
from memstream.gate.guard import Principal
from memstream.http.contract import errors
from memstream.http.parameters import READ, WRITE, RouteDeps
from memstream.http.resource_answers import DocumentList, DocumentStatus
from memstream.http.write_answers import DocumentRemoval, DocumentSubmitted

__all__ = ["READABLE", "DocumentFields", "DocumentText", "document_router"]

_ID = {"type": "string", "pattern": IDENTIFIER_PATTERN, "maxLength": 200}
#: The media types a document may be (what the ``file`` part's encoding declares).
READABLE = sorted(ACCEPTED)


class DocumentText(BaseModel):
    """A document sent as text (JSON)."""

    model_config = ConfigDict(extra="forbid")

    user_id: Identifier
    text: str = Field(min_length=0, max_length=50_000_000)
    document_id: Identifier
    title: str | None = Field(default=None, max_length=500)
    project_id: Identifier | None = None
    media_type: MediaType = "text/plain"
    tags: list[Tag] = Field(default_factory=list, max_length=32)


_TAG_CHARACTERS = "[A-Za-z0-9_.:+/-]{1,64}"
_TAGS_PATTERN = f"^{_TAG_CHARACTERS}(,{_TAG_CHARACTERS}){{0,31}}$"


class DocumentFields(BaseModel):
    """The fields of a document sent as a file (``multipart/form-data``), beside ``file``."""

    model_config = ConfigDict(extra="forbid")

    user_id: Identifier
    title: str | None = Field(default=None, max_length=500)
    document_id: Identifier | None = None
    project_id: Identifier | None = None
    #: tags, comma-separated (a form field holds one value)
    tags: str | None = Field(default=None, pattern=_TAGS_PATTERN)


def _multipart_schema() -> dict[str, Any]:
    schema = DocumentFields.model_json_schema()
    schema["properties"] = {"file": {"type": "string", "format": "binary"}, **schema["properties"]}
    schema["required"] = ["file", *schema.get("required", [])]
    return schema


_MULTIPART = _multipart_schema()


def document_router(deps: RouteDeps) -> APIRouter:
    """The documents routes, over ``deps``."""
    router = APIRouter(tags=["documents"])
    ops, who, settings = deps.operations, deps.who, deps.operations.settings
    read, write = READ, WRITE

    @router.post(
        "/v1/documents",
        status_code=202,
        response_model=DocumentSubmitted,
        response_model_exclude_unset=True,
        max_body_size=settings.document_max_bytes + 64_000,  # the form's own bytes too
        responses={
            **errors(*write, 413),
            200: {"description": "The same bytes were submitted before, or waited for"},
            415: {"description": "Not a type memstream reads: the answer names those it does"},
        },
        openapi_extra={
            "requestBody": {
                "required": True,
                "content": {
                    "multipart/form-data": {
                        "schema": _MULTIPART,
                        "encoding": {"file": {"contentType": ", ".join(READABLE)}},
                    },
                    "application/json": {"schema": DocumentText.model_json_schema()},
                },
            }
        },
    )
    async def add_document(
        request: Request,
        response: Response,
        wait: float = Query(0, ge=0, le=300),
        principal: Principal = who,
    ) -> dict[str, Any]:
        """Submit a document (a file, or text); its chunks become searchable memories."""
        fields, data = await _submitted(request)
        principal.writes(fields["user_id"])
        accepted: DocumentAccepted = await ops.documents.add(
            fields["user_id"], data, caller=principal.caller(), **fields["options"]
        )
        body: dict[str, Any] = {
            "document_id": accepted.document_id,
            "checksum": accepted.checksum,
            "new": accepted.new,
            "accepted": accepted.event_ids,
            "token": accepted.token,
        }
        response.status_code = 202 if accepted.new else 200
        if wait:
            body["document"] = await ops.documents.status(
                fields["user_id"], accepted.document_id, wait, accepted.checksum
            )
            response.status_code = 200
        return body

    @router.get(
        "/v1/documents",
        response_model=DocumentList,
        response_model_exclude_unset=True,
        responses=errors(*read),
    )
    async def list_documents(
        user_id: str = Query(pattern=IDENTIFIER_PATTERN, max_length=200),
        principal: Principal = who,
    ) -> dict[str, Any]:
        """The user's documents with their status, newest first."""
        principal.reads(user_id)
        return {"documents": await ops.documents.listed(user_id)}

    @router.get(
        "/v1/documents/{document_id:text}",
        response_model=DocumentStatus,
        response_model_exclude_unset=True,
        responses=errors(*read, 404),
    )
    async def get_document(
        document_id: str = Path(pattern=IDENTIFIER_PATTERN, max_length=200),
        user_id: str = Query(pattern=IDENTIFIER_PATTERN, max_length=200),
        wait: float = Query(0, ge=0, le=300),
        principal: Principal = who,
    ) -> dict[str, Any]:
        """A document's status: ``received``, ``chunked``, ``indexed``, ``empty``,
        ``failed`` (with why) or ``removed``, its chunk and fact counts; ``?wait=N``
        waits up to N seconds for it to be done."""
        principal.reads(user_id)
        return await ops.documents.status(user_id, document_id, wait)

    @router.delete(
        "/v1/documents/{document_id:text}",
        status_code=202,
        response_model=DocumentRemoval,
        response_model_exclude_unset=True,
        responses={**errors(*write, 404), 200: {"description": "Removed already"}},
    )
    async def remove_document(
        response: Response,
        document_id: str = Path(pattern=IDENTIFIER_PATTERN, max_length=200),
        user_id: str = Query(pattern=IDENTIFIER_PATTERN, max_length=200),
        wait: float = Query(0, ge=0, le=300),
        principal: Principal = who,
    ) -> dict[str, Any]:
        """Remove a document: the chunks and facts of every version of it are
        soft-deleted (kept for history, never found again). Submitting it again starts
        it afresh; the original bytes go when the user is erased. ``?wait=N`` waits up
        to N seconds for the removal to be applied (200 then)."""
        principal.writes(user_id)
        done = await ops.documents.remove(user_id, document_id, wait, caller=principal.caller())
        response.status_code = 200 if done["removed"] or wait else 202
        return done

    return router


async def _submitted(request: Request) -> tuple[dict[str, Any], bytes]:
    """The submitting user, the options of :meth:`DocumentCases.add` and the
    bytes, from a multipart form or a JSON body."""
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind == "application/json":
        try:
            sent = DocumentText.model_validate_json(await request.body())
        except ValidationError as exc:
            raise HTTPException(422, detail=problems_of(exc)) from None
        options = _options(
            sent.media_type, sent.title, sent.document_id, sent.project_id, sent.tags
        )
        return {"user_id": sent.user_id, "options": options}, sent.text.encode("utf-8")
    if kind != "multipart/form-data":
        raise HTTPException(
            415, detail="send the document as multipart/form-data (a file) or JSON (its text)"
        )
    async with request.form() as form:  # its spooled files closed, whatever is answered
        return await _form_fields(form)


async def _form_fields(form: FormData) -> tuple[dict[str, Any], bytes]:
    """What :func:`_submitted` reads from a multipart form (each field once)."""
    uploads = form.getlist("file")
    if len(uploads) != 1 or not isinstance(uploads[0], UploadFile):
        raise HTTPException(422, detail=["file: one document to submit is needed"])
    upload = uploads[0]
    given: dict[str, Any] = {}
    for name in {key for key in form if key != "file"}:
        values = form.getlist(name)
        if any(not isinstance(v, str) for v in values):
            raise HTTPException(422, detail=[f"{name}: must be text, not a file"])
        if len(values) > 1:
            raise HTTPException(422, detail=[f"{name}: given more than once"])
        given[name] = values[0]
    try:
        fields = DocumentFields.model_validate(given)
    except ValidationError as exc:
        raise HTTPException(422, detail=problems_of(exc)) from None
    tags = [tag.lower() for tag in fields.tags.split(",")] if fields.tags else []
    options = _options(
        upload.content_type, fields.title, fields.document_id, fields.project_id, tags
    )
    options["name"] = upload.filename
    return {"user_id": fields.user_id, "options": options}, await upload.read()


def _options(
    media_type: str | None,
    title: str | None,
    document_id: str | None,
    project_id: str | None,
    tags: list[str],
) -> dict[str, Any]:
    """The options of :meth:`DocumentCases.add` a request gives."""
    return {
        "media_type": media_type,
        "title": title,
        "document_id": document_id,
        "project_id": project_id,
        "tags": tags,
    }
