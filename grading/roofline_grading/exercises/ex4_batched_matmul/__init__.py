"""Exercise 4, a batched matmul with a weight matrix per example: its bytes, operations and
intensity, and the batch from which it is compute-bound (the folder's files:
:mod:`roofline_grading.exercises`)."""
