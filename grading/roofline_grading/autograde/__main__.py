"""``python -m roofline_grading.autograde`` runs :func:`roofline_grading.autograde.cli.main`."""

from roofline_grading.autograde.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
