"""Following links: what the best candidates refer back to joins the candidates (pure).

Consolidation links a user's statement to the earlier statements it refers back to
(:mod:`memstream.projections.links`). A question about the later statement finds it by
its words and meaning; the earlier one shares neither with the question, so the
retrievers rank it nowhere. Here each memory one of the ``reach`` best candidates
links to gets at least ``share`` times the link's strength times that candidate's fused
score, and never more than :data:`UNDER_THE_SOURCE` of it: the earlier statement comes
in under the one that refers to it (a memory ranked higher on its own keeps its score),
and is kept in a context block as found through it (``found_through``).
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Mapping

__all__ = ["UNDER_THE_SOURCE", "followed"]

#: The most of its source's score a memory reached by a link gets.
UNDER_THE_SOURCE = 0.95

#: (earlier memory id, relation, strength) of each link of a memory.
Links = list[tuple[str, str, float]]


def followed(
    scores: Mapping[str, float],
    links_of: Callable[[str], Links],
    share: float,
    reach: int,
    hidden: Callable[[str], bool] = lambda _: False,
) -> tuple[dict[str, float], dict[str, str]]:
    """``scores`` after each memory one of the ``reach`` best-scored memories links to
    got at least ``share`` times the link's strength times that memory's score (at most
    :data:`UNDER_THE_SOURCE` of it, so what a memory refers back to ranks under it), and,
    for each memory a link lifted, the memory it was reached through. A ``hidden``
    memory (superseded or forgotten: the search leaves it out) is no source: what it
    refers back to is not lifted for its sake. ``share`` or ``reach`` 0 changes
    nothing."""
    out = dict(scores)
    if share <= 0 or reach <= 0 or not scores:
        return out, {}
    through: dict[str, str] = {}
    shown = (m for m in scores if not hidden(m))
    for source in heapq.nlargest(reach, shown, key=scores.__getitem__):  # ties: first listed
        score = scores[source]
        for linked_id, _, strength in links_of(source):
            lifted = min(share * strength, UNDER_THE_SOURCE) * score
            if linked_id != source and lifted > out.get(linked_id, 0.0):
                out[linked_id] = lifted
                through[linked_id] = source
    return out, through
