"""The course's public home, ``repository.url`` in _config.yml, on any host, and its buttons.

Until the address is set, the pages show no repository, issues or launch button (each would
lead nowhere), and the tag ``course_home`` is not set (:func:`course_home`). Once it is set, every
page gets them, whatever the host:

- sphinx-book-theme knows three hosts, GitHub, GitLab and Bitbucket (a host whose name holds one
  of those words counts as it: a self-hosted GitLab), and stops the build at any other ("Provider
  not recognized in repository url"). An address on another host (a university's Gitea, Codeberg,
  a forge of one's own) is handed to the theme as Bitbucket's kind, the theme's treatment of any
  host but GitHub and GitLab: a plain link to the address, Binder's generic ``git`` provider;
  its button then shows git's logo instead of Bitbucket's (:func:`any_host_buttons`).
- The issues button appears where the address of a new issue is known: GitHub and GitLab. The
  theme would warn for any other host, and a warning fails the build.
- The launch buttons: Binder builds the repository from ``binder/`` on every host, through its
  ``gh`` and ``gl`` providers for github.com and gitlab.com and its generic ``git`` provider, which
  clones any public git address, for every other; a JupyterHub's nbgitpuller clones any address
  too. Binder's ``git`` provider reads ``<address, escaped>/<branch>`` and splits at the first
  slash, so the address must be escaped whole; the theme leaves its slashes as they are, and
  :func:`any_host_buttons` escapes them.

``tools/public_edition.py`` checks the address it writes with :func:`check_address`, and so does
the build, once for any address written in _config.yml by hand.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote, urlsplit

from sphinx.application import Sphinx
from sphinx.errors import ConfigError

HOME_BUTTONS = ("use_repository_button", "use_issues_button")
LAUNCH_URLS = ("binderhub_url", "jupyterhub_url", "colab_url", "jupyterlite_url")
KNOWN = ("github", "gitlab", "bitbucket")
"""The hosts sphinx-book-theme draws buttons for, by a word of the host's name (as the theme matches them)."""
WITH_ISSUES = ("github", "gitlab")
"""The hosts whose form for a new issue the theme knows."""
ANY_HOST = "bitbucket"
"""The theme's provider for an address on a host it does not know: a plain link, Binder's ``git``."""
GIT_ICON = "fab fa-git-alt"
"""Font Awesome's git logo (pydata-sphinx-theme ships the font): the button of any other host."""


def check_address(url: str) -> str:
    """``url`` as a repository's address (no trailing slash), or ValueError saying what is accepted.

    >>> check_address("https://git.example.edu/teaching/roofline/")
    'https://git.example.edu/teaching/roofline'
    >>> check_address("https://example.org")
    Traceback (most recent call last):
    ...
    ValueError: 'https://example.org' is not a repository's address: write it as http(s)://host/path, e.g. https://github.com/your-org/roofline-course
    """
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname or not parts.path.strip("/") \
            or parts.query or parts.fragment or " " in url.strip():
        raise ValueError(f"{url!r} is not a repository's address: write it as http(s)://host/path, "
                         "e.g. https://github.com/your-org/roofline-course")
    return url.strip().rstrip("/")


def host_kind(url: str) -> str | None:
    """The theme's name of the host of ``url`` (github, gitlab or bitbucket), or None for any other.

    >>> host_kind("https://github.com/org/x"), host_kind("https://gitlab.example.edu/x"), host_kind("https://codeberg.org/x")
    ('github', 'gitlab', None)
    """
    host = (urlsplit(url).hostname or "").lower()
    return next((kind for kind in KNOWN if kind in host), None)


def course_home(theme_options: dict[str, Any]) -> str:
    """The course's public home (``repository.url``), or ``""`` while it is unset; the buttons
    in ``theme_options`` set for it (the module's docstring says which).

    >>> options = {"repository_url": "", "launch_buttons": {"binderhub_url": "https://mybinder.org"}}
    >>> course_home(options), options["use_issues_button"], options["launch_buttons"]
    ('', False, {'binderhub_url': ''})
    >>> options = {"repository_url": "https://codeberg.org/org/course"}
    >>> course_home(options), options["use_repository_button"], options["use_issues_button"]
    ('https://codeberg.org/org/course', True, False)
    >>> options["repository_provider"]
    'bitbucket'
    """
    home = str(theme_options.get("repository_url") or "").strip()
    if not home:
        for button in HOME_BUTTONS:
            theme_options[button] = False
        launch = theme_options.get("launch_buttons") or {}
        theme_options["launch_buttons"] = {k: ("" if k in LAUNCH_URLS else v) for k, v in launch.items()}
        return ""
    try:
        home = check_address(home)
    except ValueError as error:
        raise ConfigError(f"repository.url in _config.yml: {error}") from None
    kind = host_kind(home)
    theme_options["repository_url"] = home
    theme_options["repository_provider"] = kind or ANY_HOST
    theme_options["use_repository_button"] = True
    theme_options["use_issues_button"] = kind in WITH_ISSUES
    return home


def any_host_buttons(buttons: list[dict[str, Any]], home: str) -> None:
    """The theme's header ``buttons`` made right for ``home``'s host: git's logo on the repository
    button of a host the theme does not know, and Binder's ``git`` provider given the whole
    address escaped.

    >>> home = "https://codeberg.org/org/course"
    >>> buttons = [{"type": "link", "url": home, "icon": "fab fa-bitbucket",
    ...             "label": "source-repository-button"},
    ...     {"type": "group", "label": "launch-buttons", "buttons": [{"text": "Binder",
    ...      "url": "https://mybinder.org/v2/git/https%3A//codeberg.org/org/course/main?urlpath=lab/tree/a.md"}]}]
    >>> any_host_buttons(buttons, home)
    >>> buttons[0]["icon"], buttons[1]["buttons"][0]["url"]
    ('fab fa-git-alt', 'https://mybinder.org/v2/git/https%3A%2F%2Fcodeberg.org%2Forg%2Fcourse/main?urlpath=lab/tree/a.md')
    """
    theirs, whole = f"/v2/git/{quote(home)}/", f"/v2/git/{quote(home, safe='')}/"
    for button in buttons:
        if button.get("label") in ("source-repository-button", "source-buttons") and host_kind(home) is None:
            button["icon"] = GIT_ICON
        url = button.get("url")
        if isinstance(url, str) and theirs in url:
            button["url"] = url.replace(theirs, whole, 1)
        if isinstance(button.get("buttons"), list):
            any_host_buttons(button["buttons"], home)


def _course_home(app: Sphinx, config: Any) -> None:
    if course_home(config.html_theme_options):
        app.tags.add("course_home")


def _any_host_buttons(
    app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any
) -> None:
    home = app.config.html_theme_options.get("repository_url")
    if home and isinstance(context.get("header_buttons"), list):
        any_host_buttons(context["header_buttons"], home)


def setup(app: Sphinx) -> None:
    app.connect("config-inited", _course_home)
    # after the theme's buttons (501), before roofline_book.launch points them at a translation (510)
    app.connect("html-page-context", _any_host_buttons, priority=505)
