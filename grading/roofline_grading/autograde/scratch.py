"""Grading's scratch folders, each owned by the process that made it and gone when it stops.

A grading run keeps what it works on in folders of its own: the driver's and each worker's run
folder (student notebooks, verdicts, kernel logs) and each kernel's runtime folder (its sockets),
in memory (``/dev/shm``) or the temp dir. :func:`folder` makes one; :func:`remove` removes it
when its work is done, and whatever this process still holds is removed when it stops: at exit,
and on SIGTERM, SIGINT or SIGHUP once :func:`on_termination` was called (a worker process). A process killed
outright (SIGKILL, a lost machine) runs nothing, so every folder has an *owner file* beside it
(``rk-x1y2z3ab`` and ``rk-x1y2z3ab.owner``) that its process holds an ``flock`` on as long as it
lives; the kernel of the system drops the lock when the process ends, however it ends.
:func:`sweep`, at the start of a driver and of each worker process, removes every folder whose
owner file nobody holds.

The owner file lies beside the folder, not in it: a kernel's runtime folder is visible (and
writable) inside its sandbox, where a student's code could delete or hold a file. It is made
and locked before its folder exists, so a folder is never seen without a held owner file while
its process lives; folders without an owner file (another program's, or an older version's)
are never touched.

>>> import tempfile
>>> root = tempfile.mkdtemp()
>>> made = folder("rk-", root)
>>> sorted(p.name.removeprefix(made.name) for p in Path(root).iterdir())
['', '.owner']
>>> sweep((root,))  # its owner (this process) lives
[]
>>> remove(made)
>>> list(Path(root).iterdir())
[]
"""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import os
import shutil
import signal
import stat
import tempfile
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from types import FrameType

__all__ = ["OWNER", "PREFIXES", "folder", "on_termination", "remove", "remove_all", "roots", "sweep"]

OWNER = ".owner"
"""The suffix of a folder's owner file (``<folder>.owner``)."""
PREFIXES = ("roofline-", "rk-")
"""The names grading's folders start with; :func:`sweep` looks at nothing else."""
DEFAULTS = {
    signal.SIGTERM: signal.SIG_DFL,
    signal.SIGINT: signal.default_int_handler,
    signal.SIGHUP: signal.SIG_DFL,
}
"""The signals that stop a process, each with the handler it has unless someone set another."""


@dataclass
class _Held:
    descriptor: int
    """The open owner file, locked."""
    on_remove: Callable[[Path], object] | None


_HELD: dict[Path, _Held] = {}
_GUARD = threading.RLock()  # a signal's handler may remove folders while this thread holds it


def roots() -> tuple[str, ...]:
    """Where grading's folders are made: memory (``/dev/shm``), the temp dir, ``/tmp``.

    >>> tempfile.gettempdir() in roots()
    True
    """
    return tuple(dict.fromkeys(("/dev/shm", tempfile.gettempdir(), "/tmp")))


def folder(prefix: str, root: str | None = None, on_remove: Callable[[Path], object] | None = None) -> Path:
    """A new private folder (mode 0700) named ``prefix`` and a random part, in ``root`` (default:
    the temp dir), owned by this process (see the module's docstring); ``on_remove(folder)`` runs
    before it is removed (e.g. to stop what still runs in it)."""
    if not prefix.startswith(PREFIXES):
        raise ValueError(f"a scratch folder's name starts with one of {PREFIXES}, not {prefix!r}")
    _forget_removed()
    while True:
        descriptor, owner = tempfile.mkstemp(prefix=prefix, suffix=OWNER, dir=root)
        fcntl.flock(descriptor, fcntl.LOCK_EX)
        made = Path(owner.removesuffix(OWNER))
        try:
            if not _same(descriptor, owner):  # a sweep took it for a dead process's before we locked it
                raise FileExistsError(owner)
            made.mkdir(mode=0o700)
        except OSError as error:
            with contextlib.suppress(OSError):
                if _same(descriptor, owner):
                    os.unlink(owner)
            os.close(descriptor)
            if isinstance(error, FileExistsError):
                continue
            raise
        with _GUARD:
            _HELD[made] = _Held(descriptor, on_remove)
        return made


