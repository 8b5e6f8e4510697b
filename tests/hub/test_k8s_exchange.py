"""The exchange of the class on Kubernetes, on this machine: the chart's JupyterHub (5.5.0) with ngshare
0.6.0 as its service, as hub/k8s/ runs them (make k8s-exchange-env), and nbgrader 0.9.6 (the course's)
with the client the course's image adds. The instructor follows the guide's round (the exchange's
address added to the course's nbgrader_config.py as the guide's command adds it, through the hub's
public address); each student uses the nbgrader_config.py hub/k8s/config.yaml mounts in their pod
(the exchange's service address), with a home of their own and a token with a Lab's scopes. The
round goes through, submissions keep the exchange's time, and a student can do none of the
instructor's steps nor read another's work. (Logins are not the point here: the test makes each
user's token through the hub's API.)"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from tests.e2e.test_guide_round import console_commands
from tests.support.ports import free_port

ROOT = Path(__file__).resolve().parents[2]
VENV = ROOT / ".venv-exchange"
ADMIN = "roofline-test-admin-token-0123456789abcdef"  # a service of the test's hub only
SECTION = "A class on Kubernetes (Zero to JupyterHub)"

# A hub and its service, in a fresh venv: the lab tier.
pytestmark = [pytest.mark.lab, pytest.mark.xdist_group("k8s-exchange")]


HUB_CONFIG = """\
import sys
c = get_config()  # noqa: F821
c.JupyterHub.ip = "127.0.0.1"
c.JupyterHub.port = {proxy}
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = {hub}
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:{proxy_api}"
c.ConfigurableHTTPProxy.command = ["{chp}"]
c.JupyterHub.authenticator_class = "dummy"  # the test logs no one in: it makes each user's token
c.Authenticator.allowed_users = {{"instructor", "alice", "bob"}}
c.JupyterHub.db_url = "sqlite:///{run}/jupyterhub.sqlite"
c.JupyterHub.cookie_secret_file = "{run}/cookie_secret"
c.JupyterHub.services = [
    {{"name": "ngshare", "url": "http://127.0.0.1:{ngshare}",
      "command": [sys.executable, "-m", "ngshare", "--admins", "instructor",
                  "--database", "sqlite:///{run}/ngshare.db", "--storage", "{run}/ngshare-files"]}},
    {{"name": "test-admin", "api_token": "{admin}"}},
]
c.JupyterHub.load_roles = [
    {{"name": "test-admin", "scopes": ["admin:users", "tokens"], "services": ["test-admin"]}},
]
"""


@dataclass(frozen=True)
class Exchange:
    run: Path
    hub_api: str
    public: str  # the hub's public address (the proxy)
    service: str  # ngshare's own address, as a pod reaches its service
    tokens: dict[str, str]

    def as_user(self, user: str, *command: str, cwd: Path) -> subprocess.CompletedProcess[str]:
        """``command`` run as ``user``'s Lab would run it: their name and token, a home of their own."""
        home = self.run / f"home-{user}"
        home.mkdir(exist_ok=True)
        env = {**os.environ, "HOME": str(home), "JUPYTERHUB_USER": user,
               "JUPYTERHUB_API_TOKEN": self.tokens[user], "PYTHONPATH": str(VENV / "client"),
               "PATH": f"{ROOT / '.venv' / 'bin'}:{os.environ['PATH']}"}
        return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=120)

    def api(self, user: str, path: str) -> dict:
        headers = {"Authorization": f"token {self.tokens[user]}"}
        request = urllib.request.Request(f"{self.service}{path}", headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=10) as answer:
                return json.load(answer)
        except urllib.error.HTTPError as error:
            return json.load(error)


