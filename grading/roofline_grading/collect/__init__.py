"""``roofline-grading collect``: an LMS's zips of submissions filed under ``submitted/`` (needs nbgrader).

One job a module (README, "How roofline-grading is built"): :mod:`.cli` (the command) over
:mod:`.run` (one collect) over :mod:`.names` (an entry's student and notebook, by the course's
LMS plugin) and :mod:`.filing` over :mod:`.lms` (Canvas, Moodle and plain names, nbgrader's
collector plugins), :mod:`.archives` and :mod:`.submission_times` over :mod:`.duplicates`. It
knows of the grading run only the course's gradebook, the largest notebook it reads and how a
student's text is made plain (:mod:`roofline_grading.autograde`'s ``gradebook``, ``precheck``
and ``results``: a contract).
"""
