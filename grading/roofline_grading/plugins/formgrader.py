"""nbgrader's formgrader as this course needs it: its assignments only, no exchange, no button
that grades outside the sandbox, and inert pages.

Five things in nbgrader's formgrader (``make formgrader``) do not fit the course:

- it lists every folder of the source directory as an assignment, so the Korean release in
  ``solutions/ko/roofline/`` (written by ``make exercises``) showed as a draft assignment "ko";
- it looks for nbgrader's exchange directory, which the course does not use through an LMS
  (students hand in there, ``make collect``), and warned on every page that it does not exist; on
  the class's JupyterHub its release and collect would skip what ``make hub-release`` and ``make
  hub-collect`` do (the exchange's folder, the exchange's times of late submissions);
- its buttons *Generate* (the student version), *Autograde*, *Generate Feedback* and *Release
  Feedback* run nbgrader's own steps: autograde would run a student's code as the instructor,
  outside the sandbox and without the hidden inputs, and the others skip what ``make exercises``
  and ``make feedback`` do (the known-mistakes cells and the Korean release; the feedback's MathML);
- it renders each submission with nbconvert's plain ``HTMLExporter``, Markdown's HTML unsanitized;
- one student's ``timestamp.txt`` that is not a time made its API fail, and with it the list of
  submissions and every student's page, for the whole class.

(One more is settled in the instructor's Jupyter configuration, not here: nbgrader's handlers give
``base_url`` without its trailing slash, so the login cookie a token in a formgrader address sets
had an empty path, and a browser kept it for that page's folder; a page opened first by its own
address, ``/formgrader/gradebook/roofline`` say, then could not reach formgrader's API and stayed
at "Loading, please wait...". ``jupyter-config/instructor/jupyter_server_config.json`` sets the
cookie's path to ``/``, as the Lab's own login does.)

``nbgrader_config.py``, which every nbgrader application and the formgrader read, sets
:class:`NoExchangeList` as the exchange's lister and calls :func:`install`. nbgrader offers no
setting for any of the rest, so :func:`install` replaces three names in nbgrader's formgrader
modules, as each request and the extension's start-up look them up:

- ``NbGraderAPI`` (``base``): :class:`CourseAPI`, which refuses those steps, and release, unrelease
  and collect, with the ``make`` target that does each (whatever calls the API, a button or a
  script), and reads a timestamp that is not a time as none;
- ``FileSystemLoader`` (``formgrader``): the course's pages first (:data:`PAGES`): the assignments'
  and the submissions' lists without those columns, their instructions naming the ``make`` targets;
  nbgrader's templates behind them, each reachable as ``nbgrader/<name>``;
- ``HTMLExporter`` (``formgrader``): :class:`~roofline_grading.pages.InertHTMLExporter`, which
  strips each notebook of what a template could make markup of and sanitizes Markdown's HTML. (The
  page still loads nbgrader's MathJax, which formgrader's own script needs; it typesets no code
  or ``<pre>`` block, where a student's text is.)
"""

from __future__ import annotations

from typing import Any

from jinja2 import BaseLoader, ChoiceLoader, DictLoader, FileSystemLoader, PrefixLoader
from nbgrader.apps.api import NbGraderAPI
from nbgrader.exchange.abc import ExchangeList
from nbgrader.server_extensions.formgrader import base as formgrader_base
from nbgrader.server_extensions.formgrader import formgrader as formgrader_app

from roofline_grading.i18n import LANGUAGES
from roofline_grading.pages import InertHTMLExporter

__all__ = ["PAGES", "REFUSED", "CourseAPI", "NoExchangeList", "install"]

REFUSED = {
    "generate_assignment": "make exercises",
    "release_assignment": "make hub-release (on the class's JupyterHub; otherwise upload exercises/ "
    "to the LMS)",
    "unrelease": "make hub-unrelease (on the class's JupyterHub; otherwise withdraw it in the LMS)",
    "collect": "make hub-collect (on the class's JupyterHub; otherwise make collect ZIP=the LMS's zip)",
    "autograde": "make autograde",
    "generate_feedback": "make feedback",
    "release_feedback": "make feedback, then make hub-return (on the class's JupyterHub; otherwise "
    "return feedback/ through the LMS)",
}
"""nbgrader's steps the formgrader would run, each with what the course runs instead."""

_STEPS = """\
<div class="panel panel-info" id="course-steps">
  <div class="panel-body">
    This course runs its grading steps from the course directory, not from here:
    <code>make exercises</code> writes the student version, <code>make collect</code> files the
    LMS's zips (on the class's JupyterHub: <code>make hub-release</code> and
    <code>make hub-collect</code>), <code>make autograde</code> grades every submission in the sandbox
    (with the hidden inputs), <code>make feedback</code> writes the feedback pages
    (<code>make hub-return</code> returns them on the hub) and <code>make grades</code> the grades.
    Here you grade by hand what <code>make autograde</code> held, and look at what it flagged.
  </div>
</div>
"""

