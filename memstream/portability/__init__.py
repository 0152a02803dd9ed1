"""Memory that flows in and out: a user's export (events, JSON, a Markdown dossier) and
imports (memstream's own events export, ChatGPT, Claude and Mem0 exports)."""

from memstream.portability.exports import EXPORT_FORMATS, MEDIA_TYPES, ExportFormat
from memstream.portability.import_plan import ImportPlan, Skipped
from memstream.portability.imports import UnknownShape, read_import

__all__ = [
    "EXPORT_FORMATS",
    "MEDIA_TYPES",
    "ExportFormat",
    "ImportPlan",
    "Skipped",
    "UnknownShape",
    "read_import",
]
