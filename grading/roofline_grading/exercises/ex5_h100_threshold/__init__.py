"""Exercise 5, the H100's critical batch from its datasheet: the dense peak, the bandwidth in B/s, the
critical batch of one replica and of many (the folder's files: :mod:`roofline_grading.exercises`)."""
