"""The class on a JupyterHub on one machine (``make hub``): who may log in, whose Lab runs where.

``make hub`` (as root) prepares the machine with :mod:`prepare` and then starts JupyterHub with
``hub/jupyterhub_config.py``, which hands the hub's configuration to :func:`configure`. What it
sets, and why:

- Local system users log in with their password: JupyterHub's default authenticator (PAM). Only
  the members of nbgrader's two course groups may: ``formgrade-<course>`` (the instructor) and
  ``nbgrader-<course>`` (the students), Unix groups :mod:`prepare` creates, loaded into the hub's
  groups of the same names when it starts.
- Each user's server runs as that user (JupyterHub's local process spawner), never in the hub's
  process: a student's notebook runs in a kernel that belongs to the student.
- A student's server is the student environment (``HUB_DIR/venv``: ``pip install -r
  requirements.txt``, the course's JupyterLab settings), with nbgrader's Assignment List switched
  on and the exchange's place (``HUB_DIR/etc/student``); a student who chooses Korean on the spawn
  page gets the Lab in Korean (``jupyter-config/ko``). It starts in the student's home folder,
  which the hub keeps private (mode 0700) before every start.
- The instructor's server is the instructor's environment (the repository's ``.venv``, with
  roofline-grading: make's BIN) in the course folder, with formgrader (``jupyter-config/instructor``),
  which reads the course's nbgrader_config.py (``HUB_DIR/etc/instructor`` names the course root).
- The hub, its proxy and every user's server listen on the address the instructor names.

The settings come from the environment ``make hub`` sets (:class:`Settings`).

>>> settings = Settings.from_environment({"ROOFLINE_HUB_DIR": "/opt/hub", "ROOFLINE_COURSE": "/c",
...     "ROOFLINE_REPOSITORY": "/r", "ROOFLINE_EXCHANGE": "/x", "ROOFLINE_COURSE_ID": "physics101"})
>>> settings.groups()
('formgrade-physics101', 'nbgrader-physics101')
>>> settings.url
'http://127.0.0.1:8000'
"""

from __future__ import annotations

import grp
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

LANGUAGES = {"en": "English", "ko": "한국어"}
"""The Lab's languages a student may choose on the spawn page (jupyter-config/<code> sets each but
English)."""


@dataclass(frozen=True)
class Settings:
    """What ``make hub`` names: the address, the hub's folder, the course folder, the exchange, and
    nbgrader's course id (which make reads from the course's nbgrader_config.py)."""

    hub_dir: Path
    course: Path
    repository: Path
    exchange: Path
    instructor_bin: Path
    course_id: str
    ip: str = "127.0.0.1"
    port: int = 8000

    @classmethod
    def from_environment(cls, environ: Mapping[str, str] = os.environ) -> Settings:
        """The settings ``make hub`` passes as ROOFLINE_HUB_DIR, ROOFLINE_COURSE, ROOFLINE_REPOSITORY,
        ROOFLINE_EXCHANGE, ROOFLINE_INSTRUCTOR_BIN (default: the repository's .venv/bin),
        ROOFLINE_COURSE_ID, ROOFLINE_HUB_IP and ROOFLINE_HUB_PORT."""
        return cls(
            hub_dir=Path(environ["ROOFLINE_HUB_DIR"]),
            course=Path(environ["ROOFLINE_COURSE"]),
            repository=Path(environ["ROOFLINE_REPOSITORY"]),
            exchange=Path(environ["ROOFLINE_EXCHANGE"]),
            instructor_bin=Path(
                environ.get("ROOFLINE_INSTRUCTOR_BIN", f"{environ['ROOFLINE_REPOSITORY']}/.venv/bin")
            ),
            course_id=environ["ROOFLINE_COURSE_ID"],
            ip=environ.get("ROOFLINE_HUB_IP", "127.0.0.1"),
            port=int(environ.get("ROOFLINE_HUB_PORT", "8000")),
        )

    @property
    def url(self) -> str:
        """Where students open the hub."""
        host = f"[{self.ip}]" if ":" in self.ip else self.ip
        return f"http://{host}:{self.port}"

    def groups(self) -> tuple[str, str]:
        """nbgrader's course groups: the instructor's, then the students'."""
        return f"formgrade-{self.course_id}", f"nbgrader-{self.course_id}"


