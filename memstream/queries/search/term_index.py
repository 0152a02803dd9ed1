"""BM25 over one user's memories, in memory, grown a few documents at a time.

The words are what the tables' full-text index makes of a text: split on anything not
a letter or digit, accents folded, lower case, English stop words dropped, each word
stemmed (Snowball English, the Porter2 stemmer); an identifier in camel case counts as
itself and as its parts, so ``getUserById`` is found by "user" (the tables' index, which
serves users the read model does not hold, keeps it whole). Scores are Okapi BM25 (k1 1.2, b 0.3,
see :data:`B`) with the statistics of the user's own memories: how common a word is
among *this user's* memories decides its weight, not how common it is among everyone's.

Documents are added by key; adding a key again retires its older document (a row
rewritten in the table). The index is safe to search from several threads while one
thread adds to it.
"""

from __future__ import annotations

import functools
import math
import re
import threading
import unicodedata
from array import array
from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np
import snowballstemmer

__all__ = ["TermIndex", "words"]

K1 = 1.2
#: Length normalization, lower than the usual 0.75: a long conversational turn is seldom
#: long-winded, it tells more (a greeting, then the news). On LoCoMo (main recall@10,
#: tuning / checking half, in process) b 0.3 moved 0.763 / 0.744 to 0.768 / 0.757, and
#: every category rose; 0.2 to 0.5 all helped both halves.
B = 0.3
_WORD = re.compile(r"[^\W_]+")
_LONGEST = 40
#: The parts of a camel-case identifier: ``HTTPServer`` is HTTP and Server, ``getV2`` get
#: and V2.
_CAMEL_PART = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+\d*|[A-Z]+\d*|\d+")
#: The Snowball project's English stop words, without apostrophes (split as the text is).
STOP_WORDS = frozenset(
    """a about above after again against all am an and any are aren as at be because been
    before being below between both but by can cannot could couldn d did didn do does
    doesn doing don down during each few for from further had hadn has hasn have haven
    having he her here hers herself him himself his how i if in into is isn it its
    itself let ll m me more most mustn my myself no nor not of off on once only or other
    ought our ours ourselves out over own re s same shan she should shouldn so some such
    t than that the their theirs them themselves then there these they this those
    through to too under until up ve very was wasn we were weren what when where which
    while who whom why with won would wouldn you your yours yourself yourselves""".split()  # noqa: SIM905 (formatted as a list: a line a word)
)
_stemmer = snowballstemmer.stemmer("english")
_stem_lock = threading.Lock()


@functools.lru_cache(maxsize=500_000)
def _stem(word: str) -> str:
    with _stem_lock:  # the stemmer object keeps state between calls
        stem: str = _stemmer.stemWord(word)
    return stem


