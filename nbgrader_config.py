"""nbgrader's configuration for the course (read from the directory nbgrader runs in).

The graded notebooks form one assignment, ``roofline``: one release, one upload per
student, one gradebook row per student. Instructor versions live in ``solutions/roofline/``,
the student versions nbgrader generates from them in ``exercises/roofline/``.
The instructor's guide (book/instructor-guide.md) walks through a grading round.
"""

from roofline_grading.plugins import formgrader

c = get_config()  # type: ignore[name-defined]  # noqa: F821  (nbgrader provides get_config)

c.CourseDirectory.course_id = "roofline"
c.CourseDirectory.source_directory = "solutions"
c.CourseDirectory.release_directory = "exercises"

# What an answer cell holds until the student writes in it (instead of nbgrader's
# `raise NotImplementedError()`): not_answered(), defined in each exercise's known-mistakes cell
# (roofline_grading/mistake_check.py). A function holding it fails, in one line naming it, so the
# part scores 0 as before; a cell of its own holding it (the figures, exercise 3's plot) says it is
# not answered yet without failing, so that Run All goes on to the cells below.
c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\nnot_answered()"}

# A cell may take a while only if the student's code does; the model answers take well under a second.
# The grading driver (make autograde) also stops a whole notebook after 10 times this.
c.Execute.timeout = 30

# Submissions downloaded from a learning-management system: `make collect` (which reads the zips
# itself, see book/instructor-guide.md) reads each zip entry's student and notebook with the
# collector plugin nbgrader's own zip_collect takes, one class per LMS
# (grading/roofline_grading/collect/lms.py: Canvas, Moodle, PlainNames; or a class of your own).
# Canvas's names, e.g. "smithjane_late_123456_7890123_ex1_int8_matmul-1.ipynb", and plain ones,
# "alice_ex1_int8_matmul.ipynb"; for Moodle: "roofline_grading.collect.lms.Moodle".
c.ZipCollectApp.collector_plugin = "roofline_grading.collect.lms.Canvas"

# make grades (nbgrader export): nbgrader's CSV, its rows sorted by student id (roofline_grading/plugins/export.py).
c.ExportApp.plugin_class = "roofline_grading.plugins.export.SortedCsvExport"

# No nbgrader exchange: students hand in through the LMS (above). Listing the exchange finds nothing
# instead of failing on its missing directory (formgrader's warning). Its JupyterLab panels,
# Assignment List and Course List, are disabled (jupyter-config/, pyproject.toml's shared-data).
c.ExchangeFactory.list = "roofline_grading.plugins.formgrader.NoExchangeList"
# Formgrader (make formgrader) lists the assignments of solutions/ but not the Korean release in
# solutions/ko/, and offers no release or collect (the LMS's job): roofline_grading/plugins/formgrader.py.
formgrader.install()

# The students' feedback pages (make feedback) stand alone, offline or on a network that blocks
# CDNs: the math of the Markdown cells is written into them as MathML, instead of nbgrader's
# template loading MathJax from a CDN (grading/roofline_grading/plugins/feedback.py).
c.GenerateFeedback.exporter_class = "roofline_grading.plugins.feedback.FeedbackExporter"
# Each page's scores and comments read from the gradebook a notebook at a time, not a query a cell
# (nbgrader's GetGrades), the same values: grading/roofline_grading/plugins/grades.py.
c.GenerateFeedback.preprocessors = [
    "roofline_grading.plugins.grades.GradesAtOnce",
    "nbconvert.preprocessors.CSSHTMLHeaderPreprocessor",
]
