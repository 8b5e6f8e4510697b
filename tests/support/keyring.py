"""Run a command in a session keyring of its own that holds the given keys, as a grader started
from an SSH login (``pam_keyinit``) or by a systemd service does:
``python keyring.py NAME=VALUE... -- COMMAND...``.

Linux's keyrings are not separated by namespaces, so a grading round run so is how the tests
see whether a notebook can reach the keys of the grader's session, or leave one there for the
next student. (keyutils' ``keyctl session`` does the same; it is not installed here, and these
are two system calls.)

>>> wrapped(["make", "autograde"], {"token": "x"})[-4:]
['token=x', '--', 'make', 'autograde']
"""

from __future__ import annotations

import ctypes
import os
import sys

KEYCTL_JOIN_SESSION_KEYRING = 1
KEY_SPEC_SESSION_KEYRING = -3
CALLS = {"x86_64": {"add_key": 248, "keyctl": 250}, "aarch64": {"add_key": 217, "keyctl": 219}}
"""The two system calls' numbers (Linux's syscall tables), by machine."""


def wrapped(command: list[str], keys: dict[str, str]) -> list[str]:
    """``command``, run in a new session keyring holding ``keys`` (description -> payload)."""
    return [sys.executable, __file__, *(f"{name}={value}" for name, value in keys.items()), "--", *command]


def main(argv: list[str]) -> None:
    at = argv.index("--")
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    calls = CALLS[os.uname().machine]
    if libc.syscall(calls["keyctl"], KEYCTL_JOIN_SESSION_KEYRING, None) < 0:
        raise OSError(ctypes.get_errno(), "keyctl(JOIN_SESSION_KEYRING)")
    for item in argv[:at]:
        name, value = item.split("=", 1)
        payload = value.encode()
        key = libc.syscall(
            calls["add_key"], b"user", name.encode(), payload, len(payload), KEY_SPEC_SESSION_KEYRING
        )
        if key < 0:
            raise OSError(ctypes.get_errno(), f"add_key({name})")
    os.execvp(argv[at + 1], argv[at + 1 :])


if __name__ == "__main__":
    main(sys.argv[1:])
