"""libseccomp's user notification, through ctypes: a process's system calls seen by another.

A filter loaded with :func:`load_filter` makes the kernel stop the calling thread at each system
call it names and tell a *supervisor* through a file descriptor, the listener; the supervisor reads
the call (:func:`receive`), looks at its arguments in the caller's memory, and lets it go on or
fails it (:func:`respond`). This is Linux's ``SECCOMP_RET_USER_NOTIF`` (Linux 5.0; going on as
asked, ``SECCOMP_USER_NOTIF_FLAG_CONTINUE``, 5.5), driven through `libseccomp
<https://github.com/seccomp/libseccomp>`_ (Debian's ``libseccomp2``, which also builds the filter
for the machine's architecture and names every system call), loaded by its soname. A filter is
kept by every thread and process the caller starts afterwards, and no code of theirs can remove it.

This module imports only the standard library: it runs inside the grading kernel's sandbox.

>>> number("openat") > 0, number("no_such_call")
(True, None)
>>> name_of(number("execve"))
'execve'
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import fcntl
import functools
import struct
from collections.abc import Iterable
from dataclasses import dataclass

__all__ = [
    "Call",
    "Rule",
    "SeccompError",
    "available",
    "load_filter",
    "name_of",
    "number",
    "receive",
    "respond",
    "still_waiting",
]

_ALLOW = 0x7FFF0000
_NOTIFY = 0x7FC00000
_CMP_EQ = 4
_CONTINUE = 1
"""``SECCOMP_USER_NOTIF_FLAG_CONTINUE``: the call goes on as the caller made it."""
_RECEIVE, _SEND, _ID_VALID = 0xC0502100, 0xC0182101, 0x40082102
"""``SECCOMP_IOCTL_NOTIF_RECV``, ``_SEND`` and ``_ID_VALID`` (``linux/seccomp.h``)."""


class SeccompError(OSError):
    """libseccomp, or the kernel under it, refused."""


class _ArgCmp(ctypes.Structure):
    _fields_ = [
        ("arg", ctypes.c_uint),
        ("op", ctypes.c_int),
        ("datum_a", ctypes.c_uint64),
        ("datum_b", ctypes.c_uint64),
    ]


class _Data(ctypes.Structure):
    _fields_ = [
        ("nr", ctypes.c_int),
        ("arch", ctypes.c_uint32),
        ("instruction_pointer", ctypes.c_uint64),
        ("args", ctypes.c_uint64 * 6),
    ]


class _Notif(ctypes.Structure):
    _fields_ = [
        ("id", ctypes.c_uint64),
        ("pid", ctypes.c_uint32),
        ("flags", ctypes.c_uint32),
        ("data", _Data),
    ]


class _Response(ctypes.Structure):
    _fields_ = [
        ("id", ctypes.c_uint64),
        ("val", ctypes.c_int64),
        ("error", ctypes.c_int32),
        ("flags", ctypes.c_uint32),
    ]


@functools.cache
def _library() -> ctypes.CDLL:
    lib = ctypes.CDLL("libseccomp.so.2", use_errno=True)
    lib.seccomp_init.restype = ctypes.c_void_p
    lib.seccomp_init.argtypes = [ctypes.c_uint32]
    lib.seccomp_release.argtypes = [ctypes.c_void_p]
    lib.seccomp_rule_add_array.argtypes = [
        ctypes.c_void_p,
        ctypes.c_uint32,
        ctypes.c_int,
        ctypes.c_uint,
        ctypes.POINTER(_ArgCmp),
    ]
    lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
    lib.seccomp_syscall_resolve_num_arch.restype = ctypes.c_void_p  # a string the caller frees
    lib.seccomp_syscall_resolve_num_arch.argtypes = [ctypes.c_uint32, ctypes.c_int]
    lib.seccomp_load.argtypes = [ctypes.c_void_p]
    lib.seccomp_notify_fd.argtypes = [ctypes.c_void_p]
    lib.seccomp_api_get.restype = ctypes.c_uint
    return lib


def available() -> str | None:
    """None if this machine can watch system calls so; otherwise why not, in a few words.

    >>> available() is None or isinstance(available(), str)
    True
    """
    try:
        lib = _library()
    except OSError as error:
        return f"libseccomp is not installed ({error}; Debian: apt-get install libseccomp2)"
    level = lib.seccomp_api_get()
    if level < 6:  # 6: user notification that can let a call go on (Linux 5.5)
        return f"this Linux or libseccomp is too old to watch system calls (libseccomp API level {level})"
    return None


def number(name: str) -> int | None:
    """The number of the system call ``name`` on this machine, None if it has none."""
    found = int(_library().seccomp_syscall_resolve_name(name.encode()))
    return found if found >= 0 else None


def name_of(call_number: int, arch: int = 0) -> str:
    """The name of system call ``call_number`` (``arch`` 0: this machine's)."""
    lib = _library()
    pointer = lib.seccomp_syscall_resolve_num_arch(arch, call_number)
    if not pointer:
        return f"system call {call_number}"
    try:
        return ctypes.string_at(pointer).decode()
    finally:
        ctypes.CDLL(None).free(ctypes.c_void_p(pointer))


Rule = tuple[str, tuple[tuple[int, int], ...]]
"""A system call's name and the (argument index, value) pairs that must hold for it to be stopped."""


def load_filter(rules: Iterable[Rule]) -> int:
    """Stop this thread (and every thread and process it starts later) at each system call of
    ``rules`` and hand it to a supervisor; return the listener's file descriptor. Sets
    ``no_new_privs``, as Linux asks of a filter loaded without privileges. Call it while the
    process has a single thread. Names this machine does not know are left out."""
    lib = _library()
    context = lib.seccomp_init(_ALLOW)
    if not context:
        raise SeccompError(errno.ENOMEM, "seccomp_init failed")
    try:
        for name, conditions in rules:
            call = number(name)
            if call is None:
                continue
            array = (_ArgCmp * max(1, len(conditions)))(
                *(_ArgCmp(arg=index, op=_CMP_EQ, datum_a=value, datum_b=0) for index, value in conditions)
            )
            status = lib.seccomp_rule_add_array(context, _NOTIFY, call, len(conditions), array)
            if status < 0:
                raise SeccompError(-status, f"seccomp_rule_add({name}) failed")
        status = lib.seccomp_load(context)
        if status < 0:
            raise SeccompError(-status, f"seccomp_load failed: {errno.errorcode.get(-status, status)}")
        listener = int(lib.seccomp_notify_fd(context))
        if listener < 0:
            raise SeccompError(-listener, "seccomp_notify_fd failed")
        return listener
    finally:
        lib.seccomp_release(context)


@dataclass(frozen=True)
class Call:
    """One stopped system call: its notification id, the caller's thread id (as the supervisor's
    PID namespace numbers it), the call's number and its six raw arguments."""

    id: int
    pid: int
    number: int
    args: tuple[int, ...]

    @property
    def name(self) -> str:
        return name_of(self.number)


def receive(listener: int) -> Call | None:
    """The next stopped call (blocks until there is one); None if it vanished before it was read
    (its thread was killed). libseccomp builds the filter; the listener is read with the kernel's
    own ``ioctl``s, whose errors come back as they are."""
    request = _Notif()
    try:
        fcntl.ioctl(listener, _RECEIVE, request)
    except OSError as error:
        if error.errno in (errno.ENOENT, errno.EINTR):
            return None
        raise
    data = request.data
    return Call(int(request.id), int(request.pid), int(data.nr), tuple(int(a) for a in data.args))


def still_waiting(listener: int, call: Call) -> bool:
    """Whether ``call`` still waits for its answer (its thread was not killed meanwhile, so the
    memory read since was still its own)."""
    try:
        fcntl.ioctl(listener, _ID_VALID, struct.pack("=Q", call.id))
    except OSError:
        return False
    return True


def respond(listener: int, call: Call, error: int = 0) -> None:
    """Let ``call`` go on as its caller made it, or (``error``, an errno) fail it with that error."""
    response = _Response(id=call.id, val=0, error=-error if error else 0, flags=0 if error else _CONTINUE)
    with contextlib.suppress(OSError):  # a call that vanished meanwhile: nothing to answer
        fcntl.ioctl(listener, _SEND, response)
