"""The class on a JupyterHub on one machine (``make hub``; the guide's "A class on a JupyterHub").

The real hub (``make hub``: JupyterHub, configurable-http-proxy, PAM) on loopback, with an
instructor and three students who are system users the test creates and removes. The instructor
releases with ``make hub-release``; students log in with their password, start their Lab (one
in Korean) and fetch and submit through nbgrader's Assignment List API, as its panel does. Then
what a student must not reach: another's submission, the course folder, the grading secret,
formgrader; and where a student's code runs (as the student, not in the hub). A whole round
(fetch, answer, validate, submit, one late; collect, autograde, feedback, return) gives the points
the same notebooks get from an LMS zip; last, in Debian's chromium, a student fetches from the
Lab's Assignment List, types the answers of an exercise, validates and submits, and another (in
the Korean Lab) fetches and opens the round's feedback.
The tests share one hub and run in this order (the last needs the round's feedback).

The grading steps (autograde, feedback) run as root with this checkout's environment: the
instructor's thin environment (tests/support/hub.py) cannot lend its packages to the sandbox.
"""

from __future__ import annotations

import csv
import pwd
import re
import secrets
import shutil
import subprocess
import tempfile
import time
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path
from typing import Any

import nbformat
import pytest

from tests.support.hub import (
    Hub,
    Login,
    as_user,
    groups_removed,
    instructor_environment,
    running_hub,
    system_users,
)
from tests.support.jupyterlab import close_dialog, type_answers, validate, wait_idle
from tests.support.make_targets import ROOT, command, make
from tests.support.slips import answered

pytestmark = [pytest.mark.lab, pytest.mark.slow, pytest.mark.xdist_group("hub")]

INSTRUCTOR, STUDENTS = "rkhub-prof", ("rkhub-ann", "rkhub-bo", "rkhub-chul")
COURSE_GROUPS = ("formgrade-roofline", "nbgrader-roofline")
"""nbgrader's course groups (hub/roofline_hub.py): removed at the end if the test made them."""
SECRET = ".grading-secret"


@dataclass
class Class:
    hub: Hub
    passwords: dict[str, str]
    instructor_bin: Path

    def login(self, name: str) -> Login:
        return Login(self.hub, name, self.passwords[name])


@pytest.fixture(scope="module")
def hub_class(released_course: Path) -> Iterator[Class]:
    """The hub running for the class, the assignment released to the exchange."""
    passwords = {name: secrets.token_urlsafe(12) for name in (INSTRUCTOR, *STUDENTS)}
    base = Path(tempfile.mkdtemp(prefix="rkhub-", dir="/tmp"))
    base.chmod(0o755)  # every user passes through to the exchange and the environments
    try:
        students = dict.fromkeys(STUDENTS, COURSE_GROUPS[1])
        with groups_removed(COURSE_GROUPS), system_users(passwords, students):
            course = base / "course"
            shutil.copytree(released_course, course)
            (course / SECRET).write_text(secrets.token_hex(16))
            subprocess.run(["chown", "-R", f"{INSTRUCTOR}:", str(course)], check=True)
            course.chmod(0o700)
            instructor_bin = instructor_environment(base / "instructor-env")
            with running_hub(base, course, instructor_bin) as hub:
                release = as_user(
                    INSTRUCTOR,
                    *_with_bin(
                        command("hub-release", course=course, EXCHANGE=str(hub.exchange)), instructor_bin
                    ),
                )
                assert release.returncode == 0, release.stdout + release.stderr
                yield Class(hub, passwords, instructor_bin)
    finally:
        shutil.rmtree(base, ignore_errors=True)


def _with_bin(make: list[str], bin_dir: Path) -> list[str]:
    return [f"BIN={bin_dir}" if part.startswith("BIN=") else part for part in make]


def assignment(login: Login, action: str) -> dict[str, object]:
    """What the Assignment List panel's button ``action`` (fetch, submit, fetch_feedback) answers."""
    answer = login.post(f"assignments/{action}", {"course_id": "roofline", "assignment_id": "roofline"})
    assert answer.status_code == 200, answer.text
    reply: dict[str, object] = answer.json()
    return reply


