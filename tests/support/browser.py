"""A real browser for the console tests: Debian's Chromium driven by Playwright (its own
browser download is not used), one per test module, with helpers to log in and to
catch any script a page was made to run."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from playwright.sync_api import Browser, Page, sync_playwright

__all__ = ["FOREIGN_NAMES", "PWNED", "chromium", "logged_in", "screenshot", "watch_for_scripts"]

#: What a hostile payload sets when it runs (the tests assert it never is).
PWNED = "window.__pwned"


def _executable() -> str:
    found = os.environ.get("MEMSTREAM_CHROMIUM") or shutil.which("chromium")
    if not found:
        raise RuntimeError(
            "the console's browser tests need Chromium: make test installs it "
            "(apt-get install chromium), or set MEMSTREAM_CHROMIUM to its path"
        )
    return found


#: Host names the browser resolves to 127.0.0.1, as an attacker's DNS would: pages of
#: other origins on this machine (:mod:`support.cross_site`).
FOREIGN_NAMES = ("evil.test", "rebind.test")
#: Chromium's own guard against pages reaching loopback (Local Network Access), off:
#: other browsers have none, and the tests are of memstream's doors, not of Chromium's.
_LOCAL_NETWORK_CHECKS = (
    "LocalNetworkAccessChecks,BlockInsecurePrivateNetworkRequests,"
    "PrivateNetworkAccessSendPreflights,PrivateNetworkAccessRespectPreflightResults"
)


@contextmanager
def chromium() -> Iterator[Browser]:
    """The system's Chromium, headless (``FOREIGN_NAMES`` resolving to 127.0.0.1, and
    pages of any address allowed to reach loopback)."""
    rules = ", ".join(f"MAP {name} 127.0.0.1" for name in FOREIGN_NAMES)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=_executable(),
            args=[
                "--no-sandbox",
                "--disable-gpu",
                f"--host-resolver-rules={rules}",
                f"--disable-features={_LOCAL_NETWORK_CHECKS}",
            ],
        )
        try:
            yield browser
        finally:
            browser.close()


def watch_for_scripts(page: Page) -> list[str]:
    """Every dialog a page opens (an ``alert`` a payload ran), recorded and dismissed."""
    seen: list[str] = []

    def dismissed(dialog: object) -> None:
        seen.append(getattr(dialog, "message", "?"))
        dialog.dismiss()  # type: ignore[attr-defined]

    page.on("dialog", dismissed)
    return seen


def logged_in(browser: Browser, api: str, key: str | None) -> Page:
    """A new page in a new context, logged in with ``key`` (None: no keys, the operator)."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.goto(f"{api}/console")
    if key is not None:
        page.fill("#key", key)
        page.click("button[type=submit]")
        page.wait_for_url(f"{api}/console")
    return page


def screenshot(page: Page, name: str) -> None:
    """Save the page for the docs when ``MEMSTREAM_CONSOLE_SCREENSHOTS`` names a folder."""
    folder = os.environ.get("MEMSTREAM_CONSOLE_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(folder) / f"{name}.png"), full_page=True)
