"""Write the course's public edition: the repository as its readers and students get it.

This repository is the instructor's edition: it holds the model answers (``solutions/``, the
grading package in ``grading/`` with its answer key and the exercise folders' model answers), the
instructor's guide and the tools to grade. The public edition is written from it, to push as a
repository of its own and to publish as the site (book/instructor-guide.md, "Release"):

- the chapters and the site's sources (``book/``, its extension and static files, the Korean
  catalogs in ``locale/``, ``_config.yml`` and ``_toc.yml``, what ``make book`` runs: the shared
  ``Makefile``, ``tools/build_book.py`` and the few tools it needs, ``package.json``);
- ``rooflinekit/``, which holds no exercise's answer;
- the released exercises in both languages (``exercises/``);
- the student environment (``requirements.txt``, ``requirements.lock``, ``pyproject.toml``, the
  JupyterLab settings in ``jupyter-config/``, the README of its zip in ``student/``) and Binder's
  (``binder/``);
- a README for readers and students (``public/README.md`` here).

It never holds ``solutions/``, ``grading/``, ``instructor.mk``, ``nbgrader_config.py``, the
tests, the instructor's guide (its page: the site's readers are students, and its steps need
the instructor's edition), nor anything git does not track here (the grading secret, the
gradebook, submissions, builds and environments): only the files named in :data:`PUBLIC` that
git tracks are read, with the contents they have in the working tree. On the way:

- ``_config.yml`` gets the public repository's address (``repository.url``, ``--repository-url``;
  and ``repository.branch``), which turns on the site's repository, issues and launch buttons: an
  address on any host (``roofline_book.home`` says which buttons each host gets), refused at once
  when it is no repository's address (``http(s)://host/path``);
- ``_toc.yml`` and the Korean manifest lose the instructor's guide;
- ``pyproject.toml`` keeps what installs ``rooflinekit`` (``[build-system]``, ``[project]``,
  ``[tool.hatch]``) and loses the instructor's tool settings (tests, lint, the import contracts,
  which name the grading package's modules);
- a chapter's code cells tagged ``instructor-only`` (a hidden check of a sentence against the
  answer key, chapter 10) are left out; the sentence they check reads the same in both editions,
  and the Korean manifest records the shorter page as translated when the longer one was.

Before anything is written, every file is checked: none may name the answer key or the model
answers' module (:data:`FORBIDDEN_NAMES`); DEST must be a new or empty folder.

    python tools/public_edition.py DEST [--repository-url URL] [--branch BRANCH]

(``make public-edition DEST=... REPOSITORY_URL=...`` runs it.)

>>> strip_instructor_only("Text.\\n\\n```{code-cell} ipython3\\n:tags: [remove-cell, instructor-only]\\n"
...                       "from roofline_grading.answer_key import question\\n```\\n\\nMore.\\n")
'Text.\\n\\nMore.\\n'
>>> config = "repository:\\n  # its address\\n  url: \\"\\"\\n  branch: main\\n"
>>> set_repository(config, "https://x.org/r", "main")
'repository:\\n  # its address\\n  url: "https://x.org/r"\\n  branch: main\\n'
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "tools"), str(ROOT / "book" / "_ext")]
from chapter_translations import CODE_CELL  # noqa: E402  # a chapter's code cells, as the Korean chapters split them
from roofline_book.home import check_address  # noqa: E402  # the address the site's buttons lead to

from rooflinekit.languages import TRANSLATED  # noqa: E402

PUBLIC = (
    "book/",
    "exercises/",
    "rooflinekit/",
    "locale/",
    "binder/",
    "jupyter-config/",
    "tools/build_book.py",
    "tools/build_log.py",
    "tools/book_cache.py",
    "tools/vendor_assets.py",
    "tools/student_environment.py",
    "tools/chapter_translations.py",
    "tools/exercise_translations.py",
    "_config.yml",
    "_toc.yml",
    "Makefile",
    "pyproject.toml",
    "requirements.txt",
    "requirements.lock",
    "student/README.md",
    "package.json",
    "package-lock.json",
    ".gitignore",
)
"""What the public edition holds: these files and folders, as git tracks them here."""
INSTRUCTOR_GUIDE = "book/instructor-guide"
LEFT_OUT = (
    f"{INSTRUCTOR_GUIDE}.md",
    *(f"locale/{language}/LC_MESSAGES/{INSTRUCTOR_GUIDE}.po" for language in TRANSLATED),
    "jupyter-config/instructor/labconfig/page_config.json",  # make formgrader's (instructor.mk)
    "jupyter-config/instructor/jupyter_server_config.json",
)
"""Files under :data:`PUBLIC` that stay in the instructor's edition."""
README = "public/README.md"
"""The public edition's README.md."""
INSTRUCTOR_ONLY = "instructor-only"
"""The tag of a chapter's code cell that is built in the instructor's edition only."""
MANIFESTS = tuple(f"locale/{language}/pages.yml" for language in TRANSLATED)
"""Each translation's manifest (which pages are translated)."""
FORBIDDEN_NAMES = ("answer_key", "roofline_grading.reference", "roofline_grading.exercises")
"""Names no file of the public edition may hold: the grading package's answer key and model answers."""
FORBIDDEN_PATHS = ("solutions/", "grading/", "instructor.mk", ".grading-secret", "gradebook.db")


