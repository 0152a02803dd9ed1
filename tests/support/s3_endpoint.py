"""moto's S3 server on loopback for the tests, with every request given to its S3
application.

moto's own server (``ThreadedMotoServer``) works out, for each request and under one
lock, which of its hundreds of services the request is for: it lists its package's
folders and tries each service's URL patterns. Under the scale-out scenario on S3 (six
processes, thousands of requests a minute) that was about half of what py-spy saw the
server's threads do, and it held every other request back meanwhile. The tests speak
only S3 to it, so this server hands each request straight to the application moto
builds for S3: the same request handler, S3 backend and responses. (The scenario's test
process, which runs the server, used 48 s of CPU instead of 57.)
"""

from __future__ import annotations

import threading
from typing import Any

from moto.moto_server.werkzeug_app import MotoRequestHandler, create_backend_app
from werkzeug.serving import BaseWSGIServer, make_server

__all__ = ["S3Server"]


class S3Server:
    """moto's S3 application served on ``host``:``port`` by a thread of this process."""

    def __init__(self, host: str, port: int) -> None:
        self._app: Any = create_backend_app("s3")
        self._server: BaseWSGIServer = make_server(
            host, port, self._app, threaded=True, request_handler=MotoRequestHandler
        )
        self._thread = threading.Thread(
            target=self._server.serve_forever, name="moto-s3", daemon=True
        )

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._server.shutdown()
        self._thread.join()
        self._server.server_close()  # the listening socket too
