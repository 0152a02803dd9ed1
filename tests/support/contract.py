"""schemathesis against a running API, as ``tests/schemathesis.toml`` configures it (every
check; the few exceptions that file gives and explains)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

__all__ = ["schemathesis"]


def schemathesis(
    api_url: str, *options: str, examples: int = 10
) -> subprocess.CompletedProcess[str]:
    """Run schemathesis over ``api_url``'s OpenAPI document with ``options`` (``-H`` for
    a key, say); its output and exit status."""
    command = Path(sys.executable).with_name("schemathesis")
    return subprocess.run(
        [str(command), "--config-file", str(Path(__file__).parents[1] / "schemathesis.toml"),
         "run", f"{api_url}/openapi.json", "--max-examples", str(examples), "--seed",
         "20261123", "--no-color", *options],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
