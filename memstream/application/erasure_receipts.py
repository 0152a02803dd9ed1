"""An erasure's receipt: what each store removed of a user, what every read path found
when probed for them afterwards, signed with the deployment's key.

The receipt says, for each store, what went: the data keys destroyed (from then on
nothing sealed under them opens: the log, the intake journal and the event archive hold
only sealed copies), the rows removed from each projection table, the cold store's and
the documents' files, and this process's caches. Then every read path is probed with
the user's id and a sample of what they said, taken before the erasure (the probes'
words are not in the receipt, only how many were asked): rows of the user in each
table, search (hot and archived, history included), context, the memory list, each
sampled memory by id (with its history and explanation), each sampled entity, what
agents were shown (and where each sampled memory was used), the export, the users the
console lists and the event archive. An erasure is proven when
every probe found nothing.

The body is signed as canonical JSON (keys sorted, no spaces, UTF-8) with the
deployment's Ed25519 key (:mod:`memstream.storage.signing_key`), and a copy is kept in
``erasure-receipts`` of the data location. :func:`check` says what is wrong with a
receipt: a signature that is not the deployment key's, a body changed since, a probe
that found something.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from memstream.storage.signing_key import SigningKey, key_id_of, verify

__all__ = ["RECEIPT_VERSION", "Probe", "canonical", "check", "receipt_body", "signed"]

RECEIPT_VERSION = 1


@dataclass(frozen=True)
class Probe:
    """One read path asked for the erased user: what it is, how many things it was
    asked (words, ids, names), and what it found (0: nothing)."""

    read: str
    asked: int
    found: int

    def document(self) -> dict[str, Any]:
        return {"read": self.read, "asked": self.asked, "found": self.found}


def receipt_body(
    user_id: str,
    requested_at: datetime,
    checked_at: datetime,
    key_ids: Sequence[str],
    removed: Mapping[str, int],
    probes: Sequence[Probe],
) -> dict[str, Any]:
    """The receipt's body (what is signed): see the module docstring."""
    return {
        "version": RECEIPT_VERSION,
        "user_id": user_id,
        "requested_at": requested_at.isoformat(),
        "checked_at": checked_at.isoformat(),
        "removed": {
            "data_keys_destroyed": sorted(key_ids),
            "rows": {table: int(n) for table, n in sorted(removed.items())},
            "sealed_copies": "the log, the intake journal and the event archive keep only "
            "records sealed under the destroyed keys: none opens again",
            "caches": "this process's caches of the user dropped; the others drop theirs "
            "when they see the data keys change",
        },
        "probes": [p.document() for p in probes],
        "nothing_found": all(p.found == 0 for p in probes),
    }


def canonical(body: Mapping[str, Any]) -> bytes:
    """The bytes a receipt's signature is of."""
    return json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def signed(body: dict[str, Any], key: SigningKey) -> dict[str, Any]:
    """``body`` with the deployment's signature of it."""
    return {
        **body,
        "signature": {
            "algorithm": "Ed25519",
            "key_id": key.key_id,
            "value": key.sign(canonical(body)),
        },
    }


def check(receipt: Mapping[str, Any], public_key: bytes) -> list[str]:
    """What is wrong with ``receipt`` as the deployment whose public key is
    ``public_key`` (raw) signed it: nothing (an empty list) when it is that key's
    signature of exactly this body, of an erasure every probe found nothing of."""
    signature = receipt.get("signature")
    if not isinstance(signature, Mapping) or not isinstance(signature.get("value"), str):
        return ["the receipt carries no signature"]
    problems = []
    if signature.get("key_id") != key_id_of(public_key):
        problems.append(
            f"signed by key {signature.get('key_id')!s:.32}, not this deployment's "
            f"({key_id_of(public_key)})"
        )
    body = {name: value for name, value in receipt.items() if name != "signature"}
    if not verify(public_key, signature["value"], canonical(body)):
        problems.append("the signature does not match the receipt: it was changed or forged")
    probes = body.get("probes")
    if not isinstance(probes, list) or not probes:
        problems.append("the receipt lists no probes")
    else:
        found = [p for p in probes if not isinstance(p, Mapping) or p.get("found") != 0]
        if found:
            problems.append(f"{len(found)} probe(s) found something of the user")
    return problems
