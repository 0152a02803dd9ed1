"""The words the doors offer as choices: the kinds of memory a read may ask for, and
the embedders a deployment can name. Light to import (the command line builds its flags'
choices from them without loading a model)."""

from __future__ import annotations

from typing import Literal, get_args

__all__ = ["EMBEDDERS", "MEMORY_KINDS", "EmbedderName"]

#: The kinds of memory, as reads filter by them.
MEMORY_KINDS = (
    "episode",
    "fact",
    "preference",
    "procedure",
    "opinion",
    "reflection",
    "summary",
    "chunk",
)

#: The embedders a deployment can name (:func:`memstream.runtime.assembly.make_embedder`).
EmbedderName = Literal["minilm", "e5-small", "openai", "none"]
EMBEDDERS: tuple[str, ...] = get_args(EmbedderName)
