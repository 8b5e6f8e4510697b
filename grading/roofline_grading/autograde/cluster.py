"""The grading cluster as the course starts it: a Dask scheduler and workers that let no one in.

    roofline-grading cluster certs [--certs DIR] [--days N]
    roofline-grading cluster scheduler --host ADDRESS [--port 8786] [--certs DIR]
    roofline-grading cluster worker tls://SCHEDULER:8786 --host ADDRESS [--nworkers N] [--name NAME]
        [--certs DIR]

``certs`` makes the cluster's certificates (:mod:`roofline_grading.autograde.certificates`).
``scheduler`` and ``worker`` become Dask's own commands (``dask scheduler``, ``dask worker``),
set so that whoever lacks the course's certificates cannot reach the workers, which hold the
answer key and the grading secret, nor the scheduler, which runs whatever a client sends:

- TLS both ways with the course's certificates, encryption required: a client or a worker with
  no certificate, or one signed by another authority, is refused at the handshake;
- every grading port (the scheduler's, each worker's and each nanny's) on ADDRESS alone, the
  address of this machine on the network the cluster shares (Dask's default is every interface;
  an unspecified address such as 0.0.0.0 is refused);
- the HTTP server Dask starts in the scheduler and in every worker even without a dashboard on
  127.0.0.1, serving only ``/health``: no dashboard (it would show every student's task to
  whoever reaches it, and needs bokeh, which the course does not install), no task names, no logs;
- each worker process removes the run folders of workers on this machine that were killed as it
  starts, and its own when it stops or is stopped
  (:mod:`roofline_grading.autograde.dask_worker`).

>>> import tempfile
>>> certs = Path(tempfile.mkdtemp()) / "certs"
>>> _ = certificates.make(certs)
>>> command, environment = scheduler_command("10.0.0.1", 8786, certs)
>>> command[command.index("--host") + 1], command[command.index("--protocol") + 1]
('10.0.0.1', 'tls')
>>> environment["DASK_DISTRIBUTED__SCHEDULER__HTTP__ROUTES"]
'["distributed.http.health"]'
>>> print(check_host("0.0.0.0"))  # doctest: +ELLIPSIS
--host 0.0.0.0 is every interface of this machine: name its address on the network ...
"""

from __future__ import annotations

import argparse
import os
import socket
import sys
from pathlib import Path

from roofline_grading.autograde import certificates, credentials

__all__ = ["ENVIRONMENT", "check_host", "main", "parser", "scheduler_command", "worker_command"]

ENVIRONMENT = {
    "DASK_DISTRIBUTED__COMM__REQUIRE_ENCRYPTION": "True",
    "DASK_DISTRIBUTED__SCHEDULER__HTTP__ROUTES": '["distributed.http.health"]',
    "DASK_DISTRIBUTED__WORKER__HTTP__ROUTES": '["distributed.http.health"]',
    "DASK_DISTRIBUTED__WORKER__PROFILE__ENABLED": "False",
}
"""Dask's settings for both (its configuration from the environment, which a nanny's worker
processes inherit): encryption required, the HTTP servers serving ``/health`` only, and no
statistical profiler in the workers (it samples the grading thread's stack a hundred times a
second for a dashboard the course does not serve)."""
HTTP = "127.0.0.1:0"
"""Where the HTTP servers listen: this machine only, on a port of the system's choosing."""
PRELOAD = "roofline_grading.autograde.dask_worker"
UNSPECIFIED = {"", "0.0.0.0", "::", "*", "[::]"}


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(
        prog="roofline-grading cluster",
        description="The grading cluster (book/instructor-guide.md, 'Grading a large class').",
    )
    parts = top.add_subparsers(dest="part", required=True, metavar="PART")
    certs = parts.add_parser("certs", help="make the cluster's certificates (a new authority each time)")
    certs.add_argument("--days", type=int, default=certificates.DAYS, help="how long they are valid")
    scheduler = parts.add_parser("scheduler", help="start the scheduler on this machine")
    scheduler.add_argument("--port", type=int, default=8786, help="its port (default 8786; 0: any free one)")
    worker = parts.add_parser("worker", help="start this machine's workers")
    worker.add_argument("scheduler", help="the scheduler's address, tls://HOST:8786")
    worker.add_argument(
        "--nworkers", type=int, default=_cores(), help="worker processes (default: one per core)"
    )
    worker.add_argument("--name", help="the workers' name (default: their addresses)")
    for part in (scheduler, worker):
        part.add_argument(
            "--host", required=True, help="this machine's address on the cluster's network (e.g. 10.0.0.2)"
        )
    for part in (certs, scheduler, worker):
        part.add_argument(
            "--certs",
            type=Path,
            default=credentials.FOLDER,
            help=f"the folder of the cluster's certificates (default {credentials.FOLDER})",
        )
    return top


