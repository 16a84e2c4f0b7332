"""The built site (``$NEURIPS24_SITE``, `make browser` sets it to _build/html) served on 127.0.0.1, and Debian's
Chromium driven by Playwright with every request to another host blocked, as a reader with no network sees it.
These tests read a built book: the unit-test run leaves this folder out (`make unit`)."""
from __future__ import annotations

import functools
import http.server
import os
import threading
from pathlib import Path

import pytest

SITE = Path(os.environ["NEURIPS24_SITE"]).resolve() if os.environ.get("NEURIPS24_SITE") else None
CHROMIUM = os.environ.get("NEURIPS24_CHROMIUM", "/usr/bin/chromium")
# Headless Chromium on a machine with no network: no sandbox as root, and none of its own background traffic.
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage"]

if SITE is None:
    collect_ignore_glob = ["test_*.py"]   # nothing to test without a built site (run `make browser`)


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="session")
def site_url():
    assert SITE and (SITE / "index.html").exists(), f"no built book at {SITE}: run `make book` or `make notebooks`"
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_QuietHandler, directory=SITE))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


@pytest.fixture(scope="session")
def browser_context(site_url):
    """A Chromium context in which only the local server answers; ``context.blocked`` lists what was refused."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        context.blocked = []

        def route(r):
            if r.request.url.startswith(site_url + "/"):
                r.continue_()
            else:
                context.blocked.append(r.request.url)
                r.abort("internetdisconnected")

        context.route("**/*", route)
        yield context
        browser.close()
