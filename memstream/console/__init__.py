"""The console: memstream in a browser, served by the API at ``/console``.

Server-rendered pages (Jinja2, every value escaped) over the operations layer, on the
API's keys and rules: stream health with live charts (uPlot, shipped in the package),
a user's timeline, one memory with its provenance and history and the actions a write
key may take, the recall playground (a search's whole path and the context block),
entities as a graph, documents, dead letters and keys.

Modules: :mod:`~memstream.console.app` (installing it in the API),
:mod:`~memstream.console.access` (sessions to principals, pages, errors as pages),
:mod:`~memstream.console.sessions`, :mod:`~memstream.console.stream_pages`,
:mod:`~memstream.console.memory_pages`, :mod:`~memstream.console.recall_pages`,
:mod:`~memstream.console.samples`,
:mod:`~memstream.console.shown`, :mod:`~memstream.console.graph`,
:mod:`~memstream.console.curves`.
"""

__all__ = [
    "access",
    "app",
    "curves",
    "graph",
    "memory_pages",
    "recall_pages",
    "recent",
    "samples",
    "served_pages",
    "sessions",
    "shown",
    "stream_pages",
]
