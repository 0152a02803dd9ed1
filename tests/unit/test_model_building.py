"""What memstream's processes leave undone until used: pydantic builds a model at its
first validation, and lancedb's REST namespace client loads its own modules when one of
its names is first asked for; the store works all the same. Each case runs in a fresh
interpreter (both change how that process imports)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SCRIPT = """
import json, sys
from memstream.model_building import REST_CLIENT, build_models_when_used
build_models_when_used()
from memstream.storage.lance.store import ProjectionStore
from memstream.storage.lance.tables import MEMORIES
store = ProjectionStore(sys.argv[1])
rest = sorted(m for m in sys.modules if m.startswith(REST_CLIENT + ".api"))
from pydantic import BaseModel
class Later(BaseModel):
    n: int
deferred = not Later.__pydantic_complete__
checked = Later.model_validate({"n": 3}).n
import lance_namespace_urllib3_client as client  # asked for: it loads whole
print(json.dumps({
    "rest_api_modules_before_use": rest,
    "memories": store.count(MEMORIES),
    "deferred": deferred,
    "validated": checked,
    "client_loads_when_asked": client.ApiClient.__name__,
}))
"""


def test_the_store_opens_without_the_rest_client_which_loads_when_asked_for(
    tmp_path: Path,
) -> None:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(tmp_path / "store")],
        capture_output=True, text=True, check=True, timeout=120,
    )  # fmt: skip
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found == {
        "rest_api_modules_before_use": [],
        "memories": 0,
        "deferred": True,
        "validated": 3,
        "client_loads_when_asked": "ApiClient",
    }
