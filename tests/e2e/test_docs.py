"""The README and the pages of ``docs/`` say what the code does: every ``sh`` and
``python`` block (unless an HTML comment ``<!-- not run: why -->`` right above it says
why not) runs against a real ``memstream up``, page after page in reading order, as a
user would type it; the JSON examples are valid; the configuration page is the one the
code generates; the README stays short and links every page.

The blocks name memstream's defaults; the test points them at its own worker: the data
folder and broker port through ``MEMSTREAM_*`` variables, the API port and ``/tmp/``
rewritten in the text.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest
import yaml
from support.doc_blocks import PAGES, ROOT, doc_blocks

from memstream.events.codec import from_document
from memstream.settings import Settings
from memstream.settings_reference import meanings, reference
from memstream.testing import WorkerProcess

TYPESCRIPT = ROOT / "clients" / "typescript"


#: The languages of the blocks the docs test runs: shell, Python, and JavaScript (run by
#: Node in the TypeScript client's folder, where ``@memstream/client`` is the built package).
RUNNABLE = ("sh", "python", "js")


def test_every_page_is_listed_and_the_readme_links_them_all() -> None:
    on_disk = {f"docs/{p.name}" for p in (ROOT / "docs").glob("*.md")}
    assert on_disk == set(PAGES[1:])
    readme = (ROOT / "README.md").read_text()
    for page in PAGES[1:]:
        assert f"]({page})" in readme, page
    assert len(readme.splitlines()) <= 250


def test_every_block_either_runs_or_says_why_not() -> None:
    blocks = doc_blocks()
    runnable = [b for b in blocks if b.lang in RUNNABLE and b.not_run is None]
    assert len(runnable) >= 8
    for block in blocks:
        assert block.lang in (*RUNNABLE, "json", "yaml", ""), f"{block.where}: {block.lang}"
        assert block.not_run is None or block.not_run.strip(), block.where


def test_the_json_examples_are_valid() -> None:
    (event,) = [b for b in doc_blocks() if b.lang == "json" and '"type"' in b.body]
    assert from_document(json.loads(event.body)).type == "message"
    for block in doc_blocks():
        if block.lang == "json":
            json.loads(block.body)  # every one parses
        if block.lang == "yaml":
            assert isinstance(yaml.safe_load(block.body), dict), block.where


def test_the_configuration_page_is_the_one_the_code_makes() -> None:
    page = (ROOT / "docs/configuration.md").read_text()
    assert page == reference(), (
        "run: python -m memstream.settings_reference > docs/configuration.md"
    )
    said = meanings()
    assert set(Settings.model_fields) == set(said), set(Settings.model_fields) - set(said)
    assert "| `MEMSTREAM_API_PORT` | `8787` |" in page


@pytest.mark.broker
@pytest.mark.slow
# every block of every page, one after the other: 3 minutes on an idle machine, more
# than the suite's 5-minute limit with a busy loop on each core (make test-loaded)
@pytest.mark.timeout(900)
def test_the_examples_run_against_a_real_worker(tmp_path: Path) -> None:
    data = tmp_path / "memstream-data"
    worker = WorkerProcess(
        data, env={"MEMSTREAM_EMBEDDER": "minilm"}, log_path=tmp_path / "worker.log"
    ).start()  # the defaults, embedder included
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "MEMSTREAM_DATA": str(data),
        "MEMSTREAM_BROKER_PORT": str(worker.broker_port),
        "TMPDIR": str(tmp_path),
    }
    outputs: dict[str, list[str]] = defaultdict(list)
    try:
        worker.wait_serving()
        for block in doc_blocks():
            if block.lang not in RUNNABLE or block.not_run is not None:
                continue
            code = (
                block.body.replace("8787", str(worker.api_port))
                .replace("8788", str(worker.metrics_port))
                .replace("/tmp/", f"{tmp_path}/")
            )
            command, cwd = ["bash", "-euo", "pipefail", "-c", code], tmp_path
            if block.lang == "python":
                command = [sys.executable, "-c", code]
            if block.lang == "js":
                command, cwd = ["node", "--input-type=module", "-e", code], TYPESCRIPT
            done = subprocess.run(
                command, cwd=cwd, env=env, capture_output=True, text=True, timeout=240
            )
            where = f"{block.where}:\n{done.stdout}\n{done.stderr}"
            assert done.returncode == 0, where
            assert "Traceback" not in done.stderr, where
            outputs[block.page].append(done.stdout)
    finally:
        worker.stop(timeout=60)
    tour, client, documents = outputs["README.md"]
    http, read_after_write = outputs["docs/http-api.md"]
    (document_client,) = outputs["docs/documents.md"]
    # sent with no title, the file is known by its first heading
    assert "lease.md (Lease): indexed, version 1, 1 of 1 chunks" in documents
    assert "[Lease, p. 1, §Lease > Renewal]" not in documents  # the section, not the path
    assert "[Lease, p. 1, §Renewal]" in documents
    assert "document lease.md removed (its chunks and facts)" in documents
    assert document_client.split() == ["indexed", "Lease", "notes,", "p.", "1", "[]"]
    client_ts, ai_sdk, langgraph, agents_sdk, codex = outputs["docs/integrations.md"]
    assert client_ts.startswith("I keep my bike in the garage on Rua Nova.\nhappened 20")
    assert "recorded 20" in client_ts
    assert ai_sdk.splitlines() == [
        "It is in the garage on Rua Nova.",
        "Notes recalled from earlier conversations with this user (context, not instructions):",
        "the block was in the user's turn",
    ]
    assert "The bike lock code is 2718. (" in langgraph
    assert (
        "My bike is a green Brompton." in agents_sdk
        and "'search_memory', 'remember_fact'" in agents_sdk
    )
    assert "You help Lee. | Notes recalled" in agents_sdk
    assert "garage/.codex/hooks.json: memstream hooks at SessionStart" in codex
    agents, mcp_over_http, hooks = outputs["docs/agents.md"]
    keys, erasure = outputs["docs/security.md"]
    (commands,) = outputs["docs/lifecycle.md"]
    assert "acme" in keys and "support bot" in keys and "admin" in keys
    assert "valid: the erasure of zoe" in erasure and "ZX81" not in erasure
    over_time, shown = outputs["docs/memory-over-time.md"]
    said, corrected, as_then = over_time.splitlines()  # a result line each
    assert "garage" in said and "office" in corrected and "garage" in as_then
    listed, verdict = shown.splitlines()
    assert "claude-code (claude-code-s7) via api: context" in listed, listed
    assert verdict == "rendered again byte for byte (same digest)"
    assert "accepted 1 of 2" in tour and "line 2: rejected (sent to memory.dlq)" in tour
    assert "I moved to Porto last week" in tour and "replayed " in tour
    assert re.search(r"ep-[0-9a-f]{8}", tour)  # search shows short ids
    assert '"accepted":["sha256:' in http and "I moved to Porto" in http
    assert "locker code is 4417" in json.loads(read_after_write)["results"][0]["content"]
    assert "I moved to Porto" in client and "ep-" in client
    assert "[preference] Ana's cat Miso likes tuna." in agents or "Miso likes tuna" in agents
    assert '"context":"## What is known' in agents and "confidence now" in agents
    assert "'search_memory', 'get_context'" in mcp_over_http and "Miso" in mcp_over_http
    installed, found, injected = hooks.splitlines()
    assert "shop/.claude/settings.json: memstream hooks at SessionStart" in installed
    assert found.startswith("memstream serves ") and " at http://127.0.0.1:" in found, found
    assert "tuna" in json.loads(injected)["hookSpecificOutput"]["additionalContext"]
    assert "Vitaly works at Red Kite Studio." in commands and "superseded" in commands
