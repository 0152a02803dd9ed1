"""Commands that run memstream until stopped: ``up``, ``serve``, ``worker``, ``embed``,
``broker``, and ``top`` (a live view of a running deployment). Every port a command
needs is taken before anything loads, so a port in use ends the command at once."""

from __future__ import annotations

import argparse
import logging
from typing import TYPE_CHECKING

from memstream.cli.shared import (
    Command,
    say,
    say_error,
)
from memstream.settings import EMBEDDERS, Settings

if TYPE_CHECKING:
    from memstream.streams.ports import PortNeed

__all__ = [
    "broker_command",
    "console_command",
    "embed_command",
    "register",
    "serve_command",
    "top_command",
    "up_command",
    "worker_command",
]


#: Where the HTTP API's port is chosen.
_API_PORT_SETTING = "--port or MEMSTREAM_API_PORT"


def up_command(args: argparse.Namespace, settings: Settings) -> int:
    from memstream.server_address import running_api
    from memstream.streams.ports import registered, take_ports

    if args.no_api:
        from memstream.observability.logs import configure_logging
        from memstream.runtime.worker import run

        configure_logging(settings.log_level, settings.log_format)
        return run(settings, api=None)
    served = running_api(settings.local_dir)
    if served is not None:
        say_error(
            f"memstream already serves this data folder at {served}: stop it first, or add "
            "a worker to it with `memstream worker --kafka ADDRESS` (its broker's address)"
        )
        return 2
    needs = _ports_of(settings, api=True)
    # every port at once, before anything is loaded or started: ports in use end here
    listener, metrics, *_ = take_ports(needs)
    assert listener is not None
    from memstream.gate.guard import serving_rule
    from memstream.http.process import ApiProcess
    from memstream.observability.logs import configure_logging
    from memstream.runtime.worker import run

    rule = serving_rule(settings)
    configure_logging(settings.log_level, settings.log_format)
    logging.getLogger("memstream.http").info("HTTP API: %s", rule)
    with registered(settings.data_location.uri, [n.port for n in needs]):
        return run(settings, api=lambda s: ApiProcess(s, listener), metrics_socket=metrics)


def _ports_of(settings: Settings, *, api: bool) -> list[PortNeed]:
    """The ports ``up`` (``api``: with the HTTP API) needs: the API's, the metrics'
    (unless 0) and the embedded broker's; ``serve``, the API's alone."""
    from memstream.streams.ports import PortNeed

    needs = [PortNeed("the HTTP API", settings.api_host, settings.api_port, _API_PORT_SETTING)]
    if not api:
        return needs
    needs.append(PortNeed("the metrics", settings.metrics_host, settings.metrics_port,
                          "MEMSTREAM_METRICS_PORT (0: no metrics port)"))  # fmt: skip
    if settings.embedded:
        needs.append(PortNeed("the embedded broker", settings.broker_host, settings.broker_port,
                              "MEMSTREAM_BROKER_PORT", listen=False))  # fmt: skip
    return [n for n in needs if n.port != 0]


def worker_command(args: argparse.Namespace, settings: Settings) -> int:
    from memstream.observability.logs import configure_logging
    from memstream.runtime.worker import run

    configure_logging(settings.log_level, settings.log_format)
    if args.no_embed:
        logging.getLogger("memstream.runtime.worker").info(
            "this worker does not embed: run `memstream embed` beside it"
        )
    return run(settings, api=None, embed=not args.no_embed)


def embed_command(args: argparse.Namespace, settings: Settings) -> int:
    from memstream.observability.logs import configure_logging
    from memstream.runtime.embedder_process import run_embedder

    configure_logging(settings.log_level, settings.log_format)
    return run_embedder(settings)


def broker_command(args: argparse.Namespace, settings: Settings) -> int:
    from memstream.observability.logs import configure_logging
    from memstream.streams.broker import run_broker

    configure_logging(settings.log_level, settings.log_format)
    port = args.port if args.port is not None else settings.broker_port
    return run_broker(settings.broker_host, port, settings.log_dir / "broker.log")


