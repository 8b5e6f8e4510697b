"""The class on Zero to JupyterHub (hub/k8s/): its values pass the charts' own checks and a misspelled
key does not; the instructors' Lab gets the course's instructor setting; the course's image is built
from the public edition's files only, every package pinned, its JupyterHub the chart's."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
K8S = ROOT / "hub" / "k8s"
sys.path.insert(0, str(ROOT / "tools"))
import k8s_values  # noqa: E402  # tools/k8s_values.py
import public_edition  # noqa: E402  # tools/public_edition.py

from tests.e2e.test_guide_round import console_commands, section  # noqa: E402  # the guide, read as its test reads it


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = k8s_values.main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_the_course_values_pass_both_charts_checks(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys)
    assert (status, err) == (0, "")
    assert out.splitlines() == [
        "hub/k8s/config.yaml: valid values for the jupyterhub 4.4.0 (Zero to JupyterHub) chart",
        "hub/k8s/ngshare.yaml: valid values for the ngshare 0.6.0 chart",
    ]


UNEXPECTED = "Additional properties are not allowed ('{}' was unexpected)"


@pytest.mark.parametrize(("line", "typo", "named"), [
    ("singleuser:", "singleusr:", "(top level): " + UNEXPECTED.format("singleusr")),
    ("  extraConfig:", "  extraconfig:", "hub: " + UNEXPECTED.format("extraconfig")),
    ("      mountPath: /etc/jupyter/nbgrader_config.py", "      mountpath: /etc/jupyter/nbgrader_config.py",
     "singleuser.extraFiles.nbgrader-exchange:"),
    ("  timeout: 3600", "  timeout: an hour", "cull.timeout: 'an hour' is not of type 'integer', 'null'"),
])
def test_a_misspelled_hub_value_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                         line: str, typo: str, named: str) -> None:
    text = (K8S / "config.yaml").read_text()
    assert text.count(f"\n{line}\n") == 1, line
    edited = tmp_path / "config.yaml"
    edited.write_text(text.replace(f"\n{line}\n", f"\n{typo}\n"))
    status, _, err = run(capsys, "--hub", str(edited))
    assert status == 1
    assert any(problem.startswith(f"{edited}: {named}") for problem in err.splitlines()), err


def test_a_misspelled_exchange_value_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    edited = tmp_path / "ngshare.yaml"
    edited.write_text((K8S / "ngshare.yaml").read_text().replace("  admins:", "  admin:"))
    status, _, err = run(capsys, "--ngshare", str(edited))
    assert status == 1
    assert err.startswith(f"{edited}: ngshare.admin: not a value of the ngshare 0.6.0 chart"), err


def test_an_unreadable_values_file_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "config.yaml"
    bad.write_text("hub: [unclosed\n")
    status, _, err = run(capsys, "--hub", str(bad))
    assert status == 1
    assert len(err.splitlines()) == 1 and err.startswith(f"{bad}: not YAML"), err


def mounted(path: str) -> object:
    files = yaml.safe_load((K8S / "config.yaml").read_text())["singleuser"]["extraFiles"]
    (entry,) = [f for f in files.values() if f["mountPath"] == path]
    return entry.get("data", entry.get("stringData"))


def test_the_instructors_lab_gets_the_course_instructor_setting() -> None:
    course = ROOT / "jupyter-config" / "instructor"
    assert mounted("/etc/jupyter/roofline-hub/instructor/labconfig/page_config.json") == json.loads(
        (course / "labconfig" / "page_config.json").read_text())
    server = json.loads((course / "jupyter_server_config.json").read_text())["ServerApp"]
    assert mounted("/etc/jupyter/roofline-hub/instructor/jupyter_server_config.json") == {"ServerApp": server}


def test_the_students_lab_turns_on_the_assignment_list_the_image_turns_off() -> None:
    image = json.loads((ROOT / "jupyter-config" / "labconfig" / "page_config.json").read_text())
    assert image["disabledExtensions"]["@jupyter/nbgrader:assignment-list"] is True
    lab = mounted("/etc/jupyter/roofline-hub/student/labconfig/page_config.json")
    assert lab == {"disabledExtensions": {"@jupyter/nbgrader:assignment-list": False}}
    server = mounted("/etc/jupyter/roofline-hub/student/jupyter_server_config.json")
    extensions = {"nbgrader.server_extensions.assignment_list": True}
    assert server == {"ServerApp": {"jpserver_extensions": extensions}}
    assert 'course_id = "roofline"' in str(mounted("/etc/jupyter/nbgrader_config.py"))


def copies(dockerfile: str) -> list[tuple[str | None, list[str]]]:
    """Each COPY line's build context (None: the default one) and its sources."""
    found = []
    for line in dockerfile.splitlines():
        words = line.split()
        if words[:1] == ["COPY"]:
            context = next((w.split("=", 1)[1] for w in words if w.startswith("--from=")), None)
            found.append((context, [w for w in words[1:-1] if not w.startswith("--")]))
    return found


