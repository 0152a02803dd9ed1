"""The HTTP API: one router per resource over the operations layer (``*_routes``: health,
events, search, memories, entities, users, keys, documents), the parameters they share,
the shapes of their answers (``*_answers``, ``answers``), the error contract (the
guard and the refusals' statuses are :mod:`memstream.gate`'s, shared with the console
and MCP), the app that assembles them, the server process of ``memstream serve``, the API child of
``memstream up``, the OpenAPI document (printed without a server, for the TypeScript
client's types), and how both servers read HTTP off the wire (``wire``).

Its modules, named in ``__all__``, are imported by name; importing the package alone
loads none of them."""

from __future__ import annotations

__all__ = [
    "answers",
    "app",
    "contract",
    "docs_pages",
    "document_routes",
    "doors",
    "entity_routes",
    "event_routes",
    "export_answers",
    "health",
    "health_routes",
    "in_process",
    "key_routes",
    "memory_answers",
    "memory_routes",
    "metering",
    "openapi_document",
    "parameters",
    "process",
    "resource_answers",
    "search_routes",
    "serve",
    "served_routes",
    "timing",
    "user_routes",
    "wire",
    "write_answers",
]
