"""The API's documentation pages, ``/docs`` (Swagger UI) and ``/redoc``, served whole
from this process: their scripts, styles and icon come from the ``fastapi-offline``
package under ``/docs-assets``, so the pages work with no network and name no outside
host (FastAPI's own pages load them from a CDN)."""

from __future__ import annotations

from pathlib import Path

import fastapi_offline
from fastapi import FastAPI
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
from fastapi.staticfiles import StaticFiles
from starlette.responses import HTMLResponse

__all__ = ["ASSETS_PATH", "install_docs"]

#: Where the pages' scripts and styles are served.
ASSETS_PATH = "/docs-assets"
_ASSETS = Path(fastapi_offline.__file__).parent / "static"


def install_docs(app: FastAPI) -> None:
    """Serve ``/docs`` and ``/redoc`` for ``app`` (made with ``docs_url=None`` and
    ``redoc_url=None``) with their assets from this process."""
    app.mount(ASSETS_PATH, StaticFiles(directory=_ASSETS), name="docs-assets")
    openapi_url = app.openapi_url or "/openapi.json"

    @app.get("/docs", include_in_schema=False)
    async def swagger_ui() -> HTMLResponse:
        return get_swagger_ui_html(
            openapi_url=openapi_url,
            title=f"{app.title} - Swagger UI",
            swagger_js_url=f"{ASSETS_PATH}/swagger-ui-bundle.js",
            swagger_css_url=f"{ASSETS_PATH}/swagger-ui.css",
            swagger_favicon_url=f"{ASSETS_PATH}/favicon.png",
        )

    @app.get("/redoc", include_in_schema=False)
    async def redoc() -> HTMLResponse:
        return get_redoc_html(
            openapi_url=openapi_url,
            title=f"{app.title} - ReDoc",
            redoc_js_url=f"{ASSETS_PATH}/redoc.standalone.js",
            redoc_favicon_url=f"{ASSETS_PATH}/favicon.png",
            with_google_fonts=False,
        )
