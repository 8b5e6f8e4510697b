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

import json
import shutil
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
# The same files and lines as the schema's check:
from k8s_values import NGSHARE, Z2JH, report, shown, values_files

RELEASE = {"name": "roofline", "namespace": "roofline"}
WARNING = 2  # helm lint's severities: 1 info, 2 warning, 3 error


def kinds(manifests: str) -> list[str]:
    """The ``kind`` of each object in a rendered template's YAML documents, sorted."""
    return sorted(doc["kind"] for doc in yaml.safe_load_all(manifests) if isinstance(doc, dict))


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

    hub, ngshare = values_files(__doc__.split("\n\n")[0], argv)
    outcomes = []
    with tempfile.TemporaryDirectory() as scratch:
        for values_file, chart in ((hub, Z2JH), (ngshare, NGSHARE)):
            found, rendered = helm_problems(values_file, packaged(chart, Path(scratch)))
            objects = ", ".join(f"{count} {kind}" for kind, count in sorted(rendered.items()))
            fine = (f"{shown(values_file)}: Helm {helm.helm_sdk_version()} lints the {chart.name} chart with "
                    f"it and renders {sum(rendered.values())} objects ({objects})")
            outcomes.append((found, fine))
    return report(outcomes)


if __name__ == "__main__":
    sys.exit(main())
