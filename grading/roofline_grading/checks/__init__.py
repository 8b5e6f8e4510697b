"""The parts of ``roofline-grading check`` that look outside the answer key (:mod:`roofline_grading.check`):
the notebooks run in a kernel, the Korean release, the public edition. Each knows nothing of the others."""
