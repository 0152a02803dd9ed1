"""An erasure's receipt: signed with the deployment's key, checked against it, and
refused when changed, signed by another key, or when a probe found something."""

from __future__ import annotations

import asyncio
import base64
import copy
import json
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

from memstream.application import Operations
from memstream.application.erasure_probes import probe_reads, sample_of
from memstream.application.erasure_receipts import Probe, check, receipt_body, signed
from memstream.storage.shared_folder import SharedFolder
from memstream.storage.signing_key import SigningKey

AT = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)


def _receipt(key: SigningKey, found: int = 0) -> dict:
    probes = [Probe("rows of the user in memories", 1, 0), Probe("search", 6, found)]
    body = receipt_body("ana", AT, AT, ["k2", "k1"], {"memories": 12, "vectors": 12}, probes)
    return signed(body, key)


def test_a_receipt_holds_under_the_deployments_key_and_nothing_else(tmp_path: Path) -> None:
    key = SigningKey(SharedFolder.local(tmp_path / "signing-key"))
    assert not key.made()
    receipt = _receipt(key)
    assert key.made()
    assert check(receipt, key.public_key) == []
    assert receipt["removed"]["data_keys_destroyed"] == ["k1", "k2"]
    assert receipt["nothing_found"] is True
    # the same folder read by another process: the same key
    assert SigningKey(SharedFolder.local(tmp_path / "signing-key")).public_key == key.public_key

    changed = copy.deepcopy(receipt)
    changed["removed"]["rows"]["memories"] = 0
    assert any("changed or forged" in p for p in check(changed, key.public_key))

    other = SigningKey(SharedFolder.local(tmp_path / "elsewhere"))
    forged = _receipt(other)
    problems = check(forged, key.public_key)
    assert any("not this deployment's" in p for p in problems)
    assert any("changed or forged" in p for p in problems)

    unsigned = {k: v for k, v in receipt.items() if k != "signature"}
    assert check(unsigned, key.public_key) == ["the receipt carries no signature"]


def test_a_receipt_whose_probe_found_something_proves_nothing(tmp_path: Path) -> None:
    key = SigningKey(SharedFolder.local(tmp_path / "signing-key"))
    receipt = _receipt(key, found=2)
    assert receipt["nothing_found"] is False
    assert check(receipt, key.public_key) == ["1 probe(s) found something of the user"]


def test_the_cli_checks_a_receipt_with_the_deployments_key_or_a_given_one(
    tmp_path: Path,
) -> None:
    data = tmp_path / "data"
    key = SigningKey(SharedFolder.local(data / "signing-key"))
    receipt = _receipt(key)
    good = tmp_path / "receipt.json"
    good.write_text(json.dumps({"user_id": "ana", "receipt": receipt}))  # a whole answer
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({**receipt, "user_id": "bob"}))

    def cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "memstream", "erase", "--data", str(data), *args],
            capture_output=True,
            text=True,
            env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), **(env or {})},
            timeout=120,
        )

    ok = cli("--verify", str(good))
    assert ok.returncode == 0, ok.stderr
    assert "valid: the erasure of ana" in ok.stdout
    refused = cli("--verify", str(bad))
    assert refused.returncode == 1 and "NOT VALID" in refused.stdout
    assert "Traceback" not in refused.stdout + refused.stderr

    public = cli("--public-key")
    assert public.returncode == 0
    assert base64.b64decode(public.stdout.strip()) == key.public_key
    # anyone with the public key checks it without the deployment's folder
    elsewhere = subprocess.run(
        [sys.executable, "-m", "memstream", "erase", "--data", str(tmp_path / "none"),
         "--verify", str(good)],
        capture_output=True, text=True, timeout=120,
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path),
             "MEMSTREAM_RECEIPT_PUBLIC_KEY": public.stdout.strip()},
    )  # fmt: skip
    assert elsewhere.returncode == 0, elsewhere.stderr
    assert not (tmp_path / "none" / "signing-key").exists()  # checking made no key
    missing = cli("--verify", str(tmp_path / "absent.json"))
    assert missing.returncode == 1 and "cannot read a receipt" in missing.stderr
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    huge = tmp_path / "huge.json"
    huge.write_bytes(b" " * (2 << 20))
    for hostile, said in ((deep, "nested too deep"), (huge, "not a receipt")):
        refused = cli("--verify", str(hostile))
        assert refused.returncode == 1 and said in refused.stderr, refused
        assert "Traceback" not in refused.stderr


def test_the_probes_find_a_user_who_is_still_there(operations: Operations) -> None:
    """Every probe that can find the user's memories does while they are held, so the
    zeros of a receipt say they are gone, not that the probe looked nowhere."""
    sample = sample_of(operations.reads, "ana")
    assert len(sample.memory_ids) >= 3 and sample.words and "Miso" in sample.names
    found = {p.read: p.found for p in asyncio.run(probe_reads(operations.reads, "ana", sample))}
    reads = ("rows of the user in memories", "rows of the user in entities",
             "search, hot and archived, history included", "context block",
             "memory list, hidden included", "memory by id", "history by id",
             "explain by id", "entity by name", "export", "users the console lists")  # fmt: skip
    for read in reads:
        assert found[read] > 0, read
    nobody = asyncio.run(
        probe_reads(operations.reads, "nobody", sample_of(operations.reads, "nobody"))
    )
    assert all(p.found == 0 for p in nobody), nobody
