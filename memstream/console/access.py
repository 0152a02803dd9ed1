"""Who is looking at the console, and how every console page answers.

:class:`ConsoleAccess` turns a request's session cookie into the
:class:`~memstream.gate.guard.Principal` the API would make of the key behind it (the
same tenant, role and audit log; the door is ``console``), checks an action's token,
and renders pages. Without a session, a page sends the browser to the login page (with
API keys) or opens an operator session (without keys, on loopback). A refusal or a
failure is answered as a page saying what was wrong, with the API's status for it;
never a traceback. Every answer carries a Content-Security-Policy that lets nothing run
but the console's own script and loads nothing from another host.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Coroutine, Mapping
from dataclasses import dataclass
from importlib.resources import files
from typing import Any
from urllib.parse import quote

from fastapi import HTTPException, Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, RedirectResponse
from fastapi.routing import APIRoute
from jinja2 import Environment, FileSystemLoader, select_autoescape

from memstream.console.sessions import COOKIE, OPERATOR, Session, Sessions
from memstream.console.shown import FILTERS
from memstream.gate.guard import Guard, Principal
from memstream.gate.refusals import status_of
from memstream.policies.doors import LOOPBACK_NAMES, DoorRule, host_name

__all__ = [
    "SECURITY_HEADERS",
    "ConsoleAccess",
    "LoginNeeded",
    "Viewer",
    "console_route_class",
]

log = logging.getLogger(__name__)

#: Sent with every console answer: only the console's own scripts, styles and images run
#: or load; no frame may hold it; no other site it links to learns where the click came
#: from (the console itself does: a form's Origin is checked).
SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
        "connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "X-Frame-Options": "DENY",
    "Cache-Control": "no-store",
}


class LoginNeeded(Exception):
    """The request has no session: the browser goes to the login page."""

    def __init__(self, back_to: str) -> None:
        super().__init__(back_to)
        self.back_to = back_to


@dataclass
class Viewer:
    """The person at the console: the principal their key makes them, their session,
    and a new session token to set (an operator's first visit)."""

    who: Principal
    session: Session
    new_token: str | None = None
    #: whether the page was asked for over HTTPS (the cookie is then Secure)
    secure: bool = False

    @property
    def is_admin(self) -> bool:
        """Whether they see the deployment: the operator, or an admin key."""
        return self.who.key is None or self.who.key.is_admin

    @property
    def may_write(self) -> bool:
        return self.who.key is None or self.who.key.may_write


class ConsoleAccess:
    """Sessions, the principal behind them, and page rendering."""

    def __init__(self, guard: Guard, sessions: Sessions, rule: DoorRule) -> None:
        self.guard = guard
        self.sessions = sessions
        #: the Host and Origin rule of the port the console is served on
        self.rule = rule
        templates = files("memstream.console") / "templates"
        self.templates = Environment(
            loader=FileSystemLoader(str(templates)),
            autoescape=select_autoescape(default=True, default_for_string=True),
            trim_blocks=True,
            lstrip_blocks=True,
        )
        self.templates.filters.update(FILTERS)
        self.templates.globals["quote"] = lambda text: quote(str(text), safe="")

    def viewer(self, request: Request) -> Viewer:
        """The request's viewer (:class:`LoginNeeded` when it must log in first)."""
        where = f"{request.method} {request.url.path}"
        session = self.sessions.open(request.cookies.get(COOKIE))
        if not self.guard.keys.configured:
            principal = Principal(None, self.guard, where, door="console")
            if session is not None and session.key_id == OPERATOR:
                return Viewer(principal, session)
            token = self.sessions.issue(OPERATOR)
            opened = self.sessions.open(token)
            assert opened is not None
            return Viewer(principal, opened, token, request.url.scheme == "https")
        key = None if session is None else self.guard.keys.active_key(session.key_id)
        if session is None or key is None:
            back = request.url.path + (f"?{request.url.query}" if request.url.query else "")
            raise LoginNeeded(back)
        return Viewer(Principal(key, self.guard, where, door="console"), session)

    def acting(self, request: Request, form: Mapping[str, Any]) -> Viewer:
        """The viewer of an action (a POST): refused (403) unless the form carries the
        session's action token and, when the browser says where the form came from
        (``Origin``), it came from this server."""
        viewer = self.viewer(request)
        if not self.same_origin(request):
            raise viewer.who.refuse("this form came from another site")
        token = form.get("action_token")
        if viewer.new_token is not None or not viewer.session.accepts(
            token if isinstance(token, str) else None
        ):
            raise viewer.who.refuse("this form has expired or came from another site: reload")
        return viewer

    def same_origin(self, request: Request) -> bool:
        """Whether the request's ``Origin`` (when the browser sent one) is one of this
        server's own, as configured: never one built from the request's own ``Host``."""
        origin = request.headers.get("origin")
        return origin is None or self.rule.admits_origin(origin)

    def on_loopback(self, request: Request) -> bool:
        """Whether a browser on this machine sent ``request`` to a loopback name, from a
        loopback page of this server (both ``Host`` and ``Origin`` loopback)."""
        host = host_name(request.headers.get("host", ""))
        return host in LOOPBACK_NAMES and self.rule.is_loopback_origin(
            request.headers.get("origin")
        )

    def page(
        self, name: str, viewer: Viewer | None, status: int = 200, **values: Any
    ) -> HTMLResponse:
        """The template ``name`` rendered for ``viewer``."""
        html = self.templates.get_template(name).render(viewer=viewer, **values)
        response = HTMLResponse(html, status_code=status, headers=SECURITY_HEADERS)
        if viewer is not None and viewer.new_token is not None:
            self.set_cookie(response, viewer.new_token, secure=viewer.secure)
        return response

    def set_cookie(self, response: Response, token: str, secure: bool) -> None:
        response.set_cookie(
            COOKIE,
            token,
            max_age=int(self.sessions.ttl_seconds),
            path="/console",
            httponly=True,
            samesite="strict",
            secure=secure,
        )


def console_route_class(access: ConsoleAccess) -> type[APIRoute]:
    """A route class whose handlers answer what they raise as a console page."""

    class ConsoleRoute(APIRoute):
        def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
            handler = super().get_route_handler()

            async def answer(request: Request) -> Response:
                try:
                    return await handler(request)
                except LoginNeeded as needed:
                    target = "/console/login?next=" + quote(needed.back_to, safe="")
                    return RedirectResponse(target, 303, headers=SECURITY_HEADERS)
                except HTTPException as exc:
                    return _problem(access, exc.status_code, str(exc.detail))
                except RequestValidationError as exc:
                    lines = [
                        f"{'.'.join(str(p) for p in e['loc'][1:])}: {e['msg']}"
                        for e in exc.errors()
                    ]
                    return _problem(access, 422, "; ".join(lines))
                except Exception as exc:
                    status = status_of(exc)
                    if status is None:
                        log.exception("console page %s failed", request.url.path)
                        return _problem(access, 500, "the console could not show this page")
                    return _problem(access, status, str(exc))

            return answer

    return ConsoleRoute


def _problem(access: ConsoleAccess, status: int, why: str) -> HTMLResponse:
    return access.page("problem.html", None, status=status, status_code=status, why=why)
