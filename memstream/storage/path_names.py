"""Path names made from identifiers, and the fence that keeps paths inside a location.

An identifier (a user id, say) may hold ``/``, ``.`` and other characters a path would
take for structure: ``acme:/../../escaped`` written as a folder name walks out of the
data folder. :func:`path_segment` turns any identifier into one safe file or folder
name, injectively (two identifiers never share a name), and :func:`confined` refuses a
path that leaves its root, for every path built from anything a producer wrote (a
storage reference in an event, say). Nothing else here knows what the names are for.
"""

from __future__ import annotations

import hashlib
import posixpath
import re

from memstream.storage.errors import StorageError

__all__ = ["MAX_SEGMENT", "OutsideLocation", "confined", "identifier_of", "path_segment"]

#: Characters kept as they are: they carry no meaning in a local path or an S3 key,
#: and no run of them is ``.`` or ``..``.
_KEPT = re.compile(rb"[A-Za-z0-9_:@+-]")
#: Longest name :func:`path_segment` gives before it names by digest instead.
MAX_SEGMENT = 120
#: Begins a name made from a digest; the escaped form never holds it (``~`` is escaped).
_DIGEST_MARK = "~"


class OutsideLocation(StorageError):
    """A path would leave the location it belongs to."""


def path_segment(identifier: str) -> str:
    """One file or folder name for ``identifier``: every UTF-8 byte outside
    ``A-Z a-z 0-9 _ : @ + -`` written ``%XX``, or, when that is longer than
    :data:`MAX_SEGMENT`, ``~`` and a 160-bit digest of the identifier.

    Injective, never empty, never ``.`` or ``..``, no ``/`` or ``\\``, at most
    :data:`MAX_SEGMENT` characters; an identifier of kept characters alone is its own name.
    """
    raw = identifier.encode("utf-8", "surrogatepass")
    escaped = "".join(
        chr(byte) if _KEPT.fullmatch(bytes([byte])) else f"%{byte:02X}" for byte in raw
    )
    if escaped and len(escaped) <= MAX_SEGMENT:
        return escaped
    return _DIGEST_MARK + hashlib.blake2b(raw, digest_size=20).hexdigest()


def identifier_of(segment: str) -> str | None:
    """The identifier :func:`path_segment` made ``segment`` from, or None when it cannot
    be told (a name made from a digest, or not one of its names)."""
    if segment.startswith(_DIGEST_MARK):
        return None
    try:
        raw = re.sub(
            rb"%([0-9A-F]{2})", lambda m: bytes([int(m.group(1), 16)]), segment.encode("ascii")
        )
        identifier = raw.decode("utf-8", "surrogatepass")
    except (UnicodeError, ValueError):
        return None
    return identifier if path_segment(identifier) == segment else None


def confined(root: str, relative: str) -> str:
    """``root`` joined with ``relative``, if the result lies inside ``root``.

    Raises:
        OutsideLocation: ``relative`` is absolute, or walks out of ``root`` through ``..``.
    """
    root = posixpath.normpath(root)
    if relative.startswith("/") or "\\" in relative or "\x00" in relative:
        raise OutsideLocation(f"{relative!r} is not a path inside {root}")
    joined = posixpath.normpath(posixpath.join(root, relative))
    if joined == root or not joined.startswith(root.rstrip("/") + "/"):
        raise OutsideLocation(f"{relative!r} leads out of {root}")
    return joined
