"""A process group killed with SIGKILL (as the distributed tests kill a worker, as if its machine
had gone) leaves its multiprocessing semaphores in /dev/shm, its resource tracker killed with it;
the tests' harness (tests/support/processes.py) removes them, and only them."""

from __future__ import annotations

import multiprocessing
import os
import signal
import subprocess
import sys
import time
from typing import Any

from tests.support.processes import remove_orphaned, semaphore_file, session, shared_memory

GROUP = """
import multiprocessing, time
context = multiprocessing.get_context("spawn")
alone, shared = context.Lock(), context.Lock()  # one only this process maps, one its child too
child = context.Process(target=time.sleep, args=(120,))
child.shared = shared  # spawned with the process object: the child opens it
child.start()
print(alone._semlock.name, shared._semlock.name, flush=True)
time.sleep(120)
"""


def test_the_semaphores_of_a_group_killed_with_sigkill_are_removed_and_no_one_elses() -> None:
    mine = multiprocessing.get_context("spawn").Lock()  # this process's: kept
    with subprocess.Popen(
        [sys.executable, "-c", GROUP], stdout=subprocess.PIPE, text=True, start_new_session=True
    ) as process:
        try:
            killed_and_cleaned(process, mine)
        finally:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()


def killed_and_cleaned(process: subprocess.Popen[str], mine: Any) -> None:
    """Kill ``process``'s session once its two semaphores are open, then remove what it left."""
    assert process.stdout is not None
    files = [semaphore_file(name) for name in process.stdout.readline().split()]
    assert len(files) == 2 and all(f.exists() for f in files)
    deadline = time.monotonic() + 60
    while not shared_memory(session(process.pid) - {process.pid}) and time.monotonic() < deadline:
        time.sleep(0.05)  # until the child has opened the shared one
    group = session(process.pid)
    held = shared_memory(group)
    assert {f.stat().st_ino for f in files} <= held
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    assert all(f.exists() for f in files)  # left behind: their resource tracker died too
    removed = remove_orphaned(held, group)
    assert sorted(removed) == sorted(files) and not any(f.exists() for f in files)
    assert semaphore_file(mine._semlock.name).exists()
