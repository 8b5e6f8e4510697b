"""The grading kernel's confinement: a bubblewrap sandbox, and limits on its whole process tree.

- :mod:`roofline_grading.sandbox.bwrap`: the sandbox's command line (what the kernel sees);
- :mod:`roofline_grading.sandbox.limits`: memory, processes and files for the whole tree
  (cgroups where the system lets us create one, otherwise a watchdog), and killing it;
- :mod:`roofline_grading.sandbox.launch`: the small program that applies the limits, clears
  the environment and starts bubblewrap, so the kernel inherits nothing of the grader's.
"""