def main(argv: list[str] | None = None) -> int:
    """Make the certificates, or become the scheduler or the workers (see the module's docstring)."""
    args = parser().parse_args(argv)
    try:
        if args.part == "certs":
            return _certs(args.certs, args.days)
        why = check_host(args.host)
        if why is not None:
            raise credentials.CredentialsError(why)
        if args.part == "scheduler":
            command, environment = scheduler_command(args.host, args.port, args.certs)
        else:
            if not args.scheduler.startswith("tls://"):
                raise credentials.CredentialsError(
                    f"the scheduler's address is tls://HOST:PORT, as it says, not {args.scheduler}"
                )
            command, environment = worker_command(
                args.scheduler, args.host, args.certs, args.nworkers, args.name
            )
    except credentials.CredentialsError as error:
        print(f"cluster {args.part}: {error}", file=sys.stderr)
        return 2
    sys.stdout.flush()
    os.execve(sys.executable, command, {**os.environ, **environment})


def scheduler_command(host: str, port: int, certs: Path) -> tuple[list[str], dict[str, str]]:
    """``dask scheduler`` as the course starts it, and the settings of its environment."""
    command = [sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", host, "--port", str(port)]
    return command + _closed(certs, "scheduler"), dict(ENVIRONMENT)


def worker_command(
    scheduler: str, host: str, certs: Path, nworkers: int, name: str | None
) -> tuple[list[str], dict[str, str]]:
    """``dask worker`` as the course starts it, and the settings of its environment."""
    command = [sys.executable, "-m", "distributed.cli.dask_worker", scheduler, "--host", host]
    command += ["--nworkers", str(nworkers), "--nthreads", "1", "--preload", PRELOAD]
    command += ["--name", name] if name else []
    return command + _closed(certs, "worker"), dict(ENVIRONMENT)


def _closed(certs: Path, role: str) -> list[str]:
    """The options that close it: TLS with the course's certificates, HTTP on loopback only."""
    ca, certificate, key = (str(path.resolve()) for path in credentials.files(certs, role))
    return [
        "--protocol", "tls", "--tls-ca-file", ca, "--tls-cert", certificate, "--tls-key", key,
        "--no-dashboard", "--dashboard-address", HTTP,
    ]  # fmt: skip


def check_host(host: str) -> str | None:
    """None when ``host`` is an address of this machine the cluster can listen on, else why not."""
    if host.strip() in UNSPECIFIED:
        return (
            f"--host {host or '(empty)'} is every interface of this machine: name its address on the network "
            "the grading machines share (e.g. 10.0.0.2), so that the cluster listens there only"
        )
    try:
        found = socket.getaddrinfo(host.strip("[]"), 0, type=socket.SOCK_STREAM)
    except socket.gaierror as error:
        return f"--host {host} is not a name this machine can resolve ({error.strerror})"
    for family, kind, protocol, _, address in found:
        if address[0] in UNSPECIFIED:
            return f"--host {host} stands for every interface: name one address of this machine"
        with socket.socket(family, kind, protocol) as probe:
            try:
                probe.bind(address)
            except OSError:
                continue
            return None
    return f"--host {host} is not an address of this machine (`ip -brief address` lists them)"


def _certs(folder: Path, days: int) -> int:
    written = certificates.make(folder, days)
    print(
        f"The grading cluster's certificates, valid until {certificates.expiry(folder)}, are in {folder}: "
        f"{', '.join(path.name for path in written)}. Copy the folder into the course's clone on every "
        "grading machine and keep it private: whoever holds it can run code on the workers."
    )
    return 0


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1
