"""Exercise 10, speculative decoding on the roofline: the tokens a target step yields, what
verifying costs, the speedup, the best draft length and the batch where speculation stops paying
(the folder's files: :mod:`roofline_grading.exercises`)."""