def members(group: str) -> list[str]:
    """The users in the Unix group ``group`` (none if there is no such group).

    >>> members("no-such-group-here")
    []
    """
    try:
        return sorted(grp.getgrnam(group).gr_mem)
    except KeyError:
        return []


def configure(c: Any, settings: Settings) -> None:
    """Set JupyterHub's configuration ``c`` for the class (see the module's docstring)."""
    instructors, students = settings.groups()
    c.JupyterHub.bind_url = settings.url
    c.JupyterHub.hub_ip = settings.ip
    c.JupyterHub.hub_port = settings.port + 2
    c.ConfigurableHTTPProxy.api_url = (
        f"http://{'[::1]' if ':' in settings.ip else '127.0.0.1'}:{settings.port + 1}"
    )
    c.ConfigurableHTTPProxy.command = [
        str(settings.hub_dir / "proxy/node_modules/.bin/configurable-http-proxy")
    ]
    c.JupyterHub.db_url = f"sqlite:///{settings.hub_dir / 'state/jupyterhub.sqlite'}"
    c.JupyterHub.cookie_secret_file = str(settings.hub_dir / "state/jupyterhub_cookie_secret")
    c.JupyterHub.pid_file = str(settings.hub_dir / "state/jupyterhub.pid")
    c.JupyterHub.authenticator_class = "pam"
    c.LocalAuthenticator.allowed_groups = {instructors, students}
    c.JupyterHub.load_groups = {group: {"users": members(group)} for group in (instructors, students)}
    c.JupyterHub.spawner_class = "localprocess"
    c.Spawner.ip = settings.ip
    c.Spawner.default_url = "/lab"
    c.Spawner.env_keep = ["LANG", "LC_ALL", "TZ"]
    c.Spawner.options_form = lambda spawner: _language_form(spawner, instructors)
    c.Spawner.options_from_form = lambda formdata: {"language": language(formdata)}
    c.Spawner.apply_user_options = lambda spawner, options: None  # prepare_spawn applies the language
    c.Spawner.pre_spawn_hook = lambda spawner: prepare_spawn(spawner, settings)


def _language_form(spawner: Any, instructors: str) -> str:
    """The spawn page's choice of the Lab's language (students only; the instructor's Lab is English)."""
    if spawner.user.name in members(instructors):
        return ""
    options = "".join(f'<option value="{code}">{name}</option>' for code, name in LANGUAGES.items())
    label = '<label for="language">Language / 언어</label>'
    return f'{label} <select name="language" id="language">{options}</select>'


def language(user_options: Mapping[str, Any]) -> str:
    """The language a student chose on the spawn page, English if none or one the course has not.

    >>> language({"language": ["ko"]}), language({}), language({"language": ["xx"]})
    ('ko', 'en', 'en')
    """
    chosen = user_options.get("language", ["en"])
    code = chosen[0] if isinstance(chosen, list) and chosen else chosen
    return code if code in LANGUAGES else "en"


def prepare_spawn(spawner: Any, settings: Settings) -> None:
    """Before a user's server starts: the instructor's Lab or a student's (module docstring)."""
    name = spawner.user.name
    instructors, _ = settings.groups()
    spawner.ip = settings.ip
    home = Path(os.path.expanduser(f"~{name}"))
    if home.is_dir():
        home.chmod(0o700)
    if name in members(instructors):
        env_bin = settings.instructor_bin
        config = [settings.repository / "jupyter-config/instructor", settings.hub_dir / "etc/instructor"]
        config.append(settings.hub_dir / "etc/exchange")
        spawner.notebook_dir = str(settings.course)
    else:
        env_bin = settings.hub_dir / "venv/bin"
        config = [settings.hub_dir / "etc/student", settings.hub_dir / "etc/exchange"]
        if language(spawner.user_options or {}) != "en":
            config.insert(0, settings.hub_dir / "etc" / language(spawner.user_options))
        spawner.notebook_dir = str(home)
    spawner.cmd = [str(env_bin / "jupyterhub-singleuser")]
    spawner.environment = {
        "PATH": f"{env_bin}:/usr/local/bin:/usr/bin:/bin",
        "JUPYTER_CONFIG_PATH": ":".join(str(folder) for folder in config),
    }