def _folded(text: str) -> str:
    """``text`` with its accents folded (case kept)."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def _with_parts(word: str) -> list[str]:
    """A word in lower case, then, for an identifier written in camel case
    (``getUserById``, ``HTTPServer``), its parts: code is found by the words it is
    made of as well as by its name."""
    lower = word.lower()
    if word == lower or word[1:] == lower[1:] or word.isupper():
        return [lower]  # most words: one case, or only capitalized
    parts = _CAMEL_PART.findall(word)
    return [lower, *(p.lower() for p in parts)] if len(parts) > 1 else [lower]


def words(text: str) -> list[str]:
    """The index words of ``text``, in order (repeats kept)."""
    return [
        _stem(w)
        for found in _WORD.findall(_folded(text))
        for w in _with_parts(found)
        if len(w) <= _LONGEST and w not in STOP_WORDS
    ]


class TermIndex:
    """BM25 over documents added by key (see the module docstring)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._doc_of: dict[str, int] = {}
        self._keys: list[str] = []
        self._doc_terms: list[tuple[str, ...]] = []
        self._lengths = array("f")
        self._live = bytearray()
        self._postings: dict[str, tuple[array[int], array[float]]] = {}
        self._df: Counter[str] = Counter()
        self._live_docs = 0
        self._live_length = 0.0

    def __len__(self) -> int:
        """Document numbers handed out so far (live or retired)."""
        return len(self._keys)

    @property
    def live(self) -> int:
        """Documents searched (added and not replaced)."""
        return self._live_docs

    def doc(self, key: str) -> int | None:
        """The live document number of ``key``, if it was added."""
        return self._doc_of.get(key)

    def key(self, doc: int) -> str:
        return self._keys[doc]

    def add(self, keys: Sequence[str], texts: Sequence[str]) -> None:
        """Index ``texts`` under ``keys``; a key added before is replaced."""
        prepared = [Counter(words(t)) for t in texts]  # outside the lock: the slow part
        with self._lock:
            for key, counts in zip(keys, prepared, strict=True):
                old = self._doc_of.get(key)
                if old is not None:
                    self._retire(old)
                doc = len(self._keys)
                self._doc_of[key] = doc
                self._keys.append(key)
                self._doc_terms.append(tuple(counts))
                length = float(sum(counts.values()))
                self._lengths.append(length)
                self._live.append(1)
                for term, tf in counts.items():
                    docs, tfs = self._postings.setdefault(term, (array("i"), array("f")))
                    docs.append(doc)
                    tfs.append(float(tf))
                self._df.update(counts.keys())
                self._live_docs += 1
                self._live_length += length

    def _retire(self, doc: int) -> None:
        self._live[doc] = 0
        self._df.subtract(self._doc_terms[doc])
        self._live_docs -= 1
        self._live_length -= self._lengths[doc]

    def search(self, query: str, allowed: np.ndarray | None, limit: int) -> list[tuple[str, float]]:
        """(key, BM25 score) of the best ``limit`` live documents for ``query`` among
        those ``allowed`` (a mask by document number; None: all), best first."""
        terms = list(dict.fromkeys(words(query)))
        with self._lock:
            if not terms or not self._live_docs:
                return []
            size = len(self._keys)
            live = np.frombuffer(bytes(self._live), dtype=np.uint8).astype(bool)
            if allowed is not None:
                mask = np.zeros(size, dtype=bool)
                mask[: len(allowed)] = allowed[:size]
                live &= mask
            lengths = np.array(self._lengths, dtype=np.float32)
            average = self._live_length / self._live_docs
            n = self._live_docs
            scores = np.zeros(size, dtype=np.float32)
            touched = np.zeros(size, dtype=bool)
            for term in terms:
                posting = self._postings.get(term)
                df = self._df.get(term, 0)
                if posting is None or df <= 0:
                    continue
                docs = np.array(posting[0], dtype=np.int64)
                tfs = np.array(posting[1], dtype=np.float32)
                scores[docs] += _idf(n, df) * _saturated(tfs, lengths[docs] / average)
                touched[docs] = True
            hits = np.flatnonzero(touched & live)
            if not len(hits):
                return []
            take = min(limit, len(hits))
            best = hits[np.argpartition(-scores[hits], take - 1)[:take]]
            best = best[np.argsort(-scores[best], kind="stable")]
            return [(self._keys[d], float(scores[d])) for d in best]

    def score(self, query: str, texts: Sequence[str]) -> list[float]:
        """The BM25 score each of ``texts`` (documents not in the index) would have for
        ``query`` with this index's statistics: a word's weight and the average length
        are the indexed documents' (a word none of them has weighs the most)."""
        terms = list(dict.fromkeys(words(query)))
        if not terms or not texts:
            return [0.0] * len(texts)
        with self._lock:
            n = max(self._live_docs, 1)
            average = self._live_length / self._live_docs if self._live_docs else 1.0
            idf = {t: _idf(n, self._df.get(t, 0)) for t in terms}
        out = []
        for text in texts:
            counts = Counter(words(text))
            relative = sum(counts.values()) / average
            out.append(sum(idf[t] * _saturated(counts[t], relative) for t in terms if t in counts))
        return out


def _idf(documents: int, with_term: int) -> float:
    """BM25's weight of a word in ``with_term`` of ``documents`` documents."""
    return math.log(1.0 + (documents - with_term + 0.5) / (with_term + 0.5))


def _saturated(tf: Any, relative_length: Any) -> Any:
    """BM25's term-frequency factor of ``tf`` occurrences in a document
    ``relative_length`` times the average length (numbers or arrays alike)."""
    return tf * (K1 + 1.0) / (tf + K1 * (1.0 - B + B * relative_length))
