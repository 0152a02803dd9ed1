"""How consolidation links a session's statements to earlier ones (the defaults, written
once; :mod:`memstream.projections.links` applies them)."""

from __future__ import annotations

__all__ = ["LINKS_PER_STATEMENT", "MIN_LINK_STRENGTH"]

#: How many earlier memories one statement links to at most.
LINKS_PER_STATEMENT = 5
#: The least cosine of a statement and an earlier one for a link between them.
MIN_LINK_STRENGTH = 0.3
