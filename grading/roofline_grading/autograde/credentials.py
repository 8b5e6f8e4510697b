"""The grading cluster's certificates, as each end of a connection uses them.

The course's Dask scheduler and workers speak TLS both ways (Dask's
``distributed.security.Security``): each end of every connection shows a certificate signed by
the course's own certificate authority, and refuses a peer that shows none, or one signed by
another authority. The certificates lie in one folder (:data:`FOLDER` unless told otherwise;
:mod:`roofline_grading.autograde.certificates` makes them): the authority's certificate
``ca.pem``, and a certificate and a key for each role, ``scheduler``, ``worker`` and ``driver``
(``.pem`` and ``.key``). :func:`files` finds a role's, refusing a key that others can read;
:func:`security` makes them Dask's settings.

>>> try:
...     files(Path("/nowhere"), "driver")
... except CredentialsError as error:
...     print(error)  # doctest: +ELLIPSIS
no certificates of the grading cluster in /nowhere: make them with `make cluster-certs` (...)
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

__all__ = ["FOLDER", "ROLES", "CredentialsError", "files", "security"]

FOLDER = Path(".grading-cluster")
"""Where the course keeps them unless told otherwise (git ignores it)."""
ROLES = ("scheduler", "worker", "driver")
"""Who gets a certificate: the scheduler, every worker, the machine that grades (Dask's client)."""
MAKE = "make them with `make cluster-certs` (book/instructor-guide.md, 'Grading a large class')"


class CredentialsError(Exception):
    """The certificates cannot be made or used (the message says why, in a line)."""


def files(folder: Path, role: str) -> tuple[Path, Path, Path]:
    """The authority's certificate, and ``role``'s certificate and key, in ``folder``; a
    :class:`CredentialsError` when one is missing, or when the key can be read by others."""
    found = (folder / "ca.pem", folder / f"{role}.pem", folder / f"{role}.key")
    missing = [path.name for path in found if not path.is_file()]
    if len(missing) == len(found):
        raise CredentialsError(f"no certificates of the grading cluster in {folder}: {MAKE}")
    if missing:
        raise CredentialsError(
            f"{folder} lacks {', '.join(missing)}: copy the whole folder from where it was made"
        )
    if found[2].stat().st_mode & 0o077:
        raise CredentialsError(
            f"{found[2]} can be read by others: `chmod 600 {found[2]}`, it is a key to the cluster"
        )
    return found


def security(folder: Path, role: str) -> Any:
    """Dask's TLS settings for ``role`` (``driver``: Dask's client), with the course's certificates
    in ``folder``; unencrypted connections refused."""
    from distributed.security import Security

    ca, certificate, key = (str(path.resolve()) for path in files(folder, role))
    dask_role = "client" if role == "driver" else role
    return Security(
        require_encryption=True,
        tls_ca_file=ca,
        **{f"tls_{dask_role}_cert": certificate, f"tls_{dask_role}_key": key},
    )
