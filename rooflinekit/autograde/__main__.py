"""``python -m rooflinekit.autograde`` runs :func:`rooflinekit.autograde.cli.main`."""

from rooflinekit.autograde.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
