"""Which memstream the hooks ``hook install`` writes will ask, checked as they are written.

The hooks ask the server running for a data folder (``--data``) or an address
(``--api``). ``hook install`` looks before it writes either: a data folder named must
exist (a hook told to ask for a folder that does not exist finds nothing, ever); with
neither named, it writes the one it finds answering (the server running for
``./memstream-data``, else ``MEMSTREAM_API_URL`` or the default address) and refuses
when none answers and no data folder is there to name. What it found is said in one
line; a folder or address named where nothing answers yet is written with a warning
(memstream may be started after the hooks are installed).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from memstream.hooks.errors import HookProblem
from memstream.server_address import DEFAULT_URL, answers, running_api
from memstream.storage.state_folder import DEFAULT_DATA, state_folder

__all__ = ["Reach", "hooks_reach"]


@dataclass(frozen=True)
class Reach:
    """What the hooks are told to ask (``--data DIR`` or ``--api URL``), the line saying
    what was found there, and a warning when nothing answers there now."""

    options: list[str]
    found: str
    warning: str | None = None


def hooks_reach(api: str | None, data: str | None, environ: Mapping[str, str], here: Path) -> Reach:
    """Where the hooks will ask, by ``--api``, ``--data``, ``MEMSTREAM_DATA``,
    ``MEMSTREAM_API_URL``, then what answers (``here``: the folder install runs in).

    Raises:
        HookProblem: a data folder named that does not exist, or nothing named and
            nothing found.
    """
    state_dir = environ.get("MEMSTREAM_STATE_DIR", "")
    if api:
        return _address(api.rstrip("/"))
    named = data or environ.get("MEMSTREAM_DATA")
    if named:
        return _folder(named, state_dir, here, given=True)
    if environ.get("MEMSTREAM_API_URL"):
        return _address(environ["MEMSTREAM_API_URL"].rstrip("/"))
    default = (here / DEFAULT_DATA).resolve()
    if default.is_dir() and running_api(state_folder(str(default), state_dir)):
        return _folder(str(default), state_dir, here, given=False)
    if answers(DEFAULT_URL):
        return Reach(["--api", DEFAULT_URL], f"memstream answers at {DEFAULT_URL}")
    if default.is_dir():
        return _folder(str(default), state_dir, here, given=False)
    raise HookProblem(
        f"no memstream found: none runs for {default} (no such folder) and none answers "
        f"at {DEFAULT_URL}. Start one (memstream up), or name it: --data DIR or --api URL"
    )


def _address(url: str) -> Reach:
    if not url.startswith(("http://", "https://")):
        raise HookProblem("--api takes an http:// or https:// address")
    if answers(url):
        return Reach(["--api", url], f"memstream answers at {url}")
    later = f"nothing answers at {url} now: the hooks ask it once memstream runs there"
    return Reach(["--api", url], f"the hooks will ask {url}", later)


def _folder(named: str, state_dir: str, here: Path, *, given: bool) -> Reach:
    if named.startswith("s3://"):
        folder = named
    else:
        path = Path(named).expanduser()
        path = (here / path).resolve() if not path.is_absolute() else path.resolve()
        if not path.is_dir():
            raise HookProblem(
                f"no data folder at {path}: name the folder memstream runs on (--data DIR), "
                "or its address (--api URL)"
            )
        folder = str(path)
    url = running_api(state_folder(folder, state_dir))
    if url is not None:
        return Reach(["--data", folder], f"memstream serves {folder} at {url}")
    how = "" if given else " (found here)"
    return Reach(["--data", folder], f"the hooks will ask the server of {folder}{how}",
                 f"no memstream runs for {folder} now: the hooks ask it once "
                 f"`memstream up --data {folder}` runs")  # fmt: skip
