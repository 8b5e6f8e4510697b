"""Autograde a class safely and in parallel (the instructor's side; needs nbgrader).

``python -m rooflinekit.autograde roofline --course . --jobs 2`` (or ``make autograde``) grades
every collected submission with nbgrader, one student per worker process, and writes the
scores into the course's gradebook. See :mod:`rooflinekit.autograde.driver` for what happens to
each submission, and the instructor's guide (``book/instructor-guide.md``) for the threat model.

Importing :mod:`rooflinekit` never imports this package, and importing this package imports
nothing heavy: each module loads nbgrader only if it needs it.
"""
