"""The API loads the MCP SDK on the first ``/mcp`` request, not when it starts: an API
started is answering, its lifespan entered, with no ``mcp`` module loaded; the first
call is answered by the memory server all the same, and so is every call after it.
Run in a fresh interpreter, so no other test's imports count."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

CHECK = """
import json, sys
from fastapi.testclient import TestClient
from memstream.application import Operations
from memstream.http.app import create_app
from memstream.settings import Settings

app = create_app(Operations(Settings(data=sys.argv[1], embedder="none")))
said = {}
with TestClient(app, base_url="http://127.0.0.1:8787") as api:
    said["before"] = any(m == "mcp" or m.startswith("mcp.") for m in sys.modules)
    assert api.get("/healthz").status_code == 200
    headers = {"Accept": "application/json, text/event-stream"}
    calls = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "check", "version": "1"}}},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    ]
    answers = [api.post("/mcp?user_id=ana", json=c, headers=headers) for c in calls]
    said["statuses"] = [a.status_code for a in answers]
    said["server"] = answers[0].json()["result"]["serverInfo"]["name"]
    said["tools"] = sorted(t["name"] for t in answers[1].json()["result"]["tools"])
    said["after"] = "mcp" in sys.modules
print(json.dumps(said))
"""


def test_the_sdk_is_loaded_by_the_first_mcp_call_not_by_the_start(tmp_path: Path) -> None:
    data = tmp_path / "data"
    done = subprocess.run(
        [sys.executable, "-c", CHECK, str(data)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-3000:]
    said = json.loads(done.stdout.strip().splitlines()[-1])
    assert said["before"] is False
    assert said["statuses"] == [200, 200]
    assert said["server"] == "memstream"
    assert "search_memory" in said["tools"] and "get_context" in said["tools"]
    assert said["after"] is True
