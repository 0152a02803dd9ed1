"""Who may knock at all: the rule every HTTP door of memstream applies to a request's
``Host``, ``Origin`` and ``Sec-Fetch-Site`` headers before anything reads its body (the
API, the console, MCP and the docs on the API's port; ``/metrics`` on a worker's).

Keys say who a caller is; this rule says whether the request reached memstream on
purpose. It holds with API keys and without them:

- **Host** must name this server: a loopback name (``localhost``, ``127.0.0.1``,
  ``[::1]``), the address it is bound to, or a name the operator configured
  (``MEMSTREAM_PUBLIC_HOSTS``). A page whose name was made to resolve to 127.0.0.1 (DNS
  rebinding) sends its own name, and is refused (421, as the MCP SDK refuses it).
- **Origin**, when a browser sends one, must be this server's own origin (a loopback
  or configured name *on this server's port*) or one the operator allowed
  (``MEMSTREAM_BROWSER_ORIGINS``): a page on another host or another port of this
  machine is refused (403), for reads and writes alike; ``Origin: null`` too.
- **A browser's cross-site write without Origin** (``Sec-Fetch-Site: cross-site`` or
  ``same-site`` on a method that changes state) is refused as a foreign Origin is.

Pure: it reads header values it is given and knows nothing of sockets or frameworks.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import urlsplit

__all__ = [
    "LOOPBACK_NAMES",
    "SAFE_METHODS",
    "DoorRule",
    "Refusal",
    "host_name",
    "is_wildcard",
    "normal_origin",
]

#: The names under which only this machine reaches a loopback server.
LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
#: Methods that change nothing (a browser sends them cross-site without asking).
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
_WILDCARDS = frozenset({"", "0.0.0.0", "::", "*"})
#: ``name[:port]``, the name a DNS name, an IPv4 address or an IPv6 one in brackets
_HOST = re.compile(r"(?P<name>\[[0-9a-f:.]+\]|[a-z0-9_.-]+)(?::[0-9]{1,5})?")


@dataclass(frozen=True)
class Refusal:
    """Why a request is refused before any route reads it, and the status to answer."""

    status: int
    reason: str


@dataclass(frozen=True)
class DoorRule:
    """The host names a request may name and the browser origins it may come from."""

    hosts: frozenset[str]
    origins: frozenset[str]

    @classmethod
    def serving(
        cls,
        bound_host: str,
        port: int,
        public_hosts: Iterable[str] = (),
        browser_origins: Iterable[str] = (),
    ) -> DoorRule:
        """The rule of a server bound to ``bound_host:port``: loopback names, the bound
        address (unless a wildcard), ``public_hosts`` (names it is reached by, each with
        its own origins over http and https, on ``port`` or the scheme's default one), and
        ``browser_origins`` (other sites' pages the operator lets in)."""
        hosts = set(LOOPBACK_NAMES)
        if not is_wildcard(bound_host):
            hosts.add(host_name(bound_host))
        public = {host_name(name) for name in public_hosts if name.strip()}
        hosts |= public
        origins = {f"http://{_in_url(name)}:{port}" for name in hosts}
        for name in public:
            for scheme in ("http", "https"):
                origins |= {f"{scheme}://{_in_url(name)}", f"{scheme}://{_in_url(name)}:{port}"}
        origins |= {o for o in browser_origins if o.strip()}
        normal = {normal_origin(o) for o in origins}
        return cls(frozenset(hosts), frozenset(o for o in normal if o is not None))

    def admits_host(self, host_header: str | None) -> bool:
        """Whether ``host_header`` (``name[:port]``) names this server."""
        return bool(host_header) and host_name(host_header or "") in self.hosts

    def admits_origin(self, origin: str) -> bool:
        """Whether a browser page of ``origin`` may call this server."""
        normal = normal_origin(origin)
        return normal is not None and normal in self.origins

    def refusal(
        self,
        method: str,
        host: str | None,
        origin: str | None,
        fetch_site: str | None = None,
    ) -> Refusal | None:
        """Why a request with these headers is refused, or None when it may go on."""
        if not self.admits_host(host):
            return Refusal(
                421,
                "this server does not answer to the host name the request was sent to "
                "(Host header); name it in MEMSTREAM_PUBLIC_HOSTS to serve it",
            )
        if origin is not None and not self.admits_origin(origin):
            return Refusal(
                403,
                "requests from another site's pages are refused (Origin header); allow "
                "that site in MEMSTREAM_BROWSER_ORIGINS to let its pages in",
            )
        cross_site = (fetch_site or "").lower() in {"cross-site", "same-site"}
        if origin is None and cross_site and method.upper() not in SAFE_METHODS:
            return Refusal(403, "a write from another site's page is refused (Sec-Fetch-Site)")
        return None

    def is_loopback_origin(self, origin: str | None) -> bool:
        """Whether ``origin`` is one of this server's loopback origins."""
        normal = normal_origin(origin or "")
        if normal is None or normal not in self.origins:
            return False
        return host_name(urlsplit(normal).netloc) in LOOPBACK_NAMES


def host_name(host: str) -> str:
    """The name a ``Host`` header or bound address holds, lower case, without its port
    or an IPv6 address's brackets (``[::1]:8787`` is ``::1``)."""
    host = host.strip().lower()
    if host.count(":") > 1 and "[" not in host:  # a bare IPv6 address (a bound one)
        return _ip_text(host)
    found = _HOST.fullmatch(host)
    if found is None:
        return host  # malformed: it names nothing this server is
    name = found["name"]
    return _ip_text(name[1:-1]) if name.startswith("[") else name


def is_wildcard(address: str) -> bool:
    """Whether binding to ``address`` listens on every interface."""
    return address.strip().strip("[]") in _WILDCARDS


def normal_origin(origin: str) -> str | None:
    """``scheme://host[:port]`` of an Origin header, lower case, default ports dropped;
    None when it is not one (``null``, a path, another scheme)."""
    try:
        parts = urlsplit(origin.strip())
        port = parts.port
    except ValueError:
        return None
    if parts.scheme not in {"http", "https"} or not parts.hostname or parts.path not in {"", "/"}:
        return None
    if parts.query or parts.fragment or parts.username or parts.password:
        return None
    default = {"http": 80, "https": 443}[parts.scheme]
    netloc = _in_url(_ip_text(parts.hostname))
    return f"{parts.scheme}://{netloc}" + (f":{port}" if port not in (None, default) else "")


def _ip_text(name: str) -> str:
    try:
        return str(ipaddress.ip_address(name))
    except ValueError:
        return name


def _in_url(name: str) -> str:
    """``name`` as it stands in a URL (an IPv6 address in brackets)."""
    return f"[{name}]" if ":" in name else name
