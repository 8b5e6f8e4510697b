"""Exercise 2, int8 weights and bf16 math: its bytes and intensity, the peak that limits it and its
critical batch (the folder's files: :mod:`roofline_grading.exercises`)."""