class EditionError(Exception):
    """Why the public edition cannot be written (the message says what to do)."""


@dataclass(frozen=True)
class Edition:
    """The public edition's files, in memory: path (relative, POSIX) -> bytes; and which of them
    are programs (``binder/postBuild``), written executable as git keeps them."""

    files: dict[str, bytes]
    programs: frozenset[str] = frozenset()

    def write(self, dest: Path) -> None:
        for name, data in sorted(self.files.items()):
            path = dest / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
            if name in self.programs:
                path.chmod(path.stat().st_mode | 0o111)


def tracked(root: Path) -> list[str]:
    """The files git tracks in ``root`` (present in the working tree)."""
    try:
        listed = subprocess.run(
            ["git", "-C", str(root), "ls-files", "-z"], capture_output=True, check=True
        ).stdout.decode()
    except (OSError, subprocess.CalledProcessError) as error:
        raise EditionError(f"{root} is not a git checkout (git ls-files failed: {error})") from error
    return sorted(name for name in listed.split("\0") if name and (root / name).is_file())


def selected(names: list[str]) -> list[str]:
    """The names the public edition holds, of ``names``."""
    return [
        name for name in names
        if any(name == p or (p.endswith("/") and name.startswith(p)) for p in PUBLIC) and name not in LEFT_OUT
    ]


def strip_instructor_only(source: str) -> str:
    """A MyST chapter without its code cells tagged ``instructor-only`` (each with the blank line
    after it); every other byte as it was. A cell's tags are read by jupytext, as myst-nb reads them."""
    import jupytext

    kept, end = [], 0
    for match in CODE_CELL.finditer(source):
        (cell,) = jupytext.reads(match.group(0), fmt="md:myst").cells
        if INSTRUCTOR_ONLY in cell.metadata.get("tags", []):
            kept.append(source[end : match.start()])
            end = match.end() + (2 if source.startswith("\n\n", match.end()) else 0)
    return "".join(kept) + source[end:]


def set_repository(config: str, url: str, branch: str) -> str:
    """``_config.yml`` with ``repository.url`` and ``repository.branch`` set, comments kept."""
    block = re.search(r"^repository:\n(?:(?:[ \t]+.*|[ \t]*)\n)*", config, re.MULTILINE)
    if block is None:
        raise EditionError("_config.yml has no repository: block for the public repository's address")
    text = block.group(0)
    text, urls = re.subn(r"^([ \t]+url:).*$", lambda m: f'{m.group(1)} "{url}"', text, flags=re.MULTILINE)
    text, branches = re.subn(r"^([ \t]+branch:).*$", lambda m: f"{m.group(1)} {branch}", text,
                             flags=re.MULTILINE)
    if (urls, branches) != (1, 1):
        raise EditionError("_config.yml's repository: block should have one url: and one branch: line")
    written = config[: block.start()] + text + config[block.end():]
    repository = yaml.safe_load(written)["repository"]
    assert (repository["url"], str(repository["branch"])) == (url, branch), repository
    return written


