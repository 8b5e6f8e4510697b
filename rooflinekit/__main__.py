"""``python -m rooflinekit`` runs the command line."""

from rooflinekit.cli import main

raise SystemExit(main())
