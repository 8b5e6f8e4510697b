"""``make formgrader`` started as an instructor starts it, and the calls its pages make.

Shared by the grading round's tests (`test_grading_round.py`) and the guide's round in a fresh
clone (`test_guide_round.py`).
"""

from __future__ import annotations

import http.cookiejar
import json
import os
import signal
import subprocess
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from bs4 import BeautifulSoup

from tests.support.ports import free_port

INSTRUCTOR_PLUGINS = (
    "@jupyter/nbgrader:menu",
    "@jupyter/nbgrader:formgrader",
    "@jupyter/nbgrader:create-assignment",
)
"""nbgrader's JupyterLab plugins that ``make formgrader``'s Lab has and the student's has not."""
EXCHANGE_PLUGINS = ("@jupyter/nbgrader:assignment-list", "@jupyter/nbgrader:course-list")
"""nbgrader's plugins for its exchange, which the course does not use: in neither Lab."""


@dataclass
class Formgrader:
    """``make formgrader`` running on a course: its address, token and log."""

    course: Path
    server: subprocess.Popen[bytes]
    url: str
    token: str
    log: Path

    def stop(self) -> None:
        """Ctrl+C for make, its shell and JupyterLab (one process group); again does nothing."""
        if self.server.poll() is None:
            os.killpg(self.server.pid, signal.SIGTERM)
        self.server.wait(timeout=60)


def start_formgrader(make_formgrader: list[str], course: Path, scratch: Path) -> Formgrader:
    """``make formgrader`` (the command line ``make_formgrader``) on ``course`` (JupyterLab with
    nbgrader's formgrader, as an instructor opens it), on a free port with a known token, once it
    answers. Nothing in its configuration
    allows root: as root, only the Makefile's ``--allow-root`` lets it start."""
    port = free_port()
    token = "formgrader-test"
    config = scratch / "config"
    config.mkdir(parents=True)
    (config / "jupyter_server_config.json").write_text(
        json.dumps(
            {
                "ServerApp": {"ip": "127.0.0.1", "port": port, "open_browser": False},
                "IdentityProvider": {"token": token},
            }
        )
    )
    log = scratch / "server.log"
    with log.open("wb") as output:  # the server writes to its own copy of the file descriptor
        server = subprocess.Popen(
            make_formgrader,
            env={
                **os.environ,
                "JUPYTER_CONFIG_DIR": str(config),  # nothing from ~/.jupyter
                "JUPYTER_RUNTIME_DIR": str(scratch / "runtime"),
                "JUPYTERLAB_SETTINGS_DIR": str(scratch / "settings"),
                "JUPYTERLAB_WORKSPACES_DIR": str(scratch / "workspaces"),
            },
            stdout=output,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # make, its shell and jupyter: one process group to stop
        )
    running = Formgrader(course, server, f"http://127.0.0.1:{port}", token, log)
    deadline = time.monotonic() + 120
    while True:
        try:
            api(f"{running.url}/formgrader/api/status", token)
            return running
        except OSError:
            if server.poll() is not None or time.monotonic() > deadline:
                running.stop()
                pytest.fail(f"make formgrader did not start:\n{log.read_text()[-3000:]}")
            time.sleep(0.5)


def api(url: str, token: str, method: str = "GET", body: object = None) -> Any:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(
        url, data=data, method=method, headers={"Authorization": f"token {token}"}
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


def page_text(url: str, token: str) -> str:
    request = urllib.request.Request(url, headers={"Authorization": f"token {token}"})
    with urllib.request.urlopen(request, timeout=60) as response:
        return str(response.read().decode())


def lab_page_config(url: str, token: str) -> Any:
    """The page configuration JupyterLab hands the browser at ``url``/lab (its disabled plugins)."""
    page = BeautifulSoup(page_text(f"{url}/lab", token), "html.parser")
    data = page.find(id="jupyter-config-data")
    assert data is not None, "no jupyter-config-data on the Lab's page"
    return json.loads(data.get_text())


@dataclass
class CookieSession:
    """What a browser keeps after a first visit: the cookies the server set, each sent back only
    where its path allows (``http.cookiejar`` applies a cookie's path and its default as browsers
    do); no token, no header of its own."""

    opener: urllib.request.OpenerDirector

    def json(self, url: str) -> Any:
        """``url``'s JSON, as a page's script asks for it (a redirect to the login page is no JSON)."""
        with self.opener.open(url, timeout=30) as response:
            body = response.read()
            assert "/login" not in response.geturl(), f"{url} sent this session to the login page"
        return json.loads(body)


def first_visit(url: str) -> CookieSession:
    """Open ``url`` (with ``?token=...``, as ``make formgrader``'s printed address has it) in a
    fresh cookie session, as a browser opens an address typed in first."""
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
    with opener.open(url, timeout=60) as response:
        response.read()
    return CookieSession(opener)
