"""Errors raised by the read side and the event vocabulary.

Hierarchy::

    ProjectionError            root of every error this package raises
    └── InvalidEvent           bytes or a document that is not a valid event;
                               ``problems`` lists each field and what is wrong
    └── InvalidQuery           a search request with a bad value (empty user, k < 1, ...)
"""

from __future__ import annotations

from memstream.storage.errors import MemstreamError

__all__ = ["InvalidEvent", "InvalidQuery", "ProjectionError"]


class ProjectionError(MemstreamError):
    """Root of every error raised by ``projections``."""


class InvalidEvent(ProjectionError):
    """An event failed to decode or validate.

    Attributes:
        problems: one human-readable line per problem, each naming the field.
    """

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems or ["invalid event"]
        super().__init__("; ".join(self.problems))


class InvalidQuery(ProjectionError):
    """A query carried a value that cannot be searched with."""
