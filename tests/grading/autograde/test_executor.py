"""The executors' interface (roofline_grading.autograde.executor): the driver grades through either
executor the same way, so each has every method of the interface, with its parameters."""

from __future__ import annotations

import inspect

import pytest

from roofline_grading.autograde.dask_pool import DaskExecutor
from roofline_grading.autograde.executor import Executor
from roofline_grading.autograde.local_pool import LocalExecutor

METHODS = [name for name in vars(Executor) if not name.startswith("_")]


@pytest.mark.parametrize("executor", [LocalExecutor, DaskExecutor])
@pytest.mark.parametrize("method", METHODS)
def test_each_executor_has_the_interfaces_method_with_its_parameters(executor: type, method: str) -> None:
    wanted = list(inspect.signature(getattr(Executor, method)).parameters)
    assert list(inspect.signature(getattr(executor, method)).parameters) == wanted


def test_the_interface_is_what_the_driver_calls() -> None:
    assert sorted(METHODS) == ["close", "describe", "grade", "preflight", "warm_up"]
