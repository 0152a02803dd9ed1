"""Memory where agents are built: adapters of frameworks' memory interfaces over the
HTTP API's client, each framework an optional extra (``pip install 'memstream[X]'``).

- ``langgraph``: a LangGraph ``BaseStore`` (``MemstreamStore``).
- ``openai_agents``: an OpenAI Agents SDK ``Session``, memory tools and a context filter.
- ``visible``: waiting for a write to show, as the frameworks' interfaces promise.

Its modules, named in ``__all__``, are imported by name; importing the package alone
loads none of them (nor any framework)."""

from __future__ import annotations

__all__ = ["langgraph", "openai_agents", "visible"]
