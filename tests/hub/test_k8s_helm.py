"""Helm itself on the class's values (make k8s-check: helm lint, the schema, every template rendered,
by Helm's Go SDK from PyPI in .venv-helm): the values pass, a misspelled key is named, and the
objects the cluster would get hold the course's groups, the exchange and the network policy."""

from __future__ import annotations

import base64
import json
import re
import subprocess
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
HELM_PYTHON = ROOT / ".venv-helm" / "bin" / "python"

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("k8s-helm")]


@pytest.fixture(scope="module")
def k8s_check() -> str:
    """`make k8s-check`'s output (it makes .venv-helm the first time)."""
    done = subprocess.run(["make", "-s", "k8s-check"], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_helm_lints_and_renders_both_charts_with_the_course_values(k8s_check: str) -> None:
    lines = k8s_check.splitlines()
    assert "hub/k8s/config.yaml: valid values for the jupyterhub 4.4.0 (Zero to JupyterHub) chart" in lines
    assert any(line.startswith("hub/k8s/config.yaml: Helm v4.") and "lints the jupyterhub chart" in line
               for line in lines), lines
    assert any(line.startswith("hub/k8s/ngshare.yaml: Helm v4.") for line in lines), lines


def test_helm_names_a_misspelled_key(k8s_check: str, tmp_path: Path) -> None:
    edited = tmp_path / "config.yaml"
    edited.write_text((ROOT / "hub/k8s/config.yaml").read_text().replace("\nsingleuser:\n", "\nsingleusr:\n"))
    done = subprocess.run([str(HELM_PYTHON), "tools/k8s_helm.py", "--hub", str(edited)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1
    refused = "helm: jupyterhub: - at '': additional properties 'singleusr' not allowed"
    assert f"{edited}: {refused}" in done.stderr


def objects() -> list[dict]:
    script = ("import json, sys; sys.path.insert(0, 'tools'); import k8s_helm as h; "
              "print(json.dumps(h.rendered(h.Path('hub/k8s/config.yaml'), h.Z2JH)))")
    done = subprocess.run([str(HELM_PYTHON), "-c", script], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def named(rendered: list[dict], kind: str, name: str) -> dict:
    return next(o for o in rendered if o["kind"] == kind and o["metadata"]["name"] == name)


def test_the_rendered_cluster_holds_the_groups_the_exchange_and_the_network_policy(k8s_check: str) -> None:
    rendered = objects()
    policy = named(rendered, "NetworkPolicy", "singleuser")
    exchange = {"podSelector": {"matchLabels": {"app.kubernetes.io/name": "ngshare"}}}
    to_exchange = [rule for rule in policy["spec"]["egress"] if exchange in rule.get("to", [])]
    assert to_exchange and to_exchange[0]["ports"] == [{"port": 8080, "protocol": "TCP"}]
    # Into a user's pod only from the pods the chart lets in (the proxy, the hub), not from another user's.
    allowed = {"podSelector": {"matchLabels": {"hub.jupyter.org/network-access-singleuser": "true"}}}
    assert [rule["from"] for rule in policy["spec"]["ingress"]] == [[allowed]]
    values = yaml.safe_load(base64.b64decode(named(rendered, "Secret", "hub")["data"]["values.yaml"]))
    groups = values["hub"]["config"]["JupyterHub"]["load_groups"]
    assert set(groups) == {"formgrade-roofline", "nbgrader-roofline", "roofline-ko"}
    assert "roofline-roles.py" in values["hub"]["extraConfig"]


# The section's commands that need what no test here has, by how they start: a cluster and a
# registry (helm, kubectl, docker), the hub's exchange and your hub token (ngshare's and nbgrader's
# exchange commands, the token's export), the course's grading machines (SCHEDULER=), a graded
# round (feedback, grades), or a change to your environment and course (pip, nbgrader_config.py,
# make exercises: the grading round's tests run those).
NEEDS = ("helm ", "kubectl ", "docker ", ".venv/bin/ngshare-course-management ", ".venv/bin/nbgrader ",
         "export JUPYTERHUB_", "make autograde SCHEDULER=", "make feedback", "make grades",
         ".venv/bin/pip install", "printf ", "make exercises")


def test_the_guides_commands_that_need_no_cluster(k8s_check: str, tmp_path: Path) -> None:
    from tests.e2e.test_guide_round import console_commands

    commands = console_commands("A class on Kubernetes (Zero to JupyterHub)")
    runnable = [c for c in commands if not c.startswith(NEEDS)]
    assert runnable == [
        "make k8s-check",
        "make public-edition DEST=../roofline-public REPOSITORY_URL=https://github.com/your-org/roofline-course",
        "NGSHARE_TOKEN=$(openssl rand -hex 32)",
    ]
    # make k8s-check: the fixture ran it. The public edition, into a folder of the test's.
    edition = tmp_path / "roofline-public"
    public = runnable[1].replace("DEST=../roofline-public", f"DEST={edition}")
    done = subprocess.run(public, shell=True, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    (build,) = [c for c in commands if c.startswith("docker build")]
    assert build.endswith(" ../roofline-public")
    for line in (ROOT / "hub/k8s/Dockerfile").read_text().splitlines():
        if line.startswith("COPY ") and "--from=" not in line:
            assert all((edition / source).exists() for source in line.split()[1:-1]), line
    private = ("solutions", "grading", ".grading-secret", "gradebook.db")
    assert not [p for p in private if (edition / p).exists()]
    token = subprocess.run(["bash", "-c", runnable[2] + ' && printf %s "$NGSHARE_TOKEN"'],
                           capture_output=True, text=True, timeout=30)
    assert re.fullmatch(r"[0-9a-f]{64}", token.stdout), token
