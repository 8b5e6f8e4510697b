"""The grading kernels (roofline_grading.autograde.kernels): one that cannot start is reported
in its own words; a run folder too deep for a socket's path is no reason."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import roofline_recorder
from roofline_grading.sandbox import bwrap


@pytest.fixture
def deep_tmp(tmp_path: Path) -> Path:
    """A folder whose path alone is longer than a Unix socket's path may be (108 bytes)."""
    deep = tmp_path / ("a-course-folder-deep-in-the-instructors-home-" * 3)
    deep.mkdir()
    assert len(os.fsencode(deep)) > 108
    return deep


@pytest.mark.grading
def test_a_kernel_that_cannot_start_is_reported_with_its_own_words(tmp_path: Path, deep_tmp: Path) -> None:
    """The driver starts one kernel before grading anyone: a sandbox that cannot start one (here,
    the recorder's folder is missing) stops the run with bubblewrap's own complaint. A run folder
    deeper than a socket's path may be is no such reason: the kernel's sockets live elsewhere."""
    from roofline_grading.autograde import kernels

    settings = {
        "mode": "bwrap",
        "recorder": str(tmp_path / "no-such-recorder"),
        "prefixes": list(bwrap.python_prefixes()),
    }
    why = kernels.check_start(settings, "ex5_h100_threshold", deep_tmp / "run", timeout=30)
    assert why is not None and why.startswith("the grading kernel did not start")
    assert "no-such-recorder" in why  # bwrap says which path it could not bind
    good = {**settings, "recorder": str(Path(roofline_recorder.__file__).parent)}
    assert kernels.check_start(good, "ex5_h100_threshold", deep_tmp / "run2") is None
    assert sorted(p.name for p in (deep_tmp / "run2").iterdir()) == []  # each kernel's folder, removed


def test_with_no_short_folder_for_the_sockets_the_run_is_refused_saying_what_to_set(
    deep_tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from roofline_grading.autograde import kernels

    anywhere = kernels.runtime_folder
    monkeypatch.setattr(kernels, "runtime_folder", lambda: anywhere((str(deep_tmp),)))  # as if /tmp were deep
    settings = {"mode": "bwrap", "recorder": str(Path(roofline_recorder.__file__).parent)}
    why = kernels.check_start(settings, "ex5_h100_threshold", deep_tmp / "run")
    assert why is not None and why.startswith("the grading kernel cannot start: no folder to hold")
    assert str(deep_tmp) in why and "set TMPDIR to a short writable folder" in why


def test_a_clients_sockets_try_again_at_once_to_reach_a_kernel_not_listening_yet(tmp_path: Path) -> None:
    """A client connects as soon as its kernel's process starts, before the kernel listens: each of
    its sockets tries again every few milliseconds, not after zmq's default tenth of a second."""
    import zmq

    from roofline_grading.autograde import kernels

    manager = kernels.GradingKernelManager(transport="ipc", connection_file=str(tmp_path / "kernel.json"))
    manager.write_connection_file()
    client = manager.client()
    # No heartbeat thread: stopped at once, jupyter_client's HBChannel can miss the stop and make
    # its socket again and again until zmq's limit of sockets (with zmq's own interval too).
    client.start_channels(hb=False)  # nothing listens at the kernel's sockets: each waits, trying again
    heartbeat = client.connect_hb()
    try:
        channels = (client.shell_channel, client.iopub_channel, client.stdin_channel, client.control_channel)
        waits = {channel.socket.getsockopt(zmq.RECONNECT_IVL) for channel in channels}
        waits.add(heartbeat.getsockopt(zmq.RECONNECT_IVL))
        assert waits == {kernels.RECONNECT_MS} and kernels.RECONNECT_MS < 100
    finally:
        heartbeat.close(linger=0)
        client.stop_channels()
        manager.cleanup_connection_file()
