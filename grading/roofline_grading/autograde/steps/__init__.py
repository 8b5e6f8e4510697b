"""The course's own autograde steps: nbgrader preprocessors, one a module, each knowing nothing of
the others (a contract).

The pipeline (:mod:`roofline_grading.autograde.pipeline`) runs them among nbgrader's own, in the
order of its two lists, ``c.Pipeline.sanitize_preprocessors`` and
``c.Pipeline.autograde_preprocessors``:

- :mod:`.restore_cells` (``RestoreCells``): the submitted notebook's structure put right, in
  place of nbgrader's ``OverwriteCells`` and ``CheckCellMetadata``;
- :mod:`.sandboxed_execute` (``SandboxedExecute``): the notebook run in the bubblewrap sandbox,
  in place of nbgrader's ``Execute``;
- :mod:`.judge_answers` (``JudgeAnswers``): each test cell's recorded answers judged with the
  answer key, the verdict written into the cell;
- :mod:`.plain_outputs` (``PlainOutputs``): only inert content kept;
- :mod:`.student_notes` (``StudentNotes``): the notes to the student, first in the notebook.
"""
