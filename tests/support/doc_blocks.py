"""The fenced blocks of the README and the docs, in the order the docs test runs them."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

__all__ = ["PAGES", "ROOT", "Block", "doc_blocks"]


ROOT = Path(__file__).resolve().parents[2]


#: The pages, in the order their examples run (later ones use what earlier ones stored).
PAGES = (
    "README.md",
    "docs/http-api.md",
    "docs/documents.md",
    "docs/agents.md",
    "docs/integrations.md",
    "docs/security.md",
    "docs/lifecycle.md",
    "docs/cli.md",
    "docs/portability.md",
    "docs/search.md",
    "docs/durability.md",
    "docs/deployment.md",
    "docs/observability.md",
    "docs/memory-over-time.md",
    "docs/console.md",
    "docs/metrics.md",
    "docs/architecture.md",
    "docs/benchmarks.md",
    "docs/development.md",
    "docs/configuration.md",
)


_FENCE = re.compile(
    r"(?:<!-- not run: (?P<why>[^>]*) -->\n)?```(?P<lang>\w*)\n(?P<body>.*?)```", re.S
)


@dataclass(frozen=True)
class Block:
    page: str
    lang: str
    body: str
    line: int
    not_run: str | None

    @property
    def where(self) -> str:
        return f"{self.page} line {self.line}"


def doc_blocks(pages: tuple[str, ...] = PAGES) -> list[Block]:
    """Every fenced block of ``pages``, in order."""
    found = []
    for page in pages:
        text = (ROOT / page).read_text()
        found += [
            Block(page, m["lang"], m["body"], text.count("\n", 0, m.start("body")), m["why"])
            for m in _FENCE.finditer(text)
        ]
    return found