TABLE = re.compile(r"^\[\[?([A-Za-z0-9_.\-]+)\]\]?[ \t]*(?:#.*)?$", re.MULTILINE)
KEPT_TABLES = ("build-system", "project", "tool.hatch")
"""The tables of ``pyproject.toml`` the public edition keeps (with their sub-tables): what
``pip install`` reads."""


def installing_tables(pyproject: str) -> str:
    r"""``pyproject.toml`` with only :data:`KEPT_TABLES`; a table's comment lines just above its
    header go with it. What pip reads is unchanged (checked: the kept tables parse the same).

    >>> text = "[project]\nname = 'x'\n\n# lint\n[tool.ruff]\nline-length = 9\n\n[tool.hatch.x]\ny = 1\n"
    >>> print(installing_tables(text))
    [project]
    name = 'x'
    <BLANKLINE>
    [tool.hatch.x]
    y = 1
    <BLANKLINE>
    """
    lines = pyproject.splitlines(keepends=True)
    starts = [0]
    for number, line in enumerate(lines):
        if TABLE.match(line.rstrip("\n")):
            start = number
            while start > starts[-1] and lines[start - 1].startswith("#"):
                start -= 1
            starts.append(start)
    chunks = ["".join(lines[a:b]) for a, b in zip(starts, [*starts[1:], len(lines)], strict=True)]
    kept = [chunks[0]] + [chunk for chunk in chunks[1:] if _kept(_table_name(chunk))]
    written = "".join(kept)
    if _installing(tomllib.loads(written)) != _installing(tomllib.loads(pyproject)):
        raise EditionError("pyproject.toml: the tables pip reads changed when the others went; keep each "
                           "table's comments just above its header")
    return written


def _installing(data: dict[str, Any]) -> dict[str, Any]:
    tool = data.get("tool", {})
    return {"build-system": data.get("build-system"), "project": data.get("project"),
            "tool": {"hatch": tool["hatch"]} if "hatch" in tool else {}}


def _kept(table: str) -> bool:
    return any(table == name or table.startswith(f"{name}.") for name in KEPT_TABLES)


def _table_name(chunk: str) -> str:
    match = TABLE.search(chunk)
    assert match is not None, chunk
    return match.group(1)


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def build(root: Path, repository_url: str = "", branch: str = "main") -> Edition:
    """The public edition of the instructor's edition in ``root``, checked, in memory."""
    names = selected(tracked(root))
    files = {name: (root / name).read_bytes() for name in names}
    files["README.md"] = (root / README).read_bytes()
    files["pyproject.toml"] = installing_tables(files["pyproject.toml"].decode()).encode()
    if repository_url:
        files["_config.yml"] = set_repository(files["_config.yml"].decode(), repository_url, branch).encode()
    toc = files["_toc.yml"].decode()
    entry = f"      - file: {INSTRUCTOR_GUIDE}\n"
    if toc.count(entry) != 1:
        raise EditionError(f"_toc.yml should list {INSTRUCTOR_GUIDE} once, as {entry.strip()!r}")
    files["_toc.yml"] = toc.replace(entry, "").encode()

    rewritten = {}
    for name in [n for n in names if n.startswith("book/") and n.endswith(".md")]:
        source = files[name].decode()
        if INSTRUCTOR_ONLY in source:
            public = strip_instructor_only(source)
            if INSTRUCTOR_ONLY in public:
                raise EditionError(
                    f"{name}: {INSTRUCTOR_ONLY!r} is left after its tagged code cells went: only code cells "
                    "may be built in the instructor's edition alone (tag the cell, as chapter 10 does)"
                )
            files[name] = public.encode()
            rewritten[name.removesuffix(".md")] = (_sha256(source.encode()), _sha256(public.encode()))
    for manifest in (m for m in MANIFESTS if m in files):
        files[manifest] = _manifest(files[manifest].decode(), rewritten).encode()
    _check(files)
    programs = frozenset(name for name in files if os.access(root / name, os.X_OK))
    return Edition(files, programs)


