"""Check the course's Kubernetes values against the Helm charts they are for, without a cluster.

``hub/k8s/config.yaml`` (the jupyterhub chart of Zero to JupyterHub) is checked as ``helm`` checks
it before it renders anything: the chart's defaults (its ``values.yaml``) with the file's values
merged over them, validated against the chart's ``values.schema.yaml`` (JSON Schema, draft 7), both
vendored from the chart's release in ``hub/k8s/vendor/`` (see the PROVENANCE file there). The chart's
schema refuses a key it does not know in most places, so a misspelled setting is named instead of
being ignored by the cluster. ``hub/k8s/ngshare.yaml`` (the exchange's chart, which ships no schema)
is checked against its chart's ``values.yaml``: every key must be one the chart's defaults have,
except under the maps its defaults leave empty for you to fill (``env: {}``).

    python tools/k8s_values.py [--hub FILE] [--ngshare FILE]

One line per problem (the key's path and what is wrong) and exit status 1; else one line per file.

>>> coalesce({"a": {"b": 1, "c": 2}, "d": 3}, {"a": {"b": 5, "c": None}, "e": 4})
{'a': {'b': 5}, 'd': 3, 'e': 4}
>>> unknown_keys({"a": {"b": 1}, "env": {}}, {"a": {"bb": 2}, "env": {"X": "1"}})
['a.bb']
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml's, when PyYAML has it: 10 times faster
ROOT = Path(__file__).resolve().parent.parent
K8S = ROOT / "hub" / "k8s"
Z2JH = K8S / "vendor" / "zero-to-jupyterhub-4.4.0" / "jupyterhub"
NGSHARE = K8S / "vendor" / "ngshare-0.6.0" / "ngshare"


class ValuesError(Exception):
    """A values file that cannot be read (the message names it and why)."""


@dataclass(frozen=True)
class Chart:
    """A chart's vendored files: its defaults and, when it ships one, its values schema."""

    name: str
    folder: Path

    def defaults(self) -> dict[str, Any]:
        return read_yaml(self.folder / "values.yaml")

    def schema(self) -> dict[str, Any]:
        return read_yaml(self.folder / "values.schema.yaml")


JUPYTERHUB = Chart("jupyterhub 4.4.0 (Zero to JupyterHub)", Z2JH)
NGSHARE_CHART = Chart("ngshare 0.6.0", NGSHARE)


def read_yaml(path: Path) -> dict[str, Any]:
    """The YAML mapping in ``path``; a missing file, bad YAML or another top-level type is a
    :class:`ValuesError` naming the file."""
    try:
        loaded = yaml.load(path.read_text(encoding="utf-8"), Loader=SAFE_LOADER)
    except OSError as error:
        raise ValuesError(f"{shown(path)}: cannot be read ({error.strerror})") from error
    except yaml.YAMLError as error:
        raise ValuesError(f"{shown(path)}: not YAML ({' '.join(str(error).split())})") from error
    if not isinstance(loaded, dict):
        kind = type(loaded).__name__
        raise ValuesError(f"{shown(path)}: should be a mapping of chart values (key: value), not {kind}")
    return loaded


def coalesce(defaults: Mapping[str, Any], values: Mapping[str, Any]) -> dict[str, Any]:
    """``values`` over ``defaults`` as Helm merges a values file into a chart's defaults: maps merge
    key by key, anything else replaces, and ``null`` removes the default."""
    merged = dict(defaults)
    for key, value in values.items():
        if value is None:
            merged.pop(key, None)
        elif isinstance(value, Mapping) and isinstance(merged.get(key), Mapping):
            merged[key] = coalesce(merged[key], value)
        else:
            merged[key] = value
    return merged


def schema_problems(values: Mapping[str, Any], schema: Mapping[str, Any]) -> list[str]:
    """What the chart's schema refuses in the merged values: ``path: message`` lines, sorted."""
    import jsonschema  # here: tools/k8s_helm.py uses the rest of this module where jsonschema is not

    validator = jsonschema.Draft7Validator(schema)
    lines = []
    for error in validator.iter_errors(values):
        where = ".".join(str(part) for part in error.absolute_path) or "(top level)"
        lines.append(f"{where}: {error.message}")
    return sorted(lines)


def unknown_keys(defaults: Mapping[str, Any], values: Mapping[str, Any], prefix: str = "") -> list[str]:
    """The keys of ``values`` that ``defaults`` has not, as dotted paths; a default that is an
    empty map takes any key."""
    found = []
    for key, value in values.items():
        path = f"{prefix}{key}"
        if key not in defaults:
            found.append(path)
        elif isinstance(value, Mapping) and isinstance(defaults[key], Mapping) and defaults[key]:
            found += unknown_keys(defaults[key], value, f"{path}.")
    return found


def shown(path: Path) -> str:
    """``path`` as the course's files are named: relative to the repository when it is in it."""
    resolved = path.resolve()
    return str(resolved.relative_to(ROOT)) if resolved.is_relative_to(ROOT) else str(path)


def check_hub(path: Path) -> list[str]:
    """Problems of a jupyterhub chart values file, each line starting with the file's name."""
    merged = coalesce(JUPYTERHUB.defaults(), read_yaml(path))
    return [f"{shown(path)}: {line}" for line in schema_problems(merged, JUPYTERHUB.schema())]


def check_ngshare(path: Path) -> list[str]:
    """Problems of an ngshare chart values file, each line starting with the file's name."""
    return [
        f"{shown(path)}: {key}: not a value of the {NGSHARE_CHART.name} chart "
        f"(see {shown(NGSHARE_CHART.folder / 'values.yaml')})"
        for key in unknown_keys(NGSHARE_CHART.defaults(), read_yaml(path))
    ]


def values_files(description: str, argv: list[str] | None) -> tuple[Path, Path]:
    """The jupyterhub and the ngshare values files the command line names (``--hub``, ``--ngshare``;
    the course's own by default)."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--hub", type=Path, default=K8S / "config.yaml", help="jupyterhub chart values")
    parser.add_argument("--ngshare", type=Path, default=K8S / "ngshare.yaml", help="ngshare chart values")
    args = parser.parse_args(argv)
    return args.hub, args.ngshare


def report(outcomes: list[tuple[list[str], str]]) -> int:
    """Each file's line when it has no problem (on stdout), then every problem (on stderr); the exit
    status (1 when any)."""
    problems = [line for found, _ in outcomes for line in found]
    for found, fine in outcomes:
        if not found:
            print(fine)
    for line in problems:
        print(line, file=sys.stderr)
    return 1 if problems else 0


def main(argv: list[str] | None = None) -> int:
    hub, ngshare = values_files(__doc__.split("\n\n")[0], argv)
    outcomes = []
    for path, check, chart in ((hub, check_hub, JUPYTERHUB), (ngshare, check_ngshare, NGSHARE_CHART)):
        try:
            found = check(path)
        except ValuesError as error:
            found = [str(error)]
        outcomes.append((found, f"{shown(path)}: valid values for the {chart.name} chart"))
    return report(outcomes)


if __name__ == "__main__":
    sys.exit(main())