def test_a_wrong_password_does_not_log_in(hub_class: Class) -> None:
    assert not Login(hub_class.hub, STUDENTS[0], "not-the-password").logged_in


def test_a_student_fetches_and_submits_in_the_assignment_list(hub_class: Class) -> None:
    ann = hub_class.login(STUDENTS[0])
    assert ann.logged_in
    ann.spawn()
    listed = ann.get("assignments?course_id=roofline").json()
    assert [(a["assignment_id"], a["status"]) for a in listed["value"]] == [("roofline", "released")]
    assert assignment(ann, "fetch")["success"] is True
    home = Path(pwd.getpwnam(STUDENTS[0]).pw_dir)
    released = sorted(p.name for p in (hub_class.hub.course / "exercises/roofline").glob("*.ipynb"))
    assert sorted(p.name for p in (home / "roofline").glob("*.ipynb")) == released
    assert assignment(ann, "submit")["success"] is True
    statuses = {a["status"] for a in ann.get("assignments?course_id=roofline").json()["value"]}
    assert "submitted" in statuses


def test_the_students_lab_has_the_assignment_list_and_no_instructor_tool(hub_class: Class) -> None:
    bo = hub_class.login(STUDENTS[1])
    bo.spawn()
    page = bo.get("lab").text
    disabled = re.search(r'"disabledExtensions": \[([^\]]*)\]', page)
    assert disabled is not None
    assert "@jupyter/nbgrader:formgrader" in disabled.group(1)
    assert "@jupyter/nbgrader:assignment-list" not in disabled.group(1)
    assert bo.get("formgrader").status_code == 404


def test_a_student_who_chooses_korean_gets_the_lab_in_korean(hub_class: Class) -> None:
    chul, bo = hub_class.login(STUDENTS[2]), hub_class.login(STUDENTS[1])
    chul.spawn(language="ko")
    bo.spawn()
    assert lab_language(chul) == "ko_KR"
    assert lab_language(bo) != "ko_KR"


def lab_language(login: Login) -> str:
    """The language the user's Lab opens in: the default of Settings > Language."""
    setting = login.get("lab/api/settings/@jupyterlab/translation-extension:plugin").json()
    return str(setting["schema"]["properties"]["locale"]["default"])


def test_the_instructor_has_formgrader_and_a_student_cannot_open_it(hub_class: Class) -> None:
    professor = hub_class.login(INSTRUCTOR)
    professor.spawn()
    assert professor.get("formgrader").status_code == 200
    ann = hub_class.login(STUDENTS[0])
    for path in ("formgrader", "api/contents", f"files/{SECRET}"):
        answer = ann.get(path, user=INSTRUCTOR)
        assert answer.status_code in (403, 404), (path, answer.status_code)
        assert "solutions" not in answer.text and SECRET not in answer.text


def test_one_student_cannot_reach_another_students_submission(hub_class: Class) -> None:
    ann, bo = hub_class.login(STUDENTS[0]), hub_class.login(STUDENTS[1])
    ann.spawn()
    assignment(ann, "fetch")
    assignment(ann, "submit")
    inbound = hub_class.hub.exchange / "roofline" / "inbound"
    submission = next(p for p in inbound.iterdir() if p.name.startswith(f"{STUDENTS[0]}+"))
    listing = as_user(STUDENTS[1], "ls", str(inbound))
    assert listing.returncode != 0 and "Permission denied" in listing.stderr
    removal = as_user(STUDENTS[1], "rm", "-rf", str(submission))
    assert removal.returncode != 0 and submission.exists()
    home = as_user(STUDENTS[1], "ls", pwd.getpwnam(STUDENTS[0]).pw_dir)
    assert home.returncode != 0 and "Permission denied" in home.stderr
    bo.spawn()
    assert all(a["status"] != "submitted" for a in bo.get("assignments?course_id=roofline").json()["value"])


def test_a_student_cannot_read_the_course_folder_or_the_grading_secret(hub_class: Class) -> None:
    course = hub_class.hub.course
    for arguments in (
        ("ls", str(course)),
        ("cat", str(course / SECRET)),
        ("cat", str(course / "gradebook.db")),
    ):
        denied = as_user(STUDENTS[1], *arguments)
        assert denied.returncode != 0 and "Permission denied" in denied.stderr, arguments
    assert as_user(INSTRUCTOR, "cat", str(course / SECRET)).returncode == 0