def test_the_image_copies_nothing_but_the_public_edition_and_its_hub_requirements() -> None:
    dockerfile = (K8S / "Dockerfile").read_text()
    public = set(public_edition.selected(public_edition.tracked(ROOT))) | {"README.md"}
    contexts = copies(dockerfile)
    assert contexts, "no COPY in hub/k8s/Dockerfile"
    for context, sources in contexts:
        for source in sources:
            if context == "hub":
                assert (K8S / source).is_file(), source
                continue
            assert context is None, context
            assert source in public or any(name.startswith(source.rstrip("/") + "/") for name in public), (
                f"{source} is not in the public edition")
            assert not source.startswith(public_edition.FORBIDDEN_PATHS), source


def test_every_package_the_image_adds_is_pinned_and_its_jupyterhub_is_the_charts() -> None:
    pins = dict(line.split("==") for line in (K8S / "requirements.txt").read_text().splitlines()
                if line and not line.startswith("#"))
    locked = (ROOT / "requirements.lock").read_text().splitlines()
    lock = {name.lower(): version for name, version in (line.split("==") for line in locked if "==" in line)}
    assert all(re.fullmatch(r"[0-9][0-9A-Za-z.]*", version) for version in pins.values()), pins
    # One version of a package in the image: the lock's, but for JupyterHub, which is the chart's
    # (a one-machine hub may pin another in the lock; the image installs this one over it).
    differ = {name: v for name, v in pins.items() if name != "jupyterhub" and lock.get(name.lower(), v) != v}
    assert differ == {}, "pinned otherwise than in requirements.lock"
    chart = yaml.safe_load((k8s_values.Z2JH / "Chart.yaml").read_text())
    assert pins["jupyterhub"] == chart["appVersion"]
    for command in re.findall(r"pip install [^\n&]*", (K8S / "Dockerfile").read_text()):
        words = [w for w in command.split()[2:] if w != "\\" and not w.startswith("-")]
        named = [w for w in words if not w.endswith(".txt")]
        assert all("==" in w for w in named), command



SECTION = "A class on Kubernetes (Zero to JupyterHub)"


def test_the_guides_misspelling_is_what_the_check_prints(tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    (example,) = [line for line in section(SECTION).splitlines() if line.startswith("hub/k8s/config.yaml: ")]
    edited = tmp_path / "config.yaml"
    edited.write_text((K8S / "config.yaml").read_text().replace("\n  image:\n", "\n  imag:\n", 1))
    status, _, err = run(capsys, "--hub", str(edited))
    assert status == 1
    assert err.splitlines() == [example.replace("hub/k8s/config.yaml", str(edited), 1)]


def test_the_guide_installs_the_chart_versions_the_checks_read() -> None:
    commands = console_commands(SECTION)
    installs = {line.split()[4]: line for line in commands if line.startswith("helm upgrade")}
    assert set(installs) == {"ngshare/ngshare", "jupyterhub/jupyterhub"}, installs
    assert "--version 4.4.0 " in installs["jupyterhub/jupyterhub"]
    assert "jupyterhub 4.4.0" in k8s_values.JUPYTERHUB.name
    assert "--version 0.6.0 " in installs["ngshare/ngshare"]
    assert "ngshare 0.6.0" in k8s_values.NGSHARE_CHART.name
    hub = yaml.safe_load((k8s_values.Z2JH / "Chart.yaml").read_text())["appVersion"]
    assert f"JupyterHub {hub}" in section(SECTION)
    (client,) = [line for line in commands if "ngshare-exchange==" in line]
    assert "ngshare-exchange==0.5.3" in client
    assert "ngshare-exchange==0.5.3" in (K8S / "Dockerfile").read_text()
