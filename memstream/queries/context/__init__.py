"""Context blocks: what a block may hold, gathered best first per section
(:mod:`.gathering`), whether a result bears on the question (:mod:`.relevance`, pure),
and the assembly within a token budget (:mod:`.assembly`, pure).

Its modules, named in ``__all__``, are imported by name; importing the package alone
loads none of them."""

from __future__ import annotations

__all__ = [
    "assembly",
    "gathering",
    "life_questions",
    "relevance",
]
