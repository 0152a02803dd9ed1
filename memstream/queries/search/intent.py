"""What a query asks for: why, when, who, what, or general (pure).

Keyword rules decide first. When they find nothing and an embedder is at hand, the
query is compared with a few exemplar questions per intent, and the nearest intent
wins if it is close enough. Ranking uses the intent (a "when" question favours
memories that name a date).
"""

from __future__ import annotations

import re
from collections.abc import Callable

import numpy as np

from memstream.queries.search.request import Intent

__all__ = ["EXEMPLARS", "IntentClassifier", "classify_by_rules"]


_RULES: list[tuple[Intent, re.Pattern[str]]] = [
    (
        "when",
        re.compile(
            r"\b(when|what (time|date|day|year|month)|which (year|month|day|date)|how long ago"
            r"|since when|what period)\b",
            re.I,
        ),
    ),
    ("why", re.compile(r"\b(why|what (made|caused|motivated|inspired)|reason|how come)\b", re.I)),
    ("who", re.compile(r"\b(who|whom|whose|with whom)\b", re.I)),
    ("what", re.compile(r"^\s*(what|which|how|where|did|does|do|is|are|was|were)\b", re.I)),
]

EXEMPLARS: dict[Intent, list[str]] = {
    "why": ["what was the reason for it", "what motivated the decision", "explain the cause"],
    "when": ["tell me the date it happened", "at what time was the meeting", "the day of the trip"],
    "who": ["the person who helped", "name the friend from the trip", "which colleague said it"],
    "what": ["tell me what they like", "describe the project", "list the hobbies"],
}


def classify_by_rules(query: str) -> Intent:
    """The intent the query's wording shows, or ``general``."""
    for intent, pattern in _RULES:
        if pattern.search(query):
            return intent
    return "general"


class IntentClassifier:
    """Rules first; then the nearest exemplars when an embedding function is given."""

    def __init__(
        self, embed: Callable[[str], np.ndarray] | None = None, threshold: float = 0.45
    ) -> None:
        self._embed = embed
        self._threshold = threshold
        self._centroids: dict[Intent, np.ndarray] | None = None

    def __call__(self, query: str, query_vector: np.ndarray | None = None) -> Intent:
        intent = classify_by_rules(query)
        if intent != "general" or self._embed is None:
            return intent
        vector = query_vector if query_vector is not None else self._embed(query)
        best, score = max(
            ((name, float(centroid @ vector)) for name, centroid in self._exemplars().items()),
            key=lambda item: item[1],
        )
        return best if score >= self._threshold else "general"

    def _exemplars(self) -> dict[Intent, np.ndarray]:
        if self._centroids is None:
            assert self._embed is not None
            centroids: dict[Intent, np.ndarray] = {}
            for name, sentences in EXEMPLARS.items():
                mean = np.mean([self._embed(s) for s in sentences], axis=0)
                centroids[name] = mean / max(float(np.linalg.norm(mean)), 1e-12)
            self._centroids = centroids
        return self._centroids
