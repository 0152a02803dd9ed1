"""How values read on a console page: times, ages, sizes, scores and untrusted bytes.

Pure functions, used as template filters. Text is never marked safe here: the
templates escape everything they print, so a memory's ``<script>`` reads as sent. Bytes
(a dead letter's) are shown as text with every byte that is not printable UTF-8 written
as an escape, and as hex.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

__all__ = [
    "FILTERS",
    "age",
    "bytes_as_hex",
    "bytes_as_text",
    "marks",
    "number",
    "size",
    "when",
]


def when(value: object) -> str:
    """A time as ``2024-05-01 12:00:00 UTC`` (``-`` for none)."""
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value)
        except ValueError:
            return str(value)
    if not isinstance(value, datetime):
        return "-"
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def age(seconds: object) -> str:
    """A duration in the largest unit that keeps it readable: ``42 s``, ``7 min``."""
    if not isinstance(seconds, int | float):
        return "-"
    magnitude = abs(seconds)
    for unit, length in (("d", 86400), ("h", 3600), ("min", 60)):
        if magnitude >= length:
            return f"{seconds / length:.1f} {unit}"
    return f"{seconds:.0f} s"


def size(count: object) -> str:
    """Bytes as ``1.2 MB``."""
    if not isinstance(count, int | float):
        return "-"
    value = float(count)
    for unit in ("B", "kB", "MB", "GB"):
        if value < 1000 or unit == "GB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1000
    return f"{value:.1f} GB"


def number(value: object, digits: int = 4) -> str:
    """A score with ``digits`` significant digits (``-`` for none)."""
    if not isinstance(value, int | float):
        return "-"
    return f"{value:.{digits}g}"


def bytes_as_text(data: object, limit: int = 4096) -> str:
    """Bytes as text: UTF-8 where they are, ``\\xNN`` where they are not, control and
    format characters (bidirectional overrides, zero-width ones) written as ``\\u....``
    so that the text reads as the bytes are; at most ``limit`` bytes."""
    if not isinstance(data, bytes | bytearray):
        return "" if data is None else str(data)
    text = bytes(data[:limit]).decode("utf-8", errors="backslashreplace")
    shown = "".join(_visible(ch) for ch in text)
    return shown + (f" … ({len(data) - limit} more bytes)" if len(data) > limit else "")


def bytes_as_hex(data: object, limit: int = 512) -> str:
    """The first ``limit`` bytes in hex, 16 to a line, with their offsets."""
    if not isinstance(data, bytes | bytearray):
        return ""
    head = bytes(data[:limit])
    lines = [f"{i:06x}  {head[i : i + 16].hex(' ')}" for i in range(0, len(head), 16)]
    return "\n".join(lines)


def marks(text: object) -> list[str]:
    """What a reader should know of a text that may not read as it is: the invisible
    and direction-changing characters it holds, by name."""
    if not isinstance(text, str):
        return []
    found = sorted({unicodedata.name(ch, f"U+{ord(ch):04X}") for ch in text if _hidden(ch)})
    return found[:8]


def _hidden(ch: str) -> bool:
    return unicodedata.category(ch) in ("Cf", "Cc") and ch not in "\n\t"


def _visible(ch: str) -> str:
    return f"\\u{ord(ch):04x}" if _hidden(ch) else ch


FILTERS: dict[str, Callable[..., Any]] = {
    "when": when,
    "age": age,
    "size": size,
    "number": number,
    "bytes_text": bytes_as_text,
    "bytes_hex": bytes_as_hex,
    "marks": marks,
}
