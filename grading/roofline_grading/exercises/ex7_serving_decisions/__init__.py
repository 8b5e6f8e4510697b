"""Exercise 7, serving a model: its KV cache, its largest batch, a decode step, the first token and
the batch past which decode stops speeding up (the folder's files: :mod:`roofline_grading.exercises`)."""
