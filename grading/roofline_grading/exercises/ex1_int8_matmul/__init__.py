"""Exercise 1, an int8 matmul on a TPU v5e: its bytes, operations and intensity, its critical
batch, its time bounds and what limits it (the folder's files: :mod:`roofline_grading.exercises`)."""