def remove(made: Path) -> None:
    """Remove ``made`` (a folder of :func:`folder`), and its owner file."""
    _forget_removed()
    with _GUARD:
        held = _HELD.pop(made, None)
    if held is None:
        shutil.rmtree(made, ignore_errors=True)
        return
    try:
        if held.on_remove is not None:
            held.on_remove(made)
    finally:
        _release(made, held.descriptor, unlink=_emptied(made))


def remove_all() -> None:
    """Remove every folder this process still holds (at exit, and on a signal that stops it)."""
    for made in list(_HELD):
        with contextlib.suppress(Exception):  # the others still go
            remove(made)


atexit.register(remove_all)


def sweep(where: Iterable[str] | None = None) -> list[Path]:
    """Remove the folders in ``where`` (default: :func:`roots`) whose process is gone: each
    grading folder whose owner file nobody holds. The folders removed."""
    removed = []
    for root in dict.fromkeys(roots() if where is None else where):
        with contextlib.suppress(OSError):
            for owner in Path(root).glob(f"*{OWNER}"):
                made = owner.with_name(owner.name.removesuffix(OWNER))
                if owner.name.startswith(PREFIXES) and made not in _HELD and _remove_stale(owner, made):
                    removed.append(made)
    return removed


def on_termination() -> None:
    """Make SIGTERM, SIGINT (Ctrl-C) and SIGHUP remove this process's folders before they end it
    as they otherwise would; only the signals this process left to Python's defaults (a process
    that handles one stops in its own way), and only from the main thread (the only one that may
    set a handler). For a worker process: a signal may come while it grades, and a grading thread
    would hold up an orderly exit for as long as its notebook runs."""
    if threading.current_thread() is not threading.main_thread():
        return
    for number, default in DEFAULTS.items():
        if signal.getsignal(number) == default:
            signal.signal(number, _terminate)


def _terminate(signum: int, frame: FrameType | None) -> None:
    remove_all()
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


def _remove_stale(owner: Path, made: Path) -> bool:
    """Remove ``owner`` if it is this user's and nobody holds it, and ``made`` with it: whether
    there was such a folder to remove."""
    try:
        descriptor = os.open(owner, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        info = os.fstat(descriptor)
        if info.st_uid != os.geteuid() or not stat.S_ISREG(info.st_mode):
            return False
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False  # its process lives
        if not _same(descriptor, str(owner)):
            return False
        try:
            found = made.lstat()
        except OSError:
            found = None  # its process died before it made the folder, or a sweep before us removed it
        ours = found is not None and stat.S_ISDIR(found.st_mode) and found.st_uid == os.geteuid()
        if ours and not _emptied(made):
            return False  # the owner file stays, for a later sweep to try again
        os.unlink(owner)  # last, still locked: a folder is never left without its owner file
        return ours
    finally:
        os.close(descriptor)


def _forget_removed() -> None:
    """Let go of the owner files of folders removed without :func:`remove` (a kernel's runtime
    folder is removed where the kernel is discarded)."""
    with _GUARD:
        gone = [(made, held) for made, held in _HELD.items() if not os.path.lexists(made)]
        for made, _ in gone:
            del _HELD[made]
    for made, held in gone:
        _release(made, held.descriptor)


def _release(made: Path, descriptor: int, unlink: bool = True) -> None:
    """Let go of ``made``'s owner file, and remove it if ``unlink``: one kept, unlocked, tells
    the next sweep that ``made`` is a dead process's folder."""
    owner = f"{made}{OWNER}"
    with contextlib.suppress(OSError):
        if unlink and _same(descriptor, owner):
            os.unlink(owner)
    os.close(descriptor)


def _emptied(made: Path) -> bool:
    """Remove ``made`` and all it holds: whether it is gone. A file that cannot be removed, or
    one that a process still running in it makes meanwhile, leaves it; a second pass takes what
    such a process made."""
    for _ in range(2):
        shutil.rmtree(made, ignore_errors=True)
        if not os.path.lexists(made):
            return True
    return False


def _same(descriptor: int, path: str) -> bool:
    """Whether ``path`` is still the file open as ``descriptor``."""
    try:
        found, held = os.stat(path, follow_symlinks=False), os.fstat(descriptor)
    except OSError:
        return False
    return (found.st_dev, found.st_ino) == (held.st_dev, held.st_ino)
