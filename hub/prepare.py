"""Prepare this machine for the class's JupyterHub (``make hub`` runs it as root, before the hub).

    python hub/prepare.py     # with the ROOFLINE_* settings make hub sets (roofline_hub.Settings)

- nbgrader's course groups, as Unix groups: ``formgrade-<course id>`` (the instructor: the owner
  of the course folder, added to it) and ``nbgrader-<course id>`` (the students: ``usermod -aG
  nbgrader-roofline NAME`` for the course id nbgrader_config.py sets, ``roofline``);
- nbgrader's exchange as its documentation sets it up: the root owned by root, writable by every
  user (mode 1777: sticky, so no one removes what another put there), the course's folder and its
  ``outbound`` (released assignments) and ``feedback`` owned by the instructor and readable by all,
  ``inbound`` writable but not listable (mode 3733: a student submits, and cannot see or remove
  another's submission);
- the students' Jupyter configuration in ``HUB_DIR/etc``: the student's Lab with nbgrader's
  Assignment List (``hub/jupyter-config/student``), each language's Lab (``jupyter-config/<lang>``,
  with nbgrader's Fetch of that language's release: hub/language_fetch.py) and the exchange's place
  for nbgrader (``etc/exchange/nbgrader_config.json``, beside ``hub/jupyter-config/exchange``).

It refuses, in one line, when one of the hub's three ports is taken, when the course folder or
the repository (submissions, the gradebook, the grading secret, the answer key) is open to other
users, or the course folder's owner is root.
(ROOFLINE_HUB_OPEN_REPOSITORY=1 lets a repository readable by all through: the tests' machine,
whose users are all the test's, and whose checkout is not the instructor's.)
"""

from __future__ import annotations

import json
import os
import pwd
import shutil
import socket
import stat
import subprocess
import sys
import time
from pathlib import Path

from roofline_hub import Settings, members

HERE = Path(__file__).resolve().parent


class Refused(Exception):
    """What makes the hub unsafe to start, in one line."""


def private(folder: Path) -> None:
    """Refuse ``folder`` if other users may enter it (its group and others have no permission)."""
    mode = stat.S_IMODE(folder.stat().st_mode)
    if mode & 0o077:
        raise Refused(
            f"{folder} is open to other users (mode {mode:04o}); students could read what it holds: "
            f"chmod 700 {folder}"
        )


PORT_ROLES = ("the hub's address (HUB_PORT)", "the proxy's API (HUB_PORT+1)", "the hub itself (HUB_PORT+2)")


def ports_free(ip: str, port: int) -> None:
    """Refuse when one of the three ports the hub takes from ``port`` on is in use at ``ip``: the
    proxy would start without it and JupyterHub give up ten seconds later, naming no cause.

    >>> with socket.socket() as taken:
    ...     taken.bind(("127.0.0.1", 0))
    ...     taken.listen()
    ...     in_use = taken.getsockname()[1]
    ...     ports_free("127.0.0.1", in_use)
    Traceback (most recent call last):
    ...
    prepare.Refused: port ... on 127.0.0.1, for the hub's address (HUB_PORT), is in use: ...
    """
    family = socket.AF_INET6 if ":" in ip else socket.AF_INET
    for offset, role in enumerate(PORT_ROLES):
        with socket.socket(family) as probe:
            try:
                probe.bind((ip, port + offset))
            except OSError as error:
                raise Refused(
                    f"port {port + offset} on {ip}, for {role}, is in use: {error.strerror}; "
                    f"choose three free ports in a row (make hub HUB_PORT=...)"
                ) from None


def instructor(course: Path) -> str:
    """The instructor: the course folder's owner, never root."""
    owner = pwd.getpwuid(course.stat().st_uid).pw_name
    if owner == "root":
        raise Refused(
            f"{course} belongs to root: the course folder is the instructor's (chown -R NAME {course})"
        )
    return owner


def course_groups(settings: Settings, owner: str) -> None:
    """Create nbgrader's course groups (once) and put the instructor in theirs."""
    instructors, students = settings.groups()
    for group in (instructors, students):
        account(["groupadd", "-f", group])
    if owner not in members(instructors):
        account(["usermod", "-aG", instructors, owner])


