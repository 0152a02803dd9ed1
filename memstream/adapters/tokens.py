"""Counting tokens offline: the MiniLM WordPiece tokenizer memstream ships
(``data/minilm-tokenizer.json``), without truncation or special tokens.

Context blocks are measured with it. It splits text much as the tokenizers of the large
models do (words, then word pieces), so a budget counted here is a fair, slightly
conservative measure of what a model will see.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from memstream.adapters.embedders import tokenizer_path

__all__ = ["TOKENIZER_NAME", "count_tokens"]

TOKENIZER_NAME = "all-MiniLM-L6-v2 WordPiece (bert-base-uncased vocabulary)"


@lru_cache(maxsize=1)
def _tokenizer() -> Any:
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(tokenizer_path()))
    tokenizer.no_truncation()
    tokenizer.no_padding()
    return tokenizer


def count_tokens(text: str) -> int:
    """How many tokens ``text`` takes."""
    return len(_tokenizer().encode(text, add_special_tokens=False).ids)
