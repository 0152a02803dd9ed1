"""The console's pages of what was served: per user, what each agent was shown and
when (the context blocks and search answers recorded by
:mod:`memstream.application.served_log`), and one answer rendered again from its
record, with whether it is byte for byte what the agent was given."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from memstream.application import Operations
from memstream.console.access import ConsoleAccess
from memstream.policies.limits import MAX_LISTED

__all__ = ["served_pages"]


def served_pages(router: APIRouter, ops: Operations, access: ConsoleAccess) -> None:
    """Add the pages of this module to ``router``."""

    @router.get("/console/users/{user_id:console_id}/served")
    async def served(request: Request, user_id: str) -> Any:
        viewer = access.viewer(request)
        viewer.who.reads(user_id)
        answers = await ops.reads.served(user_id, limit=MAX_LISTED)
        return access.page("served.html", viewer, user_id=user_id, answers=answers)

    @router.get("/console/users/{user_id:console_id}/served/{served_id:console_id}")
    async def served_answer(request: Request, user_id: str, served_id: str) -> Any:
        viewer = access.viewer(request)
        viewer.who.reads(user_id)
        answer = await ops.reads.served_answer(user_id, served_id)
        return access.page("served_answer.html", viewer, user_id=user_id, answer=answer)
