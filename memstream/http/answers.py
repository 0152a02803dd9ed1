"""The shapes of the HTTP API's answers that are not a query's own model (those live
with their queries, as :class:`~memstream.queries.search.request.SearchResponse`):
declared on their routes, so ``/openapi.json`` and the clients generated from it type
them."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

__all__ = [
    "ErasureAnswer",
    "ErasureReceipt",
    "ReceiptProbe",
    "ReceiptRemoved",
    "ReceiptSignature",
]


class ReceiptProbe(BaseModel):
    """One read path asked for the erased user after the erasure."""

    model_config = ConfigDict(extra="forbid")

    #: the read path (the user's rows in a table, search, context, …)
    read: str
    #: how many things it was asked (words, ids, names): never what they were
    asked: int
    #: what it found: 0 for an erasure that holds
    found: int


class ReceiptRemoved(BaseModel):
    """What an erasure removed from each store."""

    model_config = ConfigDict(extra="forbid")

    data_keys_destroyed: list[str]
    #: rows removed per projection table, and the cold store's and documents' files
    rows: dict[str, int]
    sealed_copies: str
    caches: str


class ReceiptSignature(BaseModel):
    """The deployment's signature of the rest of the receipt (canonical JSON)."""

    model_config = ConfigDict(extra="forbid")

    algorithm: str
    #: the first 16 hex digits of the SHA-256 of the deployment's public key
    key_id: str
    #: base64
    value: str


class ErasureReceipt(BaseModel):
    """A finished erasure's proof (see :mod:`memstream.application.erasure_receipts`):
    check it with ``memstream erase --verify``."""

    model_config = ConfigDict(extra="forbid")

    version: int
    user_id: str
    requested_at: str
    checked_at: str
    removed: ReceiptRemoved
    probes: list[ReceiptProbe]
    nothing_found: bool
    signature: ReceiptSignature


class ErasureAnswer(BaseModel):
    """What ``DELETE /v1/users/{user_id}`` answers."""

    model_config = ConfigDict(extra="forbid")

    user_id: str
    #: whether memstream held anything of the user when asked
    held: bool
    #: every projection and the cold store have dropped the user (HTTP 200; 202: not yet)
    complete: bool
    keys_destroyed: list[str]
    requested_at: str
    took_seconds: float
    #: the signed receipt, once the erasure is complete
    receipt: ErasureReceipt | None = None
