"""Liveness, readiness and the metrics of the API process."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request, Response
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from memstream.http.health import ApiReadiness
from memstream.http.parameters import (
    RouteDeps,
)
from memstream.http.resource_answers import Liveness, Readiness
from memstream.runtime.exposition import readiness_document

__all__ = ["health_router"]


def health_router(deps: RouteDeps) -> APIRouter:
    """The routes of this module, over ``deps``."""
    router = APIRouter(tags=["health"])
    settings = deps.operations.settings
    guard = deps.guard
    instance = deps.instance
    readiness = ApiReadiness(deps.operations)

    @router.get("/healthz", response_model=Liveness, response_model_exclude_unset=True)
    async def healthz() -> dict[str, str]:
        """Liveness: answers while the process runs, touching nothing else."""
        return {"status": "ok"} if instance is None else {"status": "ok", "instance": instance}

    @router.get(
        "/readyz",
        response_model=Readiness,
        response_model_exclude_unset=True,
        responses={503: {"description": "Not ready, with the reasons", "model": Readiness}},
    )
    async def readyz(response: Response) -> dict[str, Any]:
        """Whether this server can serve: the broker answers, the projections can be
        read, and the workers are within ``ready_max_lag`` records of the log."""
        status, document = readiness_document(await readiness.problems())
        response.status_code = status
        return document

    @router.get("/metrics", include_in_schema=False)
    async def prometheus_metrics(request: Request) -> Response:
        """This process's series in Prometheus' text format (docs/metrics.md): with keys
        on, for an admin key (the counts are the whole deployment's), unless the
        operator opened it (``MEMSTREAM_API_METRICS_OPEN``)."""
        if not settings.api_metrics_open:
            who = await guard(request)
            if who.key is not None:
                who.admin("reading the deployment's metrics")
        return Response(generate_latest(), media_type=CONTENT_TYPE_LATEST)

    return router
