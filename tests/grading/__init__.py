"""roofline-grading: the answer key, the judge, the recorder and the autograde driver, piece by piece."""