def start_hub(run: Path) -> tuple[subprocess.Popen[bytes], dict[str, int]]:
    first = free_port(following=3)  # four in a row: probed one by one, two could be the same
    ports = {name: first + i for i, name in enumerate(("proxy", "proxy_api", "hub", "ngshare"))}
    chp = VENV / "proxy" / "node_modules" / ".bin" / "configurable-http-proxy"
    (run / "jupyterhub_config.py").write_text(HUB_CONFIG.format(**ports, run=run, chp=chp, admin=ADMIN))
    env = {**os.environ, "PATH": f"{VENV / 'bin'}:{os.environ['PATH']}"}
    with (run / "hub.log").open("wb") as log:
        hub = subprocess.Popen([str(VENV / "bin" / "jupyterhub"), "-f", "jupyterhub_config.py"], cwd=run,
                               env=env, stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 300  # a minute was tight for JupyterHub's start on a loaded machine
    while time.monotonic() < deadline:
        if b"JupyterHub is now running" in (run / "hub.log").read_bytes():
            return hub, ports
        assert hub.poll() is None, (run / "hub.log").read_text()
        time.sleep(0.5)
    raise AssertionError((run / "hub.log").read_text())


def token(hub_api: str, user: str) -> str:
    """A token of ``user`` with a Lab's scopes (its server and its activity), made by the test's admin."""
    body = json.dumps({"scopes": ["access:servers!user", "users:activity!user"]}).encode()
    request = urllib.request.Request(f"{hub_api}/users/{user}/tokens", data=body, method="POST",
                                     headers={"Authorization": f"token {ADMIN}"})
    with urllib.request.urlopen(request, timeout=10) as answer:
        return str(json.load(answer)["token"])


def stop(hub: subprocess.Popen[bytes], run: Path) -> None:
    """The hub, then what it started (the proxy and ngshare, processes of their own: by their paths)."""
    hub.send_signal(signal.SIGTERM)
    try:
        hub.wait(timeout=15)
    except subprocess.TimeoutExpired:
        hub.kill()
    listed = subprocess.run(["ps", "-eo", "pid=,args="], capture_output=True, text=True).stdout
    for line in listed.splitlines():
        pid, _, args = line.strip().partition(" ")
        if str(run) in args or str(VENV / "proxy") in args:
            os.kill(int(pid), signal.SIGTERM)


@pytest.fixture(scope="module")
def exchange(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Exchange]:
    built = subprocess.run(["make", "-s", "k8s-exchange-env"], cwd=ROOT, capture_output=True, text=True,
                           timeout=900)
    assert built.returncode == 0, built.stderr
    run = tmp_path_factory.mktemp("exchange")
    hub, ports = start_hub(run)
    try:
        hub_api = f"http://127.0.0.1:{ports['hub']}/hub/api"
        tokens = {user: token(hub_api, user) for user in ("instructor", "alice", "bob")}
        yield Exchange(run, hub_api, f"http://127.0.0.1:{ports['proxy']}",
                       f"http://127.0.0.1:{ports['ngshare']}/services/ngshare", tokens)
    finally:
        stop(hub, run)


def guide_command(start: str) -> str:
    (command,) = [c for c in console_commands(SECTION) if c.startswith(start)]
    return command


@dataclass(frozen=True)
class Round:
    exchange: Exchange
    course: Path
    said: dict[str, str]  # each step's output


def nbgrader_line(result: subprocess.CompletedProcess[str]) -> str:
    return result.stdout + result.stderr


@pytest.fixture(scope="module")
def round_done(exchange: Exchange) -> Round:
    """The guide's round through the exchange: release, each student fetches, answers and submits,
    collect, feedback back to the students."""
    course = exchange.run / "course"
    course.mkdir()
    shutil.copy(ROOT / "nbgrader_config.py", course)
    for folder in ("exercises", "solutions"):
        shutil.copytree(ROOT / folder, course / folder)
    add_exchange = guide_command("printf ").replace("https://hub.example.edu", exchange.public)
    subprocess.run(add_exchange, shell=True, cwd=course, check=True)
    (course / "ngshare-students.csv").write_text("student_id,first_name,last_name,email\nalice,,,\nbob,,,\n")
    said = {}
    # ngshare-course-management, the client's command, run by the Labs' Python (the course's .venv)
    manage = [str(ROOT / ".venv" / "bin" / "python"),
              str(VENV / "client" / "bin" / "ngshare-course-management")]
    for step in ("create_course roofline instructor", "add_students roofline ngshare-students.csv"):
        said[step] = nbgrader_line(exchange.as_user("instructor", *manage, *step.split(), cwd=course))
    said["release"] = nbgrader_line(
        exchange.as_user("instructor", "nbgrader", "release_assignment", "roofline", cwd=course))
    mounted = yaml.safe_load((ROOT / "hub/k8s/config.yaml").read_text())["singleuser"]["extraFiles"]
    pod_config = mounted["nbgrader-exchange"]["stringData"].replace("http://ngshare:8080/services/ngshare",
                                                                    exchange.service)
    for student in ("alice", "bob"):
        lab = exchange.run / f"lab-{student}"
        lab.mkdir()
        (lab / "nbgrader_config.py").write_text(pod_config)
        said[f"{student} fetch"] = nbgrader_line(exchange.as_user(student, "nbgrader", "fetch_assignment",
                                                                  "roofline", cwd=lab))
        (lab / "roofline" / f"{student}.txt").write_text(f"{student}'s work\n")
        said[f"{student} submit"] = nbgrader_line(exchange.as_user(student, "nbgrader", "submit", "roofline",
                                                                   cwd=lab))
    said["collect"] = nbgrader_line(
        exchange.as_user("instructor", "nbgrader", "collect", "roofline", cwd=course))
    for student in ("alice", "bob"):  # what make feedback writes for each: a page per notebook, and the time
        pages = course / "feedback" / student / "roofline"
        pages.mkdir(parents=True)
        (pages / "ex1_int8_matmul.html").write_text(f"<p>{student}: feedback</p>\n")
        shutil.copy(course / "submitted" / student / "roofline" / "timestamp.txt", pages)
    said["release feedback"] = nbgrader_line(exchange.as_user("instructor", "nbgrader", "release_feedback",
                                                              "roofline", cwd=course))
    said["alice feedback"] = nbgrader_line(exchange.as_user("alice", "nbgrader", "fetch_feedback", "roofline",
                                                            cwd=exchange.run / "lab-alice"))
    return Round(exchange, course, said)


def test_a_round_goes_through_the_exchange(round_done: Round) -> None:
    said, course, run = round_done.said, round_done.course, round_done.exchange.run
    assert "Successfully released roofline" in said["release"], said
    for student in ("alice", "bob"):
        assert "Successfully decoded roofline" in said[f"{student} fetch"], said
        released = sorted(p.name for p in (course / "exercises" / "roofline").glob("*.ipynb"))
        assert sorted(p.name for p in (run / f"lab-{student}" / "roofline").glob("*.ipynb")) == released
        submitted_at = re.search(r"Submitted as: roofline roofline (\S+ \S+)", said[f"{student} submit"])
        assert submitted_at, said
        collected = course / "submitted" / student / "roofline"
        assert (collected / f"{student}.txt").read_text() == f"{student}'s work\n"
        assert (collected / "timestamp.txt").read_text().strip() == submitted_at[1]
    assert "Feedback released" in said["release feedback"], said
    (page,) = (run / "lab-alice" / "roofline" / "feedback").glob("*/ex1_int8_matmul.html")
    assert page.read_text() == "<p>alice: feedback</p>\n"


def test_a_student_can_do_none_of_the_instructors_steps_nor_read_anothers_work(round_done: Round) -> None:
    exchange, lab = round_done.exchange, round_done.exchange.run / "lab-bob"
    collect = exchange.as_user("bob", "nbgrader", "collect", "roofline", "--course", "roofline", cwd=lab)
    assert collect.returncode != 0
    assert exchange.as_user("bob", "nbgrader", "release_assignment", "roofline", cwd=lab).returncode != 0
    assert not (lab / "submitted").exists()
    for path in ("/submission/roofline/roofline/alice", "/submissions/roofline/roofline/alice",
                 "/feedback/roofline/roofline/alice", "/submissions/roofline/roofline"):
        assert exchange.api("bob", path) == {"success": False, "message": "Permission denied"}, path
    mine = exchange.api("alice", "/submissions/roofline/roofline/alice")
    assert mine["success"] is True and len(mine["submissions"]) == 1, mine
