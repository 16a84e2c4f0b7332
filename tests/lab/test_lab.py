"""JupyterLab as a person uses it (`make lab`): the .venv's JupyterLab and kernel with the live controls on, driven
through Playwright by Debian's Chromium. One chapter runs from the Run menu, a slider of its Explore section moves
one step, and the figure below the controls must be drawn again, with no traceback in any output.

The server gets a copy of the chapter in a temporary folder (nothing is written into notebooks/), its own
configuration, data, runtime, settings and workspace folders, a random token and a free port on 127.0.0.1;
Chromium's requests to any other host are refused. Every wait is bounded, and the server and its kernel are
ended however the test ends. Screenshots go to _build/screenshots/ (lab_*.png).
"""
from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = "melloc_compression.ipynb"   # the quickest chapter: about 20 s at fast scale on 2 cores
SLIDER = "sources"                      # its Explore IntSlider n_sources (1..40, default 6): a cheap redraw
CHROMIUM = os.environ.get("NEURIPS24_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage"]
SCREENSHOTS = Path(os.environ.get("NEURIPS24_SCREENSHOTS", ROOT / "_build" / "screenshots"))
# JupyterLab's settings for this run: every cell attached to the page (no windowing, so the checks below see the
# whole notebook), and no news or update checks (no toast over the notebook, no request to another host).
LAB_SETTINGS = {
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {"fetchNews": "false", "checkForUpdates": False},
}
SERVER_START_S, PAGE_LOAD_S, RUN_ALL_S, REDRAW_S, STOP_S = 120, 180, 300, 120, 30

pytestmark = [
    pytest.mark.enable_socket,   # the local server; Chromium's requests elsewhere are refused
    pytest.mark.skipif(not os.access(CHROMIUM, os.X_OK),
                       reason=f"no Chromium at {CHROMIUM}: apt-get install chromium, or set NEURIPS24_CHROMIUM"),
]

