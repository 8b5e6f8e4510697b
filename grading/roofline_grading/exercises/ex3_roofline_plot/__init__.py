"""Exercise 3, the roofline of exercise 2's matmul with exact bytes: its attainable FLOP/s, where each
curve reaches the peak, and the figure (the folder's files: :mod:`roofline_grading.exercises`)."""
