"""The OpenAPI document of the HTTP API, printed without a server running.

    python -m memstream.http.openapi_document > openapi.json

The TypeScript client's types are generated from it (``clients/typescript``,
``npm run generate``); its test compares them with what a running server describes.
"""

from __future__ import annotations

import json
import sys
import tempfile
from typing import Any

from memstream.application import Operations
from memstream.http.app import create_app
from memstream.settings import Settings

__all__ = ["openapi_document"]


def openapi_document() -> dict[str, Any]:
    """What ``GET /openapi.json`` answers, made from an empty data location."""
    with tempfile.TemporaryDirectory(prefix="memstream-openapi-") as data:
        operations = Operations(Settings(data=data))
        document: dict[str, Any] = create_app(operations).openapi()
    return document


if __name__ == "__main__":
    json.dump(openapi_document(), sys.stdout, indent=2)
    sys.stdout.write("\n")