def test_a_students_code_runs_as_the_student_on_the_hubs_address(hub_class: Class) -> None:
    bo = hub_class.login(STUDENTS[1])
    bo.spawn()
    xsrf = bo.session.cookies.get("_xsrf", path=f"/user/{STUDENTS[1]}/") or ""
    kernel = bo.session.post(
        f"{hub_class.hub.url}/user/{STUDENTS[1]}/api/kernels",
        json={},
        headers={"X-XSRFToken": xsrf},
        timeout=60,
    ).json()
    owners = {_owner(pid) for pid in _processes_naming(kernel["id"])}
    assert owners == {STUDENTS[1]}
    (server,) = [pid for pid in _processes_naming("jupyterhub-singleuser") if _owner(pid) == STUDENTS[1]]
    environment = Path(f"/proc/{server}/environ").read_bytes().split(b"\0")
    (url,) = [v for v in environment if v.startswith(b"JUPYTERHUB_SERVICE_URL=")]
    assert url.startswith(b"JUPYTERHUB_SERVICE_URL=http://127.0.0.1:")


def test_make_hub_refuses_a_course_folder_other_users_can_read(tmp_path: Path) -> None:
    course = tmp_path / "open-course"
    course.mkdir(mode=0o755)
    course.chmod(0o755)
    shutil.copy(ROOT / "nbgrader_config.py", course)  # a course folder: make reads its course id first
    make = command("hub", course=course, HUB_DIR=str(tmp_path / "hub"), EXCHANGE=str(tmp_path / "x"))
    refused = subprocess.run(
        [*make[: make.index("hub")], "-o", f"{tmp_path}/hub/.installed", "hub"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert refused.returncode != 0
    assert f"make hub: {course} is open to other users (mode 0755)" in refused.stderr
    assert f"chmod 700 {course}" in refused.stderr


def _processes_naming(text: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if text.encode() in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def _owner(pid: int) -> str:
    return pwd.getpwuid(Path(f"/proc/{pid}").stat().st_uid).pw_name


# --- A whole round on the hub, in the students' Labs ---------------------------------------

TYPED = "ex5_h100_threshold"
"""The exercise each student answers by typing in chromium (a short one: typing takes the same
path in any)."""
ON_TIME, LATE = STUDENTS[1], STUDENTS[2]
"""The two students of the round: bo in the English Lab, on time; chul in the Korean Lab, late."""
LANGUAGE = {ON_TIME: "en", LATE: "ko"}


@contextmanager
def lab_in_chromium(chromium: Any, hub_class: Class, name: str) -> Iterator[Any]:
    """The student's Lab in Debian's chromium: the hub's login page, its spawn page if the server
    is not running (the student's language chosen there), then the Lab; every request to another
    host fails."""
    context = chromium.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    try:
        page.goto(f"{hub_class.hub.url}/hub/login")
        page.fill("#username_input", name)
        page.fill("#password_input", hub_class.passwords[name])
        page.click("#login_submit")
        page.wait_for_url(re.compile(r".*/(hub/spawn|user/).*"), timeout=60_000)
        if "/hub/spawn" in page.url and page.locator("#spawn_form").count():
            page.select_option("#language", LANGUAGE.get(name, "en"))
            page.click("#spawn_form button[type=submit]")
        page.locator(".jp-DirListing-content").wait_for(timeout=180_000)
        yield page
    finally:
        context.close()


def assignment_list(page: Any) -> Any:
    """Open nbgrader's Assignment List from the Lab's Nbgrader menu, as a student does."""
    page.locator(".lm-MenuBar-itemLabel", has_text="Nbgrader").click()
    page.locator(".lm-Menu-itemLabel", has_text="Assignment List").click()
    panel = page.locator("#nbgrader-assignment-list")
    panel.wait_for(timeout=60_000)
    return panel


def work_in_the_lab(chromium: Any, hub_class: Class, name: str) -> nbformat.NotebookNode:
    """In the student's Lab: the Assignment List's Fetch, the exercise TYPED answered by typing,
    saved (Ctrl+S), Validate, then Submit; the notebook the exchange received."""
    notebook = answered(TYPED, language=LANGUAGE[name])
    with lab_in_chromium(chromium, hub_class, name) as page:
        panel = assignment_list(page)
        panel.locator("#released_assignments_list").get_by_role("button", name="Fetch").click()
        fetched = panel.locator("#fetched_assignments_list .assignment-notebooks-link")
        fetched.filter(has_text="roofline").wait_for(timeout=60_000)
        page.goto(f"{hub_class.hub.url}/user/{name}/lab/tree/roofline/{TYPED}.ipynb")
        page.locator(".jp-NotebookPanel:visible").wait_for(timeout=120_000)
        wait_idle(page)
        type_answers(page, notebook)
        saved(page)
        result = validate(page)
        assert "Success! Your notebook passes all the tests." in result, result[:2000]
        close_dialog(page)
        panel = assignment_list(page)
        panel.locator("#fetched_assignments_list").get_by_role("button", name="Submit").click()
        panel.locator("#submitted_assignments_list .item_status").first.wait_for(timeout=120_000)
    inbound = hub_class.hub.exchange / "roofline" / "inbound"
    (submission,) = [p for p in inbound.iterdir() if p.name.startswith(f"{name}+")]
    return nbformat.read(submission / f"{TYPED}.ipynb", as_version=4)


def saved(page: Any) -> None:
    """Ctrl+S, as a student saves the notebook; done when its tab shows no unsaved change.

    JupyterLab asks "File Changed ... Overwrite?" only when the file on disk is not the one it
    opened (jupyter_server's sha256 of it, or its time 0.5 s later). nbgrader's fetch copies the
    release before the Lab opens it, keeping its times, and nothing of the course's writes a
    student's notebook afterwards, so the dialog fails the test, with the reason the Lab logs.
    What can raise it is JupyterLab's own: it does not queue one notebook's saves, and a save
    begun while another is under way (Ctrl+S as the autosave runs, or Validate's save) finds the
    file the first one wrote (the guide, "A class on a JupyterHub"); hence the wait here."""
    reasons: list[str] = []
    page.on("console", lambda m: reasons.append(m.text))
    page.keyboard.press("Control+s")
    page.wait_for_function(
        """() => document.querySelector('.jp-Dialog')
                 || !document.querySelector('.lm-TabBar-tab.jp-mod-dirty')""",
        timeout=60_000,
    )
    changed = [r for r in reasons if "hash found" in r or "Last saving performed" in r]
    assert not page.locator(".jp-Dialog").count(), f"the Lab asked before saving: {changed}"


def answers(notebook: nbformat.NotebookNode) -> list[str]:
    return [c.source for c in notebook.cells if c.metadata.get("nbgrader", {}).get("solution")]


@pytest.mark.browser
def test_in_the_lab_two_students_fetch_answer_validate_and_submit(hub_class: Class, chromium: Any) -> None:
    """bo in the English Lab, then, after the due date, chul in the Korean Lab, who fetches the
    Korean notebooks; each submits the answers typed."""
    course = hub_class.hub.course
    instructor = partial(as_user, INSTRUCTOR, cwd=course)
    with (course / "nbgrader_config.py").open("a") as config:
        config.write('\nc.LateSubmissionPlugin.penalty_method = "zero"\n')
    sent = work_in_the_lab(chromium, hub_class, ON_TIME)
    assert answers(sent) == answers(answered(TYPED)) and language_of(sent) == "en"
    due = datetime.now(UTC) + timedelta(seconds=1)
    nbgrader = str(hub_class.instructor_bin / "nbgrader")
    added = instructor(
        nbgrader, "db", "assignment", "add", "roofline", f"--duedate={due:%Y-%m-%d %H:%M:%S} UTC"
    )
    assert added.returncode == 0, added.stderr
    time.sleep(2)
    sent = work_in_the_lab(chromium, hub_class, LATE)  # after the due date, by the exchange's clock
    assert answers(sent) == answers(answered(TYPED, language="ko")) and language_of(sent) == "ko"


def language_of(notebook: nbformat.NotebookNode) -> str:
    """The language of the release a notebook came from (its metadata), English if none."""
    return str(notebook.metadata.get("roofline", {}).get("language", "en"))


def grades(course: Path) -> dict[str, dict[str, str]]:
    make("grades", course=course, GRADES="grades.csv")
    with (course / "grades.csv").open(newline="") as handle:
        return {row["student_id"]: row for row in csv.DictReader(handle)}


def test_a_round_on_the_hub_grades_as_the_lms_round_does(
    hub_class: Class, released_course: Path, tmp_path: Path
) -> None:
    """The two submissions of the Labs (test_in_the_lab_two_students_...): collected, graded,
    the feedback returned; the same points from an LMS zip of the same notebooks, and the same
    answers the same points in either language."""
    course, bo = hub_class.hub.course, hub_class.login(ON_TIME)
    instructor = partial(as_user, INSTRUCTOR, cwd=course)
    in_course = dict(course=course, EXCHANGE=str(hub_class.hub.exchange))
    collected = instructor(*_with_bin(command("hub-collect", **in_course), hub_class.instructor_bin))
    assert collected.returncode == 0, collected.stderr
    make("autograde", "feedback", course=course)  # the checkout's environment: see tests/support/hub.py
    subprocess.run(["chown", "-R", f"{INSTRUCTOR}:", str(course)], check=True)
    returned = instructor(*_with_bin(command("hub-return", **in_course), hub_class.instructor_bin))
    assert returned.returncode == 0, returned.stderr

    bo.spawn()
    assert assignment(bo, "fetch_feedback")["success"] is True
    (submitted,) = [
        a for a in bo.get("assignments?course_id=roofline").json()["value"] if a["status"] == "submitted"
    ]
    latest = max(submitted["submissions"], key=lambda s: s["timestamp"])
    assert latest["has_local_feedback"] is True
    home = Path(pwd.getpwnam(ON_TIME).pw_dir)
    assert (home / latest["local_feedback_path"] / f"{TYPED}.html").is_file()

    on_hub = grades(course)
    assert float(on_hub[ON_TIME]["late_submission_penalty"]) == 0
    assert float(on_hub[LATE]["late_submission_penalty"]) == float(on_hub[LATE]["raw_score"]) > 0
    assert float(on_hub[LATE]["raw_score"]) == float(on_hub[ON_TIME]["raw_score"])

    from_lms = tmp_path / "lms-course"
    shutil.copytree(released_course, from_lms)
    archive = tmp_path / "submissions.zip"
    with zipfile.ZipFile(archive, "w") as zipped:
        for student in (ON_TIME, LATE):
            for notebook in (course / "submitted" / student / "roofline").glob("*.ipynb"):
                zipped.write(notebook, f"{student}_{notebook.name}")
    make("collect", "autograde", course=from_lms, ZIP=str(archive))
    in_lms = grades(from_lms)
    for student in (ON_TIME, LATE):
        assert float(in_lms[student]["raw_score"]) == float(on_hub[student]["raw_score"]) > 0


@pytest.mark.browser
def test_in_the_lab_a_student_fetches_the_feedback_and_opens_it(hub_class: Class, chromium: Any) -> None:
    """After the round, the late student's feedback, in the Korean Lab, on the Korean notebook."""
    with lab_in_chromium(chromium, hub_class, LATE) as page:
        panel = assignment_list(page)
        submitted = panel.locator("#submitted_assignments_list")
        submitted.get_by_text("(feedback available to fetch)").first.wait_for(timeout=60_000)
        submitted.get_by_role("button", name="Fetch Feedback").first.click()
        submitted.get_by_text("(view feedback)").first.click()
        listing = page.locator(".jp-DirListing-content")
        listing.get_by_text(f"{TYPED}.html").wait_for(timeout=60_000)
    home = Path(pwd.getpwnam(LATE).pw_dir)
    (page_file,) = home.glob(f"roofline/feedback/*/{TYPED}.html")
    korean = answered(TYPED, language="ko")
    title = korean.cells[0].source.splitlines()[0].lstrip("# ")
    assert title in page_file.read_text(encoding="utf-8")
