"""The class's JupyterHub (``make hub``) on loopback, with system users the tests create and remove.

:func:`system_users` adds Unix users with passwords (``useradd``, ``chpasswd``) and removes them
with their homes (``userdel -r``), and :func:`groups_removed` the course's Unix groups the test
made; :func:`running_hub` runs ``make hub`` on a free loopback port with a hub folder, course
folder and exchange of the test's own, and stops it by its process id;
:class:`Login` is a user's browserless session there (the hub's login form, its spawn form,
then the user's server's REST API), as ``requests`` sees it.

The instructor's environment is this checkout's ``.venv``: on a machine where its Python lives in
root's home (pyenv), no other user may run it, so :func:`instructor_environment` writes a thin
one for the instructor: a virtual environment of the system's Python 3.11 (the same ABI) that
reads the checkout's packages, with the checkout's commands. The students' environment is the
real one ``make hub-install`` builds (the tests keep it in ``_build/hub``, rebuilt only when what
it is made from changes).
"""

from __future__ import annotations

import grp
import os
import pwd
import signal
import stat
import subprocess
import sys
import sysconfig
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import requests

from tests.support import ports
from tests.support.make_targets import ROOT, command

sys.path.insert(0, str(ROOT / "hub"))

from prepare import account  # hub/ is no package: make hub runs its files

HUB_DIR = ROOT / "_build" / "hub"
"""The tests' hub folder (student environment, proxy), reused across runs like .venv."""
SYSTEM_PYTHON = Path("/usr/bin/python3")


def free_port() -> int:
    """A free TCP port on loopback, with the next two free as well (the proxy's API, the hub's)."""
    return ports.free_port(following=2)


@contextmanager
def system_users(passwords: dict[str, str], groups: dict[str, str]) -> Iterator[None]:
    """Unix users ``passwords`` names (each in ``groups[name]``, if any), removed afterwards."""
    with removed_afterwards(list(passwords)):
        for name, password in passwords.items():
            account(["useradd", "-m", "-s", "/bin/bash", name])
            account(["chpasswd"], stdin=f"{name}:{password}\n")
            if name in groups:
                account(["groupadd", "-f", groups[name]])
                account(["usermod", "-aG", groups[name], name])
        yield


@contextmanager
def removed_afterwards(names: list[str]) -> Iterator[None]:
    """The Unix users ``names`` (whoever creates them), removed with their homes and processes
    before (left by a run that was killed) and after."""
    try:
        for name in names:
            account(["userdel", "-r", name], check=False)
        yield
    finally:
        for name in names:
            subprocess.run(["pkill", "-KILL", "-u", name], capture_output=True, check=False)
            account(["userdel", "-r", name], check=False)


@contextmanager
def groups_removed(names: tuple[str, ...]) -> Iterator[None]:
    """Remove, at the end, each Unix group of ``names`` that did not exist at the start (nbgrader's
    course groups, which :func:`system_users` and ``make hub`` create): only what the test made."""
    existing = {name for name in names if _group_exists(name)}
    try:
        yield
    finally:
        for name in names:
            if name not in existing:
                account(["groupdel", name], check=False)


def _group_exists(name: str) -> bool:
    try:
        grp.getgrnam(name)
    except KeyError:
        return False
    return True


