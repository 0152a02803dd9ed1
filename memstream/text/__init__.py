"""The language rules, pure and offline: the fact extractor, entity mentions and the
place names that type them, time phrases, a document's chunks and a long turn's
passages.

Its modules, named in ``__all__``, are imported by name; importing the package alone
loads none of them."""

from __future__ import annotations

__all__ = [
    "chunks",
    "extractor",
    "fact_patterns",
    "fact_words",
    "found_facts",
    "life_facts",
    "mentions",
    "name_words",
    "passages",
    "place_names",
    "sentences",
    "session_people",
    "statements",
    "stored_items",
    "third_person",
    "time_phrases",
    "tool_facts",
]
