"""The event vocabulary: the frozen, versioned events channels publish and jobs emit,
the one codec between events and bytes, what JSON an event may be, what a channel may
leave out, ids as people read them, and sealed records (an event's bytes under its
user's key). Pure: no I/O.

Its modules, named in ``__all__``, are imported by name; importing the package alone
loads none of them."""

from __future__ import annotations

__all__ = [
    "codec",
    "errors",
    "identifier_rules",
    "identifiers",
    "json_text",
    "omissions",
    "problems",
    "sealed_records",
    "short_ids",
    "text_limits",
    "user_ids",
    "vocabulary",
]
