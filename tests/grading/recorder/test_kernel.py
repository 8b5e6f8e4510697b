"""The grading kernel's setup (roofline_recorder.kernel), for what needs no sandbox: once set up,
the recorder's own watching modules are forgotten by name, so a notebook that imports one gets a
fresh module that watches nothing (and the keeper sees the file read), while the package a hidden
test needs stays. (The kernel in the sandbox, its keeper and its watch: tests/e2e.)"""

from __future__ import annotations

import sys

import roofline_recorder
from roofline_recorder import kernel


def test_the_recorders_internals_are_forgotten_and_the_record_kept() -> None:
    modules, package = dict(sys.modules), dict(vars(roofline_recorder))
    try:
        kernel._forget_internals()
        loaded = {m.rsplit(".", 1)[1] for m in sys.modules if m.startswith("roofline_recorder.")}
        assert loaded.isdisjoint(kernel.INTERNALS)
        assert not [name for name in kernel.INTERNALS if hasattr(roofline_recorder, name)]
        assert callable(roofline_recorder.record) and callable(roofline_recorder.collect)
    finally:  # this test's process goes on with the modules it had
        sys.modules.update(modules)
        vars(roofline_recorder).update(package)


def test_a_kernels_start_leaves_debugpy_in_sys_modules_as_it_found_it() -> None:
    # A kernel whose process already held debugpy (a warm template's imports, a notebook's) keeps
    # it: the kernel's start leaves sys.modules as it found it.
    import debugpy

    try:
        kernel._without_debugger()
        assert sys.modules["debugpy"] is debugpy
    finally:
        sys.modules["debugpy"] = debugpy
