"""Who a query is about: the one speaker it names, and the query without that name (pure).

In a conversation a speaker seldom says their own name: "What activities does Melanie
partake in?" is answered by Melanie saying "I signed up for a pottery class". The name
is a strong word for the embedder and for BM25 and pulls a query toward the turns where
someone else addresses her ("Hey Mel!"), not the turns she said. So search gives the
memories the named speaker said a bonus, and embeds the query without the name
(:func:`without_speaker`). On LoCoMo (main recall@10, tuning / checking half, in
process) embedding without the name moved 0.735 / 0.727 to 0.763 / 0.744 and multi-hop
0.397 / 0.381 to 0.445 / 0.420; leaving the name out of the full-text query as well
helped neither half further, so BM25 keeps it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["named_speaker", "named_speakers", "without_speaker"]


def named_speakers(query: str, speakers: Iterable[str | None]) -> set[str]:
    """The speakers among ``speakers`` the query names (as whole words, any case; a
    hyphen joins a name)."""
    return {
        s for s in speakers if s and re.search(rf"(?<![\w-]){re.escape(s)}(?![\w-])", query, re.I)
    }


def named_speaker(query: str, speakers: Iterable[str | None]) -> str | None:
    """The one speaker among ``speakers`` the query names (:func:`named_speakers`), or
    None when it names none or several."""
    named = named_speakers(query, speakers)
    return named.pop() if len(named) == 1 else None


def without_speaker(query: str, speaker: str) -> str:
    """``query`` without the whole-word mentions of ``speaker`` (a possessive "'s" goes
    with them), or ``query`` itself when fewer than two words would be left."""
    name = rf"(?<![\w-]){re.escape(speaker)}(?:['\u2019]s)?(?![\w-])"
    left = " ".join(re.sub(name, " ", query, flags=re.I).split())
    return left if len(left.split()) >= 2 else query
