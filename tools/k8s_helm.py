"""Run Helm itself on the course's Kubernetes values, without a cluster: `helm lint` and `helm template`.

Helm's own Go library, through helm-python-sdk (PyPI; Helm 4's SDK compiled into the wheel, so no
``helm`` binary is needed: Debian and npm have none), lints each vendored chart with the course's
values, validates the values against the chart's schema as ``helm install`` does, and renders every
template as ``helm template`` does. A template that fails on the values, a finding of the linter
(a warning or an error) or a value the schema refuses is one line naming it, and exit status 1.

It runs in an environment of its own (``make k8s-check`` makes ``.venv-helm`` from
``hub/k8s/requirements-helm.txt``): the wheel holds Helm's library for one platform (Linux x86-64
and macOS among them), too large and too specific for the course's lock.

    python tools/k8s_helm.py [--hub FILE] [--ngshare FILE]

>>> kinds("kind: Service\\n---\\nkind: Pod\\n---\\n# nothing\\n")
['Pod', 'Service']
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
K8S = ROOT / "hub" / "k8s"
Z2JH = K8S / "vendor" / "zero-to-jupyterhub-4.4.0" / "jupyterhub"
NGSHARE = K8S / "vendor" / "ngshare-0.6.0" / "ngshare"
RELEASE = {"name": "roofline", "namespace": "roofline"}
WARNING = 2  # helm lint's severities: 1 info, 2 warning, 3 error


def kinds(manifests: str) -> list[str]:
    """The ``kind`` of each object in a rendered template's YAML documents, sorted."""
    return sorted(doc["kind"] for doc in yaml.safe_load_all(manifests) if isinstance(doc, dict))


def shown(path: Path) -> str:
    """``path`` relative to the repository when it is in it."""
    resolved = path.resolve()
    return str(resolved.relative_to(ROOT)) if resolved.is_relative_to(ROOT) else str(path)


def packaged(chart: Path, into: Path) -> Path:
    """A copy of ``chart`` as its release packages it: with ``values.schema.json`` (the vendored
    ``values.schema.yaml`` as JSON), which Helm reads to validate values."""
    copy = Path(shutil.copytree(chart, into / chart.name))
    schema = copy / "values.schema.yaml"
    if schema.is_file():
        (copy / "values.schema.json").write_text(json.dumps(yaml.safe_load(schema.read_text())))
    return copy


def helm_problems(values_file: Path, chart: Path) -> tuple[list[str], Counter[str]]:
    """What Helm finds wrong with ``values_file`` for ``chart`` (lines), and the kinds of the
    objects it renders."""
    import helm_python as helm

    values: dict[str, Any] = yaml.safe_load(values_file.read_text())
    name = shown(values_file)
    report = helm.lint(str(chart), values, namespace=RELEASE["namespace"])
    problems = [f"{name}: helm lint: {one_line(m['path'])}: {one_line(m['error'])}"
                for m in report["messages"] if m["severity"] >= WARNING]
    rendered: Counter[str] = Counter()
    try:
        with helm.Chart.load(str(chart)) as loaded:
            loaded.validate_schema(values)
            for template, manifests in loaded.render(values, **RELEASE).items():
                if template.endswith(".yaml"):  # not NOTES.txt, the text helm prints
                    rendered.update(kinds(manifests))
    except helm.HelmError as error:
        problems.append(f"{name}: helm: {one_line(str(error))}")
    return list(dict.fromkeys(problems)), rendered


def one_line(text: str) -> str:
    """Helm's multi-line message on one line."""
    return " ".join(text.split())


def rendered(values_file: Path, chart: Path) -> list[dict[str, Any]]:
    """Every object Helm renders from ``chart`` with ``values_file``, as ``helm template`` prints them."""
    import helm_python as helm

    values = yaml.safe_load(values_file.read_text())
    with tempfile.TemporaryDirectory() as scratch:
        copy = packaged(chart, Path(scratch))
        with helm.Chart.load(str(copy)) as loaded:
            templates = loaded.render(values, **RELEASE)
    texts = [text for template, text in templates.items() if template.endswith(".yaml")]
    return [doc for text in texts for doc in yaml.safe_load_all(text) if isinstance(doc, dict)]


def main(argv: list[str] | None = None) -> int:
    import helm_python as helm

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hub", type=Path, default=K8S / "config.yaml", help="jupyterhub chart values")
    parser.add_argument("--ngshare", type=Path, default=K8S / "ngshare.yaml", help="ngshare chart values")
    args = parser.parse_args(argv)
    problems = []
    with tempfile.TemporaryDirectory() as scratch:
        for values_file, chart in ((args.hub, Z2JH), (args.ngshare, NGSHARE)):
            found, rendered = helm_problems(values_file, packaged(chart, Path(scratch)))
            problems += found
            if not found:
                objects = ", ".join(f"{count} {kind}" for kind, count in sorted(rendered.items()))
                print(f"{shown(values_file)}: Helm {helm.helm_sdk_version()} lints the "
                      f"{chart.name} chart with it and renders {sum(rendered.values())} objects ({objects})")
    for line in problems:
        print(line, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
