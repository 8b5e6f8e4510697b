"""Exercise 6, a layer split over chips: link and network-card bandwidths, a ring all-reduce's bytes,
the width D that keeps it compute-bound (the folder's files: :mod:`roofline_grading.exercises`)."""
