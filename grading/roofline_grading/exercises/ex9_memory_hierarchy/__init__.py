"""Exercise 9, the memory hierarchy: a tiled matmul's bytes out of HBM, the smallest compute-bound
tile and whether it fits on chip, attention fused and unfused (the folder's files:
:mod:`roofline_grading.exercises`)."""