def _manifest(text: str, rewritten: dict[str, tuple[str, str]]) -> str:
    """A translation's manifest without the instructor's guide; a page the edition rewrote is recorded
    as translated from its public source when the instructor's was translated from its source."""
    lines = []
    for line in text.splitlines(keepends=True):
        page = line.split(":", 1)[0]
        if page == INSTRUCTOR_GUIDE:
            continue
        if page in rewritten:
            old, new = rewritten[page]
            line = line.replace(f"{{translated: {old}}}", f"{{translated: {new}}}")
        lines.append(line)
    return "".join(lines)


def _check(files: dict[str, bytes]) -> None:
    """Refuse an edition that would hold a forbidden path or name, naming every one."""
    found = [f"{name}: an instructor's file" for name in files if name.startswith(FORBIDDEN_PATHS)]
    for name, data in sorted(files.items()):
        text = data.decode("utf-8", errors="ignore")
        named = [word for word in FORBIDDEN_NAMES if re.search(rf"\b{re.escape(word)}\b", text)]
        found += [f"{name}: names {word}" for word in named]
    if found:
        raise EditionError(
            "the public edition would hold the instructor's material; nothing was written:\n  "
            + "\n  ".join(found)
            + f"\n(a chapter's code cell that needs the answer key is tagged {INSTRUCTOR_ONLY!r})"
        )


def check_destination(dest: Path) -> None:
    """DEST must be a new folder or an empty one."""
    if dest.exists() and not dest.is_dir():
        raise EditionError(f"{dest} is a file; name a new or empty folder to write the public edition into")
    if dest.is_dir() and any(dest.iterdir()):
        raise EditionError(
            f"{dest} is not empty; the public edition is written into a new or empty folder (to update a "
            "clone of the public repository, write it elsewhere and copy it over the clone's files)"
        )
    if dest.resolve().is_relative_to(ROOT.resolve()):
        raise EditionError(f"{dest} is inside the instructor's repository: write the edition elsewhere")


def _address(url: str) -> str:
    """The public repository's address on any host (the site's buttons lead there), or ``""``."""
    try:
        return check_address(url) if url else ""
    except ValueError as error:
        raise EditionError(f"REPOSITORY_URL {error}") from None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dest", type=Path, help="a new or empty folder")
    parser.add_argument("--repository-url", default="",
                        help="the public repository's address, e.g. https://github.com/your-org/roofline-course")
    parser.add_argument("--branch", default="main", help="the public repository's branch (default: main)")
    args = parser.parse_args(argv)
    try:
        address = _address(args.repository_url)
        check_destination(args.dest)
        edition = build(ROOT, address, args.branch)
    except EditionError as error:
        print(f"public-edition: {error}", file=sys.stderr)
        return 2
    args.dest.mkdir(parents=True, exist_ok=True)
    edition.write(args.dest)
    print(f"public-edition: {len(edition.files)} files written to {args.dest}")
    if not args.repository_url:
        print("public-edition: no repository address given (REPOSITORY_URL=...): the site will show no "
              "repository, issues or launch button")
    print(f"next: cd {args.dest} && git init -b {args.branch} && git add -A && git commit -m 'Public "
          "edition', then push it to the public repository; `make book` there builds the site to publish")
    return 0


if __name__ == "__main__":
    sys.exit(main())
