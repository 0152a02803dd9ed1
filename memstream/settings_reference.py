"""The configuration reference (``docs/configuration.md``), made from
:class:`~memstream.settings.Settings` itself: every setting with its variable, its default
and what it means (the class's own docstring), so the page cannot drift from the code.

    python -m memstream.settings_reference > docs/configuration.md

``tests/e2e/test_docs.py`` checks that the page is what this prints.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import SecretStr

from memstream.settings import Settings

__all__ = ["meanings", "reference"]

_ENTRY = re.compile(r"^ {8}(?P<names>[a-z_*][a-z0-9_*]*(?: / [a-z_*][a-z0-9_*]*)*): (?P<text>.*)$")


def meanings() -> dict[str, str]:
    """Each setting's meaning, from the ``Attributes:`` of the class docstring (an entry
    ``a / b: ...`` means both; ``fusion_*: ...`` every setting the pattern matches)."""
    doc = Settings.__doc__ or ""
    entries: list[tuple[list[str], list[str]]] = []
    for line in doc.split("Attributes:", 1)[-1].splitlines():
        found = _ENTRY.match(line)
        if found:
            entries.append((found["names"].split(" / "), [found["text"]]))
        elif entries and line.startswith(" " * 12):
            entries[-1][1].append(line.strip())
    said: dict[str, str] = {}
    for names, lines in entries:
        text = " ".join(lines)
        for pattern in names:
            for field in Settings.model_fields:
                if field == pattern or (pattern.endswith("*") and field.startswith(pattern[:-1])):
                    said.setdefault(field, text)
    return said


def reference() -> str:
    """The page: one row per setting, in the order the class declares them."""
    said = meanings()
    lines = [
        "# Configuration",
        "",
        "Every setting is an environment variable (`MEMSTREAM_` and the name in capitals);",
        "`--data`, `--kafka`, `--embedder`, `--port` and `--api` override theirs for one",
        "command. A variable that is no setting is warned of, with the closest one. This",
        "page is generated from the code: `python -m memstream.settings_reference`.",
        "",
        "| Variable | Default | Meaning |",
        "|---|---|---|",
    ]
    for name, field in Settings.model_fields.items():
        default = _shown(field.get_default(call_default_factory=True))
        meaning = _cell(said.get(name, ""))
        lines.append(f"| `MEMSTREAM_{name.upper()}` | {default} | {meaning} |")
    return "\n".join(lines) + "\n"


def _shown(value: Any) -> str:
    if value is None or isinstance(value, SecretStr) or value == "":
        return "(none)"
    if isinstance(value, bool):
        return "`true`" if value else "`false`"
    return f"`{value}`"


def _cell(text: str) -> str:
    """Docstring text as a table cell: RST literals as Markdown code, no bare pipes."""
    return text.replace("``", "`").replace("|", "\\|").replace(":mod:", "").replace(":func:", "")


if __name__ == "__main__":
    print(reference(), end="")
