"""A throwaway PostgreSQL server for the gradebook tests: Debian's postgresql, started here.

:func:`postgres_server` makes a cluster in a temporary folder (``initdb``, trust authentication,
no TCP: a unix socket in the folder only), starts it on a free port (``pg_ctl``), creates the
database ``gradebook`` and yields its SQLAlchemy URL, as an instructor writes it in
``nbgrader_config.py`` (``c.CourseDirectory.db_url``); it stops the server and removes the folder
afterwards. PostgreSQL refuses to run as root: as root, its commands run as the ``postgres`` user
(``runuser``), which owns the folder.
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.support.ports import free_port

BINARIES = sorted(Path("/usr/lib/postgresql").glob("*/bin"))


def _as_owner(command: list[str]) -> list[str]:
    return ["runuser", "-u", "postgres", "--", *command] if os.geteuid() == 0 else command


@contextmanager
def postgres_server() -> Iterator[str]:
    """A running PostgreSQL server with an empty database ``gradebook``: its SQLAlchemy URL."""
    if not BINARIES:
        pytest.fail("PostgreSQL is not installed (Debian: apt-get install postgresql)")
    binaries = BINARIES[-1]
    base = Path(tempfile.mkdtemp(prefix="roofline-postgres-"))
    data, sockets = base / "data", base / "sockets"
    sockets.mkdir()
    if os.geteuid() == 0:
        owner = pwd.getpwnam("postgres")
        for path in (base, sockets):
            os.chown(path, owner.pw_uid, owner.pw_gid)
    port = free_port()

    def run(*command: str) -> None:
        done = subprocess.run(
            _as_owner([str(binaries / command[0]), *command[1:]]), capture_output=True, text=True
        )
        assert done.returncode == 0, f"{' '.join(command)}:\n{done.stdout}\n{done.stderr}"

    run("initdb", "-D", str(data), "-A", "trust", "-U", "postgres", "--no-sync")
    options = f"-k {sockets} -p {port} -h '' -F"
    run("pg_ctl", "-D", str(data), "-o", options, "-l", str(base / "server.log"), "-w", "start")
    try:
        run("createdb", "-h", str(sockets), "-p", str(port), "-U", "postgres", "gradebook")
        yield f"postgresql+psycopg://postgres@/gradebook?host={sockets}&port={port}"
    finally:
        run("pg_ctl", "-D", str(data), "-m", "immediate", "-w", "stop")
        shutil.rmtree(base, ignore_errors=True)
