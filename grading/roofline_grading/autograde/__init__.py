"""Autograde a class safely and in parallel (the instructor's side; needs nbgrader).

``python -m roofline_grading.autograde roofline --course . --jobs 2`` (or ``make autograde``)
grades every collected submission with nbgrader, one student per worker process, each notebook
in a sandboxed kernel that holds only the student's code and the recorder, and writes the
scores into the course's gradebook. See :mod:`roofline_grading.autograde.driver` for what
happens to each submission, and the instructor's guide (``book/instructor-guide.md``) for the
threat model.
"""