# Runs in the page: where the notebook stands. The status bar reads "<kernel> | Idle" once a kernel is connected
# ("No Kernel | ..." before); prompts read "[ ]:" (not run), "[*]:" (queued or running), "[n]:" (ran).
NOTEBOOK_STATE = """() => ({
  kernel: document.querySelector('#jp-main-statusbar')?.innerText.match(/^(.*) \\| (\\w+)$/m)?.slice(1) ?? null,
  busy: document.querySelector('.jp-NotebookPanel .jp-Notebook-ExecutionIndicator')?.getAttribute('data-status'),
  prompts: [...document.querySelectorAll('.jp-NotebookPanel .jp-CodeCell .jp-InputPrompt')]
    .map(e => e.innerText.trim()),
  tracebacks: [...document.querySelectorAll('.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]')]
    .map(e => e.innerText).filter(t => t.includes('Traceback')),
  dialog: document.querySelector('.jp-Dialog')?.innerText ?? null,
})"""
# A kernel is connected and idle (or a dialog asks something, which the test then reports)
KERNEL_IDLE = f"""() => {{
  const s = ({NOTEBOOK_STATE})();
  return s.dialog !== null || (s.kernel !== null && s.kernel[0] !== 'No Kernel' && s.kernel[1] === 'Idle'
                               && s.busy === 'idle');
}}"""
# ... and no cell is queued or running: every one ran, or one failed and Lab dropped the rest of the queue
RUN_FINISHED = f"""() => {{
  const s = ({NOTEBOOK_STATE})();
  return s.dialog !== null || (({KERNEL_IDLE})() && s.prompts.length > 0 && !s.prompts.some(p => p.includes('*'))
    && (s.prompts.every(p => /^\\[\\d+\\]:$/.test(p)) || s.tracebacks.length > 0));
}}"""
FIGURE = ".widget-interact .widget-output img"   # the figure interact draws below its controls
# One figure, not the one before, loaded (or a traceback, which the test then reports)
REDRAWN = f"""([selector, before]) => {{
  const images = document.querySelectorAll(selector);
  return ({NOTEBOOK_STATE})().tracebacks.length > 0 || (images.length === 1 && images[0].src !== before
                                                      && images[0].complete && images[0].naturalWidth > 0);
}}"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _pids_naming(text: str) -> list[int]:
    """Processes whose command line contains ``text`` (the kernels name a connection file in our runtime folder)."""
    pids = []
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            if text.encode() in (proc / "cmdline").read_bytes():
                pids.append(int(proc.name))
        except OSError:
            pass
    return pids


def _stop(server: subprocess.Popen, runtime: Path) -> None:
    """SIGTERM to the server's process group (it shuts its kernels down), SIGKILL if it lingers; then any kernel
    left over (kernels run in sessions of their own) is killed by its id."""
    try:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=STOP_S)
    except ProcessLookupError:
        pass
    except subprocess.TimeoutExpired:
        os.killpg(server.pid, signal.SIGKILL)
        server.wait(timeout=STOP_S)
    for pid in _pids_naming(str(runtime)):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


@pytest.fixture
def lab(tmp_path):
    """A JupyterLab server on 127.0.0.1 serving a copy of the chapter: ``(base_url, token, log_path)``."""
    home = {name: tmp_path / name for name in ("notebooks", "config", "data", "runtime", "settings", "workspaces")}
    for folder in home.values():
        folder.mkdir()
    shutil.copy(ROOT / "notebooks" / NOTEBOOK, home["notebooks"])
    for name, value in LAB_SETTINGS.items():
        (home["settings"] / name).parent.mkdir(parents=True, exist_ok=True)
        (home["settings"] / name).write_text(json.dumps(value))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JUPYTER", "JPY_", "MPLBACKEND"))}
    env.update(NEURIPS24_WIDGETS="1", NEURIPS24_SCALE="fast", NEURIPS24_CLAIMS_DIR=str(tmp_path / "claims"),
               JUPYTER_CONFIG_DIR=str(home["config"]), JUPYTER_DATA_DIR=str(home["data"]),
               JUPYTER_RUNTIME_DIR=str(home["runtime"]), JUPYTERLAB_SETTINGS_DIR=str(home["settings"]),
               JUPYTERLAB_WORKSPACES_DIR=str(home["workspaces"]), JUPYTER_PREFER_ENV_PATH="1",
               IPYTHONDIR=str(tmp_path / "ipython"))
    token, port = secrets.token_hex(16), _free_port()
    log_path = tmp_path / "server.log"
    command = [sys.executable, "-m", "jupyterlab", "--no-browser", "--ServerApp.ip=127.0.0.1",
               f"--ServerApp.port={port}", "--ServerApp.port_retries=0", f"--IdentityProvider.token={token}",
               f"--ServerApp.root_dir={home['notebooks']}"]
    if os.geteuid() == 0:
        command.append("--allow-root")
    with open(log_path, "w") as log:
        server = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                  start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    no_proxy = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        deadline = time.monotonic() + SERVER_START_S
        while True:
            assert server.poll() is None, f"JupyterLab exited ({server.returncode}):\n{log_path.read_text()[-3000:]}"
            try:
                no_proxy.open(f"{url}/api/status?token={token}", timeout=5).close()
                break
            except OSError:
                assert time.monotonic() < deadline, f"JupyterLab did not answer in {SERVER_START_S} s:\n" \
                                                    f"{log_path.read_text()[-3000:]}"
                time.sleep(0.5)
        yield url, token, log_path
    finally:
        _stop(server, home["runtime"])


def test_explore_slider_redraws_in_lab(lab):
    from playwright.sync_api import sync_playwright

    url, token, log_path = lab
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, timeout=60_000)
        try:
            context = browser.new_context(viewport={"width": 1400, "height": 1000})
            context.set_default_timeout(30_000)
            blocked, page_errors = [], []

            def route(r):
                if r.request.url.startswith(url + "/"):
                    r.continue_()
                else:
                    blocked.append(r.request.url)
                    r.abort("internetdisconnected")

            context.route("**/*", route)
            page = context.new_page()
            page.on("pageerror", lambda exc: page_errors.append(str(exc)))
            try:
                _run_chapter_and_move_slider(page, url, token)
            except BaseException:
                page.screenshot(path=SCREENSHOTS / "lab_failure.png")
                print(f"JupyterLab's log (end):\n{log_path.read_text()[-5000:]}\nrequests refused: {blocked}")
                raise
            assert not page_errors, f"JavaScript errors in JupyterLab: {page_errors}"
        finally:
            browser.close()


def _assert_no_dialog(page) -> dict:
    state = page.evaluate(NOTEBOOK_STATE)
    assert state["dialog"] is None, f"JupyterLab asks: {state['dialog']!r}"
    return state


def _run_chapter_and_move_slider(page, url, token):
    from playwright.sync_api import expect

    page.goto(f"{url}/lab/tree/{NOTEBOOK}?token={token}", timeout=PAGE_LOAD_S * 1000)
    page.wait_for_function(KERNEL_IDLE, timeout=PAGE_LOAD_S * 1000, polling=500)   # the notebook and its kernel
    _assert_no_dialog(page)

    # Run > Run All Cells, as a reader does, then wait until every code cell has run (or one failed)
    page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(r"^Run$")).click()
    page.locator(".lm-Menu-itemLabel", has_text=re.compile(r"^Run All Cells$")).click()
    page.wait_for_function(RUN_FINISHED, timeout=RUN_ALL_S * 1000, polling=500)
    state = _assert_no_dialog(page)
    assert not state["tracebacks"], "a cell failed in JupyterLab:\n" + "\n\n".join(state["tracebacks"])
    assert all(re.fullmatch(r"\[\d+\]:", p) for p in state["prompts"]), f"cells left unrun: {state['prompts']}"

    # The Explore section shows live controls (NEURIPS24_WIDGETS=1) and the figure they draw
    interact = page.locator(".widget-interact")
    assert interact.count() == 1, "no live controls in the Explore section (ipywidgets interact)"
    assert page.get_by_text("Live controls are off").count() == 0
    slider = interact.locator(".widget-hslider", has=page.locator(".widget-label", has_text=re.compile(f"^{SLIDER}$")))
    assert slider.count() == 1, f"no slider labelled {SLIDER!r} in the Explore section of {NOTEBOOK}"
    handle, readout = slider.locator(".noUi-handle"), slider.locator(".widget-readout")
    figure = page.locator(FIGURE)
    assert figure.count() == 1, "interact drew no figure below its controls"
    before, value = figure.get_attribute("src"), int(readout.inner_text())
    assert before.startswith("data:image/png;base64,")
    interact.scroll_into_view_if_needed()
    interact.screenshot(path=SCREENSHOTS / "lab_explore_before.png")

    # One step to the right with the keyboard on the focused slider handle: the kernel draws the figure again
    handle.focus()
    handle.press("ArrowRight")
    expect(readout).to_have_text(str(value + 1), timeout=10_000)
    page.wait_for_function(REDRAWN, arg=[FIGURE, before], timeout=REDRAW_S * 1000, polling=250)
    page.wait_for_function(RUN_FINISHED, timeout=REDRAW_S * 1000, polling=500)
    interact.screenshot(path=SCREENSHOTS / "lab_explore_after.png")
    state = _assert_no_dialog(page)
    assert not state["tracebacks"], "the redraw failed:\n" + "\n\n".join(state["tracebacks"])
    assert figure.count() == 1 and figure.get_attribute("src") != before
