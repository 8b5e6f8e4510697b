"""Confine a process with Linux Landlock and resource limits, as an unprivileged process can.

The grading kernel calls :func:`confine` on itself before it runs any student code: from then
on it (and every thread and process it starts) may read only the paths it is given (Python,
the installed packages, system files), write only in its own run directory, open no TCP
connection, and send no signal to a process outside itself (so it cannot stop the grader).
Landlock needs Linux 5.13 or newer; :func:`landlock_abi` says what this kernel offers, and
each newer ABI adds protection (2: moving files, 3: truncation, 4: TCP, 6: signals).

Resource limits bound what one student can take: memory (address space), the size of a file,
core dumps.

>>> landlock_abi() >= 0
True
>>> Limits(memory_bytes=2**32).memory_bytes
4294967296
"""

from __future__ import annotations

import ctypes
import os
import resource
import signal
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from typing import NoReturn

__all__ = ["Limits", "SandboxError", "apply_limits", "confine", "landlock_abi"]

# System call numbers are the same on every architecture for these (new-style) calls.
_CREATE_RULESET, _ADD_RULE, _RESTRICT_SELF = 444, 445, 446
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH, _RULE_NET_PORT = 1, 2
_PR_SET_NO_NEW_PRIVS = 38

# Filesystem rights (include/uapi/linux/landlock.h), and the ABI that introduced the newer ones.
_EXECUTE, _WRITE_FILE, _READ_FILE, _READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
_ABI1_FS = (1 << 13) - 1  # execute .. make_sym
_REFER, _TRUNCATE, _IOCTL_DEV = 1 << 13, 1 << 14, 1 << 15
_NET_BIND_TCP, _NET_CONNECT_TCP = 1 << 0, 1 << 1
_SCOPE_ABSTRACT_UNIX_SOCKET, _SCOPE_SIGNAL = 1 << 0, 1 << 1
_FILE_RIGHTS = _EXECUTE | _WRITE_FILE | _READ_FILE | _TRUNCATE | _IOCTL_DEV


class SandboxError(OSError):
    """Landlock is missing or refused the rules."""


class _RulesetAttr(ctypes.Structure):
    _fields_ = [
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),
        ("scoped", ctypes.c_uint64),
    ]


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


class _NetPortAttr(ctypes.Structure):
    _fields_ = [("allowed_access", ctypes.c_uint64), ("port", ctypes.c_uint64)]


def _libc() -> ctypes.CDLL:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    return libc


def landlock_abi() -> int:
    """The Landlock ABI version this kernel offers; 0 when it has none (or this is not Linux)."""
    if not sys.platform.startswith("linux"):
        return 0
    version = _libc().syscall(
        _CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(_CREATE_RULESET_VERSION)
    )
    return max(int(version), 0)


def _handled_fs(abi: int) -> int:
    rights = _ABI1_FS
    if abi >= 2:
        rights |= _REFER
    if abi >= 3:
        rights |= _TRUNCATE
    if abi >= 5:
        rights |= _IOCTL_DEV
    return rights


def confine(read: Iterable[str], write: Iterable[str], bind_ports: Iterable[int] = ()) -> int:
    """Restrict this thread, and all it starts from now on, to reading ``read`` and reading and
    writing ``write`` (directories and everything beneath them, or single files); no TCP
    connection, and no TCP port but ``bind_ports`` to listen on; no signals to other processes;
    each as far as the kernel's Landlock ABI allows.
    Paths that do not exist are skipped. Returns the ABI used; raises :class:`SandboxError`
    if Landlock is unavailable or refuses."""
    abi = landlock_abi()
    if abi < 1:
        raise SandboxError("Landlock is not available on this system (it needs Linux 5.13 or newer)")
    libc = _libc()
    handled = _handled_fs(abi)
    attr = _RulesetAttr(
        handled,
        _NET_BIND_TCP | _NET_CONNECT_TCP if abi >= 4 else 0,
        _SCOPE_ABSTRACT_UNIX_SOCKET | _SCOPE_SIGNAL if abi >= 6 else 0,
    )
    size = ctypes.sizeof(_RulesetAttr) if abi >= 6 else (16 if abi >= 4 else 8)
    ruleset = int(
        libc.syscall(_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size), ctypes.c_uint32(0))
    )
    if ruleset < 0:
        _fail("landlock_create_ruleset")
    try:
        readable = _EXECUTE | _READ_FILE | _READ_DIR
        for paths, rights in ((read, readable), (write, handled)):
            for path in paths:
                _allow(libc, ruleset, path, rights & handled)
        for port in bind_ports if abi >= 4 else ():
            rule = _NetPortAttr(_NET_BIND_TCP, port)
            if libc.syscall(_ADD_RULE, ruleset, _RULE_NET_PORT, ctypes.byref(rule), ctypes.c_uint32(0)) != 0:
                _fail(f"landlock_add_rule(port {port})")
        if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            _fail("prctl(PR_SET_NO_NEW_PRIVS)")
        if libc.syscall(_RESTRICT_SELF, ruleset, ctypes.c_uint32(0)) != 0:
            _fail("landlock_restrict_self")
    finally:
        os.close(ruleset)
    return abi


def _fail(call: str) -> NoReturn:
    errno = ctypes.get_errno()
    raise SandboxError(errno, f"{call}: {os.strerror(errno)}")


def _allow(libc: ctypes.CDLL, ruleset: int, path: str, rights: int) -> None:
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except FileNotFoundError:
        return
    try:
        if not os.path.isdir(path):
            rights &= _FILE_RIGHTS
        rule = _PathBeneathAttr(rights, fd)
        if libc.syscall(_ADD_RULE, ruleset, _RULE_PATH_BENEATH, ctypes.byref(rule), ctypes.c_uint32(0)) != 0:
            _fail(f"landlock_add_rule({path})")
    finally:
        os.close(fd)


@dataclass(frozen=True)
class Limits:
    """Resource limits of one grading kernel (None: leave as is)."""

    memory_bytes: int | None = 4 * 2**30
    file_bytes: int | None = 256 * 2**20


def apply_limits(limits: Limits) -> None:
    """Apply ``limits`` to this process: address space, file size (a write past it fails with
    ``EFBIG`` rather than killing the process), and no core dumps."""
    if limits.memory_bytes is not None:
        resource.setrlimit(resource.RLIMIT_AS, (limits.memory_bytes, limits.memory_bytes))
    if limits.file_bytes is not None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limits.file_bytes, limits.file_bytes))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
