"""The grading cluster's pieces that need no cluster: the scratch folders that go with their
process, the certificates, the commands that start the scheduler and the workers, and the
driver's refusal of a scheduler without TLS (the cluster itself: tests/e2e/test_distributed_grading.py)."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest

from roofline_grading.autograde import certificates, cli, cluster, credentials, scratch

OWNER = """
import sys, time
from roofline_grading.autograde import scratch
if sys.argv[2] == "on-termination":
    scratch.on_termination()
print(scratch.folder("rk-", sys.argv[1]), flush=True)
time.sleep(60)
"""
"""A grading process: makes a scratch folder in the folder it is given, says where, and waits."""


def owner(root: Path, *how: str) -> tuple[subprocess.Popen[str], Path]:
    process = subprocess.Popen(
        [sys.executable, "-c", OWNER, str(root), *how, "plain"], stdout=subprocess.PIPE, text=True
    )
    assert process.stdout is not None
    made = Path(process.stdout.readline().strip())
    (made / "student.ipynb").write_text("{}")  # what a run folder holds
    return process, made


def test_a_killed_process_s_folder_is_removed_by_the_next_sweep_and_a_living_one_s_is_not(
    tmp_path: Path,
) -> None:
    killed, left = owner(tmp_path)
    living, kept = owner(tmp_path)
    try:
        killed.kill()  # SIGKILL: nothing runs in it
        killed.communicate()
        (tmp_path / "rk-legacy").mkdir()  # no owner file: not ours to judge
        assert left.is_dir()
        assert scratch.sweep([str(tmp_path)]) == [left]
        assert not left.exists() and kept.is_dir() and (tmp_path / "rk-legacy").is_dir()
        assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
            ["rk-legacy", kept.name, kept.name + scratch.OWNER]
        )
    finally:
        living.kill()
        living.communicate()


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_that_stops_a_worker_process_removes_its_folders_and_still_ends_it(
    stop: signal.Signals, tmp_path: Path
) -> None:
    process, made = owner(tmp_path, "on-termination")
    assert made.is_dir()
    process.send_signal(stop)
    process.communicate(timeout=60)  # ends as soon as the process does: only the limit
    assert process.returncode == -stop
    assert list(tmp_path.iterdir()) == []


def test_a_folder_removed_by_its_user_lets_go_of_its_owner_file(tmp_path: Path) -> None:
    """A kernel's runtime folder is removed where the kernel is discarded: the next folder made
    lets go of the old one's owner file (a long-lived worker would otherwise hold one per kernel)."""
    first = scratch.folder("rk-", str(tmp_path))
    first.rmdir()
    second = scratch.folder("rk-", str(tmp_path))
    assert sorted(p.name for p in tmp_path.iterdir()) == [second.name, second.name + scratch.OWNER]
    scratch.remove(second)
    assert list(tmp_path.iterdir()) == []


def immutable(path: Path, on: bool) -> bool:
    """Make ``path`` a file nobody, not even root, can remove (``chattr +i``), or undo it: whether
    this file system allows it."""
    done = subprocess.run(["chattr", "+i" if on else "-i", str(path)], capture_output=True)
    return done.returncode == 0


def test_a_folder_that_cannot_be_emptied_keeps_its_owner_file_for_the_next_sweep(tmp_path: Path) -> None:
    """A folder its run could not remove (a file that cannot go, a process still writing in it) is
    not left without its owner file: the next sweep, once the cause is gone, removes it."""
    made = scratch.folder("rk-", str(tmp_path))
    stuck = made / "kernel.log"
    stuck.write_text("a kernel's log")
    if not immutable(stuck, True):
        pytest.skip("this file system has no immutable files (chattr +i): root can remove any other")
    try:
        scratch.remove(made)
        assert made.is_dir() and Path(f"{made}{scratch.OWNER}").is_file()
        assert scratch.sweep([str(tmp_path)]) == []  # still cannot: the owner file stays
        assert Path(f"{made}{scratch.OWNER}").is_file()
    finally:
        immutable(stuck, False)
    assert scratch.sweep([str(tmp_path)]) == [made]
    assert list(tmp_path.iterdir()) == []


def test_the_certificates_are_made_once_and_a_key_others_can_read_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "certs"
    certificates.make(folder)
    with pytest.raises(credentials.CredentialsError, match="holds certificates already"):
        certificates.make(folder)
    (folder / "worker.key").chmod(0o644)
    with pytest.raises(credentials.CredentialsError, match=r"worker.key can be read by others: `chmod 600"):
        credentials.files(folder, "worker")
    (folder / "driver.pem").unlink()
    with pytest.raises(credentials.CredentialsError, match=r"lacks driver\.pem: copy the whole folder"):
        credentials.files(folder, "driver")


def test_the_driver_refuses_a_scheduler_without_tls_saying_how_to_start_one(
    capsys: pytest.CaptureFixture[str],
) -> None:
    for address in ("tcp://grader1:8786", "grader1:8786"):
        with pytest.raises(SystemExit) as stopped:
            cli.parser().parse_args(["roofline", "--scheduler", address])
        assert stopped.value.code == 2
        said = capsys.readouterr().err.strip().splitlines()[-1]
        assert f"{address} is not a TLS address" in said and "make cluster-scheduler HOST=" in said
    assert cli.parser().parse_args(["roofline", "--scheduler", "tls://10.0.0.2:8786"]).scheduler == (
        "tls://10.0.0.2:8786"
    )


@pytest.mark.parametrize(
    ("arguments", "said"),
    [
        (["scheduler", "--host", "0.0.0.0"], "--host 0.0.0.0 is every interface of this machine"),
        (["scheduler", "--host", "::"], "--host :: is every interface of this machine"),
        (["scheduler", "--host", "192.0.2.1"], "--host 192.0.2.1 is not an address of this machine"),
        (["worker", "tcp://127.0.0.1:8786", "--host", "127.0.0.1"], "the scheduler's address is tls://"),
        (["scheduler", "--host", "127.0.0.1"], "no certificates of the grading cluster in .grading-cluster"),
    ],
)
def test_a_cluster_that_would_not_be_closed_is_not_started(
    arguments: list[str],
    said: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    monkeypatch.chdir(tmp_path)  # where no certificates are
    assert cluster.main(arguments) == 2
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1 and said in lines[0], lines
