"""Exercise 8, what a measured kernel achieved: its FLOP/s and B/s, its MFU and MBU, and the limit it
is closest to (the folder's files: :mod:`roofline_grading.exercises`)."""