def as_user(
    name: str, *arguments: str, cwd: Path | None = None, input: str | None = None, **variables: str
) -> subprocess.CompletedProcess[str]:
    """Run a command as the system user ``name`` (what that user's kernel or terminal could run)."""
    entry = pwd.getpwnam(name)
    environment = {
        "HOME": entry.pw_dir,
        "USER": name,
        "PATH": "/usr/bin:/bin",
        "LANG": "C.UTF-8",
        **variables,
    }
    return subprocess.run(
        list(arguments),
        user=entry.pw_uid,
        group=entry.pw_gid,
        extra_groups=os.getgrouplist(name, entry.pw_gid),
        env=environment,
        cwd=cwd,
        input=input,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def closed_to_others(path: Path) -> Path | None:
    """The first folder on the way to ``path`` that other users may not pass through, if any (of
    those that exist: ``path`` may be made later).

    >>> closed_to_others(Path("/usr/bin")) is None, closed_to_others(Path("/usr/bin/not-yet")) is None
    (True, True)
    """
    there = (p for p in (path, *path.parents) if p.exists())
    return next((p for p in there if not p.stat().st_mode & stat.S_IXOTH), None)


def readable_by_every_user(needed: Path) -> None:
    """Fail the test, saying which folder to open, if the hub's users cannot reach ``needed``
    (e.g. a clone under ``mktemp -d``, a folder its owner's alone): their servers would not start."""
    closed = closed_to_others(needed)
    if closed is not None:
        pytest.fail(
            f"the hub's users cannot read {needed}: {closed} is closed to other users "
            f"(mode {stat.filemode(closed.stat().st_mode)}). Clone the repository where every "
            f"user may read it, or open the folder: chmod o+rx {closed}"
        )


def instructor_environment(folder: Path) -> Path:
    """A virtual environment every user may run that holds this checkout's packages and commands
    (see the module's docstring); its ``bin`` folder."""
    for needed in {ROOT, Path(sys.prefix)}:
        readable_by_every_user(needed)
    subprocess.run([str(SYSTEM_PYTHON), "-m", "venv", "--without-pip", str(folder)], check=True)
    site = Path(sysconfig.get_paths()["purelib"])
    (ours,) = folder.glob("lib/python3*/site-packages")
    (ours / "checkout.pth").write_text(f"import site; site.addsitedir({str(site)!r})\n")
    checkout = Path(sys.prefix)
    for shared in ("share", "etc"):  # Jupyter's data and configuration (the Lab, templates, settings)
        if (checkout / shared).exists():
            (folder / shared).symlink_to(checkout / shared)
    bin_dir = folder / "bin"
    for script in Path(sys.executable).parent.iterdir():
        target = bin_dir / script.name
        if target.exists() or not script.is_file():
            continue
        text = script.read_bytes()
        if text.startswith(b"#!") and b"python" in text.split(b"\n", 1)[0]:
            target.write_bytes(b"#!" + str(bin_dir / "python").encode() + b"\n" + text.split(b"\n", 1)[1])
            target.chmod(0o755)
    return bin_dir


@dataclass
class Hub:
    url: str
    course: Path
    exchange: Path
    log: Path


@contextmanager
def running_hub(base: Path, course: Path, instructor_bin: Path, **variables: str) -> Iterator[Hub]:
    """``make hub`` on a free loopback port, serving ``course`` (see the module's docstring)."""
    port = free_port()
    exchange, log = base / "exchange", base / "hub.log"
    settings = {
        "EXCHANGE": str(exchange),
        "HUB_DIR": str(HUB_DIR),
        "HUB_PORT": str(port),
        "HUB_IP": "127.0.0.1",
        **variables,
    }
    make = command("hub", course=course, **settings)
    make[make.index(f"BIN={Path(sys.executable).parent}")] = f"BIN={instructor_bin}"
    environment = {**os.environ, "ROOFLINE_HUB_OPEN_REPOSITORY": "1"}
    with serving(make, environment, port, log) as url:
        yield Hub(url, course, exchange, log)


@contextmanager
def serving(
    make: list[str], environment: dict[str, str], port: int, log: Path, cwd: Path | None = None
) -> Iterator[str]:
    """The hub ``make`` starts (``make hub``, its output in ``log``) on ``port`` of loopback, until
    it answers; its address. It is stopped afterwards."""
    with log.open("a") as out:
        process = subprocess.Popen(
            make, stdout=out, stderr=subprocess.STDOUT, env=environment, cwd=cwd, start_new_session=True
        )
    try:
        url = f"http://127.0.0.1:{port}"
        _wait(url + "/hub/api", process, log)
        yield url
    finally:
        _stop(process)


def _stop(process: subprocess.Popen[Any]) -> None:
    """Stop the hub's make (the hub stops the proxy and every user's server as it ends)."""
    if process.poll() is not None:
        return
    os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def python_every_user_may_run() -> Path:
    """The Python every user may run that the guide asks of the hub's machine (``HUB_PYTHON``, and
    the instructor's ``python3``): the system's, 3.11 or later (Debian 12's 3.11.2 is one: the
    lock installs on every 3.11). The tests' own Python may live in root's home (pyenv), where no
    other user may enter."""
    version = subprocess.run(
        [str(SYSTEM_PYTHON), "-c", "import sys; print(*sys.version_info[:3], sep='.')"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    if tuple(int(part) for part in version.split(".")) < (3, 11):
        raise AssertionError(f"{SYSTEM_PYTHON} is Python {version}: the hub's machine needs 3.11 or later")
    return SYSTEM_PYTHON


def _wait(url: str, process: subprocess.Popen[Any], log: Path, timeout: float = 600) -> None:
    """Until ``url`` answers (the hub is up) or the hub's ``make`` ends."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"make hub ended ({process.returncode}):\n{tail(log)}")
        try:
            if requests.get(url, timeout=5).ok:
                return
        except requests.RequestException:  # refused, or accepted and not answered in time (a loaded machine)
            pass
        time.sleep(0.5)
    raise AssertionError(f"the hub did not answer at {url}:\n{tail(log)}")


def tail(log: Path, lines: int = 80) -> str:
    """The last ``lines`` lines of the hub's log."""
    return "\n".join(log.read_text(errors="replace").splitlines()[-lines:])


class Login:
    """A user logged in to the hub with a password, as the login form does."""

    def __init__(self, hub: Hub, name: str, password: str) -> None:
        self.hub, self.name = hub, name
        self.session = requests.Session()
        self.session.get(f"{hub.url}/hub/login", timeout=30)
        answer = self.session.post(
            f"{hub.url}/hub/login",
            data={"username": name, "password": password, "_xsrf": self.session.cookies.get("_xsrf", "")},
            allow_redirects=False,
            timeout=60,
        )
        self.logged_in = answer.status_code == 302 and "/hub/login" not in answer.headers.get("location", "")

    def spawn(self, language: str = "en", timeout: float = 120) -> None:
        """Start the user's server (the spawn form's language), and wait until it answers."""
        hub = self.hub.url
        self.session.post(
            f"{hub}/hub/spawn/{self.name}",
            data={"language": language, "_xsrf": self.session.cookies.get("_xsrf", "")},
            timeout=120,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            page = self.get("lab")  # through the hub's OAuth: the server's own login cookie
            if page.status_code == 200 and page.url.endswith(f"/user/{self.name}/lab"):
                return
            time.sleep(1)
        raise AssertionError(f"{self.name}'s server did not start:\n{tail(self.hub.log)}")

    def get(self, path: str, user: str | None = None) -> requests.Response:
        """GET ``path`` on ``user``'s server (default: the user's own), as this user."""
        return self.session.get(f"{self.hub.url}/user/{user or self.name}/{path}", timeout=60)

    def save(self, path: str, notebook: dict[str, Any]) -> None:
        """Save ``notebook`` at ``path`` in the user's folder, as the Lab saves it (its contents API)."""
        url = f"{self.hub.url}/user/{self.name}/api/contents/{path}"
        xsrf = self.session.cookies.get("_xsrf", path=f"/user/{self.name}/") or ""
        answer = self.session.put(
            url,
            json={"type": "notebook", "format": "json", "content": notebook},
            headers={"X-XSRFToken": xsrf},
            timeout=60,
        )
        assert answer.status_code in (200, 201), answer.text

    def post(self, path: str, data: dict[str, str]) -> requests.Response:
        """POST form ``data`` to ``path`` on the user's own server (with its XSRF token)."""
        url = f"{self.hub.url}/user/{self.name}/{path}"
        xsrf = self.session.cookies.get("_xsrf", path=f"/user/{self.name}/") or ""
        return self.session.post(url, data=data, headers={"X-XSRFToken": xsrf}, timeout=120)
