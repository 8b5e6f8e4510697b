"""The course's grading machinery: the answer key, the judge and the autograde driver.

``roofline_grading`` sits beside ``rooflinekit`` (which it uses to compute every reference
and every known mistake) and depends on nbgrader; ``rooflinekit`` never imports it. The
grading kernel has neither: it runs the student's code and :mod:`roofline_recorder`, which
records plain answers for the judge here to read.

- :mod:`roofline_grading.questions`: what a question is (function or figure, tolerance, mistakes);
- :mod:`roofline_grading.exercises`: one folder per exercise: its statement, the figures it
  gives, its model answers as functions (the library students install holds none) and its key;
- :mod:`roofline_grading.answer_key`: the exercises' questions, by exercise and by id;
- :mod:`roofline_grading.judge`: right or wrong, and the feedback, from a recorded answer;
- :mod:`roofline_grading.session`: the inputs each question is asked at in one run;
- :mod:`roofline_grading.local`: judging on the spot in an instructor's own kernel;
- :mod:`roofline_grading.sandbox`: the bubblewrap sandbox and the limits of a grading kernel;
- :mod:`roofline_grading.collect`: ``make collect``, an LMS's zips filed under ``submitted/``;
- :mod:`roofline_grading.autograde`: the driver behind ``make autograde``, its steps in
  :mod:`roofline_grading.autograde.steps`;
- :mod:`roofline_grading.plugins`: the course's nbgrader plug-ins: formgrader with the course's
  assignments and no exchange, the feedback pages, ``make grades``' CSV export sorted by student id.
"""