_ROWS = """\
<script>
// The course's columns only (roofline_grading.plugins.formgrader): nbgrader's views find no cell for the
// buttons of the steps the course runs with make, and so draw none.
var insertRow = function (table) {{
    var row = $("<tr/>");
    {cells}
    table.append(row);
    return row;
}};
</script>
"""


def _page(name: str, header: list[tuple[str, str]], body: str, footer: str = "") -> str:
    """A formgrader list page: nbgrader's, with only the columns ``header`` names (title, class of
    its cells) and the course's instructions."""
    cells = "\n    ".join(f'row.append($("<td/>").addClass("{css}"));' for _, css in header)
    heads = "".join(
        f'<th class="{"" if i == 0 else "text-center"}">{t}</th>' for i, (t, _) in enumerate(header)
    )
    return (
        f"{{%- extends 'nbgrader/{name}' -%}}\n"
        f"{{%- block messages -%}}\n{_STEPS}{{%- endblock -%}}\n"
        f"{{%- block table_header -%}}<tr>{heads}</tr>{{%- endblock -%}}\n"
        f"{{%- block table_body -%}}{body}{{%- endblock -%}}\n"
        + (f"{{%- block table_footer -%}}{footer}{{%- endblock -%}}\n" if footer else "")
        + f"{{%- block script -%}}\n{_ROWS.format(cells=cells)}{{%- endblock -%}}\n"
    )


PAGES = {
    "manage_assignments.tpl": _page(
        "manage_assignments.tpl",
        [
            ("Name", "name"),
            ("Due Date", "text-center duedate"),
            ("Status", "text-center status"),
            ("Edit", "text-center edit"),
            ("Preview", "text-center preview"),
            ("# Submissions", "text-center num-submissions"),
        ],
        '<tr><td colspan="6">Loading, please wait...</td></tr>',
        '<tr><td colspan="6"><span class="glyphicon glyphicon-plus" aria-hidden="true"></span> '
        '<a href="#" onClick="createAssignmentModal();">Add new assignment...</a></td></tr>',
    ),
    "manage_submissions.tpl": _page(
        "manage_submissions.tpl",
        [
            ("Student Name", "student-name"),
            ("Student ID", "text-center student-id"),
            ("Timestamp", "text-center timestamp"),
            ("Status", "text-center status"),
            ("Score", "text-center score"),
        ],
        "<tr><td>Loading, please wait...</td><td></td><td></td><td></td><td></td></tr>",
    ),
}
"""The course's formgrader pages, by the name of nbgrader's template each replaces."""


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

    def get_submitted_timestamp(self, assignment_id: str, student_id: str) -> Any:
        """The time in the student's ``timestamp.txt``, None if there is none, or none that reads
        as a time: nbgrader's own raises, and every list of submissions then fails to load (the
        autograder ignores such a file too, and says so in the report)."""
        try:
            return super().get_submitted_timestamp(assignment_id, student_id)
        except (ValueError, OverflowError, OSError):
            return None

    def generate_assignment(self, assignment_id: str, *args: Any, **kwargs: Any) -> dict[str, Any]:
        return _refused("generate_assignment")

    def autograde(self, assignment_id: str, student_id: str, *args: Any, **kwargs: Any) -> dict[str, Any]:
        return _refused("autograde")

    def release_assignment(self, assignment_id: str, *args: Any, **kwargs: Any) -> dict[str, Any]:
        return _refused("release_assignment")

    def unrelease(self, assignment_id: str, *args: Any, **kwargs: Any) -> dict[str, Any]:
        return _refused("unrelease")

    def collect(self, assignment_id: str, *args: Any, **kwargs: Any) -> dict[str, Any]:
        return _refused("collect")

    def generate_feedback(self, assignment_id: str, *args: Any, **kwargs: Any) -> dict[str, Any]:
        return _refused("generate_feedback")

    def release_feedback(self, assignment_id: str, *args: Any, **kwargs: Any) -> dict[str, Any]:
        return _refused("release_feedback")


def _refused(step: str) -> dict[str, Any]:
    """nbgrader's answer to a step that failed, saying what to run instead.

    >>> _refused("autograde")["error"]
    'this course does not run nbgrader autograde from formgrader: run make autograde in the course directory'
    """
    said = f"this course does not run nbgrader {step} from formgrader: run {REFUSED[step]} "
    said += "in the course directory"
    return {"success": False, "error": said, "log": said}


def _loader(searchpath: Any, *args: Any, **kwargs: Any) -> BaseLoader:
    """The formgrader pages' loader: the course's (:data:`PAGES`), then nbgrader's templates in
    ``searchpath`` (each also as ``nbgrader/<name>``, for the course's pages to extend)."""
    nbgrader = FileSystemLoader(searchpath, *args, **kwargs)
    return ChoiceLoader([DictLoader(PAGES), PrefixLoader({"nbgrader": nbgrader}), nbgrader])


def install() -> None:
    """Have nbgrader's formgrader use :class:`CourseAPI`, the course's pages and the inert exporter
    (see the module's docstring; again and again: does nothing twice)."""
    formgrader_base.NbGraderAPI = CourseAPI
    formgrader_app.FileSystemLoader = _loader
    formgrader_app.HTMLExporter = InertHTMLExporter
