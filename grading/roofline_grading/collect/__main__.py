"""``python -m roofline_grading.collect`` runs :func:`roofline_grading.collect.cli.main`."""

from roofline_grading.collect.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
