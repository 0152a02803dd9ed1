"""The layout of a memstream data folder.

::

    <data>/CURRENT                 name of the projection generation in use
    <data>/<generation>/           LanceDB tables (memories, checkpoints, dead_letters)
    <data>/events/                 the Parquet event archive
    <data>/cold/                   the Parquet cold store (originals of archived memories)
    <data>/documents/              documents' original bytes, by user and checksum

Readers resolve ``CURRENT`` to find the tables; a rebuilt generation is switched in by
rewriting ``CURRENT`` atomically, so a reader sees the old tables or the new ones.

The first generation has a fixed name, so workers, embedders and API servers that start
together on an empty data location all settle on the same folder: each may write
``CURRENT``, but they all write the same name (S3 has no rename to make "create if
absent" atomic through pyarrow).
"""

from __future__ import annotations

from datetime import UTC, datetime

from memstream.storage.filesystems import Location

__all__ = ["FIRST_GENERATION", "DataLayout"]

_POINTER = "CURRENT"
FIRST_GENERATION = "projections-first"


class DataLayout:
    """Paths inside one data location."""

    def __init__(self, location: Location) -> None:
        self.location = location

    @property
    def events(self) -> Location:
        return self.location.child("events")

    @property
    def cold(self) -> Location:
        return self.location.child("cold")

    @property
    def documents(self) -> Location:
        return self.location.child("documents")

    def current_generation(self) -> str | None:
        text = self.location.read_text(_POINTER)
        return text.strip() if text else None

    def existing_projections(self) -> Location | None:
        """The LanceDB folder in use, or None when this data folder has none yet."""
        generation = self.current_generation()
        return None if generation is None else self.location.child(generation)

    def projections(self) -> Location:
        """The LanceDB folder in use, naming the first generation when there is none.

        The name written is read back, so a generation switched in meanwhile wins."""
        generation = self.current_generation()
        if generation is None:
            self.switch_to(FIRST_GENERATION)
            generation = self.current_generation() or FIRST_GENERATION
        return self.location.child(generation)

    @staticmethod
    def new_generation_name(now: datetime) -> str:
        return "projections-" + now.astimezone(UTC).strftime("%Y%m%dT%H%M%S%fZ")

    def switch_to(self, generation: str) -> None:
        """Make ``generation`` the one readers and the worker use."""
        self.location.write_text_atomic(_POINTER, generation + "\n")
