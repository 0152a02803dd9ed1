"""The TypeScript client (``clients/typescript``): its vitest suite against a real
``memstream up`` it starts, its types against the OpenAPI document, and the npm package
it packs. ``make test`` installs its npm packages and builds it first."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest
from support.doc_blocks import ROOT

from memstream.streams.lifeline import launched_to_die_with_us

CLIENT = ROOT / "clients" / "typescript"


def npm(*args: str, cwd: Path = CLIENT, timeout: float = 240) -> subprocess.CompletedProcess[str]:
    assert (CLIENT / "node_modules").is_dir(), "no npm packages: `make typescript` installs them"
    launch = launched_to_die_with_us(["npm", *args])
    env = {**os.environ, "MEMSTREAM_PYTHON": sys.executable, "NO_COLOR": "1", "CI": "true"}
    return subprocess.run(
        launch.command,
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        preexec_fn=launch.preexec_fn,
        check=False,
    )


@pytest.mark.broker
@pytest.mark.slow
def test_the_vitest_suite_passes_against_a_real_server() -> None:
    done = npm("test", "--", "--reporter=verbose")
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-3000:]
    for name in ("client.test.ts", "ai-sdk.test.ts", "schema.test.ts"):
        assert name in done.stdout  # each file ran (none skipped by a broken glob)
    assert " 0 passed" not in done.stdout


@pytest.mark.slow
def test_npm_pack_builds_a_package_that_imports(tmp_path: Path) -> None:
    packed = npm("pack", "--json", "--pack-destination", str(tmp_path))
    assert packed.returncode == 0, packed.stderr
    (answer,) = json.loads(packed.stdout)
    tarball = tmp_path / answer["filename"]
    # the name the docs' install lines give is the one `npm pack` (and `make dist`) makes
    for page in ("docs/integrations.md", "clients/typescript/README.md"):
        assert f"dist/{tarball.name}" in (ROOT / page).read_text(), page
    with tarfile.open(tarball) as archive:
        names = set(archive.getnames())
    for built in ("index.js", "index.d.ts", "ai-sdk.js", "ai-sdk.d.ts", "schema.d.ts"):
        assert f"package/dist/{built}" in names, sorted(names)
    assert not any("/test/" in n or "/src/" in n for n in names), sorted(names)
    project = tmp_path / "app"
    project.mkdir()
    (project / "package.json").write_text('{"name": "app", "private": true, "type": "module"}')
    installed = npm("install", "--no-audit", "--no-fund", "--offline", str(tarball), cwd=project)
    assert installed.returncode == 0, installed.stderr
    script = (
        "import { MemstreamClient, MemstreamUnreachable } from '@memstream/client';"
        "const c = new MemstreamClient({ url: 'http://127.0.0.1:9' });"
        "c.search('ana', 'x').catch(e => console.log(e instanceof MemstreamUnreachable,"
        " e.message));"
    )
    ran = subprocess.run(
        ["node", "--input-type=module", "-e", script],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.startswith("true cannot reach memstream at http://127.0.0.1:9"), ran.stdout