def account(
    arguments: list[str], stdin: str | None = None, check: bool = True, timeout: float = 600
) -> subprocess.CompletedProcess[str]:
    """Run one of shadow's account commands (groupadd, usermod, useradd, ...), again while another
    holds the account files' lock ("cannot lock /etc/group; try again later": another useradd,
    or a userdel of a user with a large home, which holds it for minutes); :class:`Refused` with
    its error if it fails (unless not ``check``).

    >>> account(["true"]).returncode
    0
    """
    deadline = time.monotonic() + timeout
    while True:
        done = subprocess.run(arguments, input=stdin, capture_output=True, text=True, check=False)
        if "cannot lock" not in done.stderr or time.monotonic() > deadline:
            break
        time.sleep(1)
    if check and done.returncode != 0:
        raise Refused(f"{' '.join(arguments)}: {done.stderr.strip()}")
    return done


def exchange(settings: Settings, owner: str) -> None:
    """nbgrader's exchange, with the permissions its documentation gives (module docstring)."""
    entry = pwd.getpwnam(owner)
    settings.exchange.mkdir(parents=True, exist_ok=True)
    os.chown(settings.exchange, 0, 0)
    settings.exchange.chmod(0o1777)
    course = settings.exchange / settings.course_id
    for folder, mode in (
        (course, 0o755),
        (course / "outbound", 0o755),
        (course / "inbound", 0o3733),
        (course / "feedback", 0o711),
    ):
        folder.mkdir(exist_ok=True)
        os.chown(folder, entry.pw_uid, entry.pw_gid)
        folder.chmod(mode)


def jupyter_config(settings: Settings) -> None:
    """The students' Jupyter configuration folders in ``HUB_DIR/etc`` (module docstring)."""
    etc = settings.hub_dir / "etc"
    shutil.rmtree(etc, ignore_errors=True)
    shutil.copytree(HERE / "jupyter-config/student", etc / "student")
    for language in sorted((settings.repository / "jupyter-config").iterdir()):
        if len(language.name) == 2:
            shutil.copytree(language, etc / language.name)
            fetch = {"LanguageFetch": {"language": language.name}}
            (etc / language.name / "nbgrader_config.json").write_text(json.dumps(fetch) + "\n")
    shutil.copytree(HERE / "jupyter-config/exchange", etc / "exchange")
    shutil.copy(HERE / "language_fetch.py", etc / "exchange")
    config = {
        "CourseDirectory": {"course_id": settings.course_id},
        "Exchange": {"root": str(settings.exchange)},
    }
    (etc / "exchange/nbgrader_config.json").write_text(json.dumps(config, indent=2) + "\n")
    # The instructor's server starts in their home (JupyterHub's spawner); nbgrader reads the
    # course's nbgrader_config.py from its course root, so formgrader needs the root named.
    (etc / "instructor").mkdir()
    root = {"CourseDirectory": {"root": str(settings.course)}}
    (etc / "instructor/nbgrader_config.json").write_text(json.dumps(root, indent=2) + "\n")
    for path in [etc, *etc.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    (settings.hub_dir / "state").mkdir(mode=0o700, exist_ok=True)


def prepare(settings: Settings) -> str:
    """Prepare the machine; return the instructor's name."""
    if os.geteuid() != 0:
        raise Refused("make hub runs as root: it starts each user's server as that user (sudo make hub ...)")
    ports_free(settings.ip, settings.port)
    private(settings.course)
    if os.environ.get("ROOFLINE_HUB_OPEN_REPOSITORY") != "1":
        private(settings.repository)
    owner = instructor(settings.course)
    course_groups(settings, owner)
    exchange(settings, owner)
    jupyter_config(settings)
    return owner


def main() -> int:
    settings = Settings.from_environment()
    try:
        owner = prepare(settings)
    except Refused as refused:
        print(f"make hub: {refused}", file=sys.stderr)
        return 2
    _, students = settings.groups()
    print(
        f"hub: {settings.url}, instructor {owner}, {len(members(students))} students "
        f"(group {students}), exchange {settings.exchange}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
