"""nbgrader's formgrader as this course needs it: its assignments only, and no exchange.

Two things in nbgrader's formgrader (``make formgrader``) do not fit the course:

- it lists every folder of the source directory as an assignment, so the Korean release in
  ``solutions/ko/roofline/`` (written by ``make exercises``) showed as a draft assignment "ko";
- it looks for nbgrader's exchange directory, which the course does not use (students hand
  in through an LMS, ``make collect``), and warned on every page that it does not exist.

``nbgrader_config.py``, which every nbgrader application and the formgrader read, sets
:class:`NoExchangeList` as the exchange's lister and calls :func:`install`, which has the
formgrader's pages use :class:`CourseAPI`. nbgrader offers no setting for the API its
formgrader uses (``nbgrader.server_extensions.formgrader.base`` builds an ``NbGraderAPI`` for
each request), so :func:`install` replaces that name in that module; nothing else changes.
"""

from __future__ import annotations

from typing import Any

from nbgrader.apps.api import NbGraderAPI
from nbgrader.exchange.abc import ExchangeList
from nbgrader.server_extensions.formgrader import base as formgrader_base

from roofline_grading.i18n import LANGUAGES


class NoExchangeList(ExchangeList):  # type: ignore[misc]
    """An exchange that holds nothing: the course releases and collects through an LMS.

    Listing it finds no assignment and touches no directory, where nbgrader's default exchange
    fails (and logs a critical error) because ``/usr/local/share/nbgrader/exchange`` does not
    exist: the formgrader's warning, and the error in JupyterLab's *Assignments* panel.
    """

    def init_src(self) -> None:
        pass

    def init_dest(self) -> None:
        pass

    def copy_files(self) -> None:
        pass

    def list_files(self) -> list[dict[str, Any]]:
        return []

    def remove_files(self) -> list[dict[str, Any]]:
        return []


class CourseAPI(NbGraderAPI):  # type: ignore[misc]
    """nbgrader's API for the formgrader, with the course's assignments and no exchange."""

    def get_source_assignments(self) -> set[str]:
        """The assignments in the source directory: each folder, except a translated release
        (``<source>/<language>/<assignment>/``, as ``make exercises`` writes it)."""
        return set(super().get_source_assignments()) - set(LANGUAGES[1:])

    @property
    def exchange_is_functional(self) -> bool:
        """Never: nbgrader's release and collect (buttons the formgrader shows when the exchange
        works) are the LMS's job here, so the formgrader offers neither."""
        return False


def install() -> None:
    """Have nbgrader's formgrader use :class:`CourseAPI` (again and again: does nothing twice)."""
    formgrader_base.NbGraderAPI = CourseAPI
