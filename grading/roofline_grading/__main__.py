"""``python -m roofline_grading``: the ``roofline-grading`` command (:mod:`roofline_grading.cli`)."""

from roofline_grading.cli import main

raise SystemExit(main())