def serve_command(args: argparse.Namespace, settings: Settings) -> int:
    from memstream.streams.ports import registered, take_ports

    needs = _ports_of(settings, api=False)
    (listener,) = take_ports(needs)  # a port in use ends here, before anything loads
    assert listener is not None
    from memstream.gate.guard import serving_rule
    from memstream.http.serve import serve
    from memstream.observability.logs import configure_logging

    rule = serving_rule(settings)
    configure_logging(settings.log_level, settings.log_format)
    logging.getLogger("memstream.http").info("HTTP API: %s", rule)
    with registered(settings.data_location.uri, [n.port for n in needs]):
        return serve(settings, listener)


def top_command(args: argparse.Namespace, settings: Settings) -> int:
    from memstream.cli.top import run_top
    from memstream.server_address import running_api

    urls = list(args.metrics or [])
    if not urls and settings.metrics_port:
        urls.append(f"http://{settings.metrics_host}:{settings.metrics_port}")
    api = args.api or running_api(settings.local_dir) or settings.api_url or None
    if api:
        urls.insert(0, api)
    if not urls:
        say_error("nothing to watch: give --api or --metrics (MEMSTREAM_METRICS_PORT is 0)")
        return 2
    if not 0.2 <= args.every <= 3600:
        say_error("--every: must be 0.2 to 3600 seconds")
        return 2
    return run_top(urls, args.every, args.once)


def console_command(args: argparse.Namespace, settings: Settings) -> int:
    from memstream.server_address import running_api

    api = args.api or running_api(settings.local_dir) or settings.api_url or None
    if not api:
        say_error(
            "no server runs for this data folder: start one (memstream up), or give --api URL"
        )
        return 1
    url = f"{api.rstrip('/')}/console"
    if args.open:
        import webbrowser

        if not webbrowser.open(url):
            say_error(f"no browser could be opened here: the console is at {url}")
            return 1
    say(url)
    return 0


def register(command: Command) -> None:
    """Add this module's commands, with their flags, to the parser ``command`` builds."""
    p = command("up", up_command, "run the broker (when embedded), the worker and the HTTP API")
    p.add_argument("--embedder", choices=EMBEDDERS)
    p.add_argument("--port", type=int, help="HTTP API port (default 8787)")
    p.add_argument("--no-api", action="store_true", help="run the worker without the HTTP API")

    p = command("serve", serve_command, "serve the HTTP API alone (the worker runs elsewhere)")
    p.add_argument("--embedder", choices=EMBEDDERS)
    p.add_argument("--port", type=int, help="HTTP API port (default 8787)")

    p = command(
        "worker",
        worker_command,
        "run one worker of a deployment (no API): it applies the partitions Kafka gives it",
    )
    p.add_argument("--embedder", choices=EMBEDDERS)
    p.add_argument(
        "--no-embed",
        action="store_true",
        help="leave embedding to `memstream embed` processes",
    )

    p = command("embed", embed_command, "run one embedding process of a deployment (needs --kafka)")
    p.add_argument("--embedder", choices=EMBEDDERS)

    p = command("broker", broker_command, "run the embedded Kafka-compatible broker alone")
    p.add_argument("--port", type=int, help="port to listen on (default MEMSTREAM_BROKER_PORT)")

    p = command("console", console_command, "the address of the console in the browser")
    p.add_argument(
        "--api", help="the HTTP API (default: the server running for the data folder, if any)"
    )
    p.add_argument("--open", action="store_true", help="open it in the default browser too")

    p = command(
        "top",
        top_command,
        "a live view of a deployment from its metrics: lag, rates, latency, jobs",
    )
    p.add_argument(
        "--api", help="the HTTP API (default: the server running for the data folder, if any)"
    )
    p.add_argument(
        "--metrics",
        action="append",
        help="a worker's or embedder's metrics address (repeat for each; default "
        "MEMSTREAM_METRICS_HOST:MEMSTREAM_METRICS_PORT)",
    )
    p.add_argument("--every", type=float, default=2.0, help="seconds between views (default 2)")
    p.add_argument("--once", action="store_true", help="print one view and exit")
