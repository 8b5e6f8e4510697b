"""The parts of ``roofline-grading check`` that look outside the answer key (:mod:`roofline_grading.check`):
the figures the statement quotes, the notebooks run in a kernel, the translated releases (each
language of ``rooflinekit.languages``), the public edition. Each knows nothing of the others."""
