"""The gate every HTTP door shares (the API, the console, MCP): who is knocking and
whether they may (:mod:`.guard`: keys, tenants, rate limits, the audit log, the
serving rule), and what a refusal of the operations layer is answered with
(:mod:`.refusals`). Below the doors, so none of them imports another for it.

Its modules, named in ``__all__``, are imported by name; importing the package alone
loads none of them."""

from __future__ import annotations

__all__ = ["guard", "refusals"]
