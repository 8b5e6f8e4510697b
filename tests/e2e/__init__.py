"""End to end: grading rounds through make and nbgrader, JupyterLab, the public edition."""
